"""A hall's `deployed` list: the clusters standing in it side by side are summed, a candidate is judged alone.

The brownfield case (two generations in one hall): the hall's IT power, facility power and energy are the sum over
what is deployed, a checkpoint storage they share once, and PWR010 judges that sum (an error above the hall's
critical IT power). Expected values are the formula over the clusters' own metrics: hall_it_power = Σ it_power − the
shared storage's 100 kW (the test's round input, `STORAGE`); hall_facility_power = that x the hall's PUE 1.2 (the
test's input); energy less 100 kW x 8,766 h x 1.2 (utilisation unstated: every hour at its typical draw, its max).
"""

from __future__ import annotations

import pytest

from archgen.render.datacentre import _totals
from tests.analyse.test_shared_storage_capex import STORAGE
from tests.conftest import run_specs
from tests.one_hall import cluster, hall

COST = """cost:
  energy: {price: 0.09 USD/kWh, pue: 1.2, basis: assumed, source: test case}
  space_per_rack: 2000 USD/month
  depreciation_years: 5
  basis: assumed
  source: test case
"""
PFS = STORAGE.format(sid="site-pfs", price="2000000")


def _run(tmp_path, deployed: str | None, ids: str = "cd", capacity: str = "2000 kW", extra: str = ""):
    listed = "" if deployed is None else f"deployed: [{deployed}]\n"
    files = hall(capacity) + COST + listed + "".join(cluster(cid, PFS) for cid in ids) + extra
    return run_specs(tmp_path, {"specs.yaml": files})


def _findings(run, check: str):
    return [f for f in run.findings if f.id == check]


def test_the_totals_are_the_deployed_clusters_summed_the_storage_once(tmp_path):
    run = _run(tmp_path, "c, d", ids="cde")   # e names the hall, not deployed: a candidate, left out
    c, d = run.metrics["cluster/c"], run.metrics["cluster/d"]
    hall_kw = (c["it_power"] + d["it_power"]).m_as("kW") - 100
    twice = 100 * 8766 * 1.2 / 1000   # kW x h/year (analyse.cost.HOURS_PER_YEAR) x PUE, in MWh
    energy = (c["facility_energy_per_year"] + d["facility_energy_per_year"]).m_as("MWh") - twice
    for m in (c, d):
        assert m["hall_it_power"].m_as("kW") == pytest.approx(hall_kw)
        assert m["hall_facility_power"].m_as("kW") == pytest.approx(hall_kw * 1.2)
        assert m["hall_facility_energy_per_year"].m_as("MWh") == pytest.approx(energy)
    assert not any(k.startswith("hall_") for k in run.metrics["cluster/e"])
    assert not _findings(run, "PWR021") and not _findings(run, "PWR020")


def test_no_deployed_no_totals_and_an_info_finding(tmp_path):
    run = _run(tmp_path, None)
    assert not any(k.startswith("hall_") for m in run.metrics.values() for k in m)
    [f] = _findings(run, "PWR021")
    assert f.severity == "info" and f.object == "facility/one-hall"
    assert "does not say which clusters are deployed together" in f.message and "'c', 'd' name it" in f.message


def test_a_deployed_sum_over_the_hall_is_an_error_a_candidate_is_judged_alone(tmp_path):
    # two clusters of about 271 kW each (tests/checks/test_hall_redundancy) in a hall of 400 kW
    run = _run(tmp_path, "c, d", ids="cde", capacity="400 kW")
    got = {f.object: f for f in _findings(run, "PWR010")}
    assert set(got) == {"cluster/c", "cluster/d", "cluster/e"}
    hall_kw = run.metrics["cluster/c"]["hall_it_power"]
    for f in (got["cluster/c"], got["cluster/d"]):
        assert f.severity == "error"
        assert "deployed together in facility 'one-hall'" in f.message
        assert f.value.m_as("kW") == pytest.approx(hall_kw.m_as("kW"), rel=1e-3)   # no rack cooling units here
    assert run.metrics["cluster/c"]["it_capacity_headroom"].m_as("kW") == pytest.approx(400 - hall_kw.m_as("kW"),
                                                                                       rel=1e-3)
    # e alone fits: its headroom is its own, and an info finding says what the hall would carry were it added
    e = run.metrics["cluster/e"]
    assert e["it_capacity_headroom"].m_as("kW") == pytest.approx(400 - e["it_power"].m_as("kW"), rel=1e-3)
    assert got["cluster/e"].severity == "info"
    assert got["cluster/e"].message.startswith("a candidate design (371.3 kW) within facility 'one-hall''s ")  # with its 100 kW PFS
    assert "beside the clusters deployed there ('c' " in got["cluster/e"].message
    assert got["cluster/e"].value.m_as("kW") == pytest.approx(hall_kw.m_as("kW") + e["it_power"].m_as("kW") - 100,
                                                              rel=1e-3)   # the site PFS (100 kW) once


def test_a_candidate_over_the_hall_says_it_is_judged_alone(tmp_path):
    run = _run(tmp_path, "c", ids="cd", capacity="200 kW")
    [f] = [f for f in _findings(run, "PWR010") if f.object == "cluster/d"]
    assert f.severity == "error"
    assert f.message.endswith("(a candidate design: facility 'one-hall''s `deployed` does not list it, so it is "
                              "judged alone against the hall)")


def test_an_unknown_id_is_an_error_at_its_line(tmp_path):
    run = _run(tmp_path, "c, dd")
    [f] = _findings(run, "PWR020")
    assert f.severity == "error" and f.location is not None
    assert (f.location.file, f.location.line) == ("specs/specs.yaml", 14)
    assert "`deployed` lists 'dd', which is no cluster of this run" in f.message and "did you mean 'd'" in f.message


def test_a_cluster_of_another_hall_is_an_error(tmp_path):
    other = hall().replace("id: one-hall", "id: two-hall")
    run = _run(tmp_path, "c, x", extra="---\n" + other + cluster("x", facility="two-hall"))
    [f] = _findings(run, "PWR020")
    assert "lists cluster 'x', which names facility 'two-hall'" in f.message
    assert "expected a cluster whose `facility` or one of whose halls is 'one-hall'" in f.message


def test_a_candidate_shares_no_storage_capex(tmp_path):
    # the capex note of a storage under one id names the deployed clusters only; the candidate's line stands alone
    from archgen.analyse.storage_cost import STORAGE_KIND
    run = _run(tmp_path, "c, d", ids="cde")
    lines = {cid: next(line for line in run.operations.cost[f"cluster/{cid}"].lines if line.kind == STORAGE_KIND)
             for cid in "cde"}
    assert lines["c"].shared.startswith("shared with cluster 'd' (one system")
    assert lines["c"].shared.endswith("(2 clusters)") and lines["e"].shared == ""


def test_an_empty_deployed_makes_every_cluster_a_candidate_and_says_so(tmp_path):
    """`deployed: []` (small25): no cluster stands in the hall yet. Every cluster naming it is a candidate judged
    alone (no totals, no summed warning: 2 x ~271 kW in a 400 kW hall is no finding on either), and PWR021 says the
    totals are not provided at the list's line rather than nothing being said."""
    run = _run(tmp_path, "", capacity="400 kW")
    assert not any(k.startswith("hall_") for m in run.metrics.values() for k in m)
    assert not [f for f in _findings(run, "PWR010") if f.severity != "pass"]
    for cid in "cd":
        m = run.metrics[f"cluster/{cid}"]
        assert m["it_capacity_headroom"].m_as("kW") == pytest.approx(400 - m["it_power"].m_as("kW"), rel=1e-3)
    [f] = _findings(run, "PWR021")
    assert f.severity == "info" and f.location is not None and f.location.line == 14
    assert "lists no cluster as deployed (`deployed: []`): 'c', 'd' name it, each a candidate design judged alone" \
        in f.message
    # the cluster document's "Hall totals" row says it too
    assert _totals(run.clusters["cluster/c"], {}, (), run.clusters) == (
        "not provided: a candidate design, the hall's `deployed` lists none (`deployed: []`); judged alone against "
        "the hall (PWR021)")
