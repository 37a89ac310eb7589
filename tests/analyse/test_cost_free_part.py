"""A part priced at 0 is said to be counted as free (COST005), not passed over as a price like any other.

A buyer's `Prices` list for vendor B's MI355X proposal (the shipped MI355X cluster, its racks and servers priced
from the quote) carries the Tomahawk 5 switches at `0 USD`, an assumed placeholder left in the template. The capex
(and the network's share of it) counted the 12 switches as free with no finding: a zero price is a price, so
COST002 had nothing to say. Now COST005 names the part, its count and the list the zero comes from: a warning for an
assumed zero, information for a sourced one (a quote that includes the part in another line).
"""

from __future__ import annotations

from pathlib import Path

from archgen.pipeline import run
from tests.analyse.test_cost import CLUSTER, _design

QUOTE = """\
kind: Prices
id: vendor-b-quote
prices:
  amd-mi355x-platform: {capex: 400000 USD, date: "2025-06", basis: sourced, source: "vendor B quote line 1"}
  arista-7060x6-64pe: {capex: 0 USD, date: "2025-06", basis: BASIS, source: "vendor B quote line 2"}
  mi355x-compute: {capex: 20000 USD, date: "2025-06", basis: sourced, source: "vendor B quote line 3"}
  mi355x-network: {capex: 3000 USD, date: "2025-06", basis: sourced, source: "vendor B quote line 4"}
"""


def _run(root: Path, basis: str):
    return run([_design(root, {"prices.yaml": QUOTE.replace("BASIS", basis)})])


def test_an_assumed_zero_price_is_a_warning(tmp_path):
    r = _run(tmp_path / "a", "assumed")
    assert "capex" in r.metrics[CLUSTER]                  # the figure stands as the prices give it
    found = [(f.severity, f.object, f.message) for f in r.findings if f.id == "COST005"]
    assert found == [("warning", CLUSTER, "capex counts as free: arista-7060x6-64pe x12 at 0 USD (assumed, "
                                          "Prices vendor-b-quote)")]


def test_a_sourced_zero_price_is_information(tmp_path):
    r = _run(tmp_path / "a", "sourced")
    assert [(f.severity, f.message) for f in r.findings if f.id == "COST005"] == [
        ("info", "capex counts as free: arista-7060x6-64pe x12 at 0 USD (sourced, Prices vendor-b-quote)")]
