"""newuser66: the customer edition's CSV and XLSX say what its document says, cell for cell.

An ODM quoting a build from the GB200 SU package reads the compliance matrix in the PDF and imports
``requirements.customer.csv`` into its tracker. The document's Metric column read "Input power of rack/gb200-nvl72"
and its Status "met (on assumed inputs: gb200-nvl72 form factor weight (unconfirmed))"; the CSV and the XLSX sheet
read "input_power of rack/gb200-nvl72" and "form_factor.weight (unconfirmed)": the metric keys the customer edition
exists to keep out (docs/rendering.md, "Document control and editions"), and two texts for one requirement.
`edition.data_table` now rewords a table's text as `edition.customer` does the document's.
"""

from __future__ import annotations

import csv
import io
import re

import pytest

SU = "gb200-nvl72-su"


def md_table(md: str, caption: str) -> list[list[str]]:
    """The rows of the Markdown table captioned `*Table N: caption*`, header first, cells unescaped, no anchors."""
    block = re.split(rf"^\*Table \d+: {re.escape(caption)}\*$", md, maxsplit=1, flags=re.M)[1].split("\n\n", 2)[1]
    rows = [line.strip("|").split(" | ") for line in block.splitlines() if not line.startswith("| ---")]
    return [[re.sub(r"<a id=\"[^\"]+\"></a>", "", re.sub(r"\\(.)", r"\1", c)).strip() for c in row] for row in rows]


def csv_rows(path) -> list[list[str]]:
    """A CSV's rows, each cell as a spreadsheet shows it: less the `'` that keeps ``== 8`` from being a formula."""
    rows = csv.reader(io.StringIO(path.read_text(encoding="utf-8")))
    return [[re.sub(r"^'(?=[=+\-@])", "", c) for c in row] for row in rows]


def test_customer_requirements_csv_and_xlsx_read_as_the_document(su_customer):
    openpyxl = pytest.importorskip("openpyxl")
    md = md_table((su_customer / f"{SU}.customer.md").read_text(encoding="utf-8"),
                  "Requirements compliance matrix")
    stamped = csv_rows(su_customer / "requirements.customer.csv")
    assert stamped[0][-2:] == ["Document number", "Revision"]   # the release on every row; the workbook has its sheet
    table = [row[:-2] for row in stamped]
    sheet = [["" if c is None else str(c) for c in row]
             for row in openpyxl.load_workbook(su_customer / f"{SU}.customer.xlsx")["requirements"]
             .iter_rows(values_only=True)]
    assert md[0] == table[0] == sheet[0] and len(md) == len(table) == len(sheet) > 10
    shown = md[0].index("Refs")  # the document numbers its references; the CSV writes each source in full
    for doc_row, csv_row, xlsx_row in zip(md[1:], table[1:], sheet[1:], strict=True):
        assert doc_row[:shown] == csv_row[:shown] == xlsx_row[:shown]
    metric = md[0].index("Metric")
    assert "Input power of rack/gb200-nvl72" in {row[metric] for row in table}
    assert not any(re.search(r"\b[a-z]+_[a-z_]+\b", c) for row in table for c in row[:shown])


def test_customer_bom_csv_quantities_are_the_documents(su_customer):
    """Every BOM line of the document's appendix is a row of ``bom.customer.csv`` with the same part and quantity."""
    md = md_table((su_customer / f"{SU}.customer.md").read_text(encoding="utf-8"), "Bill of materials")
    table = csv_rows(su_customer / "bom.customer.csv")
    # the CSV's Qty is a number or empty, its status beside it, then whether the unit power is unconfirmed (newuser101);
    # then the release every data CSV names on each row
    assert [*md[0], "Qty status", "Power status", "Document number", "Revision"] == table[0]
    qty = md[0].index("Qty")
    assert [(r[0], r[qty].replace(",", "")) for r in md[1:]] == \
        [(r[0], r[qty] or r[-4]) for r in table[1:]]
    power = md[0].index("Unit power (kW)")   # the document's "(unconfirmed)" is the CSV's Power status
    assert [r[power].endswith(" (unconfirmed)") for r in md[1:]] == [r[-3] == "unconfirmed" for r in table[1:]]


def test_rack_weight_says_what_it_holds(su_customer):
    """newuser66: the Rack types table gave "Weight 683 kg" for gb200-su-ib, its four PDUs (stating no weight) left
    out, and no document said whether a weight holds coolant; the sentence under it now says both, per rack, and that
    each such weight is a lower bound (weight67)."""
    md = (su_customer / f"{SU}.customer.md").read_text(encoding="utf-8")
    rack_types = re.split(r"^\*Table \d+: Rack types\*$", md, maxsplit=1, flags=re.M)[1].split("<a id=", 1)[0]
    assert "gb200-nvl72's weight, at least 1,205 kg, is a lower bound: it leaves out the empty enclosure" in rack_types
    assert "the coolant in its trays, manifolds and hoses" in rack_types
    # enclosure36: the SU's network racks state no enclosure weight either (their 180 kg was assumed): 683 -> 503 kg
    assert "gb200-su-ib's weight, at least 503 kg, is a lower bound: it leaves out the empty enclosure (frame, and " \
           "any busbar or manifolds), whose weight is not provided; pdu-415v-60a-3ph x4" in rack_types


def _space(*left_out: str):
    from types import SimpleNamespace

    from archgen.units import Q_
    return SimpleNamespace(left_out=left_out, weight=Q_(700, "kg"), coolant=Q_(0, "kg"))


def test_a_rack_document_says_what_its_weight_holds():
    from archgen.render.rack_weight import weight_basis

    assert weight_basis([("r", _space())]).endswith("the weight is the rack's as installed.")
    text = weight_basis([("r", _space("pdu x2, which states no weight"))])
    assert "r's weight, at least 700 kg, is a lower bound: it leaves out pdu x2, which states no weight." in text
    assert text.endswith("A requirement on the weight or floor load that the lower bound meets is not provided, "
                         "never met (REQ002); one it misses is not met.")


def test_only_a_liquid_cooled_rack_leaves_coolant_out():
    """review32: every rack's document read "dry (no coolant is added; ...)", an air-cooled DGX or MI355X rack's too,
    whose weight holds no liquid to leave out; only a rack whose liquid loop carries heat leaves coolant out."""
    from archgen.analyse.rack import COOLANT
    from archgen.render.rack_weight import weight_basis

    assert "coolant" not in weight_basis([("air", _space())])
    assert "wet's weight, at least 700 kg, is a lower bound: it leaves out the coolant" in weight_basis(
        [("air", _space()), ("wet", _space(COOLANT))])


def test_a_rack_line_of_the_bom_says_its_power_is_not_the_racks_it_power(su_customer):
    """newuser66: bom.csv gave gb200-su-ib 39.984 kW ("maximum draw of its placed parts") and the Rack types table
    47.2 kW, the 34 QM9700s' transceivers the difference, with nothing to tell a PDU sizer which to take."""
    md = md_table((su_customer / f"{SU}.customer.md").read_text(encoding="utf-8"), "Rack types")
    it_power = {r[0]: float(r[3].split(" (")[0]) for r in md[1:]}   # unconfmark42, unconfband43: marked sums
    bom = {r[0]: r for r in csv_rows(su_customer / "bom.customer.csv")[1:] if r[3] == "Rack"}
    assert float(bom["gb200-su-ib"][6]) < it_power["gb200-su-ib"] - 5   # 39.984 against 47.2
    assert all("without the transceivers in its switches' ports" in row[4] for row in bom.values())


def test_the_scale_up_aggregate_says_it_counts_both_directions(su_customer):
    """newuser66: under "Bandwidths are one direction." the scale-up table gave "Aggregate bandwidth | 1,036.8 TB/s",
    576 x NVIDIA's 1.8 TB/s per GPU, both directions (900 GB/s each way, as the estimates' hardware tables show)."""
    md = (su_customer / f"{SU}.customer.md").read_text(encoding="utf-8")
    assert "| Aggregate bandwidth, both directions | 1,036.8 TB/s (1.8 TB/s per accelerator, 900 GB/s each way) |" in md


def test_the_power_cord_line_says_which_psus_it_counts(su_customer):
    """newuser66: "power-cord-c13-c14, 68, one per PSU of the parts placed" counted the 34 QM9700s' PSUs only; the
    SN5600s' and SN4600Cs' cords are not counted (their inlets are not in the catalog), which only Open items said."""
    rows = {r[0]: r for r in csv_rows(su_customer / "bom.customer.csv")[1:]}
    assert rows["power-cord-c13-c14"][5] == "68"
    assert "not counted" in rows["power-cord-c13-c14"][8]
    md = (su_customer / f"{SU}.customer.md").read_text(encoding="utf-8")
    assert "Power cords of sn5600 are not counted" in md


def test_bom_csv_keeps_its_qty_column_numeric(su_customer):
    """newuser66: bom.csv read "not provided" in Qty (liquid manifold, quick disconnects, hoses, shelf cords), which a
    procurement import of a numeric column rejects; Qty is a number or empty, "Qty status" says which."""
    rows = list(csv.DictReader(io.StringIO((su_customer / "bom.customer.csv").read_text(encoding="utf-8"))))
    assert all(re.fullmatch(r"\d*", r["Qty"]) for r in rows)
    missing = {r["Part"] for r in rows if r["Qty status"] == "not provided"}
    assert {"liquid-manifold", "liquid-quick-disconnect", "liquid-cdu-hose", "shelf-input-cord"} <= missing
    assert all(r["Qty"] == "" for r in rows if r["Part"] in missing)
    assert all(r["Qty"] and r["Qty status"] == "stated" for r in rows if r["Part"] not in missing)
    md = (su_customer / f"{SU}.customer.md").read_text(encoding="utf-8")
    assert "| Qty status |" not in md   # the document's table reads "not provided" in Qty, as before


def test_data_files_carry_the_document_control(su_customer):
    """newuser66: an imported bom.csv could not be tied to a revision; document.csv and the workbook's first sheet
    give the document's number, revision, input digest and archgen's version."""
    from openpyxl import load_workbook

    from archgen import __version__
    rows = dict(csv_rows(su_customer / "document.customer.csv")[1:])
    md = (su_customer / f"{SU}.customer.md").read_text(encoding="utf-8")
    digest = re.search(r"^\| Input digest \| (sha256:[0-9a-f]+) \|$", md, re.M).group(1)
    assert rows["Document number"] == "AG-SU-GB200-0001" and rows["Revision"] == "not stated (draft)"
    assert rows["Input digest"] == digest and rows["archgen version"] == __version__
    wb = load_workbook(su_customer / f"{SU}.customer.xlsx", read_only=True)
    assert wb.sheetnames[0] == "document"
    assert {r[0]: r[1] for r in wb["document"].iter_rows(min_row=2, values_only=True)}["Input digest"] == digest
