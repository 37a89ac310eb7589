"""A proposal's rendered documents state the release of our requirements it answers (newuser86's trial).

`document.answers` (`{gb300-hall: A}`) is what `archgen gap` reads; the ODM's own PDF, HTML, workbook and
document.csv printed their own revision and nothing of the release they answer, so a reader of the PDF alone could
not tell a proposal to revision A from one to B. The document-control table now has an "Answers" row.
"""

from __future__ import annotations

import csv

from tests.conftest import SPECS, run_cli, write_tree

RACK = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")
NAME = "name: DGX H100 rack (4 systems, air cooled)\n"


def test_the_document_control_names_the_revisions_answered(tmp_path):
    stated = RACK.replace(NAME, NAME + "document: {revision: '3', answers: {h100-hall: B, h100-net: A}}\n", 1)
    root = write_tree(tmp_path / "odm", {"rack.yaml": stated})
    out = tmp_path / "out"
    r = run_cli("render", root, "--out", out, "--formats", "md,csv", "--audience", "customer")
    assert r.code == 0, r.err
    md = (out / "dgx-h100-4" / "dgx-h100-4.customer.md").read_text(encoding="utf-8")
    assert "| Revision | 3 |\n| Answers | h100-hall revision B; h100-net revision A |\n" in md
    with open(out / "dgx-h100-4" / "document.customer.csv", encoding="utf-8", newline="") as f:
        rows = dict(csv.reader(f))
    assert rows["Answers"] == "h100-hall revision B; h100-net revision A"


def test_no_answers_no_row(tmp_path):
    root = write_tree(tmp_path / "odm", {"rack.yaml": RACK})
    run_cli("render", root, "--out", tmp_path / "out", "--formats", "md")
    assert "| Answers |" not in (tmp_path / "out" / "dgx-h100-4" / "dgx-h100-4.md").read_text(encoding="utf-8")
