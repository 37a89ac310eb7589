"""`archgen gap` gives an at-risk row's reason under the table, as it gives a not-provided one's (newuser90).

A buyer's MI355X quote priced every part but the blanking panels, rail kits and fibre cords the bill of materials
counts by rule, so the capex is a lower bound and a `capex <= 60000000 USD` met there is at risk (docs/reliability.md,
"A capex that leaves counted parts out is a lower bound"). The Markdown report's row read "⚠️ at risk" with no word
why (the customer edition shows no REQ004 finding), while `check` and the JSON row gave the reason.
"""

from __future__ import annotations

from archgen.commands.gap import gap
from archgen.output.gap import markdown
from tests.analyse.test_cost import _design, _overlay

CAPEX = """\
kind: Requirements
id: buyer
requirements:
  - {id: REQ-CAPEX-001, statement: Capex, subject: "cluster/*", metric: capex, target: "<= 60000000 USD"}
"""


def test_an_at_risk_row_gives_its_reason(tmp_path):
    proposal = _design(tmp_path / "p", {"prices.yaml": _overlay()})
    (tmp_path / "req").mkdir()
    (tmp_path / "req" / "buyer.yaml").write_text(CAPEX, encoding="utf-8")
    g = gap([proposal], [tmp_path / "req"])
    row, = g.rows
    assert row.status == "at risk" and row.note.startswith("capex is at least ")
    for audience in ("internal", "customer"):
        text = markdown(g, audience)
        assert "| ⚠️ at risk (on assumed inputs: " in text   # the table cell names no lower bound
        listed = text.split("**At risk:**\n\n", 1)[1].splitlines()[0]
        assert listed.startswith("- REQ-CAPEX-001 on `cluster/mi355x-th5`: capex is at least "), audience
        assert "a lower bound" in listed and "blanking-panel-1u x" in listed
