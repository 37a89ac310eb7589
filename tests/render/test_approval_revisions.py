"""An approval names the revision it approves; one of another revision is not printed as this one's.

newuser87's trial: revision A of a GB300 SU spec, approved by the release manager on 2026-12-01, was copied to
revision B (a rack fewer, a switch swapped, a requirement tightened). Revision B's document printed "Approved by:
C. Manager (release manager, 2026-12-01)": an ODM reading it would quote, and order, against a revision nobody had
approved. `document.approvals[].revision` now says which revision each approval signs off; the "Approved by" row
gives this revision's (or says there is none), and the approvals of other revisions stand in a row of their own.
"""

from __future__ import annotations

import csv

from tests.conftest import SPECS, run_cli, write_tree

RACK = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")
NAME = "name: DGX H100 rack (4 systems, air cooled)\n"
A = "    - {name: C. Manager, role: release manager, date: 2026-12-01, revision: A}\n"
B = "    - {name: D. Lead, role: customer facility lead, date: 2026-12-05, revision: B}\n"


def _render(tmp_path, revision: str, approvals: str, formats: str = "md,csv") -> tuple[str, dict[str, str]]:
    assert NAME in RACK
    stated = f"document:\n  number: AG-DGX-4\n  revision: {revision}\n  approvals:\n{approvals}"
    specs = write_tree(tmp_path / "ours", {"rack.yaml": RACK.replace(NAME, NAME + stated, 1)})
    r = run_cli("render", specs, "--out", tmp_path / "out", "--formats", formats)
    assert r.code == 0, r.err
    target = tmp_path / "out" / "dgx-h100-4"
    with open(target / "document.csv", encoding="utf-8", newline="") as f:
        return (target / "dgx-h100-4.md").read_text(encoding="utf-8"), dict(csv.reader(f))


def test_an_approval_of_the_previous_revision_is_not_this_ones(tmp_path):
    md, control = _render(tmp_path, "B", A)
    assert "| Approved by | not approved: no approval names revision B |\n" in md
    assert "| Approvals of other revisions | C. Manager (release manager, 2026-12-01, revision A) |\n" in md
    assert control["Approved by"] == "not approved: no approval names revision B"


def test_this_revisions_approval_is_printed_and_the_earlier_one_beside_it(tmp_path):
    md, control = _render(tmp_path, "B", A + B)
    assert "| Approved by | D. Lead (customer facility lead, 2026-12-05) |\n" in md
    assert control["Approvals of other revisions"] == "C. Manager (release manager, 2026-12-01, revision A)"


def test_an_approval_naming_no_revision_does_not_approve_a_stated_one(tmp_path):
    """diffpolish (review48's rank 1): every approval written before approvals named a revision names none, so a
    revision B copied from A read "Approved by C. Manager (..., revision not stated)": B looked approved. It is not."""
    md, control = _render(tmp_path, "B", "    - {name: C. Manager, date: 2026-12-01}\n")
    assert "| Approved by | not approved: no approval names revision B |\n" in md
    assert "| Approvals of other revisions | C. Manager (2026-12-01, approval names no revision) |\n" in md
    assert control["Approved by"] == "not approved: no approval names revision B"


def test_an_approval_naming_no_revision_is_a_warning_at_its_line(tmp_path):
    """SPC006: the document states a revision and an approval names none, at the approval's file:line."""
    stated = "document:\n  revision: B\n  approvals:\n    - {name: C. Manager, date: 2026-12-01}\n"
    specs = write_tree(tmp_path / "ours", {"rack.yaml": RACK.replace(NAME, NAME + stated, 1)})
    line = 1 + RACK.replace(NAME, NAME + stated, 1).splitlines().index("    - {name: C. Manager, date: 2026-12-01}")
    for command in ("check", "validate"):
        r = run_cli(command, specs)
        assert r.code == 0, r.out + r.err
        assert f"rack.yaml:{line}:" in r.out and "SPC006" in r.out, r.out
        assert "approval by C. Manager (2026-12-01) names no revision; the document states revision B" in r.out


def test_without_a_stated_revision_an_approval_is_this_documents(tmp_path):
    """A document that states no revision has nothing to judge an approval by: today's behaviour, no warning."""
    stated = "document:\n  approvals:\n    - {name: C. Manager, date: 2026-12-01}\n"
    specs = write_tree(tmp_path / "ours", {"rack.yaml": RACK.replace(NAME, NAME + stated, 1)})
    r = run_cli("render", specs, "--out", tmp_path / "out", "--formats", "md")
    assert r.code == 0, r.err
    md = (tmp_path / "out" / "dgx-h100-4" / "dgx-h100-4.md").read_text(encoding="utf-8")
    assert "| Approved by | C. Manager (2026-12-01) |\n" in md
    assert "SPC006" not in run_cli("check", specs).out
