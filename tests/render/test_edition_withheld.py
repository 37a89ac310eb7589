"""editions (newuser24 follow-up): what the customer edition holds back, and how its files are told apart.

A program manager sends the customer edition to customers and vendors under NDA. It showed unit prices ("Capex by
part": gb200-compute-tray 150,000 USD x144), every waiver's full reason, the team's instructions in Open items
("(replace with quotes)", "Confirm qm9700: ...") and, written into the folder of the internal edition, replaced
its files under the same names. docs/rendering.md, "Document control and editions", says what each edition holds.
"""

from __future__ import annotations

import re

from archgen.open_item import LAYOUTS, OpenItem
from archgen.render import render_all
from archgen.render.blocks import Bullets, Column, DocumentModel, Figure, Para, Section, Table
from archgen.render.edition import customer, edition_of, file_name
from tests.render.golden_util import table_caption

SU = "gb200-nvl72-su"


def _cost_doc(show_prices: bool) -> DocumentModel:
    capex = Table("capex", "Capex by part (USD)", (Column("Part"), Column("Qty"), Column("Unit price"),
                                                   Column("Total"), Column("Basis")),
                  (("tray", 144, 150_000.0, 21_600_000.0, "assumed"),))
    summary = Table("cost-summary", "Cost summary (USD)", (Column("Item"), Column("Amount")),
                    (("Capex", 21_600_000.0),))
    cost = Section("cost", "Cost", [Para("Capex."), summary, capex, Figure("fig-capex", "capex", "Capex by kind")])
    return customer(DocumentModel("t", "cluster", "T", [], [cost], show_prices=show_prices))


def test_customer_edition_withholds_unit_prices_unless_the_project_allows_them():
    blocks = _cost_doc(show_prices=False).sections[0].blocks
    tables = {b.id: b for b in blocks if isinstance(b, Table)}
    assert [c.title for c in tables["capex"].columns] == ["Part", "Qty", "Basis"]
    assert tables["capex"].rows == (("tray", 144, "assumed"),)
    assert tables["cost-summary"].rows == (("Capex", 21_600_000.0),)  # the total a customer judges stays
    assert not any(isinstance(b, Figure) for b in blocks)            # capex by kind gives a part's price away
    assert any(isinstance(b, Para) and "Unit prices" in b.text and "withheld" in b.text for b in blocks)
    shown = _cost_doc(show_prices=True).sections[0].blocks
    assert [c.title for c in next(b for b in shown if isinstance(b, Table) and b.id == "capex").columns] == \
        ["Part", "Qty", "Unit price", "Total", "Basis"]
    assert any(isinstance(b, Figure) for b in shown)


def test_shipped_customer_document_has_totals_but_no_unit_price(su_customer):
    md = (su_customer / f"{SU}.customer.md").read_text(encoding="utf-8")
    cost = md.split("## 18 Cost")[1].split("\n## ")[0] if "## 18 Cost" in md else md
    assert "| Capex, a lower bound |" in cost and "TCO per year" in cost and "withheld in this edition" in cost
    assert "| Unit price |" not in md and "Capex by part" not in md and "capex.svg" not in md
    assert not re.search(r"^\| gb200-compute-tray \| System \| 144 \| [\d,]+ \|", md, re.M)


def test_customer_edition_shows_a_waiver_not_its_reason(su_customer):
    md = (su_customer / f"{SU}.customer.md").read_text(encoding="utf-8")
    table = md.split(table_caption(md, "Checks: computed value against limit*"))[1].split("\n\n")[1]
    header, _, *rows = table.splitlines()
    assert header.endswith("| Waiver |")
    waivers = {row.split("|")[-2].strip() for row in rows}
    assert waivers <= {"waived", ""} and "waived" in waivers, waivers


def test_customer_open_items_keep_the_subject_not_the_team_instruction(su_customer):
    md = (su_customer / f"{SU}.customer.md").read_text(encoding="utf-8")
    items = md.split("## 20 Open items and gaps")[1].split("\n## ")[0]
    for instruction in ("replace with quotes", "\n- Confirm ", "name catalog Accessory parts there",
                        "set it from the CDU"):
        assert instruction not in items, instruction
    assert "- Cost rests on assumed figures: " in items
    assert "- qm9700: figures not confirmed from a public source: maximum power" in items   # edition28: in words


def test_open_items_are_records_whose_customer_text_has_no_place_for_the_instruction():
    """Open items were strings whose instructions the customer edition cut out by patterns of their English, so an
    item worded otherwise leaked its instruction; now each is an `OpenItem` (subject, finding, instruction) and the
    customer edition prints its `public` text, while the internal edition keeps the text it printed before."""
    items = (OpenItem("aside", "Cost rests on assumed figures", "x price", "replace with quotes"),
             OpenItem("check", "Capex adds prices more than 18 months older than the newest (2025-01), adjusted to "
                      "no common date", "y (2023-01)", "re-quote them", "COST006"),
             OpenItem("confirm", "sn2201", "power.max, power.input", "Confirm"),
             OpenItem("then", "The electrical draw of cdu (its pumps and controls) is not stated",
                      "no figure counts it", "set it from the CDU's datasheet"),
             OpenItem("to", "A new item worded as no earlier one", instruction="phone the vendor tomorrow"),
             "A plain item: no instruction.")
    assert items[:4] == (   # the internal edition's text, as before
        "Cost rests on assumed figures (replace with quotes): x price.",
        "Capex adds prices more than 18 months older than the newest (2025-01), adjusted to no common date "
        "(COST006; re-quote them): y (2023-01).",
        "Confirm sn2201: power.max, power.input.",
        "The electrical draw of cdu (its pumps and controls) is not stated: no figure counts it; set it from the "
        "CDU's datasheet.")
    doc = customer(DocumentModel("t", "rack", "T", [], [Section("open-items", "Open items", [Bullets(items)])]))
    assert doc.sections[0].blocks[0].items == (
        "Cost rests on assumed figures: x price.",
        "Capex adds prices more than 18 months older than the newest (2025-01), adjusted to no common date "
        "(COST006): y (2023-01).",
        "sn2201: figures not confirmed from a public source: power.max, power.input.",
        "The electrical draw of cdu (its pumps and controls) is not stated: no figure counts it.",
        "A new item worded as no earlier one.",
        "A plain item: no instruction.")
    assert all("{instruction}" not in public for _, public in LAYOUTS.values())


def test_both_editions_fit_in_one_folder_and_name_themselves(shipped_run, tmp_path):
    """Rendering both editions into one folder kept only the last (the same file names); now the customer
    edition's files carry its name, each run removes only its own edition's stale files, and the HTML title and
    PDF footer name the edition."""
    from archgen.render.pdf import document_json

    for audience in ("internal", "customer", "internal"):
        render_all(shipped_run, tmp_path, target="gb200-nvl72", formats=("md", "html", "csv"), revision="test",
                   progress=False, audience=audience)
    names = {p.name for p in (tmp_path / "gb200-nvl72").iterdir()}
    assert {"gb200-nvl72.md", "gb200-nvl72.customer.md", "gb200-nvl72.html", "gb200-nvl72.customer.html",
            "bom.csv", "bom.customer.csv", "requirements.customer.csv"} <= names
    html = (tmp_path / "gb200-nvl72" / "gb200-nvl72.customer.html").read_text(encoding="utf-8")
    assert re.search(r"<title>[^<]*\(customer edition\)</title>", html)
    assert "(customer edition)</title>" not in (tmp_path / "gb200-nvl72" / "gb200-nvl72.html").read_text("utf-8")
    assert document_json(customer(DocumentModel("t", "rack", "T", [], [])))["edition"] == "customer edition"
    assert document_json(DocumentModel("t", "rack", "T", [], []))["edition"] == ""
    assert file_name("x.pdf", "internal") == "x.pdf" and file_name("x.pdf", "customer") == "x.customer.pdf"
    assert edition_of("bom.customer.csv") == "customer" and edition_of("bom.csv") == "internal"


def test_spec_keys_in_code_spans_read_alike_and_an_unstated_revision_is_no_commit(su_customer):
    """Item 6: Open items read "`cooling.liquid.manifold`, `cooling liquid quick disconnects`" (one key rewritten
    in words inside its code span, the next not), and a spec stating no revision showed the internal git commit.

    Both keys then stayed as written; since small27 the customer edition quotes no spec key (`edition_text`), and both
    read in words alike."""
    doc = customer(DocumentModel("t", "rack", "T", [("Revision", "d1c853514603"), ("Edition", "internal")], [
        Section("open-items", "Open items", [Bullets((
            "it states no `cooling.liquid.manifold`, `cooling.liquid.quick_disconnects`; power_includes_optics.",))])]))
    # a bare key in the words of the one table, `field_words.said` (tidy35; as the checks' customer words say it)
    assert doc.sections[0].blocks[0].items == ("it states no liquid manifold, quick disconnects; whether its power "
                                               "includes the optics.",)
    assert dict(doc.control)["Revision"] == "not stated (draft)"
    stated = customer(DocumentModel("t", "rack", "T", [("Revision", "B"), ("Source commit", "d1c8535"),
                                                       ("Edition", "internal")], []))
    assert stated.control == [("Revision", "B"), ("Edition", "customer")]
    md = (su_customer / f"{SU}.customer.md").read_text(encoding="utf-8").replace("\\", "")  # Markdown escapes
    assert "cooling.liquid.quick_disconnects" not in md and "cooling liquid quick disconnects" not in md
    assert "it states no liquid manifold, quick disconnects, liquid hoses, power shelf cords" in md


def test_the_customer_edition_has_no_cost_sheet_while_unit_prices_are_withheld(su_customer):
    """The cost sheet (newuser64) lists every part's unit price: the customer edition holds it back with them."""
    assert not (su_customer / "cost.customer.csv").exists() and not (su_customer / "cost.csv").exists()
    openpyxl = __import__("pytest").importorskip("openpyxl")
    assert "cost" not in openpyxl.load_workbook(su_customer / f"{SU}.customer.xlsx").sheetnames
