"""Transceivers count once: in the budgets of the rack that draws their power, and once in the cluster total.

Regression (issue 11 item 4): switch-end modules were left out of the network rack's feed, PDU and heat checks and
added on top at the cluster level only. Node-end modules (in the systems' NICs) are inside the systems' `power.max`
unless the system says otherwise (`power_includes_optics: false`); the cluster added them again (7.76 kW of
1,122.7 kW on the shipped GB200 SU).
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
    assert c4.power.optics.m_as("W") == 0  # the node ends are inside the DGX H100's own figure
    cluster = result.clusters["cluster/c"]
    # Each transceiver once: racks' equipment + the switch-end modules (272 W) + switches outside racks (none);
    # the cluster's optics power still reports every module, both ends (544 W).
    equipment = c4.power.equipment + net.power.equipment
    assert cluster.metrics["optics_power"].m_as("W") == pytest.approx(32 * 17)
    assert cluster.metrics["it_power"].m_as("W") == pytest.approx(equipment.m_as("W") + 16 * 17)
    assert cluster.metrics["it_power"].m_as("W") == pytest.approx((c4.power.it_power + net.power.it_power).m_as("W"))


def test_a_system_whose_figure_leaves_its_modules_out_carries_them_in_its_rack(spec_tree):
    # The same cluster with a DGX H100 whose power.max is stated without modules: its 16 node-end SR8 modules
    # (8 NIC ports per node in twin-port cages: 4 x 8 / 2) draw 16 x 17 W = 272 W in the compute rack, and the
    # cluster counts both ends, 544 W, once.
    text = (SPECS / "catalog" / "systems" / "dgx-h100.yaml").read_text(encoding="utf-8")
    bare = text.replace("id: dgx-h100\n", "id: dgx-h100-bare\n", 1) + "power_includes_optics: false\n"
    tree = files(racks=1, sus=1, tiers=1)
    tree["racks/r.yaml"] = tree["racks/r.yaml"].replace("part: dgx-h100,", "part: dgx-h100-bare,")
    result = run([spec_tree({**tree, "systems/dgx-h100-bare.yaml": bare})])
    net, c4 = result.racks["rack/net"], result.racks["rack/c4"]
    assert c4.power.optics.m_as("W") == pytest.approx(16 * 17)
    assert c4.power.it_power == c4.power.equipment + c4.power.optics
    assert net.power.optics.m_as("W") == pytest.approx(16 * 17)
    cluster = result.clusters["cluster/c"]
    equipment = c4.power.equipment + net.power.equipment
    assert cluster.metrics["it_power"].m_as("W") == pytest.approx(equipment.m_as("W") + 32 * 17)
    assert cluster.metrics["it_power"].m_as("W") == pytest.approx((c4.power.it_power + net.power.it_power).m_as("W"))


def test_gb200_su_racks_add_up_to_the_cluster(shipped):
    # Rack IT power x racks + the network parts in no rack (none here: every switch and run end is placed) is the
    # cluster's IT power, each transceiver once. The compute racks differ only in the OOB leaf uplinks some hold
    # (their budgets take the most loaded), so the sum runs over the instances. Before: the cluster added the
    # trays' 864 NIC-end modules again, 7.776 kW (576 x 9 W SR4 compute, 288 x 9 W SR4 storage).
    from archgen.analyse.optics import instance_optics
    cluster = shipped.clusters["cluster/gb200-nvl72-su"]
    assert not any(line.note == "not placed in a rack" for line in cluster.cabling.bom)
    assert not any(t.unplaced_links for t in cluster.cabling.tiers)
    watts = instance_optics(cluster)
    racks = [shipped.racks[f"rack/{inst.rack.spec.id}"].power for inst in cluster.cluster.instances]
    for p, w in zip(racks, watts, strict=True):
        assert p.optics.m_as("W") >= w        # a rack type's budget holds its most loaded instance
    total = sum(p.equipment.m_as("kW") for p in racks) + watts.sum() / 1000
    # at the feeds: the compute racks' shelves add their loss (tests/analyse/test_shelf_loss.py)
    loss = cluster.metrics["shelf_loss"].m_as("kW")
    assert loss == pytest.approx(8 * (131.61 - 0.197) * (1 / 0.97 - 1), abs=0.01)   # SN2201s off the busbar
    assert cluster.metrics["it_power"].m_as("kW") == pytest.approx(total + loss)
    # the node ends inside the trays' figure, and the storage leaves' 72 twin-port SR8 modules (17 W) inside the
    # SN5600's `power.max`, which holds its ports' modules (`power_includes_optics`; newuser26 open 5)
    assert cluster.metrics["optics_power"].m_as("kW") - watts.sum() / 1000 == pytest.approx(
        576 * 9 / 1000 + 288 * 6.5 / 1000 + 72 * 17 / 1000)


def test_a_switch_whose_figure_holds_its_modules_adds_none(spec_tree):
    # The first test's cluster with a QM9700 leaf whose power.max is said to hold its ports' modules: the 16
    # switch-end SR8 modules (16 x 17 W = 272 W) leave the network rack's optics and the cluster's IT power, which is
    # the racks' equipment alone; the cluster's optics power still reports every module (544 W), and the BOM line
    # marks the 16 as drawing inside the switch's maximum (newuser26: SN5600's 3 kW PSU rating, up to 64 x 17 W).
    text = (SPECS / "catalog" / "switches" / "qm9700.yaml").read_text(encoding="utf-8")
    held = text.replace("id: qm9700\n", "id: qm9700-held\n", 1) + "power_includes_optics: true\n"
    tree = files(racks=1, sus=1, tiers=1)
    tree = {k: v.replace("qm9700", "qm9700-held") for k, v in tree.items()}
    result = run([spec_tree({**tree, "switches/qm9700-held.yaml": held})])
    net, c4 = result.racks["rack/net"], result.racks["rack/c4"]
    assert net.power.optics.m_as("W") == 0
    cluster = result.clusters["cluster/c"]
    assert cluster.metrics["optics_power"].m_as("W") == pytest.approx(32 * 17)
    equipment = c4.power.equipment + net.power.equipment
    assert cluster.metrics["it_power"].m_as("W") == pytest.approx(equipment.m_as("W"))
    [line] = [ln for ln in cluster.cabling.bom if ln.part == "mmf-800g-sr8"]
    assert (line.quantity, line.in_parent) == (32, 32)      # 16 inside the DGX H100s, 16 inside the leaf
    assert "those in qm9700-held's ports draw inside its maximum" in line.note


def test_shipped_clusters_count_each_transceiver_once(shipped):
    from archgen.analyse.optics import instance_optics
    result = shipped
    for cluster in result.clusters.values():
        racks = sum(result.racks[f"rack/{rid}"].power.equipment * n for rid, n in cluster.cluster.rack_counts.items())
        unplaced = sum((line.total_power for line in cluster.cabling.bom if line.note == "not placed in a rack"),
                       0 * racks)
        nodes = sum((t.node_optics_power for t in cluster.cabling.tiers), 0 * racks)  # inside every shipped system
        nodes = nodes + sum((t.switch_optics_power for t in cluster.cabling.tiers), 0 * racks)  # and in SN5600's
        expected = racks + cluster.metrics["optics_power"] - nodes + unplaced + cluster.metrics["shelf_loss"]
        assert cluster.metrics["it_power"].m_as("kW") == pytest.approx(expected.m_as("kW"))
        # an end stated only as a count (the DGX's UFM and storage appliance ports) stands in no rack: its module
        # is in the cluster's optics, in no rack's
        placed = (all(t.unplaced_links == 0 for t in cluster.cabling.tiers) and cluster.cabling.runs
                  and all((tr.a_rack >= 0).all() for tr in cluster.cabling.runs))
        if placed and cluster.cluster.instances:   # every module in a rack: the instances' optics are the rest
            rest = (cluster.metrics["optics_power"] - nodes).m_as("W")
            assert instance_optics(cluster).sum() == pytest.approx(rest)
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
             and f.id not in ("NET023", "NET024", "COST002", "PWR024")]  # a bench cluster of one compute fabric:
    # no OOB, no front end, its optics unpriced; the shipped DGX B200 rack keeps 3 of 5+1 PSUs with a side lost
    assert [(f.id, f.message.split(": ")[-1].split(";")[0]) for f in short if f.id != "COST007"] == [
        ("NET012", "spine needs 256 x qm9700"), ("NET012", "core needs 128 x qm9700")]
    # the 40 spines and 128 cores without a slot stand in no rack: their rack space is named as not costed
    assert [f.message.split(", ")[1] for f in short if f.id == "COST007"] == ["qm9700 x168 (168 U)"]
    runs = {(r.tier): r for r in result.clusters["cluster/bench-b200-8192"].cabling.runs}
    core_ends = runs["spine_core"].b_rack
    assert (core_ends == -1).all()          # no slot is left for any of the 128 cores
    rows = run_list(result.clusters["cluster/bench-b200-8192"]).rows
    assert {row[4] for row in rows if row[1] == "spine to core"} == {NO_RACK}


def test_it_power_racks_is_the_racks_without_their_optics(shipped):
    # docs/metrics.md called `it_power_racks` "the sum of the racks' IT power"; for mi355x-th5 that sum of the racks'
    # `it_power` metrics is 1,008.2 kW while the metric reads 999.4 kW: it leaves out the switch-end optics
    # (2 x 4.38 kW), which `it_power` (1,008.1 kW) counts once from the cabling. The description now says so.
    # (1,010.4 / 1,001.6 / 1,010.3 kW before the Arista 7060X6 took its data sheet's 2,218 W for its PSU's 2.4 kW.)
    from archgen.metrics import find
    cluster = shipped.clusters["cluster/mi355x-th5"]
    racks = {rid: shipped.racks[f"rack/{rid}"].metrics for rid in cluster.cluster.rack_counts}
    without = sum((m["it_power"] - m["optics_power"]) * n for (rid, m), n in
                  zip(racks.items(), cluster.cluster.rack_counts.values(), strict=True))
    assert cluster.metrics["it_power_racks"].m_as("kW") == pytest.approx(without.m_as("kW"))
    assert "without the optics" in find("cluster", "it_power_racks").description
