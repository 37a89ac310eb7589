"""The cluster document's load swing row gives each training job's swing period (newuser70).

Synchronous training swings the draw once a step (arXiv:2508.14318), so the swing's fundamental is 1 / step time,
which `archgen estimate` already gave in a note while the document's row read only "not provided". The row now gives
the same text (`swing_period`) for each training job on the cluster that fits, and nothing for another cluster's.
"""

from __future__ import annotations

from types import SimpleNamespace

from archgen.perf.workload.swing_note import swing_note
from archgen.render.load_swing import LOAD_SWING, load_swing, training_periods
from archgen.units import Q_


def _result(wid: str, cluster: str, kind: str = "training", step: float = 30.53):
    est = SimpleNamespace(kind=kind, fits=True, metrics={"step_time": Q_(step, "s")}, bands={})
    return SimpleNamespace(estimate=est, workload=SimpleNamespace(id=wid, cluster=cluster))


def test_the_row_gives_each_training_jobs_period() -> None:
    run = SimpleNamespace(workloads={"workload/a": _result("a", "su"), "workload/b": _result("b", "other"),
                                     "workload/c": _result("c", "su", kind="inference")})
    periods = training_periods(run, "su")
    assert periods == ("a 30.53 s, 0.0328 Hz (no band)",)       # 1 / 30.53 s = 0.03275 Hz
    row = load_swing(Q_(1146.4, "kW"), periods)
    assert row.startswith(LOAD_SWING) and row.endswith("(arXiv:2508.14318): a 30.53 s, 0.0328 Hz (no band)")
    assert "30.53 s, 0.0328 Hz (no band)" in swing_note(run.workloads["workload/a"].estimate)   # estimate's note


def test_no_training_job_leaves_the_row_as_it_was() -> None:
    assert load_swing(None) == LOAD_SWING
    assert "its period" not in load_swing(Q_(1, "kW"), training_periods(SimpleNamespace(workloads={}), "su"))
