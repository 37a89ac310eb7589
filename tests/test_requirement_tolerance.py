"""A requirement's `tolerance`: a value past the limit by at most it is "met (within tolerance)".

NASA/SP-2016-6105 Rev2 Appendix C.2 asks a requirement to be complete with its tolerances; before, archgen's targets
were exact. The judgement (`model.requirements.judge`, and `judge_each` for a sweep's points) accepts a value past the
limit by no more than the tolerance, marks it, and keeps the headroom and margin measured to the limit itself.
"""

from __future__ import annotations

import json

import pytest

from archgen.commands.gap import gap
from archgen.model.requirements import Requirement, Status, judge, judge_each
from archgen.output.gap import look, markdown, to_json
from archgen.units import Q_
from tests.test_gap import fixed_proposal, rows_by
from tests.test_gap_waiver_scope import _requirements


def _req(target: str, tolerance: object) -> Requirement:
    return Requirement(id="REQ-T-001", statement="s", metric="it_power", target=target, tolerance=tolerance)


def test_a_power_over_the_limit_by_less_than_two_percent_is_met_within_tolerance():
    req = _req("<= 150 kW", "2 %")                 # 2 % of 150 kW: 3 kW
    o = judge(req, Q_(152, "kW"))
    assert o.status is Status.MET and o.tolerated and o.shown == "met (within tolerance)"
    assert o.headroom == Q_(-2, "kW") and o.margin == pytest.approx(-2 / 150)   # to the limit itself
    assert judge(req, Q_(153, "kW")).tolerated                # a miss equal to the tolerance is within it
    assert judge(req, Q_(153_000.1, "W")).status is Status.NOT_MET
    assert not judge(req, Q_(149, "kW")).tolerated and judge(req, Q_(149, "kW")).shown == "met"


def test_each_comparator():
    assert judge(_req(">= 40 degC", "1 K"), Q_(39.5, "degC")).tolerated            # below, for >=
    assert judge(_req(">= 40 degC", "1 K"), Q_(38.9, "degC")).status is Status.NOT_MET
    assert judge(_req("== 72", 1), Q_(73, "dimensionless")).tolerated              # either side, for ==
    assert judge(_req("== 72", 1), Q_(71, "dimensionless")).tolerated
    assert judge(_req("== 72", 1), Q_(74, "dimensionless")).status is Status.NOT_MET
    assert judge(_req("< 10 kW", "0 kW"), Q_(10, "kW")).tolerated                  # at a strict limit
    assert judge(_req("<= 10 kW", None), Q_(10.1, "kW")).status is Status.NOT_MET   # none: exact


def test_a_sweep_judges_alike():
    assert judge_each(_req("<= 150 kW", "3 kW"), Q_([149.0, 152.0, 153.0, 154.0], "kW")) == [True, True, True, False]


@pytest.mark.parametrize(("target", "tolerance", "said"), [
    ("<= 150 kW", "-1 kW", "is negative"),
    (">= 40 degC", "2 %", "no scale to take it of"),
    (">= 40 degC", "1 degC", "write e.g. '1 K'"),
    ("<= 150 kW", "2 kg", "not a distance in the unit of the target '<= 150 kW'"),
])
def test_a_tolerance_that_cannot_be_the_targets_is_refused(target, tolerance, said):
    with pytest.raises(Exception, match="tolerance") as e:
        _req(target, tolerance)
    assert said in str(e.value)


def test_gap_marks_a_row_met_within_tolerance(tmp_path):
    """ACME's r4 draws 42 kW against <= 41 kW: not met exact; met within 3 % (1.23 kW); not within 0.5 kW."""
    edit = ('target: "<= 45 kW"', 'target: "<= 41 kW"')
    exact = gap([fixed_proposal(tmp_path / "a")], [_requirements(tmp_path / "b", "", edit)])
    assert rows_by(exact)[("REQ-HALL-PWR-001", "rack/acme-r4")].status == "not met"
    g = gap([fixed_proposal(tmp_path / "p")],
            [_requirements(tmp_path / "r", "", (edit[0], 'target: "<= 41 kW", tolerance: 3 %'))])
    row = rows_by(g)[("REQ-HALL-PWR-001", "rack/acme-r4")]
    assert row.status == "met" and row.tolerated
    text = markdown(g)
    assert ("| REQ-HALL-PWR-001 | SHALL | `rack/acme-r4` | Rack IT load within the hall's per-rack budget | \\<= 41 kW "
            "(tolerance 3 %) | 42 kW | ✅ met (within tolerance) | -2.4 % (-1 kW) |") in text
    [j] = [r for r in json.loads(to_json(g))["rows"] if r["subject"] == "rack/acme-r4" and r["metric"] == "it_power"]
    assert j["within_tolerance"] is True and j["tolerance"]["value"] == pytest.approx(1230.0)
    assert j["tolerance"]["unit"] == "W"
    assert look(g) or g.failing
    tight = (edit[0], 'target: "<= 41 kW", tolerance: 0.5 kW')
    g = gap([fixed_proposal(tmp_path / "q")], [_requirements(tmp_path / "s", "", tight)])
    assert rows_by(g)[("REQ-HALL-PWR-001", "rack/acme-r4")].status == "not met"


def test_a_lower_bound_within_tolerance_is_not_provided(tmp_path):
    """A weight that leaves parts out (a lower bound) past the limit but within tolerance may be past it too."""
    edit = ('target: "<= 600 kg"', 'target: "<= 600 kg", tolerance: 10 %')
    g = gap([fixed_proposal(tmp_path / "p")], [_requirements(tmp_path / "r", "", edit)])
    assert rows_by(g)[("REQ-HALL-MECH-001", "rack/acme-r4")].status == "not provided"
    note = rows_by(g)[("REQ-HALL-MECH-001", "rack/acme-r4")].note
    assert "must add under 10 kg for it to hold" in note       # 600 kg + 60 kg tolerance - 650 kg


def test_diff_says_a_row_is_met_within_tolerance_and_an_edited_tolerance_redefines_it(tmp_path):
    """BASE asks `<= 41 kW` exact (42 kW: not met); HEAD adds `tolerance: 3 %`: met within tolerance, redefined."""
    from tests.conftest import run_cli
    edit = ('target: "<= 45 kW"', 'target: "<= 41 kW"')
    base = fixed_proposal(tmp_path / "base")
    _requirements(base / "requirements", "", edit)
    head = fixed_proposal(tmp_path / "head")
    _requirements(head / "requirements", "", (edit[0], 'target: "<= 41 kW", tolerance: 3 %'))
    out = run_cli("diff", base, head).out
    assert "SHALL it\\_power \\<= 41 kW → **SHALL it\\_power \\<= 41 kW (tolerance 3 %)**" in out
    assert "| ❌ not met | ✅ met (within tolerance) | 42 kW → 42 kW |" in out
