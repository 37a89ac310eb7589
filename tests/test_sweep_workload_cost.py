"""A sweep judges a serving workload's own `cost_per_million_tokens` requirement on its points (newuser68).

Cost per million tokens is a figure a point derives (`derived.point_metrics`, cost per token x 10^6) and an estimate
does not have. A workload's requirement on it was judged on the estimate, so it read "not provided: target <= 5 USD
does not have the dimension of cost_per_million_tokens" at every point and no point of the sweep was feasible
(newuser68's trial: Llama 3.1 405B on GB200 NVL72 at 50 queries/s). It is judged now as the same target written on
the sweep is (`perf.explore.points.POINT_DERIVED`). So are a training workload's on the figures its token budget gives
(`model.sweep.RUN_METRICS`: time to train, accelerator-hours), which read the same until review33.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SPECS, sweep_problems_of

WORKLOAD = """\
kind: Workload
id: serve-cost
name: Llama 3.1 70B offline serving with a cost target
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 64
inference: {{precision: fp8, tp: 8, input_len: 2048, output_len: 256}}
requirements:
  - {{id: REQ-W-COST, statement: Cost per million tokens, metric: cost_per_million_tokens, target: "<= {t} USD"}}
"""
SWEEP = """\
kind: Sweep
id: serve-cost-sweep
workload: serve-cost
axes:
  accelerators: [64]
objectives:
  - {{metric: tokens_per_second_per_gpu}}
requirements:
  - {{id: REQ-S-COST, statement: Cost per million tokens, metric: cost_per_million_tokens, target: "<= {t} USD"}}
"""


def _row(tmp_path: Path, target: float):
    from archgen.perf.explore.points import evaluate

    (tmp_path / "w.yaml").write_text(WORKLOAD.format(t=target), encoding="utf-8")
    (tmp_path / "s.yaml").write_text(SWEEP.format(t=target), encoding="utf-8")
    [problem] = sweep_problems_of(tmp_path / "s.yaml", [SPECS, tmp_path / "w.yaml"])
    return evaluate(problem, 0, 1)[0]


@pytest.mark.parametrize(("factor", "want"), [(10.0, True), (0.1, False)])
def test_the_workloads_cost_target_is_judged_as_the_sweeps(tmp_path: Path, factor: float, want: bool) -> None:
    probe = _row(tmp_path, 1.0)
    value = probe.metrics["cost_per_million_tokens"]
    row = _row(tmp_path, value * factor)
    assert row.met["REQ-W-COST"] is want and row.met["REQ-S-COST"] is want
    assert "does not have the dimension" not in row.reason
    assert row.feasible is want


TRAINING = """\
kind: Workload
id: train-budget
name: Llama 3.1 70B pre-training with a token budget and a time-to-train target
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 256
training: {{seq_len: 8192, global_batch: 512, precision: bf16}}
checkpoint: {{tokens: 1e12}}
requirements:
  - {{id: REQ-W-TTT, statement: Time to train, metric: time_to_train, target: "<= {t} s"}}
  - {{id: REQ-W-HOURS, statement: Accelerator-hours, metric: accelerator_hours, target: "<= {h} s"}}
"""
TRAINING_SWEEP = """\
kind: Sweep
id: train-budget-sweep
workload: train-budget
axes:
  accelerators: [256]
objectives:
  - {metric: tokens_per_second}
"""


@pytest.mark.parametrize(("factor", "want"), [(10.0, True), (0.1, False)])
def test_the_workloads_time_to_train_target_is_judged_on_the_point(tmp_path: Path, factor: float, want: bool) -> None:
    """`model.sweep.RUN_METRICS` are the point's too: time to train = the token budget over tokens/s (1e12 tokens),
    accelerator-hours = that time x 256. Before review33 both read "not provided: target ... does not have the
    dimension of time_to_train" at every point, judged on an estimate that has no token budget."""
    from archgen.perf.explore.points import evaluate
    from archgen.perf.explore.vectorised import evaluate as batched

    def rows(t: float, h: float):
        (tmp_path / "w.yaml").write_text(TRAINING.format(t=t, h=h), encoding="utf-8")
        (tmp_path / "s.yaml").write_text(TRAINING_SWEEP, encoding="utf-8")
        [problem] = sweep_problems_of(tmp_path / "s.yaml", [SPECS, tmp_path / "w.yaml"])
        return evaluate(problem, 0, 1)[0], batched(problem, 0, 1)[0]

    probe, _ = rows(1.0, 1.0)
    time = 1e12 / probe.metrics["tokens_per_second"]
    assert probe.metrics["time_to_train"] == pytest.approx(time, rel=1e-12)
    assert probe.metrics["accelerator_hours"] == pytest.approx(256 * time, rel=1e-12)
    for row in rows(time * factor, 256 * time * factor):
        assert (row.met["REQ-W-TTT"], row.met["REQ-W-HOURS"]) == (want, want), row.reason
        assert "does not have the dimension" not in row.reason
        assert row.feasible is want
