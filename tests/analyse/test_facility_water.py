"""Facility-side (primary) water of a CDU group: flow and return where the CDU states its facility ΔT (newuser25, 5),
else where the hall states its design return (nu67fix), else a range over assumed rises.

Input: the COOL012 case of four MI355X platforms (4 x 15.2 kW x 0.8 = 48.64 kW to liquid, one rack per CDU group)
in the shipped hall-liquid (facility water 30 °C), its in-row CDU swapped for a test CDU that states
`facility_delta_t: 10 K`. Before, neither document gave a facility water flow or return, and no CDU could state the
primary ΔT. newuser67: the shipped class CDU states none and hall-liquid no return, so the GB300 SU's group read
"not provided"; a hall now states its design return, and where nothing is stated the flow is a range at the
assumed 5-10 K (`ASSUMED_RISES`, chilled-water practice: Simha 2005 section 1, GSA P100 section 5.12). Flow = Q / (ρ c_p ΔT) with water (995.6 kg/m³, 4180 J/(kg K), NIST, as `analyse.rack.COOLANTS`).
"""

from __future__ import annotations

import pytest

from archgen.analyse.facility_water import ASSUMED_RISES, facility_water
from archgen.errors import ArchgenError
from archgen.render.rack_cooling import cooling
from tests.analyse.test_rear_door import CLUSTER, dc_needs
from tests.conftest import case_files, run_specs

CDU = """\
kind: CoolingUnit
id: cdu-test
name: CDU under test
source: test part
type: in-row-cdu
capacity: 1.3 MW
facility_delta_t: 10 K
"""
HALL = """\
kind: Facility
id: hall-test
name: Hall with a design return
floor_rating: 2500 kg/m**2
water: {supply: 30 degC, return: 38 degC}
air: {supply: 25 degC}
"""
LIQUID = 4 * 15.2 * 0.8                     # kW, catalog amd-mi355x-platform
FLOW = LIQUID * 1000 / (995.6 * 4180 * 10) * 60_000   # L/min of facility water at 10 K: 70.13 L/min


def _files(stated: bool = True) -> dict[str, str]:
    files = case_files("COOL012", "pass_in_row_cdu_not_placed")
    if stated:
        files["racks/r.yaml"] = files["racks/r.yaml"].replace("cdu: in-row-cdu-1.3mw", "cdu: cdu-test")
        files["catalog/cdu-test.yaml"] = CDU
    return files


def _liquid_rows(a) -> dict[str, str]:
    [liquid] = [s for s in cooling(a).sections if s.id == "liquid"]
    return dict(liquid.blocks[0].rows)


def test_a_stated_facility_delta_t_gives_flow_and_return(tmp_path):
    a = run_specs(tmp_path, _files()).racks["rack/r"]
    fw = facility_water(a)
    assert fw.flow.m_as("L/min") == pytest.approx(FLOW)
    assert fw.back.m_as("degC") == pytest.approx(30 + 10)
    assert _liquid_rows(a)["Facility water per CDU group"] == (
        "70 L/min for 48.6 kW at ΔT 10.0 K (Q / (ρ c_p ΔT), water; cdu-test's facility_delta_t); return 40.0 °C (supply 30.0 °C + ΔT)")


def test_nothing_stated_gives_a_range_at_assumed_rises(tmp_path):
    a = run_specs(tmp_path, _files(stated=False)).racks["rack/r"]
    fw = facility_water(a)
    assert fw.flow is None and fw.back is None
    assert [q.m_as("K") for q in ASSUMED_RISES] == [5, 10]
    assert fw.span[0].m_as("L/min") == pytest.approx(2 * FLOW)    # 5 K: twice the 10 K flow, 140.3 L/min
    assert fw.span[1].m_as("L/min") == pytest.approx(FLOW)
    assert _liquid_rows(a)["Facility water per CDU group"] == (
        "70 L/min to 140 L/min for 48.6 kW at an assumed ΔT of 10 K to 5 K (Q / (ρ c_p ΔT), water; chilled-water "
        "practice, docs/facility.md); return not provided (in-row-cdu-1.3mw states no facility_delta_t "
        "and the hall 'hall-liquid' no design return (water.return))")


def test_a_hall_design_return_gives_the_rise(tmp_path):
    files = _files(stated=False)
    files["racks/r.yaml"] = files["racks/r.yaml"].replace("facility: hall-liquid", "facility: hall-test")
    files["catalog/hall-test.yaml"] = HALL
    a = run_specs(tmp_path, files).racks["rack/r"]
    fw = facility_water(a)
    assert fw.delta_t.m_as("K") == pytest.approx(8)              # 38 °C return less 30 °C supply
    assert fw.flow.m_as("L/min") == pytest.approx(FLOW * 10 / 8)  # 87.66 L/min
    assert _liquid_rows(a)["Facility water per CDU group"] == (
        "88 L/min for 48.6 kW at ΔT 8.0 K (Q / (ρ c_p ΔT), water; hall-test's design return less supply); return "
        "38.0 °C (supply 30.0 °C + ΔT)")


def test_a_cdu_rise_the_halls_design_return_disagrees_with_is_said(tmp_path):
    """review35: with both stated, the CDU's 10 K wins (the order above) and the return reads 40 °C; the hall's design
    return of 38 °C (8 K) was dropped without a word. Now the basis names it; where they agree, nothing is added."""
    files = _files()
    files["racks/r.yaml"] = files["racks/r.yaml"].replace("facility: hall-liquid", "facility: hall-test")
    files["catalog/hall-test.yaml"] = HALL
    a = run_specs(tmp_path, files).racks["rack/r"]
    fw = facility_water(a)
    assert fw.delta_t.m_as("K") == pytest.approx(10) and fw.back.m_as("degC") == pytest.approx(40)
    assert _liquid_rows(a)["Facility water per CDU group"] == (
        "70 L/min for 48.6 kW at ΔT 10.0 K (Q / (ρ c_p ΔT), water; cdu-test's facility_delta_t, not hall-test's "
        "design return 38.0 °C less supply (8.0 K): the two disagree, and the return given is the CDU's); return "
        "40.0 °C (supply 30.0 °C + ΔT)")
    files["catalog/hall-test.yaml"] = HALL.replace("return: 38 degC", "return: 40 degC")
    assert facility_water(run_specs(tmp_path / "agree", files).racks["rack/r"]).basis == "cdu-test's facility_delta_t"


def test_a_return_not_above_the_supply_is_refused(tmp_path):
    files = _files(stated=False)
    files["racks/r.yaml"] = files["racks/r.yaml"].replace("facility: hall-liquid", "facility: hall-test")
    files["catalog/hall-test.yaml"] = HALL.replace("return: 38 degC", "return: 30 degC")
    with pytest.raises(ArchgenError, match="not above the supply"):
        run_specs(tmp_path, files)


def test_the_cluster_document_gives_the_halls_water(tmp_path):
    rows = dc_needs(run_specs(tmp_path, {**_files(), "clusters/c.yaml": CLUSTER}))   # the same 3 racks of r
    # 3 racks: 3 x 48.64 kW = 145.9 kW; 3 x 70.13 = 210.4 L/min; the heat the water carries sums the catalog trays'
    # unconfirmed draws, so it is marked as the document's other figures on them are (unconfband43)
    assert rows["Facility water, 3 × r"] == (
        f"{3 * FLOW:.0f} L/min for 145.9 kW (unconfirmed) at ΔT 10.0 K (Q / (ρ c_p ΔT), water; cdu-test's facility_delta_t); return 40.0 °C (supply 30.0 °C + ΔT)")
