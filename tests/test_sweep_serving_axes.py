"""A serving sweep's KV-cache axis, and serving features refused as sweep axes as in `inference:` (nu60fix).

newuser60 swept `kv_precision: [fp8, fp4]` and was told "unknown key 'kv_precision', hint: did you mean 'precision'?"
(the weights' data type), and `mtp: [0, 3]` "did you mean 'tp'?". `kv_precision` is now an axis of a serving job,
each point the workload's estimate with that KV cache; a serving feature the model does not switch is refused at its
axis with the message its `inference:` key gets (`model.serving_features`). A training sweep's unknown axis is not
read as a serving feature (`cuda_graphs` is a training switch), and the sweep report states the `decoding`
convention beside `prefill_decode`, as every serving estimate does.
"""

from __future__ import annotations

import json

import pytest

from archgen.model.serving_features import CUDA_GRAPHS, DECODING, SPECULATIVE
from archgen.perf.explore.points import evaluate
from tests.conftest import SPECS, sweep_problem_written

SERVE = """kind: Sweep
id: kv
workload: llama3-70b-serve-b200
axes:
  tp: [8]
  {axis}
objectives:
  - {{metric: tokens_per_second_per_gpu}}
"""
TRAIN = SERVE.replace("llama3-70b-serve-b200", "llama3-70b-pretrain-b200").replace("tokens_per_second_per_gpu",
                                                                                    "step_time")


def _sweep(tmp_path, text: str, *more: str):
    (tmp_path / "s.yaml").write_text(text, encoding="utf-8")
    return ("sweep", str(tmp_path / "s.yaml"), "--path", str(SPECS), "--out", str(tmp_path / "out"),
            "--formats", "md,csv", *more)


def test_kv_precision_is_an_axis_whose_points_are_the_workloads_estimates(cli, tmp_path):
    r = cli(*_sweep(tmp_path, SERVE.format(axis="kv_precision: [fp8, fp4]")))
    assert r.code == 0, r.out + r.err
    md = (tmp_path / "out" / "kv" / "kv.md").read_text(encoding="utf-8")
    # each level's prompt KV cache: FP8 1 B an element, FP4 NVFP4's 0.5625 B (kv_cache_dtype.kv_element_bytes)
    assert "(FP8, all layers)" in md and "(FP4, all layers)" in md
    assert f"decoding: {DECODING}" in md   # beside prefill_decode
    (tmp_path / "p").mkdir()
    problem = sweep_problem_written(tmp_path / "p", SERVE.format(axis="kv_precision: [fp8, fp4]"))
    rows = evaluate(problem, 0, 2)
    for row in rows:
        w = tmp_path / row.values["kv_precision"]
        w.mkdir()
        text = (SPECS / "workloads" / "llama3-70b.yaml").read_text(encoding="utf-8")
        serve = text[text.index("kind: Workload\nid: llama3-70b-serve-b200"):].split("requirements:")[0]
        (w / "w.yaml").write_text(serve.replace("id: llama3-70b-serve-b200", "id: w")
                                  + f"  kv_precision: {row.values['kv_precision']}\n", encoding="utf-8")
        est = cli("estimate", str(SPECS), str(w), "--workload", "w", "--format", "json")
        assert est.code == 0, est.err
        per_gpu = json.loads(est.out)["metrics"]["tokens_per_second_per_gpu"]["value"]
        assert row.metrics["tokens_per_second_per_gpu"] == pytest.approx(per_gpu, rel=1e-9)
    assert rows[0].metrics["tokens_per_second_per_gpu"] != rows[1].metrics["tokens_per_second_per_gpu"]


@pytest.mark.parametrize(("axis", "why"), [("mtp: [0, 3]", SPECULATIVE.format(key="mtp")),
                                           ("cuda_graphs: [true, false]", CUDA_GRAPHS.format(key="cuda_graphs"))])
def test_a_serving_feature_axis_is_refused_as_its_inference_key_is(cli, tmp_path, axis, why):
    r = cli(*_sweep(tmp_path, SERVE.format(axis=axis)))
    assert r.code != 0
    assert f"s.yaml:6:3: error: {why}" in r.err, r.err
    assert "did you mean 'tp'" not in r.err


def test_a_training_sweeps_unknown_axis_is_not_read_as_a_serving_feature(cli, tmp_path):
    r = cli(*_sweep(tmp_path, TRAIN.format(axis="cuda_graphs: [none]")))
    assert r.code != 0
    assert "s.yaml:6:3: error: sweep 'kv': unknown axis 'cuda_graphs'" in r.err, r.err
    assert "CUDA graphs are stated with the field kernel_launch" not in r.err
    assert "kv_precision" not in r.err.split("axes of a training job:")[1]   # a serving job's axis is not offered


def test_a_kv_precision_axis_on_a_training_sweep_is_refused(cli, tmp_path):
    r = cli(*_sweep(tmp_path, TRAIN.format(axis="kv_precision: [fp8]")))
    assert r.code != 0
    assert "axis 'kv_precision' changes an inference job" in r.err, r.err
