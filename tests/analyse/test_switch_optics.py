"""Switch-end transceivers count in the budgets of the rack that holds the switch, and once in the cluster total.

Regression (issue 11 item 4): they were left out of the network rack's feed, PDU and heat checks and added on top
at the cluster level only.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.pipeline import run
from archgen.render.cabling import NO_RACK, run_list
from tests.conftest import SPECS
from tests.data.clusters.small import files


def test_switch_end_modules_are_in_the_network_rack(spec_tree):
    # One SU of one four-DGX H100 rack, one tier: 4 x 8 = 32 links of twin-port 800G SR8 (17 W, 2 links each)
    # from the nodes to a QM9700 leaf in the 'net' rack: 16 modules at each end, 16 x 17 W = 272 W per end.
    result = run([spec_tree(files(racks=1, sus=1, tiers=1))])
    net, c4 = result.racks["rack/net"], result.racks["rack/c4"]
    assert net.power.optics.m_as("W") == pytest.approx(16 * 17)
    assert net.power.it_power == net.power.equipment + net.power.optics
    assert net.cooling.heat_air.m_as("W") == pytest.approx(net.power.input_power.m_as("W"))  # air-cooled rack
    assert c4.power.optics.m_as("W") == 0  # the node ends are the systems' own
    cluster = result.clusters["cluster/c"]
    # Each transceiver once: racks' equipment + every module (both ends, 544 W) + switches outside racks (none).
    equipment = c4.power.equipment + net.power.equipment
    assert cluster.metrics["optics_power"].m_as("W") == pytest.approx(32 * 17)
    assert cluster.metrics["it_power"].m_as("W") == pytest.approx(equipment.m_as("W") + 32 * 17)


def test_shipped_clusters_count_each_transceiver_once(shipped):
    result = shipped
    for cluster in result.clusters.values():
        racks = sum(result.racks[f"rack/{rid}"].power.equipment * n for rid, n in cluster.cluster.rack_counts.items())
        unplaced = sum((line.total_power for line in cluster.cabling.bom if line.note == "not placed in a rack"),
                       0 * racks)
        expected = racks + cluster.metrics["optics_power"] + unplaced
        assert cluster.metrics["it_power"].m_as("kW") == pytest.approx(expected.m_as("kW"))
    # The leaf racks of the DGX B200 SuperPOD now carry their leaves' transceivers (5.07 kW, before: none).
    leaf = result.racks["rack/dgx-b200-leaf"]
    assert leaf.power.optics.m_as("kW") > 4
    assert leaf.power.input_power == leaf.power.it_power


def test_unplaced_switches_do_not_save_optics_power(shipped, tmp_path):
    """Issue 11 item 5: leaving the GB200 SU's compute switches out of their rack cut optics power by 78 %.

    Their runs were given the 1 m in-rack length (DAC); now they get the floor's longest run, corner to corner:
    2 x 1.5 m tray drop + 9 x 0.6 m along the row + 0 between rows + 2 m slack = 10.4 m.
    """
    import shutil
    shutil.copytree(SPECS, tmp_path / "specs")
    path = tmp_path / "specs" / "clusters" / "gb200-nvl72-su.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("    leaf: {rack: gb200-su-ib}\n    spine: {rack: gb200-su-ib}\n", "", 1),
                    encoding="utf-8")
    placed = shipped.clusters["cluster/gb200-nvl72-su"]
    result = run([tmp_path / "specs"])
    unplaced = result.clusters["cluster/gb200-nvl72-su"]
    assert unplaced.metrics["optics_power"] >= placed.metrics["optics_power"]
    tiers = [t for t in unplaced.cabling.tiers if t.fabric == "compute"]
    assert {t.tier: t.unplaced_links for t in tiers} == {"access": 576, "leaf_spine": 576}
    assert all(t.assumed_length.m_as("m") == pytest.approx(2 * 1.5 + 9 * 0.6 + 2) for t in tiers)
    assert [f.id for f in result.findings if f.id == "CAB004"] == ["CAB004", "CAB004"]


SHORT_SPINE = [Path(__file__).parents[1] / "data" / "placement" / "b200-8192-short-spine.yaml",
               SPECS / "catalog" / "racks" / "dgx-b200-compute.yaml", SPECS / "racks" / "dgx-b200-network.yaml",
               SPECS / "catalog" / "facilities" / "hall-air.yaml"]


def test_switches_the_racks_cannot_hold_charge_no_rack():
    """An under-provisioned fabric: 256 spines and 128 cores for 27 'dgx-b200-spine' racks of 8 QM9700 (216 slots).

    The 40 spines and 128 cores without a slot were all put at the last slot, so one spine rack carried their
    transceivers: 82.5 kW against its 34.5 kW feed (PWR001-004). A rack's switch-end optics are bounded by what
    its switches' cages can hold: 8 QM9700 x 32 OSFP cages x 17 W (Class 8, the QM97X0 user manual cited in
    catalog/switches/qm9700.yaml) = 4352 W, reached here since every spine port is used by an optical run.
    """
    result = run(SHORT_SPINE)
    spine = result.racks["rack/dgx-b200-spine"].power
    assert spine.optics.m_as("W") <= 8 * 32 * 17
    assert spine.optics.m_as("W") == pytest.approx(8 * 32 * 17)
    short = [f for f in result.findings if f.severity in ("error", "warning") and not f.waived
             and f.id not in ("NET023", "NET024", "COST002")]  # a bench cluster of one compute fabric: no OOB, no
    # front end, its optics unpriced
    assert [(f.id, f.message.split(": ")[-1].split(";")[0]) for f in short] == [
        ("NET012", "spine needs 256 x qm9700"), ("NET012", "core needs 128 x qm9700")]
    runs = {(r.tier): r for r in result.clusters["cluster/bench-b200-8192"].cabling.runs}
    core_ends = runs["spine_core"].b_rack
    assert (core_ends == -1).all()          # no slot is left for any of the 128 cores
    rows = run_list(result.clusters["cluster/bench-b200-8192"]).rows
    assert {row[4] for row in rows if row[1] == "spine_core"} == {NO_RACK}
