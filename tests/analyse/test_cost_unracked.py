"""Switches placed in no rack are named as not costed for their rack space (COST007), never read as free.

A buyer's proposal leaves the GB200 SU's 16 compute spines out of its racks: the InfiniBand rack holds the 18 leaves
only, and the spine tier names no rack. The space cost (per rack position) counted the 10 racks and the capex the
racks' enclosures and PDUs, so the spines' rack space was $0 with no cost finding (CAB004 spoke of cable lengths
only). Their own price and power are counted; COST007 now names them, their count and rack units, and the document
lists them under Open items.
"""

from __future__ import annotations

from pathlib import Path

from archgen.pipeline import run
from archgen.render import operations
from tests.conftest import SPECS

CLUSTER = "cluster/gb200-nvl72-su"


def _design(root: Path, spines_racked: bool, slots_kept: bool = False) -> Path:
    root.mkdir(parents=True)
    text = (SPECS / "clusters" / "gb200-nvl72-su.yaml").read_text(encoding="utf-8")
    if not spines_racked:
        if not slots_kept:
            text = text.replace("  - {at: 5, part: qm9700, count: 34, face: rear}", "  - {at: 5, part: qm9700, count: 18, face: rear}")
        text = text.replace("    spine: {rack: gb200-su-ib}\n", "", 1)   # the compute fabric's spines
    assert spines_racked or "spine: {rack: gb200-su-ib}" not in text and (slots_kept or "count: 18, face" in text)
    (root / "cluster.yaml").write_text(text, encoding="utf-8")
    return root


def test_switches_in_no_rack_are_named_as_not_costed(tmp_path):
    r = run([_design(tmp_path / "a", spines_racked=False)])
    found = [(f.severity, f.object, f.message) for f in r.findings if f.id == "COST007"]
    assert found == [("warning", CLUSTER, "the switches placed in no rack, qm9700 x16 (16 U), have no rack position "
                                          "in the space cost (10 racks) and no enclosure or PDU in the capex: their "
                                          "rack space is not costed")]
    cost = r.operations.cost[CLUSTER]
    assert [(line.part, line.quantity) for line in cost.unracked] == [("qm9700", 16)]
    assert sum(line.quantity for line in cost.lines if line.part == "qm9700") == 34    # their own price counted
    assert any(item.startswith("Space cost and capex leave out the rack space") and "qm9700 x16" in item
               for item in operations.open_items(r, r.clusters[CLUSTER]))


def test_the_shipped_su_racks_every_switch(tmp_path):
    r = run([_design(tmp_path / "a", spines_racked=True)])
    assert not [f for f in r.findings if f.id == "COST007"]
    assert not r.operations.cost[CLUSTER].unracked


def test_spines_in_no_rack_beside_spare_slots_of_their_part_are_named(tmp_path):
    """The same proposal with the IB rack still holding 34 qm9700: the spine tier names no rack, so the cabling
    places the 16 spines nowhere (CAB004, the floor's longest runs) and 16 of the rack's slots hold no switch of the
    fabric. COST007 counted per part over the cluster (34 needed, 34 in racks) and said nothing; it now counts per
    placement and says that the bill of materials counts the spines as the rack's spare slots."""
    r = run([_design(tmp_path / "a", spines_racked=False, slots_kept=True)])
    assert [f.object for f in r.findings if f.id == "CAB004"] == [f"{CLUSTER}/fabric/compute"]
    found = [(f.severity, f.object, f.message) for f in r.findings if f.id == "COST007"]
    assert found == [("warning", CLUSTER, "16 qm9700 of those placed in no rack by their tier (fabric "
                                          "'compute' spine x16) are counted on the bill of materials as the "
                                          "spare qm9700 slots of the 'gb200-su-ib' racks, where no tier puts them: the "
                                          "capex and space cost price those positions, not the switches' own, and "
                                          "their runs take the floor's longest length (CAB004)")]
    assert not r.operations.cost[CLUSTER].unracked    # the bill of materials is unchanged: 34 qm9700, all in racks


def test_the_spare_slot_warning_says_how_many_of_how_many(tmp_path: Path) -> None:
    """Some of a tier's unplaced switches in other racks' spare slots, the rest in none: the second warning gives
    both counts (newuser96: "8 sn5610 of those placed in no rack by their tier (spine x16, core x8)" read as if
    the tiers' 24 were 8)."""
    data = Path(__file__).parents[1] / "data" / "fabrics" / "dgx-b300-spectrum-x-su.yaml"
    text = data.read_text(encoding="utf-8").replace("    tiers: 2\n", "    tiers: 3\n")
    text = text.replace("    spine: {rack: b300-eth}\n", "")   # spines and cores in no rack; 8 spare leaf-rack slots
    (tmp_path / "b.yaml").write_text(text[:text.index("expect:")], encoding="utf-8")
    r = run([Path(__file__).parents[2] / "specs" / "catalog", tmp_path])
    found = [f.message for f in r.findings if f.id == "COST007"]
    assert any(m.startswith("the switches placed in no rack, sn5610 x16 (32 U),") for m in found)
    assert any(m.startswith("8 of the 24 sn5610 placed in no rack by their tier (fabric 'compute' spine x16, "
                            "fabric 'compute' core x8) are counted") for m in found)
