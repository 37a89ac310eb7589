"""What one spine, one core or one plane lost does to a fat tree's bisection (newuser72).

A network architect sizing a 32k-GPU GB300 fabric asked what one plane or one spine failing does to bandwidth: the
cluster document gave the share of a pod's uplinks a spine carries, never the bisection left. The failure metrics
now give it by the bisection's own rule (`analyse.fabric.failure_bisection`: the least cut over the balanced splits
of the endpoints, Leiserson 1985, found again without the lost switch's links); the other planes keep theirs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen import topology
from archgen.pipeline import run
from tests.data.clusters.build import SU_IB_RACK, gb300_cluster, xdr_compute


@pytest.fixture(scope="module")
def metrics(shipped):
    """The shipped examples' metrics, from the session's run (`tests/conftest.py::shipped`): the same figures as
    `run([specs])` gives (relative paths and the growth series move none of them), not a pipeline run of its own."""
    return shipped.metrics


def test_one_spine_of_the_b200_superpod_table_4_fabric(metrics):
    """NVIDIA DGX SuperPOD B200 RA, Network Fabrics, Table 4 (127 nodes: 32 leaves, 16 spines of QM9700, 400 Gb/s):
    each leaf spreads 32 uplinks over 16 spines, so a spine holds 32 x 32 / 16 = 64 of the 1,024 leaf links; the
    leaf-spine cut falls to (1,024 - 64) x 400 / 2 Gb/s, below the 1,016 GPU ports' 1,016 x 400 / 2."""
    m = metrics["cluster/dgx-b200-superpod/fabric/compute"]
    assert m["bisection_per_accelerator"].m_as("Gbit/s") == pytest.approx(200)
    assert m["failure.spine.bisection_per_accelerator"].m_as("Gbit/s") == pytest.approx((1024 - 64) * 400 / 2 / 1016)
    assert m["failure.plane.bisection_per_accelerator"].m_as("Gbit/s") == 0   # its one plane
    assert "failure.core.bisection_per_accelerator" not in m                  # 2 tiers: no core


def test_a_plane_lost_leaves_the_others(metrics):
    """The shipped MI355X cluster's two planes: one lost leaves half the bisection; one spine of a plane takes its
    share of that plane's leaf links (leaf-spine links per plane over its spines)."""
    m = metrics["cluster/mi355x-th5/fabric/compute"]
    whole = m["bisection_per_accelerator"].m_as("Gbit/s")
    assert m["failure.plane.bisection_per_accelerator"].m_as("Gbit/s") == pytest.approx(whole / 2)
    planes, spines = int(m["planes"].m), int(m["spine.switches"].m) // int(m["planes"].m)
    uplinks = int(m["links.leaf_spine"].m) // planes
    # per plane: the node cut equals the uplink cut at 1:1, so the plane that lost a spine keeps (1 - 1/S) of its half
    lost = whole / 2 * (uplinks - uplinks // spines) / uplinks
    assert m["failure.spine.bisection_per_accelerator"].m_as("Gbit/s") == pytest.approx(whole / 2 + lost)


def test_a_spine_and_a_core_of_a_tapered_three_tier_xdr_fabric(tmp_path: Path):
    """13 GB300 SUs (7,488 GPUs, 104 rail leaves of Q3400 at 800 Gb/s) on 3 tiers, spines split 2:1 (96 down, 48
    up): 2 pods of 72 spines, 6,912 spine-core links on 48 cores of 144 ports, in core groups of 3 spines of every
    pod, each core 24 links from each (topo36: in groups of one spine they were 72 cores at 96 ports). The pods
    are unequal (96 and 8 leaves of 72 GPUs: 6,912 and 576), so half the core links (6,912 x 800 / 2 over 7,488 =
    369.2 Gb/s) is no balanced split's cut: the least one keeps every core on one side and moves the leaves of 3,744
    GPUs across, 52 whole leaves of the large pod, 72 links each, 52 x 72 x 800 = 2,995.2 Tb/s, 400 Gb/s per GPU,
    full bisection (pods34). A spine of the first pod lost takes one of each of its leaves' 72 uplinks: the 52
    leaves moved across are those, 52 x 71 x 800 / 7,488 = 394.4 Gb/s. A core lost takes 24 of the 48 core links of
    3 spines in each pod, which keep 24 each to the group's other core: the least cut stays 3,744 links, 400 Gb/s.
    In groups of one spine a lost core took all 48 of one spine's in each pod, which then met only its pod's leaves,
    and the split cut 52 x 71 + 44 = 3,736 links: 399.1 Gb/s (an earlier closed form read 400 there, above the
    least cut; bisect35)."""
    (tmp_path / "racks.yaml").write_text(SU_IB_RACK, encoding="utf-8")
    compute = xdr_compute(3, spine='{oversubscription: "2:1"}')
    (tmp_path / "cluster.yaml").write_text(gb300_cluster("x", "su-ib", [compute], sus=13), encoding="utf-8")
    m = run([tmp_path]).metrics["cluster/x/fabric/compute"]
    assert (m["leaf.switches"].m, m["spine.switches"].m, m["core.switches"].m) == (104, 144, 48)
    assert m["links.spine_core"].m == 6912
    gbps = {k: m[k].m_as("Gbit/s") for k in m if "bisection_per_accelerator" in k}
    assert gbps["bisection_per_accelerator"] == pytest.approx(52 * 72 * 800 / 7488) == pytest.approx(400)
    assert gbps["failure.core.bisection_per_accelerator"] == pytest.approx(52 * 72 * 800 / 7488)
    # the witness, on the plane's graph without core 0: the first 52 leaves against the other 52, and in groups of
    # one spine (72 cores of 48 links from one spine of each pod) the split that cut 3,736
    for shape, links in ((topology.ClosShape(3, 104, 144, 48, 72, 72, 96, 48, 24, 3), 52 * 72),
                         (topology.ClosShape(3, 104, 144, 72, 72, 72, 96, 48, 48), 52 * 71 + 44)):
        g = topology.clos_graph(shape, [72] * 104, speed_gbps=800.0)
        g.remove_node(("core", 0))
        assert topology.cut_capacity(g, range(52), range(52, 104)) == pytest.approx(links * 800)
    assert gbps["failure.spine.bisection_per_accelerator"] == pytest.approx(52 * 71 * 800 / 7488)
