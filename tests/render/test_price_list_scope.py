"""A cluster document answers for the `Prices` lists its capex reads (newuser27, procurement trial).

A buyer keeps vendor B's quote and vendor A's negotiated book in one project. Both price the QM9700, differently:
COST004 is an error on vendor B's list (`prices/vendorb-quote`), and the capex takes vendor A's price (the first
list by id). `check` exits 1, yet the cluster document said "Draft — no failing check" and listed COST004 as
"pass", since its findings were those of the cluster, its racks, parts and hall, never of the price lists its capex
rests on. Its input digest left them out too: the same design at another quoted price had another capex and the
same digest. A list that prices no part of the cluster stays out of its document.
"""

from __future__ import annotations

from archgen.render.cluster import cluster_scope
from archgen.render.common import document_control, validation_section
from tests.conftest import shipped_edited

QUOTES = """\
kind: Prices
id: vendorb-quote
prices:
  qm9700: {capex: 28000 USD, date: "2026-11", basis: sourced, source: "VB-2026-11 line 2"}
---
kind: Prices
id: a-negotiated
prices:
  qm9700: {capex: 21345 USD, date: "2026-10", basis: sourced, source: "NB-7 line 12"}
---
kind: Prices
id: unused-book
prices:
  sn5600: {capex: 40000 USD, date: "2026-10", basis: sourced, source: "a list for another design"}
"""
CLUSTER = "cluster/dgx-b200-superpod"


def _scope(tmp_path, quotes: str):
    run = shipped_edited(tmp_path, "clusters/dgx-b200-superpod.yaml", "kind: Cluster", "kind: Cluster",
                         {"quotes.yaml": quotes})
    return run, cluster_scope(run, run.clusters[CLUSTER], "r", None)[0]


def test_a_price_list_error_fails_the_document_that_uses_it(tmp_path):
    run, scope = _scope(tmp_path, QUOTES)
    [error] = [f for f in run.findings if f.id == "COST004"]
    assert (error.severity, error.object) == ("error", "prices/vendorb-quote")
    # a-negotiated's price is used; 70,537,810 USD is the shipped capex (2,000 more since review50's leaf-end optics)
    assert run.metrics[CLUSTER]["capex"].m == 70_537_810 - 48 * (30_000 - 21_345)
    status = dict(document_control(scope, "d", "t", "a"))["Status"]
    assert status.startswith("Draft — has failing checks: COST004"), status
    rows = [b for b in validation_section(scope).blocks if getattr(b, "id", "") == "validation"][0].rows
    assert [r[3] for r in rows if r[0] == "COST004"] == ["fail"]
    assert "prices/unused-book" not in scope.subjects


def test_the_input_digest_covers_the_price_lists(tmp_path):
    _, one = _scope(tmp_path / "a", QUOTES)
    _, other = _scope(tmp_path / "b", QUOTES.replace("21345 USD", "22000 USD"))
    _, unused = _scope(tmp_path / "c", QUOTES.replace("40000 USD", "41000 USD"))
    assert one.digest != other.digest
    assert one.digest == unused.digest
