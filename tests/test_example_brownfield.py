"""examples/brownfield-hall: a GB200 and a GB300 row listed as `deployed` in one hall carry the hall's totals.

The expected totals are the formula over the rows' own metrics (no storage shared): hall_it_power = Σ it_power,
hall_facility_power = that x the hall's PUE (1.2, the example's assumed input), energy = Σ facility_energy_per_year.
"""

from __future__ import annotations

import pytest

from tests.conftest import _from_repo


@pytest.fixture(scope="module")
def run():
    return _from_repo("examples/brownfield-hall")


def test_each_row_carries_the_hall_totals_over_both(run):
    a, b = run.metrics["cluster/gb200-row"], run.metrics["cluster/gb300-row"]
    it = (a["it_power"] + b["it_power"]).m_as("kW")
    energy = (a["facility_energy_per_year"] + b["facility_energy_per_year"]).m_as("MWh")
    for m in (a, b):
        assert m["hall_it_power"].m_as("kW") == pytest.approx(it)
        assert m["hall_facility_power"].m_as("kW") == pytest.approx(it * 1.2)
        assert m["hall_facility_energy_per_year"].m_as("MWh") == pytest.approx(energy)
        assert m["it_capacity_headroom"].m_as("kW") == pytest.approx(1200 - it)   # racks' own cooling: none here


def test_no_error_and_no_totals_finding(run):
    assert not [f for f in run.findings if f.severity == "error" and not f.waived]
    assert not [f for f in run.findings if f.id in ("PWR020", "PWR021")]


def test_the_cluster_document_gives_the_totals(run):
    from archgen.render import fmt
    from archgen.render.datacentre import _totals
    path = "cluster/gb200-row"
    m = run.metrics[path]
    text = _totals(run.clusters[path], m, ("gb300-row",), run.clusters)
    assert text.startswith(f"IT power {fmt.q(m['hall_it_power'], 'kW', 1)}; facility power "
                           f"{fmt.q(m['hall_facility_power'], 'kW', 1)}; facility energy per year ")
    assert text.endswith("over 'gb200-row', 'gb300-row' (`deployed`)")


def test_the_totals_rest_on_both_rows_unconfirmed_figures(run):
    # the GB300 row's tray power is unconfirmed (PWR012); a requirement on the GB200 row's hall total rests on it too
    got = run.operations.assumed["cluster/gb200-row"]["hall_it_power"]
    assert any(w.startswith("gb300-compute-tray power.max") for w in got)
    assert any(w.startswith("gb200-compute-tray power.max") for w in got)
    assert not any(w.startswith("gb300-compute-tray") for w in run.operations.assumed["cluster/gb200-row"]["it_power"])


def test_the_racks_nvlink_trays_are_not_unused_switches(run):
    """The rows state no `scale_up` (racks only), and NET017 read each NVL72 rack's nine NVLink switch trays as
    switches the fabrics leave unused: '36 unused draw 136.8 kW at maximum, 25.2 % of the IT power', a warning once
    NET017 weighed its surplus (nu72fix). No scale-out fabric takes an NVLink or UALink tray (`proportion.SCALE_UP_ONLY`)."""
    assert not [f for f in run.findings if f.id == "NET017" and "nvlink" in f.message]
