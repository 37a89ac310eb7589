"""Facility-side (primary) water of a CDU group: flow and return where the CDU states its facility ΔT (newuser25, 5).

Input: the COOL012 case of four MI355X platforms (4 x 15.2 kW x 0.8 = 48.64 kW to liquid, one rack per CDU group)
in the shipped hall-liquid (facility water 30 °C), its in-row CDU swapped for a test CDU that states
`facility_delta_t: 10 K`. Before, neither document gave a facility water flow or return, and no CDU could state the
primary ΔT. Flow = Q / (ρ c_p ΔT) with water (995.6 kg/m³, 4180 J/(kg K), NIST, as `analyse.rack.COOLANTS`).
"""

from __future__ import annotations

import pytest

from archgen.analyse.facility_water import facility_water
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
        "70 L/min for 48.6 kW at ΔT 10.0 K (Q / (ρ c_p ΔT), water); return 40.0 °C (supply 30.0 °C + ΔT)")


def test_no_facility_delta_t_is_not_provided(tmp_path):
    a = run_specs(tmp_path, _files(stated=False)).racks["rack/r"]
    assert facility_water(a).flow is None
    assert _liquid_rows(a)["Facility water per CDU group"] == (
        "not provided (in-row-cdu-1.3mw states no facility-side ΔT (facility_delta_t))")


def test_the_cluster_document_gives_the_halls_water(tmp_path):
    rows = dc_needs(run_specs(tmp_path, {**_files(), "clusters/c.yaml": CLUSTER}))   # the same 3 racks of r
    # 3 racks: 3 x 48.64 kW = 145.9 kW; 3 x 70.13 = 210.4 L/min
    assert rows["Facility water, 3 × r"] == (
        f"{3 * FLOW:.0f} L/min for 145.9 kW at ΔT 10.0 K (Q / (ρ c_p ΔT), water); return 40.0 °C (supply 30.0 °C + ΔT)")
