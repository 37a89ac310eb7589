"""The hall's UPS autonomy against its generator sets' start and transfer (PWR019; lo23power, item 3).

Before, `feeds.ups_autonomy` was shown in the cluster document and judged against nothing, and a hall had no way to
state how long its generator sets take to carry the load. The rule (autonomy >= start and transfer) and the typical
figures quoted are NFPA 110's Type 10 (10 s) and a UPS supplier's "1-2 minutes" (archgen/checks/ride_through.py).
"""

from __future__ import annotations

from archgen.render.cluster import cluster_scope
from archgen.render.datacentre import datacentre
from tests.checks.test_cases import findings_of
from tests.conftest import case_files, run_specs
from tests.one_hall import cluster  # two GB200 NVL72 racks in a hall


def _hall(feeds: str) -> str:
    return ("kind: Facility\nid: h\nfloor_rating: 2500 kg/m**2\nwater: {supply: 30 degC}\nair: {supply: 25 degC}\n"
            f"feeds: {feeds}\n" + cluster("c", facility="h"))


def _row(tmp_path, feeds: str) -> str:
    run = run_specs(tmp_path, {"specs.yaml": _hall(feeds)})
    a = run.clusters["cluster/c"]
    scope, _ = cluster_scope(run, a, "r", "2026-01-01")
    rows = dict(next(b for b in datacentre(scope, a).blocks if getattr(b, "id", "") == "dc-hall").rows)
    return rows["Generator start and transfer"]


def test_an_autonomy_shorter_than_the_transfer_is_an_error(tmp_path):
    [f] = findings_of("PWR019", {"files": case_files("PWR019", "fail_autonomy_short")}, tmp_path)
    assert f.severity == "error" and (f.value.m_as("s"), f.limit.m_as("s")) == (30, 120)


def test_a_transfer_not_stated_is_not_provided_not_a_pass(tmp_path):
    [f] = findings_of("PWR019", {"files": case_files("PWR019", "fail_transfer_not_provided")}, tmp_path)
    assert f.severity == "info" and "`feeds.generator_transfer` not provided" in f.message


def test_the_cluster_document_says_whether_the_autonomy_covers_the_transfer(tmp_path):
    assert _row(tmp_path / "a", "{ups: N+1, ups_autonomy: 5 min, generators: N+1, generator_transfer: 10 s}") == (
        "10 s: the UPS autonomy covers it (300 s; PWR019)")
    assert _row(tmp_path / "b", "{ups: N+1, ups_autonomy: 30 s, generators: N+1, generator_transfer: 2 min}") == (
        "120 s: the UPS autonomy does not cover it (30 s; PWR019)")
    assert _row(tmp_path / "c", "{ups: N+1, ups_autonomy: 5 min, generators: N+1}") == (
        "not provided (feeds.generator_transfer): the UPS autonomy is not compared with it (PWR019)")
