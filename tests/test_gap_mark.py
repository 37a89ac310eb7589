"""`archgen gap`'s first mark: ❌ failing, ⚠️ passing with something to look at, ✅ otherwise (README, Vendor proposals).

The same rule as `archgen diff`'s comment, which turns ⚠️ on a new warning (tests/test_diff_summary_counts.py). The
rows are those of the fixture's proposal with 60 A feeds (tests/test_gap.py: `fixed_proposal`), which fails only on
its two SHALL misses (REQ-HALL-MECH-001, 650 kg > 600 kg; REQ-HALL-NET-002, no storage fabric) and has 4 warning
findings (COST002, NET023, NET024 twice).
"""

from __future__ import annotations

import dataclasses
import json

from archgen.as_of import given
from archgen.checks.registry import Finding
from archgen.commands.gap import gap
from archgen.compare.gap import Gap
from archgen.output.gap import markdown, to_json
from tests.test_gap import REQUIREMENTS, fixed_proposal


def mark(g: Gap) -> str:
    return markdown(g).splitlines()[2].split(" ", 1)[0]


def warning(check: str) -> Finding:
    return Finding(check, "warning", "rack/acme-r4", None, f"{check} text", f"{check} summary", "")


def test_first_mark(tmp_path):
    g = gap([fixed_proposal(tmp_path / "p")], [REQUIREMENTS])
    assert g.failing and mark(g) == "❌"
    passing = [r for r in g.rows if not r.failing]
    met = dataclasses.replace(g, rows=tuple(r for r in passing if r.status == "met"), findings=())
    assert not met.failing and mark(met) == "✅"              # every row met, no warning: nothing to look at
    for check in ("SPC004", "CAT007", "REQ004"):              # an expired waiver, a shadowed part, a requirement at risk
        assert mark(dataclasses.replace(met, findings=(warning(check),))) == "⚠️", check
    missed = dataclasses.replace(g, rows=tuple(passing), findings=())
    assert {r.requirement.level for r in missed.rows if r.status != "met"} == {"should", "may"}
    assert not missed.failing and mark(missed) == "⚠️"      # a SHOULD or MAY missed: check reports it as a warning
    at_risk = dataclasses.replace(met, rows=(dataclasses.replace(met.rows[0], status="at risk"),))
    assert not at_risk.failing and mark(at_risk) == "⚠️"
    waived = dataclasses.replace(met, rows=tuple(dataclasses.replace(r, waived="agreed") for r in g.rows))
    assert not waived.failing and mark(waived) == "⚠️"      # a SHALL miss waived


def test_info_findings_leave_it_green(tmp_path):
    g = gap([fixed_proposal(tmp_path / "p")], [REQUIREMENTS])
    met = dataclasses.replace(g, rows=tuple(r for r in g.rows if r.status == "met"),
                              findings=tuple(f for f in g.findings if f.severity == "info"))
    assert met.findings and mark(met) == "✅"


def test_our_expired_waiver_is_ours_not_the_proposals(tmp_path):
    """An expired waiver in our requirements document (SPC004 at its `expires:`) is named as ours (newuser61).

    Before, it was listed under "Findings of the proposal" and counted in "The proposal has 0 error and 1 warning
    finding(s)": the vendor read our lapsed waiver as a fault of their proposal. The row it waived counts again.
    """
    from tests.test_gap import requirements_without
    ours = requirements_without(tmp_path / "r", extra=(
        "waivers:\n  - {check: REQ001, subject: rack/acme-r4, requirement: REQ-HALL-MECH-001, reason: lifts checked,"
        " owner: facilities, expires: 2026-01-31}\n"))
    g = gap([fixed_proposal(tmp_path / "p")], [ours], as_of=given("2026-12-06"))
    spc = [f for f in g.findings if f.id == "SPC004"]
    assert spc and g.ours_findings == tuple(spc) and not any(f.id == "SPC004" for f in g.proposal_findings)
    s = g.summary()
    assert (s["our_errors"], s["our_warnings"]) == (0, 1) and s["warnings"] == 4   # the proposal's 4 (module doc)
    md = markdown(g)
    assert "our requirements have 0 error and 1 warning finding(s)" in md.splitlines()[2]
    proposal_part, ours_part = md.split("### Findings of our requirements")
    assert "SPC004" not in proposal_part.split("### Findings of the proposal")[1] and "| warning | SPC004 |" in ours_part
    assert "### Findings of our requirements" not in markdown(g, "customer")
    doc = json.loads(to_json(g))
    assert [f["id"] for f in doc["requirement_findings"]] == ["SPC004"]
    assert "SPC004" not in {f["id"] for f in doc["findings"]}
    heavy = next(r for r in g.rows if r.requirement.id == "REQ-HALL-MECH-001" and r.subject == "rack/acme-r4")
    assert heavy.status == "not met" and not heavy.waived and g.failing   # the lapsed waiver waives nothing
