"""Where a fat tree's (or rail-only fabric's) switches stand and which leaf each node port lands on, with numpy.

Switches of a tier fill the free slots of their part in the racks its `rack` names, in floor order (rail leaves of
unit instance g in g's own racks, every plane; other leaves beside the node ports they serve: in the rack of their
first node port, else in its unit instance, where those hold a free slot); node ports map to leaves by rail
(rail-optimized groups) or in order. `archgen.analyse.cabling` turns both into cable runs.
"""

from __future__ import annotations

import math

import numpy as np

from archgen.analyse.network import FabricAnalysis, Problem, count
from archgen.analyse.other_ports import rack_xy
from archgen.analyse.rack_ports import part_ports
from archgen.analyse.rail_layout import rail_access_ports
from archgen.build import ClusterDesign
from archgen.model import Switch, System
from archgen.model.fabrics import FatTree


def rack_slots(cluster: ClusterDesign, rack_id: str | None, switch: Switch | None) -> list[tuple[int, int]]:
    """(rack instance index, U) of every slot holding `switch` in racks of type `rack_id`, in floor order."""
    if rack_id is None or switch is None:
        return []
    us = [p.u for p in cluster.rack_types[rack_id].items if p.part.id == switch.id] if rack_id in \
        cluster.rack_types else []
    return [(i, u) for i, inst in enumerate(cluster.instances) if inst.rack.spec.id == rack_id for u in us]


def _fat_tree(fa: FabricAnalysis) -> FatTree:
    """A fabric's spec: this module places fat trees only (`analyse.cabling` wires no other topology)."""
    spec = fa.fabric.spec
    assert isinstance(spec, FatTree), f"{fa.fabric.path} is a {spec.topology} fabric, not a fat tree"
    return spec


#: Slots of one switch part in one rack type already handed out, by the tier that took them ("compute spine").
Taken = dict[tuple[str, str], dict[str, set[tuple[int, int]]]]


def place_switches(cluster: ClusterDesign, fa: FabricAnalysis, problems: list[Problem],
                    taken: Taken) -> dict[str, np.ndarray]:
    """(rack instance, U) per switch of each tier, planes one after the other; (-1, -1) for a switch without a slot.

    Slots are handed out in fabric and tier order, and each tier takes only the slots no earlier tier took, so two
    fabrics (or two tiers of one) placing the same switch in the same rack type share its slots instead of both
    claiming the same ones. A switch the racks cannot hold (NET012, which names the tiers that took the others)
    stands in no rack: its runs get the floor's longest length and its optics count in no rack's budgets, rather
    than piling onto the last slot.
    """
    out: dict[str, np.ndarray] = {}
    spec = fa.fabric.spec          # a fat tree or a rail-only fabric (`analyse.rail_layout`)
    for t in fa.tiers:
        total = t.switches * fa.planes
        rack_id = spec.rack_of(t.name)
        slots = rack_slots(cluster, rack_id, t.switch)
        key = (rack_id or "", t.switch.id if t.switch else "")
        owners = taken.setdefault(key, {})
        used = set().union(*owners.values()) if owners else set()
        free = [s for s in slots if s not in used]
        grouped = t.name == "leaf" and bool(fa.leaves_per_group) and getattr(spec, "rail_optimized", False)
        if rack_id is not None and len(free) < total and not grouped:
            by = "; ".join(f"{len(v)} by {k}" for k, v in owners.items() if v)
            problems.append(Problem("NET012", fa.fabric.owner_path + (t.name, "rack"),
                                    f"{fa.fabric.path}: {t.name} needs {total} x {key[1] or '?'}; the '{rack_id}' "
                                    f"racks hold {len(slots)}" + (f", {len(used)} already taken ({by})" if by else ""),
                                    count(total), count(len(free))))
        arr = np.array(free, dtype=np.int64).reshape(-1, 2)
        if grouped:
            out[t.name] = _group_leaf_slots(cluster, fa, arr, t.switches, problems)
        elif t.name == "leaf" and rack_id is not None:
            out[t.name] = _at_slots(arr, _near_nodes(cluster, fa, arr, t.switches))
        else:
            out[t.name] = _at_slots(arr, _slot_order(fa, t.name, t.switches))
        owners[f"{fa.fabric.spec.id} {t.name}"] = {(int(r), int(u)) for r, u in out[t.name].tolist() if r >= 0}
    return out


def _near_nodes(cluster: ClusterDesign, fa: FabricAnalysis, arr: np.ndarray, per_plane: int) -> np.ndarray:
    """Slot index in `arr` of each leaf outside rail groups (planes one after the other): beside its node ports.

    A leaf takes a free slot in the rack holding most of the node ports it serves, else in the unit instance
    holding most of them (an SU's network rack), else the free slot nearest that rack (a rail-only leaf whose
    domains span several SUs, once its own SU's slots are taken); leaves without node ports (spares, or leaves of
    switch management or stated ports only) spread evenly over the free slots left, in floor order, where fewer
    than those: the ports they take are cabled to the nearest leaf with a free port (`analyse.other_ports`), and
    ports stated as a count (a rack's BMCs) stand where no spec says, so no part of the floor is left without one.
    Before, they took the first free slots: a 65-SU hall's 832 OOB leaves filled SUs 1-52's 1,040 slots, and SUs
    53-65 had none (management runs up to 86.6 m).
    Before, every such leaf filled the slots in floor order whatever it served, so an SU's storage leaves could
    stand in another SU's network rack, rows away from its nodes.
    """
    total = per_plane * fa.planes
    if not total:
        return np.zeros(0, dtype=np.int64)
    racks, _, planes, leaves = (rail_access_ports if fa.topology == "rail-only" else access_ports)(cluster, fa)
    keys = sorted({(i.unit, i.unit_index) for i in cluster.instances if i.unit})
    at = {k: n for n, k in enumerate(keys)}   # a unit's place looked up, not searched for per rack (issue 25)
    uid = np.array([at[(i.unit, i.unit_index)] if i.unit else -1 for i in cluster.instances] or [-1],
                   dtype=np.int64)
    want_rack = np.full(total, -1, dtype=np.int64)
    want_unit = np.full(total, -1, dtype=np.int64)
    if len(racks):
        sw = planes * per_plane + np.minimum(leaves, max(per_plane - 1, 0))
        unit = _mode(sw, uid[racks], len(keys) + 1, total)
        want_unit[:] = unit
        mine = uid[racks] == unit[np.minimum(sw, total - 1)]
        want_rack[:] = _mode(sw[mine], racks[mine], len(cluster.instances), total)
    by_rack: dict[int, list[int]] = {}
    by_unit: dict[int, list[int]] = {}
    for j, r in enumerate(arr[:, 0].tolist()):
        by_rack.setdefault(r, []).append(j)
        by_unit.setdefault(int(uid[r]), []).append(j)
    chosen = np.full(total, -1, dtype=np.int64)
    taken: set[int] = set()
    for want, pools in ((want_rack, by_rack), (want_unit, by_unit)):
        for s in np.flatnonzero((chosen < 0) & (want >= 0)).tolist():
            pool = pools.get(int(want[s]), [])
            while pool and pool[0] in taken:
                pool.pop(0)
            if pool:
                chosen[s] = pool.pop(0)
                taken.add(int(chosen[s]))
    left = np.flatnonzero((chosen < 0) & (want_rack >= 0))
    if len(left) and len(arr) > len(taken):   # its rack and unit are full: the free slot nearest its rack
        x, y = rack_xy(cluster)
        free = np.ones(len(arr), dtype=bool)
        free[list(taken)] = False
        sx, sy = x[arr[:, 0]], y[arr[:, 0]]
        for s in left.tolist():
            if not free.any():
                break
            d = np.where(free, np.abs(sx - x[want_rack[s]]) + np.abs(sy - y[want_rack[s]]), np.inf)
            chosen[s] = j = int(np.argmin(d))
            free[j] = False
            taken.add(j)
    rest = [j for j in range(len(arr)) if j not in taken]
    need = np.flatnonzero(chosen < 0)
    if 0 < len(need) < len(rest):   # spread over the free slots, so no part of the floor is left without a leaf
        rest = [rest[k * len(rest) // len(need)] for k in range(len(need))]
    for s, j in zip(need.tolist(), (rest + [len(arr)] * len(need))[:len(need)], strict=True):
        chosen[s] = j                        # past the slots: no rack (NET012)
    return chosen


def _mode(sw: np.ndarray, value: np.ndarray, span: int, total: int) -> np.ndarray:
    """Per switch 0 .. total - 1, the value (>= 0) most of its ports have (the lowest on a tie); -1 for none."""
    out = np.full(total, -1, dtype=np.int64)
    ok = (value >= 0) & (sw < total)
    if not ok.any():
        return out
    uniq, n = np.unique(sw[ok] * (span + 1) + value[ok], return_counts=True)
    s, v = np.divmod(uniq, span + 1)
    order = np.lexsort((v, -n, s))
    first = np.unique(s[order], return_index=True)[1]
    out[s[order][first]] = v[order][first]
    return out


def unplaced(fa: FabricAnalysis, placed: dict[str, np.ndarray]) -> list[tuple[str, str, str, int]]:
    """(fabric id, tier, switch id, count) of each tier's switches that `place_switches` put in no rack.

    Per placement, as the cabling sees them (CAB004: their runs take the floor's longest length), not per switch
    part over the cluster: a tier's switches its own racks do not hold stand in no rack even where another tier's
    racks have slots of the same part left over.
    """
    out = []
    for t in fa.tiers:
        at = placed.get(t.name)
        if at is not None and t.switch is not None and (n := int((at[:, 0] < 0).sum())):
            out.append((fa.fabric.spec.id, t.name, t.switch.id, n))
    return out


def _at_slots(arr: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The (rack instance, U) of slot `idx` of `arr` per switch; (-1, -1) where idx is past the slots or negative."""
    out = np.full((len(idx), 2), -1, dtype=np.int64)
    fits = (idx >= 0) & (idx < len(arr))
    out[fits] = arr[idx[fits]]
    return out


def _group_keys(cluster: ClusterDesign, fa: FabricAnalysis) -> list[tuple[str, int]]:
    """Unit instances holding nodes of this fabric, in floor order (the group ordinal of `access_ports`)."""
    keys: list[tuple[str, int]] = []
    for inst in cluster.instances:
        key = (inst.unit, inst.unit_index)
        if inst.unit and (not keys or keys[-1] != key) and key not in keys and any(
                isinstance(p.part, System) and fa.ports_per_node.get(p.part.id) for p in inst.rack.items):
            keys.append(key)
    return keys


def _group_leaf_slots(cluster: ClusterDesign, fa: FabricAnalysis, arr: np.ndarray, per_plane: int,
                      problems: list[Problem]) -> np.ndarray:
    """Rail leaves of group g (every plane) take the slots in unit instance g's own racks; the rest follow.

    A leaf without a slot (its unit's racks are full, or no slot is left for a leaf outside the groups) stands in
    no rack, (-1, -1), and NET012 says so.
    """
    unit_of = [(i.unit, i.unit_index) for i in cluster.instances]
    pools: dict[tuple[str, int], list[int]] = {}
    for j, (rack, _) in enumerate(arr.tolist()):
        pools.setdefault(unit_of[rack], []).append(j)
    keys = _group_keys(cluster, fa)
    order = _slot_order(fa, "leaf", per_plane)        # position of each switch in the group-major sequence
    need = fa.leaves_per_group * fa.planes
    chosen = np.zeros(len(order), dtype=np.int64)
    used: set[int] = set()
    short = 0
    seq_to_slot: list[int] = []
    for key in keys:
        pool = pools.get(key, [])
        short += max(need - len(pool), 0)
        seq_to_slot += (pool + [-1] * need)[:need]      # a leaf its unit's racks cannot hold stands in none
        used.update(pool[:need])
    free = [j for j in range(len(arr)) if j not in used]
    extra = len(order) - len(seq_to_slot)
    seq_to_slot += (free + [-1] * max(extra, 0))[:max(extra, 0)]
    seq = np.array(seq_to_slot + [-1], dtype=np.int64)   # past the sequence: no slot
    chosen[:] = seq[np.minimum(order, len(seq) - 1)]
    if short:
        problems.append(Problem("NET012", fa.fabric.owner_path + ("leaf", "rack"),
                                f"{fa.fabric.path}: {short} rail leaves do not fit in their own unit's racks",
                                count(short), count(0)))
    if extra > len(free):  # leaves outside the groups (other endpoints, spares of a fixed leaf.count)
        problems.append(Problem("NET012", fa.fabric.owner_path + ("leaf", "rack"),
                                f"{fa.fabric.path}: {extra} leaves outside the rail groups need a slot; the "
                                f"'{_fat_tree(fa).leaf.rack}' racks have {len(free)} left", count(extra),
                                count(len(free))))
    return _at_slots(arr, chosen)


def _slot_order(fa: FabricAnalysis, tier: str, per_plane: int) -> np.ndarray:
    """Slot index of switch (plane p, index i) stored at p·per_plane + i.

    Rail leaves of one group are kept together across planes (group g's leaves of every plane take the g-th run
    of slots), so each SU's leaves of all planes land in that SU's network racks; other switches fill in order.
    """
    planes = fa.planes
    idx = np.arange(per_plane * planes)
    if tier != "leaf" or not fa.leaves_per_group or planes == 1:
        return idx
    p, i = np.divmod(idx, per_plane)
    grouped = fa.groups * fa.leaves_per_group
    g, r = np.divmod(i, fa.leaves_per_group)
    in_group = g * fa.leaves_per_group * planes + p * fa.leaves_per_group + r
    rest = grouped * planes + p * max(per_plane - grouped, 0) + (i - grouped)
    return np.where(i < grouped, in_group, rest)


def _rank_within(keys: np.ndarray) -> np.ndarray:
    """For each position, how many earlier positions hold the same key (a per-key running count)."""
    if not len(keys):
        return keys
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_keys)) + 1]
    first = np.repeat(starts, np.diff(np.r_[starts, len(keys)]))
    rank = np.empty_like(keys)
    rank[order] = np.arange(len(keys)) - first
    return rank


def access_ports(cluster: ClusterDesign, fa: FabricAnalysis) -> tuple[np.ndarray, ...]:
    """Per node port of this fabric: rack instance, U, plane, leaf index within the plane.

    Vectorised over nodes and ports (a million-port fabric costs array operations, not a Python loop per port):
    nodes in floor order, each with its unit instance's ordinal g and its index inside that instance; port p of a
    node is port q = (index mod nodes per domain)·ppn + p of its scale-up domain. Rail-optimized ports in a group go
    to rail r = q mod R, and rail r to leaf r mod L of the group's L leaves (rails r, r + L, ... share a leaf), so a
    node's ports reach different leaves where L allows: "a GPU node with multiple interfaces will put each GPU rail
    (IB network interface) onto a different first level (LEAF) switch" (NVIDIA, InfiniBand Cluster Bring-up
    Procedure v1.0, "Setting the InfiniBand Cluster Topology"). Other ports fill the leaves after the groups in
    order, per plane.
    """
    spec = _fat_tree(fa)
    leaf = fa.tier("leaf")
    down = max(leaf.down if leaf else 1, 1)
    per_domain_rack = cluster.spec.scale_up is not None and cluster.spec.scale_up.domain == "rack"
    kinds: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for rid, rack in cluster.rack_types.items():
        items = [(item.u, fa.ports_per_node.get(item.part.id, 0)) for item in rack.items
                 if isinstance(item.part, System) and fa.ports_per_node.get(item.part.id, 0)]
        kinds[rid] = (np.array([u for u, _ in items], dtype=np.int64), np.array([n for _, n in items], dtype=np.int64))
    # unit instances number the rail groups 0, 1, ...; racks in no unit take keys of their own below 0, so a rack
    # placed before the units does not shift every group's leaves by one group (newuser91: its ports and the last
    # group's shared a leaf, and a leaf index past the plane's was cabled)
    ordinal: dict[tuple[str, int], int] = {}
    loose: dict[tuple[str, int], int] = {}
    inst_rack, inst_key, inst_grouped, counts = [], [], [], []
    for ri, inst in enumerate(cluster.instances):
        n = len(kinds[inst.rack.spec.id][0])
        if not n:
            continue
        inst_rack.append(ri)
        key = (inst.unit, inst.unit_index)
        inst_key.append(ordinal.setdefault(key, len(ordinal)) if inst.unit else -1 - loose.setdefault(key, len(loose)))
        inst_grouped.append(bool(inst.unit))
        counts.append(n)
    if not counts:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    counts_a = np.array(counts, dtype=np.int64)
    node_rack = np.repeat(np.array(inst_rack, dtype=np.int64), counts_a)
    node_key = np.repeat(np.array(inst_key, dtype=np.int64), counts_a)
    node_grouped = np.repeat(np.array(inst_grouped, dtype=bool), counts_a)
    node_u = np.concatenate([kinds[cluster.instances[ri].rack.spec.id][0] for ri in inst_rack])
    node_ppn = np.concatenate([kinds[cluster.instances[ri].rack.spec.id][1] for ri in inst_rack])
    node_index = _rank_within(node_key)
    per_domain = np.maximum(1, (fa.rails * fa.planes) // node_ppn) if per_domain_rack else np.ones_like(node_ppn)
    dj, within = np.divmod(node_index, per_domain)
    # ports: each node repeated ppn times, p = 0 .. ppn - 1
    rep = np.repeat(np.arange(len(node_ppn)), node_ppn)
    p = np.arange(len(rep)) - np.repeat(np.cumsum(node_ppn) - node_ppn, node_ppn)
    ppn, q = node_ppn[rep], within[rep] * node_ppn[rep] + p
    rails = max(fa.rails, 1)
    plane = np.minimum(q // rails, fa.planes - 1) if spec.rail_optimized else p * fa.planes // ppn
    grouped = node_grouped[rep] & bool(getattr(spec, "rail_optimized", False) and fa.group_domains > 0)
    g = node_key[rep]
    if fa.group_domains <= down:
        # rail r of the group lands on leaf r mod (leaves per group): a leaf carries rails r, r + L, r + 2L, ...,
        # so the consecutive rails of one node (a GB200 tray's four ports) reach different leaves
        lf_group = g * fa.leaves_per_group + (q % rails) % max(fa.leaves_per_group, 1)
    else:
        lpr = math.ceil(fa.group_domains / down)
        lf_group = g * fa.leaves_per_group + (q % rails) * lpr + dj[rep] // down
    base = fa.groups * fa.leaves_per_group
    rest = np.zeros(len(rep), dtype=np.int64)
    if (~grouped).any():   # the ungrouped ports of each plane: the leaves after the groups', then their free ports
        rest[~grouped] = _loose_leaves(plane[~grouped], _rank_within(plane[~grouped]), plane[grouped],
                                      lf_group[grouped], base, leaf.switches if leaf else 0, down)
    leaves = np.where(grouped, lf_group, rest)
    return node_rack[rep], node_u[rep], plane, leaves


def _loose_leaves(plane: np.ndarray, rank: np.ndarray, g_plane: np.ndarray, g_leaf: np.ndarray, base: int,
                 leaves: int, down: int) -> np.ndarray:
    """The leaf (within its plane) of each node port in no rail group, the `rank`-th of its `plane`.

    They fill the plane's leaves after the groups' `base`, in order, then the down ports the groups' ports (on
    `g_leaf` of `g_plane`) leave free on theirs, leaf by leaf: leaves sized by the ports (3:1 rail leaves of 48 down
    holding a group's 32) may have none after the groups', and a loose rack's ports were cabled to a leaf past the
    plane's, on its uplink ports (review54). Past every free port, the old order (base + rank // down).
    """
    out = base + rank // down
    order = np.r_[np.arange(base, leaves), np.arange(min(base, leaves))]
    for k in sorted(set(plane.tolist())):   # not np.unique, which imports numpy.ma (14 ms of `check`)
        used = np.bincount(g_leaf[g_plane == k], minlength=leaves)[:leaves]
        ends = np.cumsum(np.maximum(down - used, 0)[order])
        mine = np.flatnonzero(plane == k)
        slot = np.searchsorted(ends, rank[mine], side="right")
        ok = slot < len(order)
        out[mine[ok]] = order[slot[ok]]
    return out


def device_ends(cluster: ClusterDesign, ends: object) -> list[tuple[int, int, str, str]]:
    """(rack instance, U, part kind, port name) of each management port of a part in the racks that `ends` takes.

    Rack instance by instance, bottom U first, each part's `management_ports` in turn (`analyse.rack_ports`): a
    GB200 NVLink switch tray's three, a power shelf's one where `endpoints.power` takes them.
    """
    out, racks = [], dict[int, list[tuple[int, str, str]]]()  # a rack design's (U, kind, port) once: by its id
    for i, inst in enumerate(cluster.instances):
        ports = racks.get(id(inst.rack))
        if ports is None:
            ports = racks[id(inst.rack)] = [(item.u, item.part.kind, "mgmt" if n == 1 else f"mgmt{k + 1}")
                                            for item in sorted(inst.rack.items, key=lambda p: p.u)
                                            for n in (part_ports(item.part, ends),) for k in range(n)]
        out += [(i, u, kind, port) for u, kind, port in ports]
    return out


def other_ends(cluster: ClusterDesign, fa: FabricAnalysis, extra: int) -> np.ndarray:
    """(rack instance, U) of each of `extra` access ports ending at no node; (-1, -1) where it stands is not known.

    In the order `analyse.portmap` names them: the management ports of the parts in the cluster's racks first
    (where the fabric takes them, `endpoints.switches` and `endpoints.power`: `device_ends`), then the compute
    nodes' management ports (`endpoints.node_management`) where each node stands, likewise, then `endpoints.extra`
    and `reserved` ports, which the spec states only as counts: no rack, so their runs take the floor's longest
    length (`analyse.cabling.floor_span`). Which leaf each lands on is `analyse.other_ports.other_port_leaves`'s.
    """
    out = np.full((max(extra, 0), 2), -1, dtype=np.int64)
    ends = _fat_tree(fa).endpoints
    switch_ports = max(fa.endpoint_ports - fa.node_ports - ends.extra - fa.node_mgmt_ports, 0)
    items = [(i, item) for i, inst in enumerate(cluster.instances)
             for item in sorted(inst.rack.items, key=lambda p: p.u)]
    switches = [(i, u) for i, u, _, _ in device_ends(cluster, ends)]
    nodes = [(i, item.u) for i, item in items if isinstance(item.part, System) and item.part.accelerators
             for _ in range(ends.node_management)]
    for slots, first, k in ((switches, 0, switch_ports),
                            (nodes, switch_ports, fa.node_mgmt_ports)):   # then the nodes' management ports
        n = min(len(slots), max(len(out) - first, 0), k)
        if n:
            out[first:first + n] = np.array(slots[:n], dtype=np.int64)
    return out
