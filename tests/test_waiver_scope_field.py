"""A waiver's `scope:` states whose rows it waives in `gap`: our design's, a vendor's proposal's, or both.

nu84fix left it to a heuristic (a subject whose id is `*` is our design's waiver; one naming ids binds both). The
field states it; without it the heuristic is the default, and the report says which scope applied and whether it
was stated (the W-label line under the table, the note on a waiver that left rows unwaived, JSON `waiver_scope`).
"""

from __future__ import annotations

import json

from archgen.commands.gap import gap
from archgen.output.gap import markdown, to_json
from tests.test_gap import fixed_proposal, rows_by
from tests.test_gap_waiver_scope import OURS, _requirements

ROW = ("REQ-HALL-MECH-001", "rack/acme-net")   # 214.4 kg, a lower bound: not provided


def _with(scope: str, subject: str = "rack/*") -> str:
    return OURS.replace('"rack/*"', f'"{subject}"').replace("{check:", f"{{scope: {scope}, check:")


def test_scope_proposal_waives_the_vendors_row_of_a_star_subject(tmp_path):
    g = gap([fixed_proposal(tmp_path / "p")], [_requirements(tmp_path / "r", _with("proposal"))])
    row = rows_by(g)[ROW]
    assert row.waived.startswith("Open finding") and not row.failing
    assert row.waiver_scope == "proposal (stated)"
    assert "- W1 (REQ-HALL-MECH-001 on `rack/acme-net`; scope proposal (stated)): Open finding" in markdown(g)
    [j] = [r for r in json.loads(to_json(g))["rows"] if (r["requirement"], r["subject"]) == ROW]
    assert j["waiver_scope"] == "proposal (stated)"


def test_scope_design_leaves_a_vendors_named_row_unwaived_and_says_so(tmp_path):
    g = gap([fixed_proposal(tmp_path / "p")], [_requirements(tmp_path / "r", _with("design", "rack/acme-*"))])
    row = rows_by(g)[ROW]
    assert not row.waived and row.failing
    [note] = [n for n in g.notes if "REQ002" in n]
    assert "has scope design (stated)" in note and "`rack/acme-net`" in note and "`scope: both`" in note


def test_scope_proposal_does_not_waive_our_own_design(tmp_path):
    root = fixed_proposal(tmp_path / "ours")
    _requirements(root / "requirements", _with("proposal"))
    g = gap([root], [root / "requirements"])
    assert not rows_by(g)[ROW].waived
    [note] = [n for n in g.notes if "REQ002" in n]
    assert "has scope proposal (stated)" in note and "none of our own design's rows" in note


def test_scope_both_waives_either(tmp_path):
    g = gap([fixed_proposal(tmp_path / "p")], [_requirements(tmp_path / "r", _with("both"))])
    assert rows_by(g)[ROW].waiver_scope == "both (stated)"


def test_the_default_is_said_to_be_one(tmp_path):
    g = gap([fixed_proposal(tmp_path / "p")], [_requirements(tmp_path / "r", OURS)])
    [note] = [n for n in g.notes if "REQ002" in n]
    assert "has scope design (by default: its subject's id is `*`)" in note
    named = gap([fixed_proposal(tmp_path / "q")],
                [_requirements(tmp_path / "s", OURS.replace('"rack/*"', '"rack/acme-*"'))])
    assert rows_by(named)[ROW].waiver_scope == "both (by default: its subject names ids)"
