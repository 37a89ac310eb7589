"""MoE training at tp > 1 runs on sequence parallelism, or not at all (issue 20 part 1, left by tpfaith).

Megatron-core's `MoELayer.forward` raises "During training, performance may degrade if MoE and tensor parallelism
are enabled without also enabling sequence parallelism" when the attention's TP group is larger than one and
`sequence_parallel` is off (NVIDIA/Megatron-LM at d98e8a6, megatron/core/transformer/moe/moe_layer.py line 636).
The model timed such a job. Now a stated one is refused at its key, and every layout search leaves it out, as the
other refused layouts (`perf/train/refused.py`). Qwen3-30B-A3B (128 experts) is the catalog's MoE model.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from archgen.perf.explore.plan import search_plan
from archgen.perf.train.job import Job
from archgen.perf.train.layouts import search_training
from archgen.perf.train.refused import moe_tp_refused
from archgen.perf.train.stacks import resolve
from archgen.scoring.cases import read_case_file
from tests.conftest import SPECS, docs_script
from tests.data.models import catalog_arch
from tests.data.workloads import qwen3_training

Q30 = catalog_arch("qwen3-30b-a3b")


def run(cli, tmp_path, layout: str = "", **extra: object):
    text = qwen3_training("q30-nosp", f"{{ep: 8{layout}}}", name="Qwen3-30B-A3B on 64 GB200", **extra)
    (tmp_path / "w.yaml").write_text(text, encoding="utf-8")
    return cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "q30-nosp", "--format", "json")


def test_the_rule_is_megatron_cores():
    assert list(moe_tp_refused(128, np.array([1, 2, 8]), False)) == [False, True, True]
    assert not moe_tp_refused(128, 2, True).any() and not moe_tp_refused(0, 8, False).any()


@pytest.mark.parametrize(("extra", "layout", "why"), [
    ({}, ", tp: 2, sequence_parallel: false", "which is stated false"),
    ({"stack": "megatron-lm-2021"}, ", tp: 2", "which is off under stack megatron-lm-2021"),
])
def test_a_stated_moe_layout_without_sequence_parallelism_is_an_error(cli, tmp_path, extra, layout, why):
    r = run(cli, tmp_path, layout, **extra)
    assert r.code == 2  # an analysis error, located at the workload's training
    text = r.out + r.err
    assert f"an MoE model (128 experts) at tp 2 needs sequence parallelism in training, {why}" in text
    assert "moe_layer.py line 636" in text and "w.yaml:7:1: error: workload 'q30-nosp'" in text


def test_the_layout_search_leaves_tp_above_1_out_without_sequence_parallelism(cli, tmp_path):
    r = run(cli, tmp_path, layout=", sequence_parallel: false")
    assert r.code == 0, r.err
    assert json.loads(r.out)["layout"]["tp"] == 1


def test_every_search_keeps_the_rule(accelerators):
    from archgen.perf.hw.from_spec import hardware_for
    from archgen.units import Q_
    hw = hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"))
    job = Job.from_knobs(Q30, 4096, 256, "bf16", resolve("nemo-2025", {"sequence_parallel": False}, "bf16"))
    res = search_training(hw, job, 64, {"ep": 8}, False)
    assert res.best is not None and res.evaluated > 0 and set(res.layouts["tp"]) == {1.0}
    plan = search_plan(hw, job, 64, "nemo-2025", {})
    assert plan.best is not None
    assert plan.switches["sequence_parallel"] or int(plan.best["tp"]) == 1


CASE = """\
schema: archgen-validation/1
cases:
- id: q30-tp2-nosp
  source: "made up for this test"
  status: unconfirmed
  system: {accelerator: h100-sxm5-80gb, count: 16, scale_up: {domain: 8, bandwidth: 450 GB/s}, scale_out: {bandwidth: 400 Gb/s}}
  model: {layers: 48, hidden: 2048, heads: 32, kv_heads: 4, head_dim: 128, ffn: 6144, vocab: 151936, gated_ffn: true, moe: {experts: 128, top_k: 8, expert_ffn: 768}}
  training: {seq_len: 4096, global_batch: 256, precision: bf16, tp: 2, pp: 1, dp: 8, ep: 8, stack: nemo-2025, sequence_parallel: false}
  measured: [{metric: step_time, value: 10, unit: s}]
"""


def test_a_case_is_refused_at_its_key(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(CASE, encoding="utf-8")
    (refused,) = read_case_file(path).refused
    (problem,) = refused.problems
    assert f"{path}:8:130: error: q30-tp2-nosp.training.sequence_parallel: an MoE model" in str(problem)
    assert "needs sequence parallelism in training, which is stated false" in str(problem)


def _gen():
    return docs_script("gen_switches")


def test_the_switch_page_counts_what_the_workload_refuses(tmp_path):
    """docs/gen_switches.py counts a flip refused where it makes the stack refuse the case: sequence parallelism off
    under an MoE model at tp 2, and overlap_tp_comm true without sequence parallelism (`Training` refuses both)."""
    gen = _gen()
    path = tmp_path / "c.yaml"
    path.write_text(CASE.replace("sequence_parallel: false", "sequence_parallel: true"), encoding="utf-8")
    (case,) = read_case_file(path).cases
    assert gen.refusals(case) == set()
    assert any("MoE model" in m for m in gen.refusals(gen._flipped(case, "sequence_parallel", False)))
    dense = case.model_copy(update={"model": case.model.model_copy(update={"moe": None}),
                                    "training": case.training.model_copy(update={"ep": 1})})
    off = gen._flipped(dense, "sequence_parallel", False)
    assert gen.refusals(off) == set()  # a dense model runs tp 2 without it
    assert any("overlap_tp_comm true needs sequence parallelism" in m
               for m in gen.refusals(gen._flipped(off, "overlap_tp_comm", True)))


def test_the_stack_range_leaves_out_the_profiles_that_refuse_the_layout(cli, tmp_path):
    """megatron-lm-2021 runs no sequence parallelism (its profile), so it cannot train this MoE layout at tp 2: the
    stack range of a workload that states no stack is over the other profiles, and says which it left out."""
    r = run(cli, tmp_path, layout=", tp: 2")
    assert r.code == 0, r.err
    (note,) = [n for n in json.loads(r.out)["notes"] if n.startswith("stack not stated")]
    assert "(megatron-lm-2021)" not in note
    assert "(megatron-lm-2021 left out: an MoE model at tp 2 needs sequence parallelism" in note
