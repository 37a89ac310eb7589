"""Which leaf each access port that ends at no node lands on: switch management, `endpoints.extra`, `reserved`.

A switch's management port stands where its switch does, so it is cabled as an installer would: to the nearest
leaf with a free down port (in its own rack first, then by the Manhattan distance along the trays from rack to rack,
the geometry of `archgen.analyse.cabling`), rack instance by rack instance in floor order. Ports stated only as a
count (`endpoints.extra`, `reserved`) have no rack: they take the free down ports left, leaf by leaf, and past those
go round the leaves (more than the leaves hold is NET009).

Before, every such port took the free ports leaf by leaf in order, whatever stood where: a 65-SU GB300 hall's spine
row sent 4,276 switch management ports to SN2201s in SUs 5 to 10, runs of up to 229 m (CAB001 on Cat6a), though
the last SU's management switches stand a few rows away with ports free. The cabling's runs and the port map read
the one assignment made here.
"""

from __future__ import annotations

import numpy as np

from archgen.build import ClusterDesign


def rack_xy(cluster: ClusterDesign) -> tuple[np.ndarray, np.ndarray]:
    """Floor position (m) of every rack instance: column x rack pitch, row x row pitch.

    On a floor of several halls (`floor.halls`) the position is on the site plan: the rack's hall's origin (`x`,
    `y`) plus its column and its row within that hall, so a run between halls spans the distance between them.
    """
    f = cluster.spec.floor
    pitch, row = f.rack_pitch.m_as("m"), f.row_pitch.m_as("m")
    x = np.array([i.col * pitch for i in cluster.instances], dtype=float)
    if not f.halls:
        return x, np.array([i.row * row for i in cluster.instances], dtype=float)
    hx = np.array([h.x.m_as("m") for h in f.halls], dtype=float)
    hy = np.array([h.y.m_as("m") for h in f.halls], dtype=float)
    hall = np.array([i.hall for i in cluster.instances], dtype=np.int64)
    local = np.array([i.row if i.hall_row is None else i.hall_row for i in cluster.instances], dtype=float)
    return x + hx[hall], local * row + hy[hall]


def rack_halls(cluster: ClusterDesign) -> np.ndarray:
    """Index in `floor.halls` of every rack instance's hall (all 0 on a floor of one hall)."""
    return np.array([i.hall for i in cluster.instances], dtype=np.int64)


def exit_runs(cluster: ClusterDesign, a_rack: np.ndarray, b_rack: np.ndarray) -> np.ndarray:
    """Length (m) runs between racks take beyond the site plan: each hall's `exit_run` where the run leaves it."""
    halls = cluster.spec.floor.halls
    if not halls or not len(a_rack):
        return np.zeros(len(a_rack), dtype=float)
    out = np.array([h.exit_run.m_as("m") for h in halls], dtype=float)
    hall = rack_halls(cluster)
    ha, hb = hall[a_rack], hall[b_rack]
    return np.where(ha != hb, out[ha] + out[hb], 0.0)


def other_port_leaves(cluster: ClusterDesign, node_leaves: np.ndarray, leaf_at: np.ndarray, down: int,
                      at: np.ndarray, planes: int = 1) -> np.ndarray:
    """The leaf (index over all planes) of each access port ending at no node, in `placement.other_ends` order.

    Args:
        cluster: the cluster, for the racks' floor positions.
        node_leaves: the leaf (over all planes) of every node port; they hold their down ports first.
        leaf_at: (rack instance, U) of every leaf, (-1, -1) for one placed in no rack.
        down: down ports per leaf.
        at: (rack instance, U) of each port ending at no node, (-1, -1) where it stands is not stated.
        planes: the fabric's planes, whose leaves `leaf_at` lists plane by plane. Ports stated as a count go round
            the planes (the k-th to plane k mod P), as each plane's leaves are sized for ⌈n / P⌉ of them; before
            (nu54fix) they took plane A's free ports first, all 4 of 3 reserved + 1 extra on 2 planes.
    """
    n_leaves, extra = len(leaf_at), len(at)
    out = np.full(extra, -1, dtype=np.int64)
    if not extra or not n_leaves:
        return np.zeros(extra, dtype=np.int64)
    used = np.bincount(node_leaves, minlength=n_leaves)[:n_leaves] if len(node_leaves) else np.zeros(n_leaves, int)
    free = np.maximum(down - used, 0).astype(np.int64)
    leaf_rack = leaf_at[:, 0]
    known = np.flatnonzero(at[:, 0] >= 0)
    if len(known) and (leaf_rack >= 0).any():
        x, y = rack_xy(cluster)
        lx, ly = x[np.maximum(leaf_rack, 0)], y[np.maximum(leaf_rack, 0)]
        racks, first = np.unique(at[known, 0], return_index=True)
        for r in racks[np.argsort(first)].tolist():      # rack instances in the order their ports come
            ports = known[at[known, 0] == r]
            dist = np.where(leaf_rack == r, -1.0, np.abs(lx - x[r]) + np.abs(ly - y[r]))
            dist[(leaf_rack < 0) | (free <= 0)] = np.inf
            order = np.argsort(dist, kind="stable")
            order = order[np.isfinite(dist[order])]
            k = int(np.searchsorted(np.cumsum(free[order]), len(ports))) + 1
            slots = np.repeat(order[:k], free[order[:k]])[:len(ports)]
            out[ports[:len(slots)]] = slots
            free -= np.bincount(slots, minlength=n_leaves)[:n_leaves]
    rest = np.flatnonzero(out < 0)      # stated as a count (or no leaf left near): the free ports left, in order
    slots = np.repeat(np.arange(n_leaves), free)
    if planes > 1 and len(slots):   # round the planes: each slot ranked within its plane, then by plane
        plane = slots // max(n_leaves // planes, 1)
        rank = np.arange(len(slots)) - np.searchsorted(plane, plane)
        slots = slots[np.lexsort((plane, rank))]
    fill = slots[:len(rest)]
    out[rest[:len(fill)]] = fill
    out[rest[len(fill):]] = np.arange(len(rest) - len(fill)) % n_leaves
    return out
