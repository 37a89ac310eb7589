"""A serving sweep says which limit bound each point's batch; a sweep with a `peak` axis says which peaks it holds.

Before (newuser58): an `hbm_capacity` axis of 192 and 384 GB changed nothing for Llama 3.1 70B served on vLLM, whose
default max_num_seqs of 1,024 bound the batch at both; `archgen estimate` said so in a note, the sweep document did
not. And the `peak` axis scales the dense tensor peak of the point's data type alone (`Hardware.scaled`): only
docs/sweeps.md said so, not the document or the JSON. Now each serving point whose batch is left to its limits carries
`batch_bound` (the engine's max_batch_size with its source, or the KV cache), the document says it once under its
front and best-point tables with the count of points, and the JSON gives `batch_bounds`; a `peak` axis brings a note
and `peak_scope` (each accelerator's held peaks).
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import SPECS, sweep_problems_of

HBM = """\
kind: Sweep
id: hbm
workload: llama3-70b-serve-b200
axes:
  hbm_capacity: [0.5, 1, 2]
objectives:
  - {metric: tokens_per_second_per_gpu}
  - {metric: tpot}
"""


def _result(tmp_path, text: str):
    from archgen.perf.explore.points import evaluate, summarise

    path = tmp_path / "sweep.yaml"
    path.write_text(text, encoding="utf-8")
    problem = sweep_problems_of(path, [SPECS, tmp_path])[0]
    return summarise(problem, evaluate(problem, 0, problem.size))


def test_each_point_says_which_limit_bound_its_batch(tmp_path) -> None:
    from archgen.model.engine import MAX_BATCH_SIZE  # TensorRT-LLM's default, 2,048 (its source there)
    from archgen.output.sweep import summary, to_json
    from archgen.perf.workload.serving_limits import KV_BOUND
    from archgen.render.sweep import best_section

    result = _result(tmp_path, HBM)
    half, own, double = result.rows
    assert half.batch_bound == KV_BOUND and half.layout["batch"] < MAX_BATCH_SIZE
    engine = f"the engine's max_batch_size ({MAX_BATCH_SIZE:,}) runs at once: TensorRT-LLM's max_batch_size"
    for r in (own, double):   # capped by the engine: twice the HBM runs the same batch at the same rate
        assert r.batch_bound.startswith(engine) and r.layout["batch"] == MAX_BATCH_SIZE
    assert double.metrics["tokens_per_second_per_gpu"] == own.metrics["tokens_per_second_per_gpu"]
    said = f"at 2 point(s) by {own.batch_bound}"
    notes = [b.text for b in best_section(result).blocks if getattr(b, "style", "") == "note"]
    assert any(said in n and f"at 1 point(s) by {KV_BOUND}" in n for n in notes)
    assert said in summary(result)
    got = json.loads(json.dumps(to_json(result), default=str))
    assert {"bound": own.batch_bound, "points": 2} in got["batch_bounds"]
    assert got["best"]["tpot"]["batch_bound"] in (KV_BOUND, own.batch_bound)


def test_a_stated_batch_is_bound_by_nothing(tmp_path) -> None:
    result = _result(tmp_path, HBM.replace("  hbm_capacity: [0.5, 1, 2]\n", "  batch: [64]\n"))
    assert [r.batch_bound for r in result.rows] == [""]
    from archgen.output.sweep import to_json
    assert "batch_bounds" not in to_json(result)


@pytest.mark.parametrize("axis", ["peak: [1, 2]", "hbm_bandwidth: [1, 2]"])
def test_a_peak_axis_names_the_peaks_it_holds(tmp_path, axis) -> None:
    from archgen.output.sweep import to_json
    from archgen.render.sweep import front_section

    result = _result(tmp_path, HBM.replace("hbm_capacity: [0.5, 1, 2]", axis))
    hw = result.problem.bases[("dgx-b200-superpod", None)].hardware
    got = to_json(result)
    notes = [b.text for b in front_section(result).blocks if getattr(b, "style", "") == "note"]
    text = f"b200-sxm-180gb at fp8: the axis scales its fp8 tensor peak alone; bf16 {hw.peak['bf16'] / 1e12:,.0f} TFLOP/s"
    if axis.startswith("hbm"):
        assert "peak_scope" not in got and not any(text in n for n in notes)
        return
    [scope] = got["peak_scope"]
    assert scope["accelerator"] == "b200-sxm-180gb" and scope["scaled"] == "fp8"
    assert scope["held"]["bf16"]["value"] == pytest.approx(hw.peak["bf16"], rel=1e-12)
    assert set(scope["held"]) == set(hw.peak) - {"fp8"}
    assert any(text in n for n in notes)
