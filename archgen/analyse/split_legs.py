"""The legs of split cables: which links one cable carries, to which far ends, and the row that counts it.

A cable split at its far end (`link_ends.fans_out`: a part's `links_per_cable` above 1, or a module whose one
connector serves several links) carries k links from one cage to k far ports:

* access tier: a node's NIC cage to its planes' leaves, its legs the cage's ports (`link_ends.nic_cages`);
* access tier, a cable split at the leaf (`link_ends.leaf_split`: a copper splitter, NVIDIA's MCP7Y00 with one
  twin-port 800G end in the leaf's cage and two 400G legs, or a twin-port SR8's connector on a 1:2 splitter fibre at
  200G): one leaf's ports of that option, across nodes in floor order, cut into cables of k. Its legs are at k node
  ports, which may stand in different racks (a leaf taking an odd number of one rack's ports: that rack's last and
  the next rack's first share one), so each leg keeps its rack and the cable is bought at its longest leg's bin.
  Its legs share one option by construction (the map groups them by option), and the longest leg took that option
  at its own length, so none moves to another part;
* leaf-spine and spine-core tiers: a switch cage to k upper switches. The lower switch's links are dealt over its
  upper switches in turn (one link to each, then a second to each, ...) and cut into cables of k in that order, so
  the legs of one cable land on k different upper switches wherever the switch has that many (S upper switches, S a
  multiple of k: each cable to k neighbouring ones, always the same k), on one only where it has one. A twin-port
  OSFP's two 400G halves may end in two switches (NVIDIA MMA4Z00-NS400-T product specification, "Connectivity
  Scenarios" 1: "Switch-to-switch at 800Gb/s or to two switches at 400Gb/s"); the links and ports of each switch
  are the same either way, only which far port each half meets moves.

The port map cuts its rows in this order (`portmap._tier_rows`), the cabling gives every leg of one cable the option
and length bin of its longest (`cabling._split_legs`), and the run list counts a cable on its first leg's row
(`first_legs`): the lowest plane's leaf for a NIC cage, the first node port in floor order for a cable split at the
leaf, the first upper switch dealt for a switch cage.
"""

from __future__ import annotations

import numpy as np

from archgen.analyse.fabric import FabricAnalysis
from archgen.analyse.link_ends import (
    cords_per_link,
    fans_out,
    leaf_split,
    link_speed,
    links_per_cable,
    nic_cages,
    node_cage_ports,
)
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.placement import access_ports
from archgen.analyse.port_numbers import tier_switches
from archgen.analyse.tier_cabling import TierRuns

#: The fabric tier whose `links` a tier's runs take.
_TIER_KEY = {"access": "leaf", "leaf_spine": "spine", "spine_core": "core"}


def dealt(key: np.ndarray, upper: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Per link, its run: runs of one `key` (a lower switch) dealt over their `upper` switches in turn.

    Keys in increasing order; within one, the first link to each upper switch (in increasing order), then the
    second to each, and so on, so consecutive links go to different upper switches while two are left.
    """
    runs = np.repeat(np.arange(len(weight)), weight)
    if not len(runs):
        return runs
    pair = key[runs].astype(np.int64) * (int(upper.max()) + 1) + upper[runs]
    order = np.argsort(pair, kind="stable")
    ordered = pair[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    rank = np.empty(len(runs), dtype=np.int64)   # a link's round: links of its pair of switches before it
    rank[order] = np.arange(len(runs)) - np.repeat(starts, np.diff(np.r_[starts, len(runs)]))
    return runs[np.lexsort((upper[runs], rank, key[runs]))]


def cut(key: np.ndarray, per: np.ndarray) -> np.ndarray:
    """Per link in `dealt` order (its run's `key`, `per` links a cable), the cable it is in, numbered from 0."""
    if not len(key):
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    pos = np.arange(len(key)) - np.repeat(starts, np.diff(np.r_[starts, len(key)]))
    first = (pos % per) == 0
    return np.cumsum(first) - 1


def split_legs(a: ClusterAnalysis, fa: FabricAnalysis, tr: TierRuns) -> tuple[np.ndarray, np.ndarray,
                                                                              np.ndarray] | None:
    """A tier's split cables: (runs whose links are their legs, the run of each leg, the cable of each leg).

    Legs one per link, in the port map's order on a switch tier (`dealt`) and in run order at the access tier (a
    cable's first leg its lowest run, as the map's row names it first); None where no run takes a split option.
    """
    options = fa.fabric.tiers[_TIER_KEY[tr.tier]].links
    speed, access = link_speed(fa, tr.tier), tr.tier == "access"
    cage = node_cage_ports(a.nodes, fa) if access else None
    shared = np.array([access and leaf_split(o, speed, cage) for o in options], dtype=bool)
    fans = np.array([fans_out(o, speed, cage) for o in options], dtype=bool) | shared
    if not fans.any():
        return None
    opt = np.clip(tr.option, 0, len(options) - 1)
    on = (tr.option >= 0) & fans[opt]
    if access:   # a node's cage: its ports' runs, one link each (the ports past the nodes' are no node's)
        node_rack, node_u = access_ports(a.cluster, fa)[:2]
        k = min(len(node_rack), len(tr.length))
        on[k:] = False
        key = node_rack[:k] * 10_000 + node_u[:k]
        cables: dict[tuple[int, int], int] = {}
        ids = np.array([cables.setdefault(c, len(cables)) for c in zip(key.tolist(), nic_cages(key, fa.planes).tolist(),
                                                                         strict=True)], dtype=np.int64)
        at_leaf = np.flatnonzero(on[:k] & shared[opt[:k]])   # split at the leaf: its ports across nodes, in order
        if len(at_leaf):
            leaf = tier_switches(a, fa, tr)[1][at_leaf] * len(options) + tr.option[at_leaf]
            order = np.argsort(leaf, kind="stable")
            per = np.array([links_per_cable(o, speed, cage) for o in options], dtype=np.int64)
            ids[at_leaf[order]] = len(cables) + cut(leaf[order], per[tr.option[at_leaf[order]]])
        return (on, np.flatnonzero(on), ids[on[:k]]) if on.any() else None
    if not on.any():
        return None
    lower, upper, _ = tier_switches(a, fa, tr)
    assert lower is not None, "a switch tier's runs have a lower switch"
    sel = np.flatnonzero(on)
    key = lower[sel] * len(options) + tr.option[sel]   # one lower switch's cables of one option
    legs = dealt(key, upper[sel], tr.weight[sel])
    per = np.array([links_per_cable(o, speed) for o in options], dtype=np.int64)
    return on, sel[legs], cut(key[legs], per[tr.option[sel][legs]])


def joined(runs: np.ndarray, cable: np.ndarray, n: int) -> np.ndarray:
    """Per run of `n`, the lowest run joined to it by split cables (a run the legs of no cable join: itself).

    Runs whose links share cables must take one option and bin; a cable joins its legs' runs, and runs joined through
    several cables take one label (the smallest).
    """
    label = np.arange(n)
    if not len(runs):
        return label
    while True:
        low = np.full(int(cable.max()) + 1, n)
        np.minimum.at(low, cable, label[runs])
        new = label.copy()
        np.minimum.at(new, runs, low[cable])
        if (new == label).all():
            return label
        label = new


def first_legs(fa: FabricAnalysis, tr: TierRuns, legs: tuple[np.ndarray, np.ndarray, np.ndarray] | None
               ) -> np.ndarray | None:
    """Per run, the split cables (their fibre cords) whose first leg it holds; -1 where its links are no cable's legs.

    `legs`: the tier's `split_legs`; None where it has no split cable. The run list counts a split cable on its
    first leg's row and 0 on the others (newuser96: shares rounded over rows read 1, 0, 1, 0 in no stated order).
    """
    if legs is None:
        return None
    on, runs, cable = legs
    options = fa.fabric.tiers[_TIER_KEY[tr.tier]].links
    cords = np.array([cords_per_link(o, link_speed(fa, tr.tier)) for o in options], dtype=np.int64)
    out = np.where(on, 0, -1).astype(np.int64)
    first = np.full(int(cable.max()) + 1 if len(cable) else 0, len(cable))   # each cable's first leg, in legs' order
    np.minimum.at(first, cable, np.arange(len(cable)))
    first = first[first < len(cable)]   # a cage's ids count cables of no split option too
    np.add.at(out, runs[first], cords[tr.option[runs[first]]])
    return out
