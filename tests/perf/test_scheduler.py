"""The serving scheduler (perf/serve/scheduler.py): chunked prefill within a token budget, admission by KV cache,
queueing, closed and open loops, and the published serving-under-load measurements it is scored on."""

from __future__ import annotations

import json
import math
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from archgen.model.inference import Inference
from archgen.perf.hw import kernels as K
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve.batcher import open_arrivals
from archgen.perf.serve.chunks import prompt_chunks as _prompts
from archgen.perf.serve.chunks import prompt_work
from archgen.perf.serve.inference import ServeJob, _forward, estimate_inference
from archgen.perf.serve.pass_costs import fixed_per_pass
from archgen.perf.serve.scheduler import MAX_NUM_TOKENS, _loop, _Pass, estimate_serving, simulate
from archgen.scoring.scores import score_case_file
from archgen.units import Q_
from tests.conftest import SPECS, run_cli

DATA = Path(__file__).resolve().parent / "data"
LLAMA70 = Arch(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256, gated=True, rope=True, qk_norm=False)


@pytest.fixture(scope="module")
def h100x2(accelerators):
    return hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_up_bandwidth=Q_(450, "GB/s"))


def test_token_budget_chunks_a_long_prompt(h100x2):
    """vLLM's and TensorRT-LLM's 8,192-token budget: a 20,000-token prompt on an idle replica takes three
    iterations, 8,192 + 8,192 + 3,616 tokens, each chunk attending to the prompt so far (A(s + c) - A(s) of a causal
    prompt); its first token comes at the end of the third."""
    assert MAX_NUM_TOKENS == 8192
    job = ServeJob(LLAMA70, 20000, 10, "fp8", scenario="concurrency")
    run = simulate(h100x2, job, 2, max_batch=4, concurrency=1)
    p = _Pass(h100x2, job, 2)
    want = sum(p.rest(c, 1 if o + c == 20000 else 0) + p.prompt(o + c) - p.prompt(o)
               for o, c in ((0, 8192), (8192, 8192), (16384, 3616)))
    assert run.ttft.mean == pytest.approx(want, rel=1e-12)
    # one unchunked pass over the prompt (the offline TTFT) does the same work with two fewer fixed costs
    whole = float(estimate_inference(h100x2, ServeJob(LLAMA70, 20000, 10, "fp8"), 2, 1).ttft)
    assert run.ttft.mean > whole


def test_a_stated_token_budget_is_honoured(h100x2):
    """A job's `max_num_tokens` (MLPerf v4.1's TensorRT-LLM engines: 4,096, configs/llama2-70b/__init__.py) is the
    iteration's budget, 4,096 + 4,096 + 4,096 + 4,096 + 3,616 tokens for a 20,000-token prompt, and the offline
    closed form's prefill chunk (a request's share of one 4,096-token pass)."""
    job = ServeJob(LLAMA70, 20000, 10, "fp8", scenario="concurrency", max_num_tokens=4096)
    run = simulate(h100x2, job, 2, max_batch=4, concurrency=1)
    p = _Pass(h100x2, job, 2)
    want = sum(p.rest(c, 1 if o + c == 20000 else 0) + p.prompt(o + c) - p.prompt(o)
               for o, c in ((0, 4096), (4096, 4096), (8192, 4096), (12288, 4096), (16384, 3616)))
    assert run.ttft.mean == pytest.approx(want, rel=1e-12)
    short = ServeJob(LLAMA70, 222, 290, "fp8")
    small = replace(short, max_num_tokens=4096)
    chunk = float(_forward(h100x2, small, 4096.0, 2.0, context=222.0, batch=4096 / 222, prefill=True)) \
        + float(fixed_per_pass(LLAMA70, 2.0, False, "fp8"))
    assert float(estimate_inference(h100x2, small, 2, 896).prefill_per_request) == pytest.approx(chunk * 222 / 4096)
    assert float(estimate_inference(h100x2, short, 2, 896).prefill_per_request) < chunk * 222 / 4096


def test_kv_cache_caps_admission_and_the_rest_queue(h100x2):
    """Concurrency above what the KV cache admits: at most `max_batch` run, the rest wait, and TTFT grows by the
    queue (NIM's Llama 3.3 70B on two H100: 0.8 s at concurrency 50, 8.0 s at 100, 34.8 s at 150)."""
    job = ServeJob(LLAMA70, 5000, 500, "fp8", scenario="concurrency")
    cap = int(float(estimate_inference(h100x2, job, 2, None).max_batch))
    below = simulate(h100x2, job, 2, max_batch=cap, concurrency=cap)
    above = simulate(h100x2, job, 2, max_batch=cap, concurrency=cap + 60)
    assert below.max_running == cap and above.max_running == cap
    assert above.ttft.mean > 10 * below.ttft.mean
    assert any("wait in the queue" in n for n in above.notes)


def test_open_loop_is_seeded_and_says_when_it_is_overrun(h100x2):
    """Poisson arrivals from a seeded generator: the same seed gives the same run. A light load's median TTFT is
    about one idle prefill; arrivals beyond the full replica's throughput make the queue grow for as long as the run
    lasts: the run says so, at that throughput, with no bound on TTFT."""
    job = ServeJob(LLAMA70, 2000, 200, "fp8", scenario="server")
    cap = int(float(estimate_inference(h100x2, job, 2, None).max_batch))
    a = simulate(h100x2, job, 2, max_batch=cap, arrival_rate=0.2, seed=7)
    b = simulate(h100x2, job, 2, max_batch=cap, arrival_rate=0.2, seed=7)
    assert a == b and a.stable
    idle = float(estimate_inference(h100x2, ServeJob(LLAMA70, 2000, 200, "fp8"), 2, 1).ttft)
    assert a.ttft.p50 == pytest.approx(idle, rel=0.1)
    full = simulate(h100x2, job, 2, max_batch=cap, concurrency=cap)
    over = simulate(h100x2, job, 2, max_batch=cap, arrival_rate=3.0 * full.tokens_per_second / 200)
    assert not over.stable and any(n.startswith("does not keep up") for n in over.notes)
    assert over.tokens_per_second == full.tokens_per_second and math.isinf(over.ttft.p99)  # unbounded: INVALID


def test_throughput_at_full_load_is_at_least_offline(h100x2):
    """The closed form the concurrency scenario used ran each prompt as its own unbatched pass, at 70-79 % of the
    offline rate where serving logs show 93-98 % (issue 20). With prompts chunked into the decode iterations, a
    closed loop at the KV cache's capacity reaches the offline closed form's rate or more: that form charges each
    prompt's chunks as passes of their own, beside the decode steps, so it is conservative where a prompt-heavy
    shape could share its weights' reads: Llama 3.3 70B on two H100, 1.000 at 128 + 2,048 tokens, 1.006 at 1,000 +
    1,000, 1.004 at 20,000 + 2,000, 1.014 at 5,000 + 500, 1.017 at 2,048 + 128 (docs/perf-model.md). Before serve37
    the closed loop's last round, run as the replica drains, was measured too, and the ratios read 1.00 to 1.18."""
    for inp, out in ((5000, 500), (1000, 1000), (2048, 128), (128, 2048), (20000, 2000)):
        off = estimate_inference(h100x2, ServeJob(LLAMA70, inp, out, "fp8"), 2, None)
        cap = int(float(off.max_batch))
        e, _ = estimate_serving(h100x2, ServeJob(LLAMA70, inp, out, "fp8", scenario="concurrency"), 2, cap)
        ratio = float(e.tokens_per_second_replica) / float(off.tokens_per_second_replica)
        assert 0.999 <= ratio <= 1.02, (inp, out, ratio)


def test_a_run_costs_about_as_much_as_a_few_estimates(h100x2):
    """Decode-only stretches are jumped in one vectorised step: a closed loop of 64 requests of 1,000 + 1,000
    tokens (384 requests, 384,000 tokens) takes a few hundred Python iterations, not a quarter of a million."""
    job = ServeJob(LLAMA70, 1000, 1000, "fp8", scenario="concurrency")
    t0 = time.process_time()  # CPU seconds (about 0.01 here): a loaded machine's waits are not the loop's
    run = simulate(h100x2, job, 2, max_batch=64, concurrency=64)
    assert time.process_time() - t0 < 1.0
    assert run.iterations >= 3 * 1000 and run.requests == 192


def test_nim_under_load_is_scored():
    """NIM 1.8.0's Llama 3.3 70B on two H100 (FP8, TP 2) at 5,000 + 500 tokens, concurrency 5 to 250, and at 500 +
    2,000 tokens, concurrency 1 and 5 (the file's source). The closed form was 34-99 % low on TTFT beyond concurrency
    1 (it had no queue). The simulation, within 41 % on every figure (bar set after the run, as a guard against
    drift; 35 % before the K loop's fixed cost per tile on Hopper, `kernels.k_loop_efficiency`, 37 % before the FFN
    activation's bytes were charged, issue 20): TTFT -25 % to +41 % (+41 %: five short prompts in lock-step, see the
    file; +36 % before), TPOT -5 % to -18 % (the decode step is short at concurrency 1 already), tokens/s +6 % to
    +22 %. The short prompt's TTFT at concurrency 1 is -7 %: no per-request host cost is modelled, and none is
    needed to come within it.

    kvrule37: under TensorRT-LLM's KV rule (0.9 of the memory the weights leave, where vLLM's took 0.9 of HBM less
    the weights) the replica holds 98 requests, not 90, so at concurrency 100 two queue where the run's 8.0 s TTFT
    says many more did: TTFT -76 % there (-26 % before), -19 % to -11 % above it. TensorRT-LLM takes its profiling
    pass's peak (activations of a max_num_tokens pass, NCCL's buffers, CUDA graphs) out before the fraction; the
    model does not (docs/perf-model.md, KV cache budget, per engine), so its cache is an upper bound and its TTFT at
    the cache's edge a lower one. TPOT above the cache's edge is now +7 % (-1 % before).

    kvpeak37: the model now takes that peak out too, at the low end of its range (perf/serve/profile_peak.py: the
    largest BF16 tensor of a max_num_tokens pass, 8,192 x 28,672 x 2 B of FFN gate+up output on a rank of TP 2, the
    CUDA context and one NCCL communicator; CUDA graphs still not): the replica holds 95, and TTFT at concurrency 100
    is -57 % (-76 % without the peak); 150-250 -16 % to -9 %, TPOT +4 %. The rest of the miss is what the low end
    and the unmodelled CUDA graphs leave in the cache."""
    errors = {(r.id, r.metric): r.error for r in score_case_file(DATA / "nim-llama33-70b-concurrency.yaml").results}
    assert len(errors) == 25
    edge = ("nim18-llama33-70b-2xh100-fp8-5000-500-c100", "ttft")
    assert all(abs(e) <= 0.41 for k, e in errors.items() if k != edge), errors
    assert -0.62 < errors[edge] < -0.41   # the queue of an upper-bound cache: predicted short (-0.571; -0.761 before kvpeak37)
    ttft = [e for (_, m), e in errors.items() if m == "ttft"]
    assert float(np.median(np.abs(ttft))) < 0.14   # 0.108 (0.136 before kvpeak37, 0.12 before kvrule37)
    assert -0.15 < errors[("nim18-llama33-70b-2xh100-fp8-500-2000-c1", "ttft")] < 0


def test_fixed_cost_is_paid_once_per_iteration(h100x2, monkeypatch):
    """An idle replica's decode step at concurrency 1 pays the fixed per-kernel cost once: 964 kernels at 1.3 us."""
    job = ServeJob(LLAMA70, 500, 50, "fp8", scenario="concurrency")
    with_cost = simulate(h100x2, job, 2, max_batch=8, concurrency=1)
    monkeypatch.setattr(K, "KERNEL_OVERHEAD", 0.0)
    without = simulate(h100x2, job, 2, max_batch=8, concurrency=1)
    assert with_cost.tpot.mean - without.tpot.mean == pytest.approx(964 * 1.3e-6, rel=1e-9)


def _two_requests(hw, prefill: str):
    """Request 0 arrives at an idle replica, request 1 during request 0's 11th decode step (1,000 + 50 tokens)."""
    job = ServeJob(LLAMA70, 1000, 50, "fp8", kv_reserve="mean", scenario="server", prefill=prefill)
    p = _Pass(hw, job, 2)
    whole = p.rest(1000, 1) + p.prompt(1000)  # a pass over one whole prompt, with its first token's logits
    steps = whole + np.cumsum([p.rest(1, 1) + p.dec_unit * (1001 + k) for k in range(49)])  # request 0 decoding
    arrivals = np.array([0.0, (steps[9] + steps[10]) / 2])
    return p, whole, steps, _loop(p, job, arrivals, 4, None, job.max_num_tokens)


def test_separate_prefill_stalls_the_decodes(h100x2):
    """vLLM 0.x without chunked prefill (`_schedule_default`: "Don't schedule decodes if prefills are scheduled"):
    request 1, arriving during request 0's 11th decode step, is prefilled in a pass of its own as that step ends,
    request 0 waiting, so its first token comes one whole-prompt pass later. Chunked (mixed) prefill runs it beside
    request 0's 12th decode in one pass: the prompt, one more token and request 0's attention over its 1,012 tokens. The
    stall costs request 0 more than the mixed pass does: a further decode pass to make up the token it did not take."""
    p, whole, steps, separate = _two_requests(h100x2, "separate")
    assert separate.first[0] == pytest.approx(whole, rel=1e-12)
    assert separate.first[1] == pytest.approx(steps[10] + whole, rel=1e-12)
    _, _, _, mixed = _two_requests(h100x2, "chunked")
    hybrid = p.rest(1001, 2) + p.dec_unit * 1012 + p.prompt(1000)
    assert mixed.first[1] == pytest.approx(steps[10] + hybrid, rel=1e-12)
    assert separate.finish[0] > mixed.finish[0]


def test_separate_prefill_takes_whole_prompts_within_the_budget():
    """Under `separate` as many whole prompts as the budget holds share the prompts' pass (vLLM's token budget,
    `max_num_batched_tokens`); `chunked` gives the decodes their tokens first and cuts the last prompt to fit."""
    assert _prompts([7, 8, 9], 0, 1000, 2500, 300, True) == [(7, 0, 1000), (8, 0, 1000)]
    assert _prompts([7, 8, 9], 400, 1000, 2500, 300, False) == [(7, 400, 600), (8, 0, 1000), (9, 0, 600)]


def test_prompt_work_is_the_sums_over_the_listed_chunks_to_the_bit():
    """`prompt_work` (what `_loop` runs) against the sums over `prompt_chunks`' list that it stands for: tokens,
    prompts finished, the attention seconds added in the same order (the same float, not only close) and the head
    prompt's offset after it, over budgets that end inside the head prompt, on a prompt's edge, inside a later one,
    or leave nothing after the decodes, with `separate` and chunked prefill."""
    def prompt(n):  # a causal prompt's attention core: quadratic, with roundings that depend on the order of adding
        return 0.0 if n <= 0 else 1e-7 * n * n / 3.0 + 0.1 / n
    cases = 0
    for inp in (1, 7, 100, 1000):
        for waiting in (1, 2, 5, 40):
            for head in sorted({0, 1, inp // 2, inp - 1} - {inp} if inp > 1 else {0}):
                for budget in (inp, 2 * inp + 3, 257, 8192):
                    for decodes in (0, 3, budget):
                        for separate in (False, True):
                            if separate and (head or budget < inp):
                                continue  # a separate prompt is never part done, and fits the budget (`_loop`)
                            chunks = _prompts(range(waiting), head, inp, budget, decodes, separate)
                            seconds = sum(prompt(o + c) - prompt(o) for _, o, c in chunks)
                            offset = head if not chunks else (0 if sum(chunks[-1][1:]) == inp else sum(chunks[-1][1:]))
                            want = (sum(c for _, _, c in chunks), sum(o + c == inp for _, o, c in chunks), seconds, offset)
                            got = prompt_work(prompt, waiting, head, inp, budget, decodes, separate)
                            assert got[:2] == want[:2] and got[3] == want[3], (inp, waiting, head, budget, decodes)
                            assert got[2].hex() == float(want[2]).hex(), (inp, waiting, head, budget, decodes)
                            cases += 1
    assert cases > 600


def test_separate_prefill_needs_prompts_within_the_budget():
    """vLLM refuses a prompt longer than `max_num_batched_tokens` without chunked prefill: the field is at fault."""
    with pytest.raises(ValidationError, match="prefill 'separate' runs each prompt whole"):
        Inference.model_validate({"input_len": 9000, "output_len": 10, "scenario": "server",
                                  "arrival_rate": "1 1/s", "prefill": "separate"})
    assert Inference.model_validate({"input_len": 222, "output_len": 10}).prefill == "chunked"


SERVED = """\
kind: Workload
id: l70-server
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 64
inference: {precision: fp8, tp: 8, input_len: 2048, output_len: 128, scenario: server, arrival_rate: 40 1/s}
"""


def test_an_open_loop_is_served_at_its_stated_rate(tmp_path):
    """A replica that keeps up finishes requests as fast as they arrive: tokens/s = arrival rate x output_len (flow
    conservation), here 40/s x 128 = 5,120 tokens/s over 8 replicas. newuser19's input: before, 4,564 tokens/s
    (-10.9 %), as the 400 seeded arrivals of the shortest run came at 0.887 of the stated rate; the run now holds it,
    and its own estimate of the rate served (a window of the run) is within 2 % of the flow."""
    (tmp_path / "w.yaml").write_text(SERVED, encoding="utf-8")
    got = run_cli("estimate", SPECS, tmp_path, "--workload", "l70-server", "--format", "json")
    assert got.code == 0, got.out
    tps = json.loads(got.out)["metrics"]["tokens_per_second"]["value"]
    assert tps == pytest.approx(40 * 128, rel=0.02)
    arrivals, _ = open_arrivals(5.0, 400, 0)
    assert 399 / arrivals[-1] == pytest.approx(5.0, rel=1e-12)
