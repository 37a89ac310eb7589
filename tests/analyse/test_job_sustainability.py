"""A training run's carbon and water, and market-based scope 2 beside location-based (newuser75).

A sustainability lead reports a run's emissions as a model card does: Llama 3.1's card (huggingface.co/meta-llama/
Llama-3.1-405B, "Training Greenhouse Gas Emissions") gives 8,930 t CO2eq location-based for the 405B run (11,390 t for
the three models) and 0 t market-based (Meta's renewable matching). On main `check` gave only the cluster's carbon and
water per year, and one `carbon_intensity` that was location- or market-based as its source said, so neither the
run's figures nor the GHG Protocol Scope 2 Guidance's dual report (2015, chapters 4, 6 and 7) could be read. Each figure
here is its formula: the run's `job_energy` (or the year's energy) × the stated intensity; water over the PUE.
"""

from __future__ import annotations

import pytest

from tests.conftest import SPECS, TOKEN_BUDGET_405B, shipped_edited

HALL = (SPECS / "catalog" / "facilities" / "hall-liquid.yaml").read_text(encoding="utf-8")
PUE = 1.2   # hall-liquid's `cost.energy.pue`
#: The test's inputs, not sourced figures: a location-based 384 g/kWh, a market-based 50 g/kWh, 0.2 L/kWh.
STATED = """sustainability:
  carbon_intensity: 384 g/kWh
  market_carbon_intensity: 50 g/kWh
  wue: 0.2 L/kWh
  basis: assumed
  source: test inputs
"""
JOB = "workload/llama3-405b-pretrain-gb200"
CLUSTER = "cluster/gb200-nvl72-su"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The shipped 405B job with Llama 3.1's 15.6e12 tokens, in a hall stating both intensities and a WUE."""
    return shipped_edited(tmp_path_factory.mktemp("green"), *TOKEN_BUDGET_405B,
                          {"facilities/hall-liquid.yaml": HALL + STATED})


def test_a_runs_carbon_and_water_are_its_energy_times_the_stated_intensities(run):
    m = run.workloads[JOB].estimate.metrics
    kwh = m["job_energy"].m_as("kWh")
    assert m["job_carbon"].m_as("kg") == pytest.approx(kwh * 384 / 1000)
    assert m["job_market_carbon"].m_as("kg") == pytest.approx(kwh * 50 / 1000)
    assert m["job_water"].m_as("L") == pytest.approx(kwh / PUE * 0.2)


def test_market_based_carbon_per_year_is_the_energy_times_the_market_intensity(run):
    m = run.metrics[CLUSTER]
    kwh = m["facility_energy_per_year"].m_as("kWh")
    assert m["market_carbon_per_year"].m_as("kg") == pytest.approx(kwh * 50 / 1000)
    assert m["carbon_per_year"].m_as("kg") == pytest.approx(kwh * 384 / 1000)


def test_a_runs_carbon_takes_the_step_times_band_as_its_energy_does(run):
    bands = run.workloads[JOB].estimate.bands
    for name in ("job_carbon", "job_market_carbon", "job_water"):
        assert (bands[name].low, bands[name].high) == (bands["job_energy"].low, bands["job_energy"].high)


def test_a_market_based_figure_is_never_the_location_based_one(tmp_path):
    # a hall with only the grid's factor: the market-based figures are not provided, with the key named
    r = shipped_edited(tmp_path, *TOKEN_BUDGET_405B, {"facilities/hall-liquid.yaml": HALL + STATED.replace(
        "  market_carbon_intensity: 50 g/kWh\n", "")})
    m, c = r.workloads[JOB].estimate.metrics, r.metrics[CLUSTER]
    assert "job_carbon" in m and "job_market_carbon" not in m and "market_carbon_per_year" not in c
    want = "facility 'hall-liquid' states no `sustainability.market_carbon_intensity`"
    assert r.operations.withheld[JOB]["job_market_carbon"] == want
    assert r.operations.withheld[CLUSTER]["market_carbon_per_year"] == want
