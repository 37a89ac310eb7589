"""Sequences in flight are at most an iteration's token budget, `max_num_tokens`: each decode is one of its tokens.

TensorRT-LLM schedules the requests in generation first, each taking one token of the max_num_tokens budget
(NVIDIA/TensorRT-LLM docs/source/performance/tuning-max-batch-size-and-max-num-tokens.md at 16d2467ea8: "the two
previously scheduled requests have entered generation phase and only take up two tokens out of the max num token
budget of 12"). From newuser28's trial: Llama 3.1 8B FP8 at 128 + 128 tokens on one B200 ran 9,826 sequences per
decode step offline, what the KV cache holds, over the 8,192 tokens an iteration takes; `max_num_tokens: 2048`
left the batch (9,826) and TPOT (85.9 ms) as they were.
"""

from __future__ import annotations

import math

import pytest

from archgen.model.kv_memory import DEFAULT_FRACTION
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve.inference import ServeJob, _forward, estimate_inference
from archgen.perf.serve.pass_costs import fixed_per_pass
from archgen.pipeline import run
from tests.conftest import SPECS

SERVE = ("kind: Workload\nid: short\nname: short requests\nmodel: llama3-8b\ncluster: dgx-b200-superpod\n"
         "accelerators: 8\ninference: {{precision: fp8, tp: 1, input_len: 128, output_len: 128, "
         "max_batch_size: {most}{extra}}}\n")


def _estimate(spec_tree, extra: str = "", most: int = 16384):
    """The job with an engine `max_batch_size` of `most` (above the budget by default, so that the budget binds)."""
    root = spec_tree({"w.yaml": SERVE.format(extra=extra, most=most)})
    return run([root, SPECS / "clusters", SPECS / "racks"]).workloads["workload/short"]


def _kv_capacity() -> int:
    """The sequences the KV cache holds, from the model's shape (llama3-8b's config.json) and the B200's HBM.

    32 layers x 8 KV heads x 128 head dim x 2 (K and V) x 1 B (FP8) per token, 256 tokens a sequence; 90 % of the
    180 GiB HBM less the weights the estimate states.
    """
    kv_per_seq = 32 * 8 * 128 * 2 * 1 * (128 + 128)
    return math.floor((180 * 2**30 * DEFAULT_FRACTION - 9.081e9) / kv_per_seq)


def test_the_kv_cache_would_hold_more_than_the_budget():
    assert _kv_capacity() > 8192  # the premise: 9,826 (the weights rounded to 9.081 GB)


def test_offline_batch_is_capped_at_the_token_budget(spec_tree):
    result = _estimate(spec_tree)
    est = result.estimate
    assert est.metrics["concurrency"].m == 8192
    assert any("capped at 8,192, an iteration of 8,192 tokens decodes" in n for n in est.notes)


def test_a_smaller_budget_caps_the_batch_and_shortens_the_step(spec_tree):
    wide, narrow = _estimate(spec_tree).estimate, _estimate(spec_tree, ", max_num_tokens: 2048").estimate
    assert narrow.metrics["concurrency"].m == 2048
    assert narrow.metrics["tpot"] < wide.metrics["tpot"]


def test_a_stated_offline_batch_above_the_budget_is_refused(spec_tree):
    result = _estimate(spec_tree, ", batch: 9000")
    assert result.estimate is None
    assert "batch 9,000 is more sequences than an iteration of 8,192 tokens decodes" in result.error


def test_a_closed_loop_above_the_budget_queues(spec_tree):
    est = _estimate(spec_tree, ", scenario: concurrency, batch: 9000").estimate
    assert any("the replica admits 8192" in n for n in est.notes)


def test_the_default_max_batch_size_caps_the_batch_below_the_budget(spec_tree):
    """TensorRT-LLM's max_batch_size: "The default value is 2048" (the same tuning document): 2,048 sequences."""
    est = _estimate(spec_tree, most=2048).estimate
    assert est.metrics["concurrency"].m == 2048
    assert any("capped at 2,048, the engine's max_batch_size (2,048) runs at once" in n for n in est.notes)


def test_a_stated_offline_batch_above_max_batch_size_is_refused(spec_tree):
    result = _estimate(spec_tree, ", batch: 4096", most=2048)
    assert result.estimate is None
    assert "batch 4,096 is more sequences than the engine's max_batch_size (2,048) runs at once" in result.error


def test_an_offline_prompt_longer_than_the_budget_runs_whole_and_says_so(spec_tree, accelerators):
    """newuser28's finding 4: docs/perf-model.md said "chunks of 8,192" where the closed form runs a longer prompt as
    one pass. Context chunking is opt-in in TensorRT-LLM and without it max_num_tokens covers the longest prompt
    (`inference.WHOLE_PROMPTS`): 10,000 tokens take one pass of 10,000, and the estimate says so."""
    root = spec_tree({"w.yaml": SERVE.format(extra="", most=2048).replace("input_len: 128", "input_len: 10000")})
    est = run([root, SPECS / "clusters", SPECS / "racks"]).workloads["workload/short"].estimate
    assert any("input_len 10,000 is above max_num_tokens 8,192" in n for n in est.notes)
    hw = hardware_for(accelerators["b200-sxm-180gb"], scale_up_size=8)
    job = ServeJob(Arch(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256,
                        gated=True, rope=True, qk_norm=False), 10000, 128, "fp8")
    whole = _forward(hw, job, 10000.0, 1.0, context=10000.0, batch=1.0, prefill=True) \
        + fixed_per_pass(job.arch, 1.0, False, "fp8")
    assert float(estimate_inference(hw, job, 1, 4).prefill_per_request) == pytest.approx(float(whole), rel=1e-12)
