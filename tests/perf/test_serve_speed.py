"""The serving simulation's fast paths give the same floats as the obvious ones (issue 25: an estimate in a second).

`iteration.Pass` (the scheduler's `_Pass`) times iteration sizes a block at a time, where it timed every size up to max_num_tokens x ranks
(262,145 for DeepSeek-R1 at TP32 with attention DP) at once; the forward pass is elementwise in the token count, so
each size must read the same float either way.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import yaml

from archgen.errors import InternalError
from archgen.model.workload import Model
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve import inference as I
from archgen.perf.serve.pass_costs import fixed_per_pass
from archgen.perf.serve.scheduler import FEW_STEPS, _few_steps, _loop, _Pass, estimate_serving, simulate
from tests.conftest import SPECS

LLAMA70 = Arch(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256, gated=True, rope=True, qk_norm=False)


def _deepseek() -> Arch:
    doc = yaml.safe_load((SPECS / "catalog" / "models" / "deepseek-v3.yaml").read_text(encoding="utf-8"))
    return Arch.from_model(Model.model_validate(doc))


def _every_size(hw, job: I.ServeJob, tp: int, most: int) -> tuple[np.ndarray, np.ndarray]:
    """The pass and extra logits of every size 0..most, evaluated in one call each (the reference)."""
    n = np.arange(1, most + 1, dtype=float)
    fixed = float(fixed_per_pass(job.arch, float(tp), job.attention_dp, job.precision, job.ffn_activation))
    body = np.concatenate(([0.0], I._forward(hw, job, n, float(tp), context=1.0, batch=0.0, prefill=False,
                                             attention=False, sampled=np.ones_like(n)) + fixed))
    # each rank's own logits under attention DP, at least one (serve30)
    own = np.maximum(n / float(tp), 1.0) if job.attention_dp else n
    out = I.output_time(hw, job.arch, own, 1.0 if job.attention_dp else float(tp))
    return body, np.concatenate(([out[0]], out)) - out[0]


@pytest.mark.parametrize("case", ["deepseek-adp-gb200", "llama70-tp2-h100"])
def test_block_timing_equals_every_size_at_once(accelerators, case):
    """Every size's pass, and its extra logits, equal bit for bit (not approximately) the all-at-once arrays."""
    if case == "deepseek-adp-gb200":
        hw = hardware_for(accelerators["gb200"], scale_up_size=72)
        job = I.ServeJob(_deepseek(), 1024, 1024, "fp4", ep=32, attention_dp=True, scenario="concurrency",
                         kv_precision="fp8")
        tp, most = 32, 2 * _Pass.BLOCK + 999
    else:
        hw = hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8)
        job = I.ServeJob(LLAMA70, 2048, 128, "fp8", scenario="concurrency")
        tp, most = 2, 3 * _Pass.BLOCK + 17
    body, logits = _every_size(hw, job, tp, most)
    p = _Pass(hw, job, tp, most)
    got = np.array([p.rest(n, 1) for n in range(most + 1)])
    assert np.array_equal(got, body + logits[1])
    got = np.array([p.rest(5, s) for s in range(most + 1)])
    assert np.array_equal(got, body[5] + logits[np.maximum(np.arange(most + 1), 1)])


def test_admission_refuses_requests_out_of_order(accelerators):
    """Admission bisects the requests that have reached the replica, so it needs them in order; out of order is an
    internal error, not a silently different run."""
    hw = hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8)
    job = I.ServeJob(LLAMA70, 100, 10, "fp8", scenario="server")
    with pytest.raises(InternalError, match="in order"):
        _loop(_Pass(hw, job, 2), job, np.array([0.0, 2.0, 1.0]), 4, None, job.max_num_tokens)


def test_an_estimate_without_its_load_is_the_same_estimate(accelerators):
    """`load=False` (the sensitivities' and the tp search's calls, which read tokens/s) leaves the capacity run out
    and every other figure as it was; a closed loop holding as many as it admits is its own capacity run, load 1."""
    hw = hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8)
    job = I.ServeJob(LLAMA70, 1000, 50, "fp8", scenario="concurrency")
    est, run = estimate_serving(hw, job, 2, 40)
    quick, bare = estimate_serving(hw, job, 2, 40, load=False)
    assert run is not None and bare is not None
    assert quick == est and replace(bare, load=run.load, capacity=run.capacity) == run
    assert math.isnan(bare.load) and math.isnan(bare.capacity)
    kv = int(float(I.estimate_inference(hw, job, 2, None).max_batch))
    _, whole = estimate_serving(hw, job, 2, kv)
    assert whole is not None and whole.load == 1.0
    alone = simulate(hw, job, 2, max_batch=kv, concurrency=kv)
    assert whole.tokens_per_second / alone.tokens_per_second == 1.0


def test_numpy_sums_few_terms_in_order():
    """`scheduler._few_steps` adds a jump's steps in order where `_loop` summed them with numpy: the same float only
    while numpy's sum of up to `FEW_STEPS` terms adds them in order (numpy 2.4's pairwise sum does below 8)."""
    rng = np.random.default_rng(0)
    for m in range(1, FEW_STEPS + 1):
        for _ in range(2000):
            a = rng.random(m) * rng.choice([1e-4, 1.0, 1e3], m)
            total = 0.0
            for x in a.tolist():
                total += x
            assert total == float(a.sum())


def test_few_steps_are_the_vectorised_jump():
    """Steps, end and time spent of a short decode jump equal, bit for bit, what `_loop`'s arrays give, with and
    without an arrival cutting it; None when the jump runs past `FEW_STEPS`."""
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(3000):
        rest, unit, tot = rng.random() * 1e-2, rng.random() * 1e-9, float(rng.integers(1, 10**7))
        b, now, jump = int(rng.integers(1, 4096)), rng.random() * 100.0, int(rng.integers(1, 12))
        dts = rest + unit * (tot + b * np.arange(jump))
        ends = now + dts.cumsum()
        due = float(ends[int(rng.integers(0, jump))]) - rng.random() * float(dts[0]) if rng.random() < 0.7 \
            else np.inf
        want = jump if due == np.inf else min(jump, int(ends.searchsorted(due, side="left")) + 1)
        got = _few_steps(rest, unit, tot, b, now, jump, due)
        if want > FEW_STEPS:
            assert got is None
            continue
        assert got == (want, float(ends[want - 1]), float(dts[:want].sum()))
        checked += 1
    assert checked > 1000


@pytest.mark.parametrize("case", ["deepseek-adp-gb200", "llama70-tp2-h100"])
def test_prompt_table_equals_each_length_alone(accelerators, case):
    """`Pass.prompts` (every prompt length's attention core at once, what `_loop` reads) equals bit for bit each
    length's own `prompt`, MLA with attention DP and GQA under TP alike."""
    if case == "deepseek-adp-gb200":
        hw = hardware_for(accelerators["gb200"], scale_up_size=72)
        job = I.ServeJob(_deepseek(), 1500, 64, "fp4", ep=32, attention_dp=True, scenario="concurrency",
                         kv_precision="fp8")
        tp = 32
    else:
        hw = hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8)
        job = I.ServeJob(LLAMA70, 2048, 128, "fp8", scenario="concurrency")
        tp = 2
    table = _Pass(hw, job, tp).prompts()
    alone = _Pass(hw, job, tp)
    assert len(table) == job.input_len + 1
    assert all(table[n] == alone.prompt(n) for n in range(job.input_len + 1))


def test_uneven_passes_evaluated_by_block_equal_each_alone(accelerators):
    """`Pass.hybrid` (speedmodel34) evaluates the uneven busiest rank's passes (`rest_on`) of 256 decode counts beside
    the same prompt chunks in one `_forward` call: each equals, bit for bit, the pass evaluated alone, decode
    counts whose busiest rank is even take `rest`, and a block is evaluated once."""
    hw = hardware_for(accelerators["gb200"], scale_up_size=72)
    job = I.ServeJob(_deepseek(), 1024, 1024, "fp4", ep=32, attention_dp=True, scenario="concurrency",
                     kv_precision="fp8")
    tp = 32
    p = _Pass(hw, job, tp, 8192 * tp + 1)
    for decodes, chunked, largest in ((0, 1024, 1024), (37, 1024, 1024), (300, 2048, 1024), (900, 512, 512),
                                      (2000, 8000, 1024), (8191 * tp, 1, 1)):
        got = p.hybrid(decodes, chunked, largest, decodes + 1)
        tokens = decodes + chunked
        local = max(tokens / tp, decodes / tp + largest)
        if local * tp > tokens:
            alone = float(I._forward(hw, job, float(tokens), float(tp), context=1.0, batch=0.0, prefill=False,
                                     attention=False, local=local, sampled=1.0)) + p.fixed
            assert got == alone + p._extra_of(decodes + 1), (decodes, chunked)
        else:
            assert got == p.rest(tokens, decodes + 1), (decodes, chunked)
    evaluated = dict(p._uneven)
    assert len(evaluated) > 5 * 200  # whole blocks, not the six passes asked for
    for key, body in evaluated.items():
        if key[0] % 97 == 0:  # a sample of them, each alone
            assert body == float(I._forward(hw, job, float(key[0]), float(tp), context=1.0, batch=0.0,
                                            prefill=False, attention=False, local=key[1], sampled=1.0)) + p.fixed
    p.hybrid(38, 1024, 1024, 39)
    assert p._uneven == evaluated  # its block was evaluated with decodes 37's
