"""PDF, XLSX and CSV outputs, compared by extracted content (XLSX and PDF are not diffed as bytes)."""

from __future__ import annotations

import csv
import io
import shutil
import subprocess

import pytest

from archgen.render import render_all
from tests.render.conftest import HOSTILE

RACK = "nvl72-test"


@pytest.fixture(scope="module")
def outputs(test_run, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    render_all(test_run, out, target=RACK, formats=("pdf", "xlsx", "csv"), revision="test")
    return out / RACK


def test_pdf_is_reproducible_and_shows_text_literally(test_run, outputs, tmp_path, monkeypatch):
    """Compiled again with the cache off (`archgen.render.pdf_cache`), the PDF is the bytes `outputs` wrote: Typst's
    output is reproducible, and one read back from the cache (where `outputs` found it there) is what a compile gives."""
    pdf = (outputs / f"{RACK}.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-")
    monkeypatch.setenv("ARCHGEN_CACHE", "off")
    render_all(test_run, tmp_path, target=RACK, formats=("pdf",), revision="test")
    assert (tmp_path / RACK / f"{RACK}.pdf").read_bytes() == pdf
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed; PDF text not extracted")
    text = subprocess.run(["pdftotext", "-layout", str(outputs / f"{RACK}.pdf"), "-"], capture_output=True,
                          text=True, check=True).stdout
    flat = " ".join(text.split())
    assert HOSTILE in flat
    assert "<script>alert(1)</script>" in flat.replace(" ", "") or ("<script>" in flat and "alert(1)" in flat)
    for heading in ("Abstract and key metrics", "Power budget", "Validation report", "Bill of materials"):
        assert heading in flat
    fonts = subprocess.run(["pdffonts", str(outputs / f"{RACK}.pdf")], capture_output=True, text=True).stdout
    rows = [line.split() for line in fonts.splitlines()[2:]]
    assert rows and all("yes" in r[-5:-2][0] for r in rows)  # every font embedded


def test_bom_csv(outputs):
    rows = list(csv.reader(io.StringIO((outputs / "bom.csv").read_text(encoding="utf-8"))))
    assert rows[0] == ["Part", "Name", "Part number", "Kind", "In", "Qty", "Unit power (kW)", "Total power (kW)",
                       "Unit weight (kg)", "Total weight (kg)", "Source or rule", "Qty status", "Power status",
                       "Document number", "Revision"]
    by_part = {r[0]: r for r in rows[1:]}
    assert by_part["gb200-compute-tray"][5:10] == ["18", "5.40", "97.20", "40.0", "720.0"]
    assert by_part["gb200-compute-tray"][12] == "unconfirmed"   # its power.max (5.4 kW) is listed so (newuser101)
    assert by_part["gb200"][4:6] == ["gb200-compute-tray", "72"]


def test_requirements_csv(outputs):
    rows = list(csv.DictReader(io.StringIO((outputs / "requirements.csv").read_text(encoding="utf-8"))))
    assert [(r["REQ id"], r["Status"]) for r in rows] == [
        # the rack's IT power rests on two trays' unconfirmed maximum power (REQ005, newuser46; "met" before)
        # newuser106: a field two parts share is named once, with the parts
        ("REQ-PWR-001", "met (on assumed inputs: power.max (unconfirmed) of gb200-compute-tray, nvlink5-switch-tray)"),
        # weight67: the rack's weight leaves out its cables, transceivers and coolant, a lower bound ("met" before)
        ("REQ-MECH-001", "not provided"), ("REQ-COOL-001", "not met")]     # REQ-COOL-001 is a SHOULD
    assert rows[2]["Computed (band)"] == "23.8 kW" and rows[2]["Target"] == "<= 20 kW"


def test_xlsx_content(outputs):
    from openpyxl import load_workbook
    wb = load_workbook(outputs / f"{RACK}.xlsx")
    assert wb.sheetnames == ["document", "bom", "requirements"]
    bom = list(wb["bom"].iter_rows(values_only=True))
    assert bom[0][5:8] == ("Qty", "Unit power (kW)", "Total power (kW)")
    tray = next(r for r in bom if r[0] == "gb200-compute-tray")
    assert tray[5:10] == (18, 5.4, 97.2, 40.0, 720.0)
    assert wb["bom"].freeze_panes == "A2"


def test_xlsx_is_byte_identical_whenever_written(monkeypatch):
    """The workbook's bytes do not depend on the time of writing (openpyxl stamps it, zip dates every entry)."""
    import time

    from archgen.render.blocks import Column, Table
    from archgen.render.tables import xlsx_bytes
    tables = [Table("bom", "Bill of materials", (Column("Part"), Column("Qty", digits=0)), (("tray", 18),))]
    written = []
    for now in (946_684_800.0, 1_796_000_000.0):                  # 2000-01-01 and 2026-11-30
        monkeypatch.setattr(time, "time", lambda now=now: now)
        written.append(xlsx_bytes(tables))
    assert written[0] == written[1]


def test_every_xlsx_row_keeps_a_leading_equals_sign_as_text():
    """Each appended row's own cells are made text, the first and the last row of a sheet included (openpyxl takes a
    string starting with '=' for a formula): a cell left as a formula would run in the reader's spreadsheet."""
    from openpyxl import load_workbook

    from archgen.render.blocks import Column, Table
    from archgen.render.tables import xlsx_bytes
    rows = tuple((f"=A{i}", f"=HYPERLINK(\"http://x\",\"{i}\")") for i in range(1, 6))
    book = load_workbook(io.BytesIO(xlsx_bytes([Table("t", "t", (Column("A"), Column("B")), rows)])))
    cells = [c for row in book["t"].iter_rows(min_row=2) for c in row]
    assert [c.value for c in cells] == [v for row in rows for v in row]
    assert all(c.data_type == "s" for c in cells)
    assert [c.value for c in book["t"][1]] == ["A", "B"]
