"""A hall's design-day facility power and its annual energy (facility3).

- `facility_power_peak` is IT power x the hall's `peak_pue` (design conditions: ASHRAE 90.4's design MLC, against
  the annualized one; The Green Grid's PUE is an annual figure, White Paper #49), what PWR011 sizes generators on.
- `facility_energy_per_year` is the energy the hall draws for the cluster in a year: (average power x utilisation +
  idle power x (1 - utilisation)) x 8,766 h x the annual PUE, the energy `energy_cost_per_year` prices; not provided
  without the hall's `cost:`.
"""

from __future__ import annotations

import pytest

from archgen.analyse.cost import HOURS_PER_YEAR
from tests.conftest import run_specs

_COST = """cost:
  energy: {price: 0.09 USD/kWh, pue: 1.2, basis: assumed, source: test case}
  space_per_rack: 2000 USD/month
  depreciation_years: 5
  utilisation: 0.8
  basis: assumed
  source: test case
"""
_HALL = """kind: Facility
id: small-hall
floor_rating: 2500 kg/m**2
water: {supply: 30 degC}
air: {supply: 25 degC}
peak_pue: 1.35
"""
_CLUSTER = """---
kind: Cluster
id: c
facility: small-hall
units:
- id: su
  racks:
  - {rack: gb200-nvl72, count: 2}
layout:
- {unit: su, count: 1}
floor: {racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3 m, tray_drop: 1.5 m}
"""


def test_design_day_power_and_annual_energy_follow_their_formulas(tmp_path):
    run = run_specs(tmp_path, {"specs.yaml": _HALL + _COST + _CLUSTER})
    m = run.metrics["cluster/c"]
    assert m["facility_power_peak"].m_as("kW") == pytest.approx(m["it_power"].m_as("kW") * 1.35, rel=1e-12)
    assert m["facility_power"].m_as("kW") == pytest.approx(m["it_power"].m_as("kW") * 1.2, rel=1e-12)
    load = m["power_average"].m_as("kW") * 0.8 + m["power_idle"].m_as("kW") * 0.2
    mwh = m["facility_energy_per_year"].m_as("MWh")
    assert mwh == pytest.approx(load * HOURS_PER_YEAR * 1.2 / 1000, rel=1e-12)
    # the energy the cost prices: energy cost = energy x price
    assert m["energy_cost_per_year"].m_as("USD") == pytest.approx(mwh * 1000 * 0.09, rel=1e-12)


def test_annual_energy_is_not_provided_without_the_halls_cost(tmp_path):
    """Without `cost:` there is no annual PUE or utilisation: no energy figure, and the run says why; the design-day
    figure needs only `peak_pue`."""
    run = run_specs(tmp_path, {"specs.yaml": _HALL + _CLUSTER})
    m = run.metrics["cluster/c"]
    assert "facility_energy_per_year" not in m and "facility_power" not in m
    assert m["facility_power_peak"].m_as("kW") == pytest.approx(m["it_power"].m_as("kW") * 1.35, rel=1e-12)
    why = run.operations.withheld.get("cluster/c", {}).get("facility_energy_per_year", "")
    assert "gives no `cost:`" in why
