"""A serving sweep's point is held to the rules its workload's `inference:` is held to (newuser93).

A point applies its job axes to the workload's job (`perf.explore.point_axes.point_job`), which skipped the
`Inference` validator: an `arrival_rate` axis on a concurrency workload was read and ignored (every point the closed
loop's 615.4 tokens/s per accelerator, feasible), and an `input_len` axis past `max_num_tokens` on a `prefill:
separate` job ended `archgen sweep` in a traceback ("internal error: this is a bug in archgen"). Each such point now
cannot run, with the reason `archgen estimate` gives the same job, and the arrival rate is refused at its axis.
"""

from __future__ import annotations

import pytest

from archgen.errors import AnalyseError, ValidateError
from archgen.perf.explore.point_axes import point_job
from archgen.perf.explore.points import evaluate
from archgen.units import Q_
from tests.conftest import SPECS, sweep_problem_written

JOBS = """kind: Workload
id: conc
name: conc
model: llama3-70b
cluster: mi355x-th5
accelerators: 8
inference: {precision: fp8, tp: 8, input_len: 1024, output_len: 128, scenario: concurrency, batch: 8}
---
kind: Workload
id: sep
name: sep
model: llama3-70b
cluster: mi355x-th5
accelerators: 8
inference: {precision: fp8, tp: 8, input_len: 1024, output_len: 128, scenario: concurrency, batch: 8,
            prefill: separate}
"""
SWEEP = """kind: Sweep
id: s
workload: {workload}
axes:
  {axis}
objectives:
  - {{metric: tokens_per_second_per_gpu}}
"""


def _rows(tmp_path, workload: str, axis: str):
    (tmp_path / "jobs.yaml").write_text(JOBS, encoding="utf-8")
    problem = sweep_problem_written(tmp_path, SWEEP.format(workload=workload, axis=axis))
    return evaluate(problem, 0, problem.size)


def test_an_arrival_rate_on_a_closed_loop_is_refused_at_its_axis(tmp_path):
    """Refused before any point runs (SWP001, tests/checks/cases/SWP001.yml), at the axis's line."""
    with pytest.raises(ValidateError) as err:
        _rows(tmp_path, "conc", 'arrival_rate: ["5 1/s", "50 1/s"]')
    assert "sweep.yaml:5:" in str(err.value) and "workload 'conc' runs scenario 'concurrency'" in str(err.value)


def test_a_point_that_breaks_a_rule_of_inference_cannot_run(tmp_path):
    """The point's own guard, whatever the sweep's checks: the job an arrival rate would make is refused there too."""
    (tmp_path / "jobs.yaml").write_text(JOBS, encoding="utf-8")
    problem = sweep_problem_written(tmp_path, SWEEP.format(workload="conc", axis="tp: [8]"))
    with pytest.raises(AnalyseError, match="inference.arrival_rate: arrival_rate applies to the server scenario"):
        point_job(problem.workload, {"arrival_rate": Q_(5, "1/s")})


def test_a_prompt_past_the_budget_of_separate_prefill_cannot_run(tmp_path):
    short, long = _rows(tmp_path, "sep", "input_len: [1024, 16384]")
    assert short.status == "ok"
    assert long.status == "invalid" and "prefill 'separate' runs each prompt whole" in long.reason, long.reason


def test_the_sweep_command_ends_without_a_traceback(cli, tmp_path):
    (tmp_path / "jobs.yaml").write_text(JOBS, encoding="utf-8")
    (tmp_path / "s.yaml").write_text(SWEEP.format(workload="sep", axis="input_len: [1024, 16384]"), encoding="utf-8")
    r = cli("sweep", tmp_path / "s.yaml", "--path", SPECS, "--path", tmp_path, "--out", tmp_path / "o",
            "--formats", "csv")
    assert "Traceback" not in r.err and "internal error" not in r.err, r.err
    assert r.code == 0, r.out + r.err
