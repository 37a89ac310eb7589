"""Who approved a release, and when: `document.approvals` in the document-control table (newuser86's rank 1).

A configuration manager releasing revision B of a spec to three ODMs had the authors to print and nowhere to say
who signed the release off or on what day. The document-control table (document, HTML, PDF, document.csv, the
workbook's `document` sheet) now has an "Approved by" row, in the order the spec lists the approvals; a date that
is no day is an error at its file:line, quoted or not (an unquoted 2027-02-30 was a traceback from the YAML reader).
"""

from __future__ import annotations

import csv

from tests.conftest import SPECS, run_cli, write_tree

RACK = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")
NAME = "name: DGX H100 rack (4 systems, air cooled)\n"
APPROVALS = ("document:\n  revision: B\n  approvals:\n"
             "    - {name: A. Manager, role: release manager, date: 2026-12-01, revision: B}\n"
             "    - {name: B. Lead, role: power engineering, date: '2026-11-30', revision: B}\n")
ROW = "A. Manager (release manager, 2026-12-01); B. Lead (power engineering, 2026-11-30)"


def _rack(tmp_path, document: str):
    return write_tree(tmp_path / "ours", {"rack.yaml": RACK.replace(NAME, NAME + document, 1)})


def test_the_document_control_names_who_approved_and_when(tmp_path):
    out = tmp_path / "out"
    r = run_cli("render", _rack(tmp_path, APPROVALS), "--out", out, "--formats", "md,html,csv", "--audience",
                "customer")
    assert r.code == 0, r.err
    md = (out / "dgx-h100-4" / "dgx-h100-4.customer.md").read_text(encoding="utf-8")
    assert f"| Revision | B |\n| Approved by | {ROW} |\n" in md
    assert "<td>A. Manager (release manager, 2026-12-01); B. Lead" in (
        out / "dgx-h100-4" / "dgx-h100-4.customer.html").read_text(encoding="utf-8")
    with open(out / "dgx-h100-4" / "document.customer.csv", encoding="utf-8", newline="") as f:
        assert dict(csv.reader(f))["Approved by"] == ROW


def test_an_approval_without_a_role_names_its_date(tmp_path):
    out = tmp_path / "out"
    rack = _rack(tmp_path, "document: {approvals: [{name: A. Manager, date: 2026-12-01}]}\n")
    assert run_cli("render", rack, "--out", out, "--formats", "md").code == 0
    assert "| Approved by | A. Manager (2026-12-01) |\n" in (out / "dgx-h100-4" / "dgx-h100-4.md").read_text("utf-8")


def test_no_approvals_no_row(tmp_path):
    run_cli("render", _rack(tmp_path, ""), "--out", tmp_path / "out", "--formats", "md")
    assert "| Approved by |" not in (tmp_path / "out" / "dgx-h100-4" / "dgx-h100-4.md").read_text(encoding="utf-8")


def test_a_quoted_date_that_is_no_day_is_an_error_at_its_line(tmp_path):
    rack = _rack(tmp_path, "document: {approvals: [{name: A. Manager, date: '01/12/2026'}]}\n")
    r = run_cli("check", rack)
    assert r.code != 0 and "Traceback" not in r.out + r.err
    assert "rack.yaml:7:" in r.out + r.err and "document.approvals.0.date" in r.out + r.err
    assert "'01/12/2026'" in r.out + r.err


def test_an_unquoted_day_out_of_range_is_an_error_not_a_traceback(tmp_path):
    rack = _rack(tmp_path, "document:\n  approvals:\n    - {name: A. Manager, date: 2026-02-30}\n")
    r = run_cli("check", rack)
    assert r.code == 2 and "Traceback" not in r.out + r.err
    assert r.err.endswith("rack.yaml:9:32: error: '2026-02-30' is not a date: day is out of range for month: "
                          "expected a day that exists, as YYYY-MM-DD\n"), r.err
