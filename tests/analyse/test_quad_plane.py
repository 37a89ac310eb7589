"""A B300 SuperNIC split over four planes (Spectrum-X Quad-Plane): `nic_breakout: 4x200G` on `connectx-8`.

From the new-user trial of a multi-plane 800G Ethernet fabric (newuser54): NVIDIA's Software Multiplane quick start
(Network Operator v26.4.0, docs.nvidia.com/networking/display/kubernetes2640/spectrum-x/quick-start-swplb.html)
splits each ConnectX-8 SuperNIC into one PF per plane, "numberOfPlanes: 2 for Dual-Plane or numberOfPlanes: 4 for
Quad-Plane (B300 only)". The part listed 1x800G and 2x400G only, so the Quad-Plane design its own cited source
describes was refused (NET016). Here one SU of 32 HGX B300 (256 GPUs) on four SN5600 planes at 200 Gb/s.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.pipeline import run
from tests.data.clusters.build import SU_IB_RACK, b300_planes, fabric, gb300_cluster

FABRIC = "cluster/b300-quad/fabric/compute"


def test_the_quad_plane_split_of_a_b300_supernic_is_accepted_and_counted(tmp_path: Path):
    r = b300_planes(tmp_path, "b300-quad", 1, speed="200 Gb/s", nic_breakout="4x200G", tiers=2, planes=4)
    assert [f.message for f in r.findings if f.id in ("NET016", "NET026", "NET004", "NET005")] == []
    fa = r.metrics[FABRIC]
    # 32 nodes x 8 SuperNICs x 4 = 1,024 ports of 200G, 256 a plane; 32 / 4 = 8 rails a plane. An SN5600 at 200G
    # is 256 ports, 128 down : 128 up at 1:1; a rail leaf holds 128 / 32 = 4 rails, so 8 / 4 = 2 leaves a plane,
    # and 2 x 128 uplinks over 256-port spines take 2 spines a plane (never fewer than 2).
    assert (fa["planes"].m, fa["rails"].m, fa["links.access"].m) == (4, 8, 1024)
    assert (fa["leaf.switches"].m, fa["spine.switches"].m) == (8, 8)
    # 4 x 200 Gb/s on every GPU: the SuperNIC's 800G, not one plane's 200G
    assert fa["injection_per_accelerator"].m_as("Gbit/s") == pytest.approx(800)
    # one 800G DR4 module per SuperNIC serves its four links; a DR8 at the leaf serves four 200G ports
    assert fa["transceivers.access"].m == 256 + 256


def test_the_quad_plane_split_is_refused_beside_a_gb300(tmp_path: Path):
    """NVIDIA's quick start (cited above) runs Software Multiplane on "B300, GB300" but Quad-Plane on "B300 only":
    connectx-8's `breakout_accelerators` says so, and a GB300 tray split 4x200G is NET016 at its `nic_breakout`
    line (nu54fix; on main it passed without a word)."""
    compute = fabric("compute", {"access": "[{a: smf-800g-dr4-rhs, b: smf-800g-dr8}]", "leaf_spine": "[smf-800g-dr8]"},
                     topology="fat-tree", role="compute", speed="200 Gb/s", switch="sn5600", tiers=2, planes=4,
                     nic_breakout="4x200G", rail_optimized=True, group="su")
    (tmp_path / "racks.yaml").write_text(SU_IB_RACK, encoding="utf-8")
    (tmp_path / "cluster.yaml").write_text(gb300_cluster("gb300-quad", "su-ib", [compute], sus=1), encoding="utf-8")
    refused = [f for f in run([tmp_path]).findings if f.id == "NET016"]
    assert [(Path(f.location.file).name, f.location.line, f.message) for f in refused if f.location] == [
        ("cluster.yaml", 23, "gb300-compute-tray's connectx-8 ports cannot be split 4x200G beside gb300: its part's source allows "
               "that split only with b300-sxm-288gb; use another breakout or node")]
