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
from archgen.render.cost_sheet import COLUMNS
from archgen.render.edition import customer, data_table
from archgen.render.edition_prices import without_prices
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
    withheld = "qm9700 is priced [withheld] here and [withheld] in a price list, which is used"   # no list named
    assert [r[1] for r in table.rows] == [withheld, without_prices(FREE), "capex = 65,944,810 USD"]
    assert items.items == (f"COST004 (fail): {withheld}", "REQ004 (warn): capex = 65,944,810 USD")
    shown = _doc(True).sections[0].blocks[0]   # prices shown; the list still not named (cost2, newuser27 finding 4)
    assert shown.rows[0][1] == "qm9700 is priced 28000 USD here and 21345 USD in a price list, which is used"


def test_customer_capex_table_names_no_price_list():
    """newuser27 finding 4: the customer edition's "Parts priced" Basis read "sourced (Prices a-negotiated)"."""
    cols = (Column("Part"), Column("Unit price"), Column("Total"), Column("Basis"), Column("Price date"))
    capex = Table("capex", "Capex by part (USD)", cols, (("qm9700", 21345, 48 * 21345, "sourced (Prices a-negotiated)",
                                                          "2026-10"), ("sn2201", 4500, 4500, "assumed", "2025-01"),
                                                         ("rails", None, None, "accessory, not priced", None)))
    findings = Bullets(("COST006 (warn): prices are dated 2025-01 to 2026-11: sn2201 (2025-01, Prices vendorb-quote) "
                        "is more than 12 months older", "COST001 (fail): EUR: mi355x (Prices acme-eu); USD: rest"))
    for show in (False, True):
        doc = customer(DocumentModel("t", "cluster", "T", [], [Section("cost", "C", [capex, findings])],
                                     show_prices=show))
        table = next(b for b in doc.sections[0].blocks if isinstance(b, Table))
        basis = [c.title for c in table.columns].index("Basis")
        assert [r[basis] for r in table.rows] == ["sourced", "assumed", "accessory, not priced"]
        bullets = next(b for b in doc.sections[0].blocks if isinstance(b, Bullets))
        assert bullets.items == ("COST006 (warn): prices are dated 2025-01 to 2026-11: sn2201 (2025-01, a price list) "
                                 "is more than 12 months older", "COST001 (fail): EUR: mi355x (a price list); USD: rest")


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
    messages = [f["message"] for f in json.loads(to_json(g, "customer"))["findings"]]
    assert not [m for m in messages if "a-negotiated" in m]   # nor the other book's name (cost2)


def test_customer_cost_sheet_names_no_price_list():
    """review31: with `document.show_prices` the customer edition keeps cost.csv and the workbook's cost sheet, whose
    Basis read "sourced (Prices a-negotiated)": the list's name, which the capex table already left out, went out."""
    row = ("qm9700", "Switch", 48, 21345.0, 48 * 21345.0, "USD", "Qty x unit price", "sourced (Prices a-negotiated)",
           "2026-10", "quote")
    sheet = data_table(Table("cost", "Cost: every input and step (USD)", COLUMNS, (row,)))
    assert sheet.rows == ((*row[:7], "sourced", *row[8:]),)
