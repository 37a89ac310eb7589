"""hall30: on a site whose halls name their own facilities, the cost, energy and carbon read those facilities.

Before, `facility_energy_per_year`, `energy_cost_per_year` and `carbon_per_year` read the cluster's `facility`
('campus': PUE 1.6, 400 g CO2e/kWh), which holds none of the halls, while `facility_power` took the halls' PUE 1.2
(hall29fix): 3,805.4 MWh and 1,522.2 t beside a facility power of 325.6 kW = IT power x 1.2. Fixture: one GB200
NVL72 rack in each of two buildings (tests/analyse/test_own_hall_site.py).
"""

from __future__ import annotations

import pytest

from tests.analyse.test_own_hall_site import CLUSTER, HALL
from tests.conftest import run_specs

HOURS_PER_YEAR = 8766.0   # analyse.cost: a year of 365.25 days
GRID = "sustainability: {{carbon_intensity: {g} g/kWh, basis: assumed, source: test}}\n"


def _site(tmp_path, pue_b: float = 1.2, g_b: int = 100):
    text = (HALL.format(id="building-a", pue=1.2, peak=1.3, extra="", deployed=GRID.format(g=100))
            + HALL.format(id="building-b", pue=pue_b, peak=1.3, extra="", deployed=GRID.format(g=g_b))
            + HALL.format(id="campus", pue=1.6, peak=1.9, extra="", deployed=GRID.format(g=400)) + CLUSTER)
    return run_specs(tmp_path, {"specs.yaml": text})


def test_energy_cost_and_carbon_take_the_halls_facilities_not_the_campus(tmp_path) -> None:
    """Average load x 8,766 h x the buildings' PUE 1.2, x their 0.09 USD/kWh, x their 100 g/kWh (not 1.6, 400)."""
    r = _site(tmp_path)
    m = r.clusters["cluster/c"].metrics
    mwh = m["power_average"].m_as("MW") * HOURS_PER_YEAR * 1.2
    assert m["facility_energy_per_year"].m_as("MWh") == pytest.approx(mwh)
    assert m["energy_cost_per_year"].m_as("USD") == pytest.approx(mwh * 1000 * 0.09)
    assert m["carbon_per_year"].m_as("t") == pytest.approx(mwh * 1000 * 100 / 1e6)
    assert m["facility_power"].m_as("kW") == pytest.approx(m["it_power"].m_as("kW") * 1.2)   # the same PUE
    assert not any("campus" in f.message for f in r.findings if f.id.startswith("COST"))


def test_energy_and_its_cost_are_not_provided_where_the_halls_pues_differ(tmp_path) -> None:
    """Building b at PUE 1.4: the load outside the racks is not split by hall, so no one PUE; never the campus's."""
    r = _site(tmp_path, pue_b=1.4)
    m, why = r.clusters["cluster/c"].metrics, r.operations.withheld["cluster/c"]
    for name in ("facility_energy_per_year", "energy_cost_per_year", "tco_per_year", "carbon_per_year"):
        assert name not in m
    assert "energy.pue building-a 1.2, building-b 1.4" in why["energy_cost_per_year"]
    assert "not split by hall" in why["facility_energy_per_year"]


def test_carbon_alone_is_not_provided_where_the_halls_grids_differ(tmp_path) -> None:
    """Building b's grid at 200 g/kWh: the energy stands (one PUE), the carbon has no one intensity."""
    r = _site(tmp_path, g_b=200)
    m, why = r.clusters["cluster/c"].metrics, r.operations.withheld["cluster/c"]
    assert "facility_energy_per_year" in m and "carbon_per_year" not in m
    assert "carbon_intensity building-a 100 g/kWh" in why["carbon_per_year"] and "200 g/kWh" in why["carbon_per_year"]


def test_the_documents_energy_row_names_the_halls_pue(tmp_path) -> None:
    """The cluster document's energy row: at PUE 1.2, building-a's and building-b's (was the campus's 1.6)."""
    from archgen.render.cluster import cluster_scope
    from archgen.render.datacentre import datacentre

    r = _site(tmp_path)
    a = r.clusters["cluster/c"]
    scope, _ = cluster_scope(r, a, "r", "2026-01-01")
    rows = {b.id: dict(b.rows) for b in datacentre(scope, a).blocks if hasattr(b, "rows")}["dc-hall"]
    energy = rows["Facility energy per year (IT energy × PUE)"]
    assert "PUE 1.2 (assumed)" in energy and "the halls' facilities' (building-a, building-b)" in energy
    assert "at 100 g/kWh" in rows["Carbon per year (scope 2, location-based: facility energy × grid intensity)"]


SERVE = """---
kind: Workload
id: serve
model: llama3-70b
cluster: c
accelerators: 64
inference: {precision: fp8, tp: 4, input_len: 2048, output_len: 256}
"""


def test_a_jobs_energy_per_token_says_why_where_the_halls_pues_differ(tmp_path) -> None:
    """Building b at 1.4: no energy per token, and the reason is the halls' PUEs, not "the facility gives no cost"."""
    text = (HALL.format(id="building-a", pue=1.2, peak=1.3, extra="", deployed="")
            + HALL.format(id="building-b", pue=1.4, peak=1.3, extra="", deployed="")
            + HALL.format(id="campus", pue=1.6, peak=1.9, extra="", deployed="") + CLUSTER + SERVE)
    r = run_specs(tmp_path, {"specs.yaml": text})
    assert "facility_energy_per_million_tokens" not in r.workloads["workload/serve"].estimate.metrics
    why = r.operations.withheld["workload/serve"]["facility_energy_per_million_tokens"]
    assert "energy.pue building-a 1.2, building-b 1.4" in why
