"""NET031: a 3-tier fat tree's partly filled last pod, counted as a designer builds it (newuser72's trial (a))."""

from __future__ import annotations

from archgen.analyse.upper_tiers import core_groups, pod_spines
from archgen.checks.pods import _grouped_cores


def test_gb300_xdr_plane_last_pod_of_24_leaves() -> None:
    """57 GB300 NVL72 SUs, 8 rail leaves each, on one XDR plane of Q3400 (144 x 800G: 72 down, 72 up at 1:1).

    456 leaves in pods of 72 (one link per leaf-spine pair): 6 full pods and one of 24. Sized as full, every pod
    has 72 spines (504) with 72 core links each (36,288). A pod of 24 leaves alone needs ⌈24·72 / 72⌉ = 24 spines
    (24 divides 72): 6·72 + 24 = 456 spines, and 6·72·72 + 24·72 = 32,832 spine-core links, one per leaf uplink.
    The 72 core groups each take 6·72 links from the full pods and 1,728 / 72 = 24 from the last: a core of l links
    per full-pod spine uses 6·l + 24·l/72 ports, l = 18 fits 144 (114), l = 24 does not (152), so 72 / 18 = 4 cores
    a group, 288 as sized; ⌈32,832 / 144⌉ = 228 by ports alone.
    """
    assert pod_spines(24, 72, 72) == 24
    assert 6 * 72 + pod_spines(24, 72, 72) == 456
    assert _grouped_cores(6, 72, 72, 24 * 72, 144) == 288
    assert -(-(6 * 72 * 72 + 24 * 72) // 144) == 228


def test_whole_pods_need_the_cores_as_sized() -> None:
    """No last pod's links: the groups' cores are the sizing's own (`upper_tiers._cores`, 7 pods: l = 18, 4 each,
    no grouping of several spines doing better, G·l ≤ 20 and 18 the most). 2 pods of 32 spines with 8 core links on
    64-port cores: groups of one spine take 32 cores at 16 ports, groups of 4 spines 8 cores of 8 links from each,
    2 x 4 x 8 = 64 ports (topo36); groups of 8 spines, two cores of 4 links from each, fill them alike, and a spine's
    8 uplinks then go to two cores, not all to one (core38)."""
    assert _grouped_cores(7, 72, 72, 0, 144) == 288 == core_groups(7, 72, 72, 144)[0]
    assert _grouped_cores(2, 32, 8, 0, 64) == 8
    assert core_groups(2, 32, 8, 64) == (8, 8, 4) and _grouped_cores(2, 32, 8, 0, 64 * 2) == 4
