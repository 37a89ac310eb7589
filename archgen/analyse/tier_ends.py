"""Where a fat tree's runs start and end: rack and U of both ends of every link of one tier, from the placement.

Split from `archgen.analyse.cabling`, which lays these ends as runs (length, media, bin); the access tier's ends are
the nodes' ports (`analyse.placement.access_ports`) and, after them, the ports that end at no node (switch
management ports, ports stated as a count: `analyse.placement.other_ends`, `analyse.other_ports`); the upper tiers'
are the switches each pair of tiers joins (`archgen.topology.tier_pairs`), plane by plane.
"""

from __future__ import annotations

import numpy as np

from archgen.analyse.network import FabricAnalysis
from archgen.analyse.other_ports import other_port_leaves
from archgen.analyse.placement import access_ports, other_ends
from archgen.build import ClusterDesign
from archgen.topology import tier_pairs

__all__ = ["fat_tree_ends"]


def fat_tree_ends(cluster: ClusterDesign, fa: FabricAnalysis, tier: str, placed: dict[str, np.ndarray]) -> tuple:
    """A-end rack/U, B-end rack/U, port group and weight (links per row) of every run of a tier."""
    tiers = {t.name: t for t in fa.tiers}
    if tier == "access":
        racks, us, planes, leaves = access_ports(cluster, fa)
        n_leaves = tiers["leaf"].switches
        leaves = np.minimum(leaves, max(n_leaves - 1, 0))
        index = planes * n_leaves + leaves
        b = placed["leaf"][index] if len(placed["leaf"]) else np.full((len(racks), 2), -1)
        extra = fa.level_links("access") - len(racks)
        a_rack, a_u, group = racks, us, leaves % 10_000
        weight = np.ones(len(racks), dtype=np.int64)
        if extra > 0 and len(placed["leaf"]):
            # switch management ports at the nearest leaf with a free down port, the ports of a count after them
            at = other_ends(cluster, fa, extra)
            lf = other_port_leaves(cluster, index, placed["leaf"], tiers["leaf"].down, at, fa.planes)
            index = np.concatenate([index, lf])
            a_rack = np.concatenate([a_rack, at[:, 0]])
            a_u = np.concatenate([a_u, at[:, 1]])
            b = np.concatenate([b, placed["leaf"][lf]])
            group = np.concatenate([group, np.full(extra, -1)])
            weight = np.concatenate([weight, np.ones(extra, dtype=np.int64)])
        return a_rack, a_u, b[:, 0], b[:, 1], group, weight, index
    lower, upper = ("leaf", "spine") if tier == "leaf_spine" else ("spine", "core")
    n_low, n_up = tiers[lower].switches, tiers[upper].switches
    pairs_low, pairs_up, weights = tier_pairs(fa.shape, tier)
    pairs_up = np.minimum(pairs_up, max(n_up - 1, 0))
    a_list, b_list = [], []
    for p in range(fa.planes):
        a_list.append(placed[lower][p * n_low + pairs_low])
        b_list.append(placed[upper][p * n_up + pairs_up])
    a, b = np.concatenate(a_list), np.concatenate(b_list)
    weight = np.tile(weights, fa.planes)
    group = np.tile(pairs_up, fa.planes)
    return a[:, 0], a[:, 1], b[:, 0], b[:, 1], group, weight
