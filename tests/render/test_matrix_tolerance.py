"""A requirement's tolerance in the compliance matrix: beside the target, and "met (within tolerance)" in its status.

The shipped GB200 NVL72 SU asks `scale_up.domains == 8` (REQ-NET-010); asked `== 9` with `tolerance: 1` its 8 domains
are one short of the limit and within the tolerance, so every format of the matrix (Markdown, HTML, CSV, the
workbook's `requirements` sheet) gives the target with its tolerance and the status qualified, never a bare "met".
"""

from __future__ import annotations

import csv
import io
import shutil

from archgen.pipeline import run
from tests.render.conftest import SPECS, render_text

TARGET = "gb200-nvl72-su"
ASKED = 'metric: scale_up.domains, target: "== 8"'


def test_the_matrix_gives_the_tolerance_and_the_qualified_status(tmp_path):
    root = tmp_path / "specs"
    for folder in ("clusters", "racks", "requirements", "workloads"):
        shutil.copytree(SPECS / folder, root / folder)
    path = root / "clusters" / f"{TARGET}.yaml"
    text = path.read_text(encoding="utf-8")
    assert ASKED in text
    path.write_text(text.replace(ASKED, 'metric: scale_up.domains, target: "== 9", tolerance: 1'), encoding="utf-8")
    out = tmp_path / "out"
    render_text(run([root]), out, (TARGET,), ("md", "html", "csv", "xlsx"))
    # a cell starting "=" is written "'=" so that a spreadsheet never reads it as a formula
    [row] = [r for r in csv.DictReader(io.StringIO((out / TARGET / "requirements.csv").read_text(encoding="utf-8")))
             if r["REQ id"] == "REQ-NET-010"]
    assert row["Target"] == "'== 9 (tolerance 1)" and row["Status"] == "met (within tolerance)"
    md = (out / TARGET / f"{TARGET}.md").read_text(encoding="utf-8")
    assert "== 9 (tolerance 1)" in md and "met (within tolerance)" in md
    html = (out / TARGET / f"{TARGET}.html").read_text(encoding="utf-8")
    assert "== 9 (tolerance 1)" in html and "met (within tolerance)" in html
    from openpyxl import load_workbook
    sheet = load_workbook(out / TARGET / f"{TARGET}.xlsx")["requirements"]
    rows = list(sheet.iter_rows(values_only=True))
    [cells] = [r for r in rows[1:] if r[0] == "REQ-NET-010"]
    assert dict(zip(rows[0], cells, strict=True))["Target"] == "== 9 (tolerance 1)"
