"""Where a rail-only fabric's links run: which rail leaf each node port lands on, and its leaf-spine pairs.

A rail-only fabric (W. Wang et al., arXiv 2307.12169, 2023; sized in `archgen.analyse.topologies`) gives each rail
r of each plane its own tree: L leaves of d down and u up ports, and S spines (one switch per rail, L = 1 and no
spine, when the rail's domains fit one). Port q of scale-up domain e (domains in floor order; q over the domain's
R·P fabric ports) sits on plane q // R and rail q mod R, and lands on the rail's leaf ⌊e / d⌋: leaf
r·L + ⌊e / d⌋ of its plane. Each leaf of rail r sends its u uplinks over the rail's S spines, u / S to each (spine
r·S + s). The switches stand where `archgen.analyse.placement` puts them (a leaf beside most of its node ports, a
spine in its tier's racks in floor order), and `archgen.analyse.cabling` measures the runs like a fat tree's.
Before, these tiers were counted, not laid out: every link took the first option, whatever the distance, and no
reach was checked.
"""

from __future__ import annotations

import math

import numpy as np

from archgen.analyse.network import FabricAnalysis
from archgen.build import ClusterDesign
from archgen.model import System


def _per_rail(fa: FabricAnalysis, tier: str) -> int:
    """Switches of `tier` per rail and plane (0 where the fabric has no such tier)."""
    t = fa.tier(tier)
    return t.switches // max(fa.rails, 1) if t is not None else 0


def rail_access_ports(cluster: ClusterDesign, fa: FabricAnalysis) -> tuple[np.ndarray, ...]:
    """Per node port of a rail-only fabric: rack instance, U, plane and leaf index within the plane.

    The same arrays as `archgen.analyse.placement.access_ports` gives a fat tree, in floor order. A domain is one
    node, or with `scale_up.domain: rack` the R·P / ppn nodes of a rack instance that share a scale-up domain (of
    consecutive rack instances, where the domain spans `scale_up.racks`).
    """
    rails, planes = max(fa.rails, 1), max(fa.planes, 1)
    leaf = fa.tier("leaf")
    down, per_rail = max(leaf.down if leaf else 1, 1), max(_per_rail(fa, "leaf"), 1)
    su = cluster.spec.scale_up
    rows: list[tuple[int, int, int, int]] = []        # rack, U, ports, domain
    domain = seen = 0
    for ri, inst in enumerate(cluster.instances):
        nodes = [(item.u, fa.ports_per_node.get(item.part.id, 0)) for item in inst.rack.items
                 if isinstance(item.part, System) and fa.ports_per_node.get(item.part.id, 0)]
        if not nodes:
            continue
        per_domain = max(1, rails * planes // nodes[0][1]) if su is not None and su.domain == "rack" else 1
        if su is not None and su.racks > 1:   # a multi-rack domain's nodes run on over its racks (scale_up_racks)
            rows += [(ri, u, ppn, (seen + k) // per_domain) for k, (u, ppn) in enumerate(nodes)]
            seen += len(nodes)
            continue
        rows += [(ri, u, ppn, domain + k // per_domain) for k, (u, ppn) in enumerate(nodes)]
        domain += math.ceil(len(nodes) / per_domain)
    if not rows:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    arr = np.array(rows, dtype=np.int64)
    ppn = arr[:, 2]
    rep = np.repeat(np.arange(len(arr)), ppn)
    dom = arr[rep, 3]
    # port q of its domain: its place among the domain's ports, node by node in floor order
    first = np.r_[True, dom[1:] != dom[:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(len(rep)), 0))
    q = np.arange(len(rep)) - start
    plane = np.minimum(q // rails, planes - 1)
    leaf_i = (q % rails) * per_rail + np.minimum(dom // down, per_rail - 1)
    return arr[rep, 0], arr[rep, 1], plane, leaf_i


def rail_ends(cluster: ClusterDesign, fa: FabricAnalysis, tier: str, placed: dict[str, np.ndarray]) -> tuple:
    """A-end rack/U, B-end rack/U, port group and weight of every run of a rail-only tier, as `tier_ends.fat_tree_ends`.

    Access runs carry, last, the leaf (over all planes) of each (the port map's and `TierRuns.b_switch`'s).
    """
    n_leaves = fa.tier_at("leaf").switches
    if tier == "access":
        racks, us, planes, leaves = rail_access_ports(cluster, fa)
        keep = min(len(racks), fa.level_links("access"))
        racks, us, planes, leaves = racks[:keep], us[:keep], planes[:keep], leaves[:keep]
        index = planes * n_leaves + np.minimum(leaves, max(n_leaves - 1, 0))
        b = placed["leaf"][index] if len(placed["leaf"]) else np.full((len(racks), 2), -1)
        return racks, us, b[:, 0], b[:, 1], leaves % 10_000, np.ones(len(racks), dtype=np.int64), index
    rails, per_leaf, per_spine = max(fa.rails, 1), _per_rail(fa, "leaf"), _per_rail(fa, "spine")
    up = fa.tier_at("leaf").up
    r, i, s = (g.ravel() for g in np.meshgrid(np.arange(rails), np.arange(per_leaf), np.arange(per_spine),
                                              indexing="ij"))
    low, high = r * per_leaf + i, r * per_spine + s
    weight = up // max(per_spine, 1) + (s < up % max(per_spine, 1))
    n_spines = fa.tier_at("spine").switches
    a = np.concatenate([placed["leaf"][p * n_leaves + low] for p in range(fa.planes)])
    b = np.concatenate([placed["spine"][p * n_spines + high] for p in range(fa.planes)])
    return a[:, 0], a[:, 1], b[:, 0], b[:, 1], np.tile(high, fa.planes), np.tile(weight, fa.planes).astype(np.int64)
