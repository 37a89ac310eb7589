"""The customer edition withholds the unit prices that COST004 and COST005 messages name (newuser27).

A buyer keeps vendor A's negotiated book beside vendor B's quote; both price the QM9700. COST004's message names
both prices ("qm9700 is priced 28000 USD here and 21345 USD in Prices 'a-negotiated'"), and `gap --audience
customer`, the edition sent to vendor B, printed it: vendor A's negotiated price went to its competitor, though
a customer edition withholds unit prices (docs/rendering.md). The cluster document's customer edition, which
counts the price lists' findings, would print it in its validation report and open items likewise. Totals stay.
"""

from __future__ import annotations

import json

from archgen.commands.gap import gap
from archgen.output.gap import markdown, to_json
from archgen.render.blocks import Bullets, Column, DocumentModel, Section, Table
from archgen.render.edition import customer, without_prices
from tests.conftest import SPECS
from tests.render.test_price_list_scope import QUOTES

MESSAGE = "qm9700 is priced 28000 USD here and 21345 USD in Prices 'a-negotiated', which is used"
FREE = "capex counts as free: sn2201 x32 at 0 USD (assumed)"
REQ = """\
kind: Requirements
id: r
requirements:
  - {id: C-003, statement: Capex, subject: "cluster/*", metric: capex, target: "<= 80000000 USD"}
"""


def test_without_prices_withholds_every_amount_of_money():
    assert without_prices(MESSAGE) == "qm9700 is priced [withheld] here and [withheld] in Prices 'a-negotiated', " \
                                      "which is used"
    assert without_prices("x18 at 150,000 USD, 3,044,000.5 EUR a rack") == "x18 at [withheld], [withheld] a rack"
    assert without_prices("18 trays, 1.2 MW") == "18 trays, 1.2 MW"


def _doc(show_prices: bool) -> DocumentModel:
    validation = Table("validation", "Checks", (Column("Check"), Column("Result"), Column("Waiver")),
                       (("COST004", MESSAGE, ""), ("COST005", FREE, ""), ("REQ004", "capex = 65,944,810 USD", "")))
    items = Bullets((f"COST004 (fail): {MESSAGE}", "REQ004 (warn): capex = 65,944,810 USD"))
    return customer(DocumentModel("t", "cluster", "T", [], [Section("validation", "V", [validation]),
                                                             Section("open-items", "O", [items])],
                                  show_prices=show_prices))


def test_customer_document_withholds_unit_prices_in_findings():
    table, items = _doc(False).sections[0].blocks[0], _doc(False).sections[1].blocks[0]
    assert [r[1] for r in table.rows] == [without_prices(MESSAGE), without_prices(FREE), "capex = 65,944,810 USD"]
    assert items.items == (f"COST004 (fail): {without_prices(MESSAGE)}", "REQ004 (warn): capex = 65,944,810 USD")
    shown = _doc(True).sections[0].blocks[0]
    assert shown.rows[0][1] == MESSAGE


def test_gap_customer_edition_withholds_the_other_lists_price(tmp_path):
    (tmp_path / "proposal").mkdir()
    (tmp_path / "req").mkdir()
    (tmp_path / "proposal" / "quotes.yaml").write_text(QUOTES, encoding="utf-8")
    for name in ("clusters/dgx-b200-superpod.yaml", "racks/dgx-b200-network.yaml"):
        (tmp_path / "proposal" / name.split("/")[1]).write_text(
            (SPECS / name).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "req" / "r.yaml").write_text(REQ, encoding="utf-8")
    g = gap([tmp_path / "proposal"], [tmp_path / "req"])
    internal = markdown(g)
    assert "21345 USD" in internal                        # our own report keeps it
    for text in (markdown(g, "customer"), to_json(g, "customer")):
        assert "21345" not in text and "28000" not in text
    found = [f for f in json.loads(to_json(g, "customer"))["findings"] if f["id"] == "COST004"]
    assert found and "[withheld]" in found[0]["message"]
