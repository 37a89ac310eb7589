"""`archgen diff` shows a requirement that a pull request redefines, waives or removes (newuser32's trial).

Before, only a change of status was listed: raising a SHALL weight limit from 1,400 to 9,000 kg, met on both sides,
read "✅ ... No differences."; a target tightened under a new waiver (45 → 30 kW at 40.9 kW) read "✅ ... 0
requirement(s) newly failing" with the HEAD target alone in its row, and a requirement deleted was counted nowhere
in the summary. Each now has a count in the summary, the comment starts ⚠️, and the row shows base → head.
"""

from __future__ import annotations

import json
from pathlib import Path

from archgen import metrics
from archgen.compare.diff import Diff
from archgen.compare.requirement_changes import RequirementChange, RequirementState
from archgen.model.requirements import Status
from archgen.model.target import Target
from archgen.output import diff as diff_out
from archgen.output import diff_customer
from tests.conftest import SPECS, run_cli, write_tree

RACK = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")
POWER = '{id: REQ-PWR-010, statement: Rack IT load, metric: it_power, target: "<= 45 kW"}'   # 40.9 kW: met
FLOOR = '  - {id: REQ-MECH-010, statement: Floor load within the hall rating, metric: floor_load, target: "<= 1200 kg/m**2"}\n'


def _sides(tmp_path: Path, head: str) -> tuple[Path, Path]:
    assert POWER in RACK and FLOOR in RACK
    return (write_tree(tmp_path / "base", {"rack.yaml": RACK}), write_tree(tmp_path / "head", {"rack.yaml": head}))


def test_a_target_relaxed_with_the_status_unchanged_is_shown(tmp_path):
    base, head = _sides(tmp_path, RACK.replace('target: "<= 45 kW"', 'target: "<= 90 kW"'))
    r = run_cli("diff", base, head)
    assert r.code == 0
    assert "⚠️ 0 metric(s) changed in 0 object(s); 0 new finding(s) (0 error(s)), 0 resolved; 0 requirement(s) " \
           "newly failing, 0 newly met, 1 redefined (1 relaxed). HEAD has no error findings." in r.out   # was ✅
    assert "| REQ-PWR-010 | `rack/dgx-h100-4` | Rack IT load | SHALL it\\_power \\<= 45 kW → **SHALL it\\_power " \
           "\\<= 90 kW** (relaxed) | ✅ met | ✅ met | 40.9 kW → 40.9 kW |" in r.out
    [row] = json.loads(run_cli("diff", base, head, "--format", "json").out)["requirements"]
    assert (row["target"], row["redefined"], row["base_definition"]) == \
        ("<= 90 kW", True, {"target": "<= 45 kW", "level": "shall", "metric": "it_power", "verification": "analysis",
                            "parent": None})


def test_a_level_lowered_is_shown(tmp_path):
    base, head = _sides(tmp_path, RACK.replace(POWER, POWER[:-1] + ", level: may}"))
    r = run_cli("diff", base, head)
    assert "SHALL it\\_power \\<= 45 kW → **MAY it\\_power \\<= 45 kW**" in r.out and r.out.startswith("## ")
    assert "1 redefined" in r.out and "⚠️" in r.out


def test_a_miss_under_a_new_waiver_is_counted(tmp_path):
    waived = RACK.replace('target: "<= 45 kW"', 'target: "<= 30 kW"').replace("waivers:\n", (  # one more, first
        "waivers:\n  - {check: REQ001, requirement: REQ-PWR-010, reason: accepted for this pull request}\n"), 1)
    base, head = _sides(tmp_path, waived)
    r = run_cli("diff", base, head)
    assert r.code == 0                                   # waived: the miss does not fail the job
    assert "0 requirement(s) newly failing, 0 newly met, 1 redefined (1 tightened), 1 newly waived; 1 waiver(s) changed (1 added)." \
        in r.out
    assert r.out.split("\n")[2].startswith("⚠️")         # was ✅
    assert "| ✅ met | ❌ not met (waived) | 40.9 kW → 40.9 kW |" in r.out


def test_a_requirement_removed_is_counted(tmp_path):
    base, head = _sides(tmp_path, RACK.replace(FLOOR, ""))
    r = run_cli("diff", base, head)
    assert r.code == 0
    assert "0 requirement(s) newly failing, 0 newly met, 1 removed." in r.out and r.out.split("\n")[2][0] == "⚠"
    doc = json.loads(run_cli("diff", base, head, "--format", "json").out)
    assert (doc["summary"]["requirements_removed"], doc["summary"]["requirements_redefined"]) == (1, 0)


def test_an_unchanged_requirement_is_not_listed(tmp_path):
    base, head = _sides(tmp_path, RACK.replace("name: DGX H100 rack", "name: DGX H100 rack, renamed"))
    r = run_cli("diff", base, head)
    assert "### Requirements" not in r.out and r.out.split("\n")[2].startswith("✅")


def test_a_target_moved_says_tightened_or_relaxed(tmp_path):
    """A partner reads "tightened" or "relaxed", not only "redefined" (newuser86's trial: 150 → 145 kW read
    "1 redefined", the bound's direction left to the reader of two targets)."""
    base, head = _sides(tmp_path, RACK.replace('target: "<= 45 kW"', 'target: "<= 42 kW"'))
    r = run_cli("diff", base, head)
    assert "0 newly met, 1 redefined (1 tightened)." in r.out
    assert "SHALL it\\_power \\<= 45 kW → **SHALL it\\_power \\<= 42 kW** (tightened) |" in r.out
    doc = json.loads(run_cli("diff", base, head, "--format", "json").out)
    assert doc["requirements"][0]["tightened"] is True
    assert (doc["summary"]["requirements_tightened"], doc["summary"]["requirements_relaxed"]) == (1, 0)
    relaxed = run_cli("diff", head, base)
    assert "1 redefined (1 relaxed)." in relaxed.out and "\\<= 45 kW** (relaxed) |" in relaxed.out
    lowered = run_cli("diff", base, *_sides(tmp_path / "may", RACK.replace(POWER, POWER[:-1] + ", level: may}"))[1:])
    assert "1 redefined (1 relaxed)." in lowered.out      # SHALL → MAY: a partner may now miss it


def test_a_target_and_level_moved_apart_is_only_redefined(tmp_path):
    moved = RACK.replace(POWER, POWER.replace('"<= 45 kW"', '"<= 42 kW"')[:-1] + ", level: should}")
    base, head = _sides(tmp_path, moved)
    r = run_cli("diff", base, head)
    assert "1 redefined." in r.out and "(tightened)" not in r.out and "(relaxed)" not in r.out
    assert json.loads(run_cli("diff", base, head, "--format", "json").out)["requirements"][0]["tightened"] is None


def test_a_should_newly_missed_is_counted(tmp_path):
    """A SHOULD met in BASE and missed in HEAD exits 0, as `check` warns of it, but the summary counts it (newuser101's
    trial: a cluster grown past the hall's 2 MW SHOULD read "0 requirement(s) newly failing, 0 newly met" above a row
    ✅ met → ❌ not met)."""
    should = RACK.replace(POWER, POWER.replace('45 kW"', '40.95 kW", level: should'))   # 40.898 kW: met
    base, head = _sides(tmp_path, should.replace("  - {at: 40, part: sn2201, face: rear}\n", (
        "  - {at: 40, part: sn2201, face: rear}\n  - {at: 41, part: sn2201, face: rear}\n")))   # + 98 W: 40.996 kW
    write_tree(base, {"rack.yaml": should})
    r = run_cli("diff", base, head)
    assert r.code == 0 and r.out.split("\n")[2].startswith("⚠️")
    assert "0 requirement(s) newly failing, 0 newly met, 1 newly missed (SHOULD or MAY). HEAD has no error" in r.out
    assert "| ✅ met | ❌ not met | 40.9 kW → 41 kW |" in r.out
    s = json.loads(run_cli("diff", base, head, "--format", "json").out)["summary"]
    assert (s["requirements_missed"], s["requirements_failing"], s["failing"]) == (1, 0, False)
    customer = run_cli("diff", base, head, "--audience", "customer").out
    assert "requirement(s): 1 newly missed (SHOULD or MAY);" in customer


def _change(base: tuple[str, Status] | None, head: tuple[str, Status], waived: str = "") -> RequirementChange:
    def state(level: str, status: Status, why: str = "") -> RequirementState:
        return RequirementState("rack/r", "REQ-1", "Load", "it_power", "<= 40 kW", level, status, waived=why)
    return RequirementChange(base and state(*base), state(*head, waived))


def test_newly_missed_is_a_should_or_may_miss_that_base_did_not_have():
    met, shall, should, may = (("should", Status.MET), ("shall", Status.NOT_MET), ("should", Status.NOT_MET),
                               ("may", Status.NOT_PROVIDED))
    assert _change(met, should).missed and _change(None, may).missed and _change(met, may).missed
    assert not _change(met, shall).missed and _change(met, shall).failing               # a SHALL's miss fails
    assert not _change(should, should).missed                                            # missed on both sides
    assert not _change(shall, should).missed                                             # relaxed: not newly
    assert not _change(met, should, waived="accepted").missed                            # waived: newly waived
    assert not _change(met, ("should", Status.NOT_APPLICABLE)).missed
    assert _change(met, ("should", Status.AT_RISK)).newly("at risk")


def test_the_summary_counts_a_requirement_newly_at_risk():
    """`pr5` of newuser101's trial: another training stack, an MFU SHOULD ✅ met → ⚠️ at risk read "0 newly met"."""
    change = _change(("should", Status.MET), ("should", Status.AT_RISK))
    d = Diff("a", "b", (), (), (), (), (), (change,), 0)
    assert d.summary()["requirements_at_risk"] == 1
    assert diff_out.summary_line(d).endswith("0 requirement(s) newly failing, 0 newly met, 1 newly at risk. HEAD "
                                             "has no error findings.")


def test_one_limit_written_per_another_time_is_not_a_redefinition():
    """cost41: "<= 4800 EUR" and "<= 400 EUR/month" on a cost per year are one limit, compared as read, not as text.

    The display keeps each side's words (HEAD's as-written echo); a limit that really moved is still redefined.
    """
    cost = metrics.lookup("cluster/c", "energy_cost_per_year")
    assert cost is not None

    def state(target: str) -> RequirementState:
        t = Target.parse(target)
        t = t.read_as(cost.as_limit(t.limit))
        return RequirementState("cluster/c", "REQ-C", "Energy", "energy_cost_per_year", str(t), "shall",
                                Status.MET, bound=t)
    same = RequirementChange(state("<= 4800 EUR"), state("<= 400 EUR/month"))
    assert same.base is not None and same.head is not None and same.base.target != same.head.target
    assert not same.redefined
    assert diff_out.target_cell(same) == r"\<= 4800 EUR (as written: 400 EUR/month)"
    assert RequirementChange(state("<= 4800 EUR"), state("<= 401 EUR/month")).redefined
    assert Target.parse("<= 4.8 kW").key == Target.parse("<= 4800 W").key != Target.parse("< 4800 W").key


def test_a_miss_that_became_at_risk_is_not_counted_newly_at_risk():
    """review61: a SHALL ❌ not met → ⚠️ at risk is a step up; "1 newly at risk" read it as a step down. It is counted
    on its own ("at risk, up from a miss"), and the comment still starts ⚠️: at risk is no pass to wave through."""
    for base in (Status.NOT_MET, Status.NOT_PROVIDED):
        change = _change(("shall", base), ("shall", Status.AT_RISK))
        assert change.from_miss and not change.at_risk and not change.failing
        d = Diff("a", "b", (), (), (), (), (), (change,), 0)
        s = d.summary()
        assert (s["requirements_at_risk"], s["requirements_from_miss"]) == (0, 1)
        assert diff_out.summary_line(d).endswith("0 requirement(s) newly failing, 0 newly met, 1 at risk, up from a "
                                                 "miss. HEAD has no error findings.")
        assert diff_out.mark(d) == "⚠️"
        assert "requirement(s): 1 at risk, up from a miss;" in diff_customer.summary_line(d)
    for base in (("shall", Status.MET), None, ("shall", Status.NOT_APPLICABLE)):   # down, new, or newly applicable
        change = _change(base, ("shall", Status.AT_RISK))
        assert change.at_risk and not change.from_miss
