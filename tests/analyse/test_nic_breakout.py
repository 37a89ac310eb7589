"""An 800G ConnectX-8 port on a 400G fabric: said (NET026), or split 2 x 400G over two planes (`nic_breakout`).

From the network architect's trial: GB300 NVL72 on two SN5600 planes at 400 Gb/s. Each tray's four 800G
ConnectX-8 ports were counted as four 400G fabric ports, half of each port's rate unused, with no finding (NET016
speaks of slower NICs only). NVIDIA's Spectrum-X Dual-Plane on GB300 splits each SuperNIC across two planes
(Network Operator, Software Multiplane quick start; the ConnectX-8 firmware notes: 800G XDR or 2 x 400GbE), which
`nic_breakout: 2x400G` states. Here two SUs of the trial's cluster on two tiers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.pipeline import run
from tests.data.clusters.build import fabric, gb300_cluster, rack

RACKS = rack("su-net", [(3, "sn5600", 20)], [(1, 2)], name="SU network rack (Spectrum-4 leaves)",
             facility="hall-liquid") + "---\n" + \
    rack("spine-net", [(3, "sn5600", 20)], [(1, 2)], name="Spine rack (Spectrum-4)", facility="hall-liquid")
FABRIC = "cluster/gb300-planes/fabric/compute"


def _cluster(split: str) -> str:
    """The trial's two SUs on two SN5600 planes, each tray's ports split `split` ("": not split)."""
    compute = fabric("compute", {"access": "[{a: smf-800g-dr4-rhs, b: smf-800g-dr8}]",
                                 "leaf_spine": "[aec-800g-osfp, smf-800g-dr8]"},
                     topology="fat-tree", role="compute", speed="400 Gb/s", switch="sn5600", tiers=2, planes=2,
                     **({"nic_breakout": split} if split else {}), rail_optimized=True, group="su",
                     leaf="{rack: su-net}", spine="{rack: spine-net}")
    return gb300_cluster("gb300-planes", "su-net", [compute], racks_per_row=18,
                         after=["{rack: spine-net, count: 2, new_row: true}"])


def _run(tmp_path: Path, split: str):
    (tmp_path / "racks.yaml").write_text(RACKS, encoding="utf-8")
    (tmp_path / "cluster.yaml").write_text(_cluster(split), encoding="utf-8")
    r = run([tmp_path])
    return r, r.clusters["cluster/gb300-planes"].metrics


def test_an_800g_port_on_a_400g_fabric_is_said_with_the_split_its_part_lists(tmp_path):
    r, _ = _run(tmp_path, "")
    found = [(f.severity, f.object, f.message) for f in r.findings if f.id == "NET026"]
    assert found == [("warning", FABRIC, "gb300-compute-tray's connectx-8 ports run at 800 Gb/s on a 400 Gb/s "
                                         "fabric: each runs at 400 Gb/s, 50% of its rate; its part lists 2x400G: "
                                         "`nic_breakout: 2x400G` uses the whole port as 2 fabric ports (over 2 "
                                         "planes)")]
    fa = r.metrics[FABRIC]
    assert fa["links.access"].m == 1152 and fa["leaf.switches"].m == 20
    assert fa["injection_per_accelerator"].m_as("Gbit/s") == pytest.approx(400)


def test_nic_breakout_splits_each_port_over_the_two_planes(tmp_path):
    r, _ = _run(tmp_path, "2x400G")
    assert not [f for f in r.findings if f.id in ("NET026", "NET016", "NET011", "NET005", "NET004")]
    fa = r.metrics[FABRIC]
    assert fa["links.access"].m == 2304 and fa["leaf.switches"].m == 36 and fa["spine.switches"].m == 32
    assert fa["injection_per_accelerator"].m_as("Gbit/s") == pytest.approx(800)
    # one 800G DR4 module per ConnectX-8 port serves its two 400G links; each DR8 at the leaf serves two
    assert fa["transceivers.access"].m == 1152 + 1152


def test_a_split_at_another_rate_than_the_speed_is_refused_at_the_key(tmp_path):
    from archgen.errors import ArchgenError
    with pytest.raises(ArchgenError) as e:
        _run(tmp_path, "4x200G")
    assert "nic_breakout 4x200G gives 200G ports, the fabric's speed is 400 Gb/s" in str(e.value)
