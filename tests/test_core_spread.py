"""A 3-tier fat tree's spine-core wiring: each spine's uplinks spread over every core of its group (core38).

Published fat trees send a spine's (aggregation switch's) uplinks to several cores, never all to one: Al-Fares et
al., "A Scalable, Commodity Data Center Network Architecture", SIGCOMM 2008, §2.3 and Figure 3 (each of a pod's
aggregation switches meets k/2 cores, one link each); Facebook's data-center fabric (A. Andreyev, engineering.fb.com,
2014-11-14: fabric switch n of every pod meets every spine switch of spine plane n); NVIDIA's InfiniBand Cluster
Bring-up Procedure v1.0, Acronyms (a core group is "a collection of CORE switches" serving given spines of every
spine-leaf group). `tier_pairs` wires spine j of every pod to every core of its group, l links each, so a group of
s_up / l cores takes s_up / l of them; `upper_tiers.core_groups` chose, among its fewest cores, the fewest spines a
group (G), which for a fixed count is the most links a pair (G·l is fixed) and could leave one core a group: a DGX
B300 Spectrum-X plane of 16 SUs (2 pods of 64 spines, 64 core links each, SN5610 cores of 128 ports at 400 Gb/s)
took 64 cores, each all 64 uplinks of one spine per pod, so one core lost cut that spine off the cores. Now groups of
two cores or more come first where some G and l give them, at the same count, ports and links.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from archgen import topology
from archgen.analyse.bisection import fat_tree_pods, least_balanced_cut
from archgen.analyse.upper_tiers import core_groups
from tests.clos_cuts import least_bisection

DATA = Path(__file__).parent / "data" / "fabrics" / "dgx-b300-spectrum-x-su.yaml"
CATALOG = Path(__file__).resolve().parents[1] / "specs" / "catalog"
SPEED = 400.0


def _kept(shape: topology.ClosShape, core: int) -> dict[int, float]:
    """Each spine's share of its core links left with `core` lost, from `tier_pairs`."""
    lo, hi, w = topology.tier_pairs(shape, "spine_core")
    total = np.bincount(lo, weights=w, minlength=shape.spines)
    kept = np.bincount(lo, weights=w * (hi != core), minlength=shape.spines)
    return {s: float(kept[s] / total[s]) for s in range(shape.spines)}


def test_the_fewest_cores_come_in_groups_of_two_cores_or_more() -> None:
    """The same counts, the spines' links dealt over more cores: 16 B300 SUs take 64 cores of 128 ports either way,
    now two spines of every pod a group of two cores, 32 links each (before: one spine, one core, 64 links). Meta's
    24K cluster keeps 6 ATSWs of 9 links from 8 CTSWs of every pod, three a group (topo36). Where no G and l give two
    cores a group at the fewest count (2 spines of 3 uplinks, 6-port cores: 2 cores of 3 links from one spine, or
    3 cores of 1 link from both), the fewest cores stand: the spread does not buy a core more."""
    assert core_groups(2, 64, 64, 128) == (64, 2, 32)
    assert core_groups(8, 16, 27, 576) == (6, 8, 9)
    assert core_groups(1, 2, 3, 6) == (2, 1, 3)


@pytest.mark.parametrize("eps", [[4, 4, 4, 4], [4, 4, 4, 1], [6, 6, 6, 6]])
def test_a_lost_core_leaves_each_spine_its_groups_share(eps: list[int]) -> None:
    """2 pods of 4 spines with 4 core links on 8-port cores: 4 cores, G·l = 4 whatever the grouping. Groups of one
    core (G = 1, l = 4) lose a spine's every core link with its core; groups of two (G = 2, l = 2, the one chosen)
    keep each spine (2 − 1)/2 of them, groups of four 3/4. The count, the ports and the least cut intact are the
    same; with a core lost the brute force's least cut is 2,400 Gb/s on groups of one core where the endpoints fill
    the leaves, 3,200 on the spread ones, and `fat_tree_pods` gives the brute force's figure on each."""
    assert core_groups(2, 4, 4, 8) == (4, 2, 2)
    cuts = {}
    for group, links in ((1, 4), (2, 2), (4, 1)):
        shape = topology.ClosShape(3, 4, 8, 4, 4, 4, 2, 4, links, group)
        per_group = shape.spine_up // links
        for core in range(shape.cores):
            short = [s for s, k in _kept(shape, core).items() if k < 1]   # the lost core's group: G of each pod
            assert len(short) == 2 * group and {_kept(shape, core)[s] for s in short} == {1 - 1 / per_group}
        pods = fat_tree_pods(sum(eps), 4, max(eps), 4 * SPEED, 2, 4 * 4 * SPEED, "core", (SPEED, 4 * SPEED),
                             group * links * SPEED, loads=eps, group=group)
        lost = least_bisection(shape, eps, SPEED, lost=(("core", 0),))
        assert least_balanced_cut(pods, SPEED) == pytest.approx(lost)
        cuts[group] = (least_bisection(shape, eps, SPEED), lost)
    assert cuts[2][0] == cuts[1][0] == cuts[4][0] and cuts[1][1] <= cuts[2][1] == cuts[4][1]
    assert (cuts[1][1], cuts[2][1]) == ((2400.0, 3200.0) if eps[-1] == max(eps) else (2400.0, 2400.0))


def _b300_16_sus(tmp_path: Path, core: str = "") -> Path:
    """The B300 Spectrum-X fixture at 16 SUs on `tiers: 3` (its folder), its cores' keys after `rack`."""
    text = DATA.read_text(encoding="utf-8")
    text = text[:text.index("expect:")].replace("  - {unit: su, count: 1}", "  - {unit: su, count: 16}").replace(
        "    tiers: 2\n", "    tiers: 3\n").replace("    spine: {rack: b300-eth}\n",
                                                  f"    spine: {{rack: b300-eth}}\n    core: {{rack: b300-eth{core}}}\n"
                                                  ).replace(
        "      leaf_spine: [smf-800g-split-2x400g]\n",
        "      leaf_spine: [smf-800g-split-2x400g]\n      spine_core: [smf-800g-split-2x400g]\n")
    (tmp_path / "b300.yaml").write_text(text, encoding="utf-8")
    return tmp_path


def test_a_b300_plane_of_16_sus_spreads_each_spine_over_two_cores(tmp_path: Path) -> None:
    """The B300 Spectrum-X fixture at 16 SUs on `tiers: 3` (spine38 found its 4-SU form wired each spine to one
    core): 2 pods a plane, 64 cores of 128 ports, each spine 32 links to each of the 2 cores of its group, one core
    lost keeping half of its spines' core links; 400 Gb/s of full bisection per GPU, 396.9 with a core lost (the
    lost core's 128 of a plane's 8,192 core links, one plane of two: 1 − 1/128), as with groups of one core."""
    from archgen.pipeline import run
    result = run([CATALOG, _b300_16_sus(tmp_path)])
    cluster = result.clusters["cluster/b300-spectrum-x-su"]
    fa = next(f for f in cluster.fabrics if f.fabric.spec.id == "compute")
    shape = fa.shape
    assert (shape.leaves, shape.spines, shape.cores, shape.spines_per_pod, shape.pod_leaves) == (128, 128, 64, 64, 64)
    assert (shape.core_group, shape.core_pair_links, fa.tier("core").max_used_per_switch) == (2, 32, 128)
    lo, hi, w = topology.tier_pairs(shape, "spine_core")
    assert set(Counter(lo.tolist()).values()) == {2} and int(w.sum()) == 128 * 64
    assert set(Counter(hi.tolist()).values()) == {4}
    assert sorted(set(_kept(shape, 0).values())) == [0.5, 1.0]
    metrics = result.metrics["cluster/b300-spectrum-x-su/fabric/compute"]
    assert metrics["bisection_per_accelerator"].m_as("Gbit/s") == pytest.approx(400.0)
    assert metrics["spine.oversubscription"].m_as("") == pytest.approx(1.0)
    assert metrics["failure.core.bisection_per_accelerator"].m_as("Gbit/s") == pytest.approx(400 * (1 - 1 / 128))


def test_a_stated_core_count_of_one_core_a_group_is_warned(tmp_path: Path) -> None:
    """A stated `core.count` keeps groups of one spine: 64 for the 64 spines of a pod is one core a group, every
    uplink of a spine on one core, which core38's derived count spreads over two. NET035 gives the count stated,
    the group size, the derived count and the smallest stated one that spreads them: 128 (2 a group, 32 links a
    pair; 2 pods x 32 = 64 ports of a core's 128). The message's counts built as stated warn no more."""
    from archgen.pipeline import analyse_paths
    one = analyse_paths([CATALOG, _b300_16_sus(tmp_path, ", count: 64")]).clusters["cluster/b300-spectrum-x-su"]
    fa = next(f for f in one.fabrics if f.fabric.spec.id == "compute")
    assert (fa.shape.cores, fa.shape.core_pair_links) == (64, 64)
    [problem] = [p for p in fa.problems if p.check == "NET035"]
    assert problem.message == (
        "64 cores make 64 core groups of one core, one per spine of a pod: each spine's 64 uplinks all go to one "
        "core, whose loss cuts the spine off the core tier; leave `core.count` out (derived: 64 cores, 2 a group) or "
        "state 128 (2 cores a group, a stated count keeping groups of one spine: each spine meets each with 32 "
        "link(s), so one core lost leaves it 1 of 2 of its core links)")
    assert "`" not in problem.public and "the core count out" in problem.public
    spread = analyse_paths([CATALOG, _b300_16_sus(tmp_path, ", count: 128")]).clusters["cluster/b300-spectrum-x-su"]
    fa = next(f for f in spread.fabrics if f.fabric.spec.id == "compute")
    assert (fa.shape.cores, fa.shape.core_pair_links) == (128, 32)
    assert not [p for p in fa.problems if p.check in ("NET002", "NET018", "NET035")]
