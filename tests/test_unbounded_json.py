"""`sweep --format json` and `diff --format json` give an infinite value the reason the text gives (leftovers22).

leftovers21 gave `check`'s and `estimate`'s JSON the reason of `metric.unbounded` (`envelope.metric_quantity`); the
sweep's points and the diff's sides still went through the unit alone (`quantity_json.to_json`), so that any value
not in money read the generic "no upper bound". A goodput time to train whose high end is infinite (goodput's low end
is 0, `perf.workload.run_figures.run_times`) read so in a sweep's JSON, where its text says goodput's low end is 0; a
restart time's high end (REL009: more nodes in repair than spares) read so in a diff's.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from archgen.compare.diff import Diff, MetricChange
from archgen.compare.requirement_changes import RequirementChange, RequirementState
from archgen.metric import UNBOUNDED, WHY_UNBOUNDED
from archgen.model.requirements import Status
from archgen.output import diff as diff_out
from archgen.output import sweep as sweep_out
from archgen.perf.explore.problem import PointRow, SweepProblem
from archgen.perf.explore.tally import chunk, merge
from archgen.perf.explore.vectorised import evaluate
from archgen.units import Q_
from tests.conftest import SPECS, sweep_problems_of
from tests.test_unbounded_cost import SWEEP


def one_point(tmp_path: Path) -> tuple[SweepProblem, list[PointRow]]:
    """`test_unbounded_cost`'s sweep of the shipped 70B job at 512 accelerators on the shipped specs, evaluated."""
    path = tmp_path / "sweep.yaml"
    path.write_text(SWEEP, encoding="utf-8")
    (problem,) = sweep_problems_of(path, [SPECS])
    return problem, evaluate(problem, 0, 1)


def test_a_sweep_point_says_why_its_goodput_time_has_no_upper_bound(tmp_path):
    problem, rows = one_point(tmp_path)
    rows[0].metrics["goodput_time_to_train_high"] = math.inf   # as `run_times` gives it where goodput_low is 0
    rows[0].metrics["ttft"] = math.inf                           # no goodput's doing: the generic reason
    result = merge(problem, [chunk(problem, rows, 0)])
    (point,) = sweep_out.to_json(result)["front"]
    assert point["metrics"]["goodput_time_to_train_high"] == {"value": None, "unit": "s", "unbounded": UNBOUNDED}
    assert point["metrics"]["ttft"] == {"value": None, "unit": "s", "unbounded": "no upper bound"}
    assert point["metrics"]["step_time"]["value"] > 0


def _diff(base: float, head: float, metric: str = "restart_time_high") -> dict:
    change = MetricChange("workload/job", metric, Q_(base, "s"), Q_(head, "s"))
    state = [RequirementState("workload/job", "REQ-R", "Restart", metric, "<= 1 h", "shall", status, Q_(v, "s"))
             for status, v in ((Status.MET, base), (Status.NOT_MET, head))]
    d = Diff(str(Path("a")), str(Path("b")), (change,), (), (), (), (), (RequirementChange(*state),), 0)
    return json.loads(diff_out.to_json(d))


def test_a_diff_says_why_a_side_and_the_change_have_no_upper_bound():
    why = {"value": None, "unit": "s", "unbounded": WHY_UNBOUNDED["restart_time"]}
    doc = _diff(600.0, math.inf)
    (m,) = doc["metrics"]
    assert m["base"] == {"value": 600.0, "unit": "s"} and m["head"] == m["change"] == why
    (r,) = doc["requirements"]
    assert r["head"]["value"] == why and r["base"]["value"] == {"value": 600.0, "unit": "s"}
    back = _diff(math.inf, 600.0)["metrics"][0]      # from an unbounded BASE: the change is -inf, no number either
    assert back["base"] == back["change"] == why
