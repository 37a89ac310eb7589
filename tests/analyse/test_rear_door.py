"""A rear door on a rack takes its air heat into water, up to the door's capacity (newuser25, open 1).

Input: the COOL014 cases, four MI355X platforms (4 x 15.2 kW catalog maximum, `liquid_fraction` 0.8, no power
shelves), so heat to air before any door = 4 x 15.2 kW x 0.2 = 12.16 kW. Before, a rear door placed in the rack
(`{at: 40, part: rdhx-10kw}`) was counted as nothing: heat to air stayed whole, nothing compared it with the door,
and the hall's air carried it all; a door given 0 U was refused. Now the door is `cooling.air.rear_door`, a door in
`slots` is REF002, and the hall's air takes min(0, air heat - capacity).
"""

from __future__ import annotations

import pytest

from archgen.render.rack_cooling import cooling
from tests.conftest import case_files, run_specs

AIR = 4 * 15.2 * 0.2   # kW to air before the door (catalog amd-mi355x-platform: max 15.2 kW, liquid_fraction 0.8)


def _files(case: str = "fail_air_heat_beyond_the_door", air: str | None = None) -> dict[str, str]:
    files = case_files("COOL014", case)
    if air is not None:
        files["racks/r.yaml"] = files["racks/r.yaml"].replace(", rear_door: door-10kw", air)
    return files


def test_a_door_takes_its_capacity_and_the_hall_the_rest(tmp_path):
    a = run_specs(tmp_path, _files()).racks["rack/r"]
    m = a.metrics
    assert m["heat_to_rear_door"].m_as("kW") == pytest.approx(10.0)
    assert m["heat_to_air"].m_as("kW") == pytest.approx(AIR - 10.0)       # 2.16 kW left to the hall's air
    assert (m["heat_to_liquid"] + m["heat_to_rear_door"] + m["heat_to_air"]).m_as("kW") == pytest.approx(
        m["input_power"].m_as("kW"))


def test_the_equipment_air_flow_is_the_same_with_a_door(tmp_path):
    with_door = run_specs(tmp_path / "a", _files()).racks["rack/r"]
    without = run_specs(tmp_path / "b", _files(air="")).racks["rack/r"]
    assert without.metrics["heat_to_air"].m_as("kW") == pytest.approx(AIR)
    assert "heat_to_rear_door" not in without.metrics
    # V = Q / (rho c_p dT) on the heat before the door: 12.16 kW / (1.204 kg/m3 x 1006 J/(kg K) x 20 K) at sea level
    flow = AIR * 1000 / (1.204 * 1006 * 20) * 3600
    assert with_door.metrics["air_flow"].m_as("m**3/h") == pytest.approx(flow)
    assert without.metrics["air_flow"].m_as("m**3/h") == pytest.approx(flow)


def test_a_door_larger_than_the_air_heat_takes_it_all(tmp_path):
    a = run_specs(tmp_path, _files("pass_door_takes_the_air_heat")).racks["rack/r"]
    assert a.metrics["heat_to_rear_door"].m_as("kW") == pytest.approx(AIR)
    assert a.metrics["heat_to_air"].m_as("kW") == pytest.approx(0.0)


def test_the_rack_document_shows_the_door(tmp_path):
    a = run_specs(tmp_path, _files()).racks["rack/r"]
    section = cooling(a)
    [air] = [s for s in section.sections if s.id == "air"]
    rows = dict(air.blocks[0].rows)
    assert rows["Air heat before the door / into its water / to the hall"] == "12.2 kW / 10.0 kW / 2.2 kW (COOL014)"
    assert rows["Rear door's own draw"] == "not provided (no `power` stated)"
    [split] = [b for b in section.blocks if getattr(b, "id", "") == "heat-split"]
    paths = {row[0]: row for row in split.rows}
    assert paths["Rear door"][1].m_as("kW") == pytest.approx(10.0)
    assert paths["Air"][1].m_as("kW") == pytest.approx(AIR - 10.0)
    assert paths["Air"][4].endswith("through the equipment, for its 12.2 kW before the door")


def test_a_door_placed_in_slots_is_refused(tmp_path):
    files = _files(air="")
    files["racks/r.yaml"] = files["racks/r.yaml"].replace("- {at: 1, part: pdu",
                                                        "- {at: 40, part: door-10kw}\n- {at: 1, part: pdu")
    result = run_specs(tmp_path, files)
    [ref] = [f for f in result.findings if f.id == "REF002"]
    assert ref.message == ("'door-10kw' is a CoolingUnit of type 'rdhx', expected a placeable part (a rear door is "
                           "named in cooling.air.rear_door)")
    assert not [p for p in result.racks["rack/r"].rack.items if p.part.id == "door-10kw"]


def test_a_cdu_named_as_the_rear_door_is_refused(tmp_path):
    result = run_specs(tmp_path, _files(air=", rear_door: in-row-cdu-1.3mw"))
    [ref] = [f for f in result.findings if f.id == "REF002"]
    assert ref.message == ("'in-row-cdu-1.3mw' is a CoolingUnit of type 'in-row-cdu', expected a CoolingUnit of "
                           "type 'rdhx'")
    assert result.racks["rack/r"].cooling.rear_door is None


CLUSTER = """kind: Cluster
id: c
facility: hall-liquid
units:
- id: su
  racks:
  - {rack: r, count: 3}
layout:
- {unit: su, count: 1}
floor: {racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3 m, tray_drop: 1.5 m}
"""


def dc_needs(run) -> dict[str, str]:
    """The rows of cluster c's data-centre requirements table ('What the design needs from the hall')."""
    from archgen.render.cluster import cluster_scope
    from archgen.render.datacentre import datacentre

    a = run.clusters["cluster/c"]
    scope, _ = cluster_scope(run, a, "r", "2026-01-01")
    [needs] = [b for b in datacentre(scope, a).blocks if getattr(b, "id", "") == "dc-needs"]
    return dict(needs.rows)


def test_the_hall_air_load_is_relieved_by_the_doors(tmp_path):
    rows = dc_needs(run_specs(tmp_path, {**_files(), "clusters/c.yaml": CLUSTER}))
    # 3 racks: 3 x 10 kW into the doors' water, 3 x (12.16 - 10) kW = 6.48 kW to the hall's air
    unmarked = {k: v.removesuffix(" (unconfirmed)") for k, v in rows.items()}   # its parts' draws' marker (unconfmark42)
    assert unmarked["Heat to the rear doors' water"] == "30.0 kW"
    assert unmarked["Heat to air (after the rear doors)"] == "6.5 kW"


def test_a_doors_rating_conditions_are_judged_as_a_cdus(tmp_path):
    # COOL010 judged only the CDU: a door rated at 20 °C air in hall-liquid (25 °C inlet air) was counted at its 10 kW.
    files = _files()
    files["catalog/door.yaml"] += "rated_at: {ambient: 20 degC}\n"
    result = run_specs(tmp_path, files)
    doors = [f for f in result.findings if f.id == "COOL010" and "rear door" in f.message]
    assert [f.message for f in doors] == ["rear door door-10kw is rated 10 kW at conditions facility 'hall-liquid' "
                                          "does not meet (hall air 25 °C, rated at 20 °C)"]
    assert doors[0].severity == "error"


def test_a_door_with_no_rating_conditions_is_an_info_finding(tmp_path):
    result = run_specs(tmp_path, _files())
    [door] = [f for f in result.findings if f.id == "COOL010" and "rear door" in f.message]
    assert door.severity == "info"
    assert door.message == ("rear door door-10kw states no rated_at: its 10 kW is counted as stated (COOL014), not "
                            "known to hold at facility 'hall-liquid' (facility water 30 °C)")
