"""A leaf's modules are its own: the access tier's leaf-end modules are counted leaf by leaf (review50).

A twin-port module sits in one cage of one leaf; its two ports may reach two nodes, never two leaves. The tier's
⌈links / ports per module⌉ packed the odd ports of different leaves into one module. The shipped DGX B200 SuperPOD's
compute fabric runs 1,020 access links on `mmf-800g-sr8` (2 x 400G per module at the leaf): 28 leaves hold 32 links
and 4 hold 31, so the leaves hold 28 x 16 + 4 x ⌈31 / 2⌉ = 512 modules, not ⌈1,020 / 2⌉ = 510 (access transceivers
1,022 -> 1,024, optics +34 W at 17 W a module).
"""

from __future__ import annotations

import math

import numpy as np


def test_odd_leaves_take_a_module_of_their_own(shipped) -> None:
    c = shipped.clusters["cluster/dgx-b200-superpod"]
    [tr] = [r for r in c.cabling.runs if (r.fabric, r.tier) == ("compute", "access")]
    assert tr.b_switch is not None
    per_leaf = np.bincount(tr.b_switch, weights=tr.weight).astype(int)
    assert sorted(per_leaf[per_leaf > 0].tolist()) == [31] * 4 + [32] * 28
    assert sum(math.ceil(n / 2) for n in per_leaf if n) == 28 * 16 + 4 * 16 == 512 > math.ceil(1020 / 2)
    [access] = [t for t in c.cabling.tiers if (t.fabric, t.tier) == ("compute", "access")]
    assert access.modules == {"mmf-800g-sr8": 1024}
    # the other end: 1,016 node links, two a twin-port NIC cage (508), and 4 links from other ports, one a module
    single = int(tr.weight[tr.group < 0].sum())
    assert (single, access.node_modules["mmf-800g-sr8"]) == (4, 508)
    assert access.modules["mmf-800g-sr8"] - 508 - single == 512   # at the leaves
    # the bisection takes the same ports per leaf: a rail group's ports shared evenly (`analyse.bisection.leaf_fill`)
    fa = next(f for f in c.fabrics if f.fabric.spec.id == "compute")
    assert sorted(fa.leaf_endpoints()) == sorted(per_leaf.tolist())


def test_leaf_spine_modules_are_what_the_superpod_orders(shipped) -> None:
    """The leaf-spine and spine-core ends stay ⌈links / ports per module⌉ over the tier (their runs name no switch):
    per switch it is the same where each switch holds a multiple of a module's ports (pods34). NVIDIA DGX SuperPOD
    B200 RA, Network Fabrics, Table 4 (4 SUs, 127 nodes): 32 leaves, 16 spines, 1,024 leaf-spine cables. On
    QM9700's twin-port OSFP cages each leaf's 32 uplinks take 16 modules and each spine's 64 downlinks 32:
    32 x 16 + 16 x 32 = 1,024 twin-port modules a buyer orders, which the per-tier count gives (2 x ⌈1,024 / 2⌉)."""
    c = shipped.clusters["cluster/dgx-b200-superpod"]
    fa = next(f for f in c.fabrics if f.fabric.spec.id == "compute")
    leaf, spine = fa.tier_at("leaf"), fa.tier_at("spine")
    assert (leaf.switches, leaf.up, spine.switches, fa.links["leaf_spine"]) == (32, 32, 16, 1024)
    assert leaf.switches * leaf.up // spine.switches == 64
    [tier] = [t for t in c.cabling.tiers if (t.fabric, t.tier) == ("compute", "leaf_spine")]
    per_switch = leaf.switches * math.ceil(leaf.up / 2) + spine.switches * math.ceil(64 / 2)
    assert tier.modules == {"mmf-800g-sr8": per_switch} == {"mmf-800g-sr8": 1024}
