"""Which way air runs through each placed part in the rack's frame (COOL018, newuser67).

A part states its airflow from its own front (NetBox's device-type library: QM9700 `rear-to-front`, i.e.
power-to-connector; DGX H100 front to back, its user guide). Mounted from the rack's rear it turns round.
"""

from __future__ import annotations

from archgen.analyse.air_direction import directions_text, slot_air
from archgen.render.rack_cooling import cooling
from tests.conftest import case_files, run_specs


def _rack(tmp_path, case: str):
    return run_specs(tmp_path, case_files("COOL018", case)).racks["rack/r"]


def test_a_p2c_switch_from_the_rear_runs_front_to_rear(tmp_path):
    slots = slot_air(_rack(tmp_path, "pass_p2c_switches_mounted_from_the_rear").rack)
    assert [(s.part, s.stated, s.in_rack, s.against) for s in slots] == [
        ("dgx-h100", "front-to-rear", "front-to-rear", False), ("qm9700", "rear-to-front", "front-to-rear", False)]
    assert directions_text(slots) == "front-to-rear: dgx-h100 × 2, qm9700 × 2"


def test_a_p2c_switch_from_the_front_blows_into_the_cold_aisle(tmp_path):
    a = _rack(tmp_path, "fail_p2c_switches_with_ports_at_the_front")
    assert directions_text(slot_air(a.rack)) == "front-to-rear: dgx-h100 × 2; rear-to-front (COOL018): qm9700 × 2"
    [air] = [s for s in cooling(a).sections if s.id == "air"]
    rows = dict(air.blocks[0].rows)
    assert rows["Airflow in the rack (front on the cold aisle, rear on the hot; COOL018)"] == \
        "front-to-rear: dgx-h100 × 2; rear-to-front (COOL018): qm9700 × 2"


def test_a_side_exhaust_turned_round_stays_sideways(tmp_path):
    files = case_files("COOL018", "fail_side_exhaust_switch")
    files["specs.yaml"] = files["specs.yaml"].replace("{at: 40, part: side-switch}",
                                                      "{at: 40, part: side-switch, face: rear}")
    [s] = slot_air(run_specs(tmp_path, files).racks["rack/r"].rack)
    assert (s.intake, s.exhaust, s.against) == ("right", "left", True)
