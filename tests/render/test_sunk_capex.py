"""A hall already built and paid for: its sunk capital is stated, never in the capex or the TCO (newuser64).

newuser64 (a finance analyst): "what if the hall is already built" had no input: the only facility figure was the
rent per rack position, so a paid-for hall could only be a rent of 0, which the documents showed as a space cost of
0 with nothing said. `cost.sunk` states what was paid (what, amount, date, basis, source); the cost paragraph, the
cost summary and the cost sheet name it beside the TCO, which leaves it out: a sunk cost changes no decision (the
capital recovery of the cluster's capex alone; docs/reliability.md, Cost).
"""

from __future__ import annotations

import pytest

from archgen.render.cost_sheet import cost_sheet
from archgen.render.operations import cost_section
from tests.conftest import SPECS, shipped_edited

HALL = (SPECS / "catalog" / "facilities" / "hall-liquid.yaml").read_text(encoding="utf-8")
#: A test input, not a sourced figure.
SUNK = ('  sunk:\n    - {what: "hall shell, UPS and chillers", capex: 40000000 USD, date: "2021-06", basis: assumed,\n'
        '       source: "test input"}\n')
PATH = "cluster/gb200-nvl72-su"


@pytest.fixture(scope="module")
def owned(tmp_path_factory):
    assert "  space_per_rack: 2000 USD/month\n" in HALL
    hall = HALL.replace("  space_per_rack: 2000 USD/month\n", "  space_per_rack: 0 USD/month\n" + SUNK)
    return shipped_edited(tmp_path_factory.mktemp("owned"), "clusters/gb200-nvl72-su.yaml", "facility: hall-liquid",
                          "facility: hall-liquid", {"facilities/hall-liquid.yaml": hall})


def test_the_sunk_capital_is_in_no_cost_figure(shipped, owned):
    before, after = shipped.clusters[PATH].metrics, owned.clusters[PATH].metrics
    assert after["capex"] == before["capex"]
    assert after["space_cost_per_year"].m == 0
    # the TCO drops by the rent it no longer pays (10 racks x 2,000 USD x 12), and by nothing for the 40 M USD
    assert before["tco_per_year"].m - after["tco_per_year"].m == pytest.approx(10 * 2000 * 12)


def test_the_documents_state_it_beside_the_tco(owned):
    a = owned.clusters[PATH]
    section = cost_section(owned, a)
    text = " ".join(b.text for b in section.blocks if hasattr(b, "text") and isinstance(b.text, str))
    assert ("Not in the capex or the TCO: hall-liquid's sunk capital, paid before this decision (hall shell, UPS "
            "and chillers, 40,000,000 USD (2021-06, assumed))") in text
    assert "hall-liquid charges no rent per rack position: the space cost is 0, its building being sunk." in text
    summary = next(b for b in section.blocks if getattr(b, "id", None) == "cost-summary")
    assert summary.rows[-1] == ("Sunk, not in the TCO: hall shell, UPS and chillers", 40_000_000)
    sheet = cost_sheet(owned.operations.cost[PATH], a)
    rows = {row[0]: (i + 2, row) for i, row in enumerate(sheet.rows)}
    at, sunk = rows["Sunk: hall shell, UPS and chillers"]
    assert sunk[4] == 40_000_000 and sunk[8] == "2021-06"
    assert f"E{at}" not in "".join(str(getattr(row[4], "expr", "")) for row in sheet.rows)   # in no formula


def test_a_rent_of_0_with_nothing_sunk_says_so(tmp_path):
    hall = HALL.replace("  space_per_rack: 2000 USD/month\n", "  space_per_rack: 0 USD/month\n")
    run = shipped_edited(tmp_path, "clusters/gb200-nvl72-su.yaml", "facility: hall-liquid", "facility: hall-liquid",
                         {"facilities/hall-liquid.yaml": hall})
    section = cost_section(run, run.clusters[PATH])
    assert any("the space cost is 0, and no sunk capital is stated for it." in getattr(b, "text", "")
               for b in section.blocks)
