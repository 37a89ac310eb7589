"""COST005 names each free part once, with its total count and where its units stand (newuser41 open item 7).

The input that showed it (new-user trial, vB3/): the MI355X proposal with `tiers: 3` and vendor B's quote carrying
the Tomahawk 5 switch at `0 USD` (assumed) printed "arista-7060x6-64pe x96 at 0 USD (...), arista-7060x6-64pe x96 at
0 USD (...)": one bill-of-materials line for the switches placed in racks and one for those in no rack. Now one entry
gives the sum of the part's lines and says how many stand in racks and how many in none.
"""

from __future__ import annotations

import pytest

from tests.conftest import shipped_edited

PRICES = {"quote.yaml": """kind: Prices
id: quote
source: a vendor's quote template
prices:
  arista-7060x6-64pe: {capex: 0 USD, date: "2026-11", basis: assumed, source: "TBD"}
"""}


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    """`check` of the shipped specs with the MI355X cluster's compute fabric in three tiers and its switch at 0."""
    return shipped_edited(tmp_path_factory.mktemp("free"), "clusters/mi355x-th5.yaml", "    tiers: 2\n",
                          "    tiers: 3\n", PRICES)


def test_a_free_part_is_named_once_with_its_total(result):
    (cost005,) = [f for f in result.findings if f.id == "COST005" and f.object == "cluster/mi355x-th5"]
    lines = [x for x in result.operations.cost["cluster/mi355x-th5"].lines if x.part == "arista-7060x6-64pe"]
    placed = sum(x.quantity for x in lines if not x.unracked)
    loose = sum(x.quantity for x in lines if x.unracked)
    assert len(lines) == 2 and placed and loose, lines          # the case: some in racks, some in none
    assert cost005.message.count("arista-7060x6-64pe x") == 1, cost005.message
    assert (f"arista-7060x6-64pe x{placed + loose} at 0 USD (assumed, Prices quote; {placed} placed, {loose} in no "
            "rack)") in cost005.message, cost005.message
