"""MLPerf Inference v5.1 Interactive rows: why the model's iteration is short at the logs' state, the Llama 3.1 8B on
B200's 1.57x above all (issue 20, interact41). A finding, not a fix: no mechanism is added (docs/perf-model.md,
Limitations, "The 8B Interactive step").

At the Interactive log's own state (Little's law: 310 requests in flight a GPU, 2,034 prompt tokens a step;
`test_mlperf_v5.STEP_RATIO`) the model's iteration is 14.91 ms against a measured TPOT of 23.39 ms, 8.5 ms short;
at the same engine's Server state 22.84 against 28.48 ms. Each candidate mechanism is sized there from the model's
own terms (`test_each_candidate_at_the_interactive_state`); none is near 8.5 ms. The two logs then show, without the
model, why no such term can close it (`test_the_two_logs_need_a_per_iteration_cost_the_log_excludes`). The other
engines' logs allow a per-iteration cost (`test_the_other_engines_fit_a_per_iteration_cost`), and the 405B rows'
ratios shrink once the model's own passes are averaged (`test_the_405b_step_averaged_over_its_passes`).

Sources: mlcommons/inference_results_v5.1 at 965182b0, closed/NVIDIA:
- results/B200-SXM-180GBx8_TRT/llama3.1-8b/{Interactive,Server}/performance/run_1/mlperf_log_detail.txt:
  result_completed_samples_per_sec 797.762 / 996.526, result_time_to_output_token_mean 23,388,168 / 28,482,625 ns,
  result_time_to_output_token_min 4,853,330 / 3,465,399 ns, result_first_token_max_latency_ns 683,185,831 /
  2,838,649,848. Every sample of this SUT holds 129 tokens (the cases' header: max_output_len 128, 128.99 tokens a
  sample), so a sample's TPOT is the mean of its 128 gaps (code/llmlib/cores/base.py `_poll_responses`:
  (final token's time - first token's) / (tokens - 1), the form loadgen reports).
- configs/B200-SXM-180GBx8/{Interactive,Server}/llama3_1-8b.py: one entry but server_target_qps (800, 1000); no
  speculative decoding anywhere in NVIDIA's harness (`git grep -i "eagle|speculative|draft"` over closed/NVIDIA/code
  and configs finds only retinanet's download script; trtllm_executor_core.py builds its ExecutorConfig with no
  decoding config), tensor_parallelism 1 (no all-reduce), and the executor core passes no
  extended_runtime_perf_knob_config (no CUDA graphs, so no padding: the cases' header).
- NVIDIA/TensorRT-LLM cpp/tensorrt_llm/executor/executorImpl.cpp (read at 036a60f7), `Executor::Impl::executionLoop`:
  while requests are active, every pass of the loop syncs the previous iteration (`forwardSync`), makes the
  responses, fetches new requests and launches the next (`forwardAsync`) with the active requests: the GPU is never
  left without an iteration while requests are in flight, and (the reading below assumes, as the model does) each
  active request takes one step an iteration.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from archgen.perf.hw import kernels as K
from archgen.perf.hw.launch import TENSORRT_LAUNCH
from archgen.perf.serve import inference as I
from archgen.perf.serve.attention_quant import attention_dtypes
from archgen.perf.serve.iteration import Pass
from archgen.perf.serve.pass_costs import kernels_per_pass
from archgen.perf.serve.scheduler import iteration_time
from archgen.scoring.cases import case_hardware, read_case_file
from tests.perf.test_mlperf_8b_state import _job

V5 = Path(__file__).resolve().parent / "data" / "mlperf-inference-v5.yaml"
INTERACTIVE, SERVER = "mlperf51-llama31-8b-interactive-8xb200-tp1-fp4", "mlperf51-llama31-8b-server-8xb200-tp1-fp4"
#: The 8B logs' detail figures (module docstring): least TPOT and latest first token (s).
LOGS = {"interactive": {"tpot_min": 0.004853330, "ttft_max": 0.683185831},
        "server": {"tpot_min": 0.003465399, "ttft_max": 2.838649848}}
GAPS = 128  # tokens after the first in every sample of this SUT


def per_iteration_cost(rate_low: float, tpot_low: float, rate_high: float, tpot_high: float) -> float:
    """The cost every iteration pays (s) that makes two runs of one engine at two rates agree, from the logs alone.

    The engine never idles while requests are in flight and each request takes one step an iteration (module
    docstring), so an iteration lasts one TPOT and a second holds 1 / TPOT iterations. If each iteration costs `F`
    and each request a work `w` the same at both rates (the same prompts and outputs), a second of each run is
    F / TPOT + rate x w = 1: two equations in `F` and `w`.
    """
    r = rate_high / rate_low
    return (r - 1.0) / (r / tpot_low - 1.0 / tpot_high)


@pytest.fixture(scope="module")
def cases_v5():
    return read_case_file(V5).cases


@pytest.fixture(scope="module")
def rows(cases_v5, accelerators):
    cases = {c.id: c for c in cases_v5}
    return {k: (cases[k], case_hardware(cases[k], accelerators), _job(cases[k])) for k in (INTERACTIVE, SERVER)}


def _measured(case) -> dict[str, float]:
    """The row's measured tokens/s (1/s) and mean TPOT (s)."""
    m = {x.metric: x.value for x in case.measured}
    return {"tokens_per_second": m["tokens_per_second"], "tpot": m["tpot"] / 1e3}


def _state(case):
    """(requests in flight, prompt tokens a step) per replica at the log's state (`test_mlperf_v5`'s reading)."""
    inf = case.inference
    m = {x.metric: x.value / 1e3 for x in case.measured if x.metric in ("ttft", "tpot")}
    rate = inf.arrival_rate.m_as("1/s") / inf.replicas
    return round(rate * (m["ttft"] + (inf.output_len - 1) * m["tpot"])), round(rate * inf.input_len * m["tpot"])


def test_each_candidate_at_the_interactive_state(rows):
    """Each candidate mechanism, sized at the Interactive state from the model's own terms, against the 8.5 ms gap.

    In the model: decode attention's KV read (310 sequences at the mean context 935.5, FP8) 2.79 ms, the prompts'
    causal attention 0.22 ms, the LM head over the 128,256-token vocabulary and sampling's read of the FP32 logits
    for the 312 sampled tokens 0.34 ms, the kernels' fixed costs 0.80 ms (388 kernels); the host's launches of those
    kernels without a graph, 1.94-7.76 ms at 5-20 us each (`launch.TENSORRT_LAUNCH`), a floor under the 14.9 ms GPU
    pass, not a term added to it. The GEMMs at M = 2,344 cost 3.49 us a token, 1.9 % above their 3.43 at the Server
    state's 3,628 (NVFP4 at that size is compute-bound: the small-M weight read does not bind). Not in the run at all:
    speculative decoding (none configured), the TP all-reduce (TP1), CUDA-graph padding (no graphs). None is a
    third of the gap; to close it alone the KV read would have to be 4.0x, the fixed costs 11.7x, the LM head and
    sampling 26x what the model charges."""
    case, hw, job = rows[INTERACTIVE]
    running, prompt = _state(case)
    assert (running, prompt) == (310, 2034)
    step = iteration_time(hw, job, 1, running, prompt)
    gap = _measured(case)["tpot"] - step
    assert step == pytest.approx(0.01491, abs=5e-5) and gap == pytest.approx(0.00848, abs=5e-5)
    p = Pass(hw, job, 1, running + prompt + 1)
    a = job.arch
    context = job.input_len + job.output_len / 2.0
    candidates = {"kv read": p.dec_unit * running * context,
                  "prompt attention": prompt / job.input_len * p.prompt(job.input_len),
                  "lm head and sampling": float(I.output_time(hw, a, running + prompt / job.input_len, 1.0)),
                  "fixed per pass": p.fixed}
    assert candidates == pytest.approx({"kv read": 2.795e-3, "prompt attention": 0.223e-3,
                                        "lm head and sampling": 0.338e-3, "fixed per pass": 0.796e-3}, abs=5e-6)
    assert all(v < gap / 3 for v in candidates.values())
    assert [round(gap / v + 1, 1) for k, v in candidates.items() if k != "prompt attention"] == [4.0, 26.0, 11.7]
    kernels = float(kernels_per_pass(a, 1.0, False, job.precision))
    assert all(kernels * t < step for t in TENSORRT_LAUNCH)  # the host launches stay under the GPU's pass
    per_token = [_gemms(hw, job, m) / m for m in (2344, 3628)]
    assert per_token == pytest.approx([3.490e-6, 3.426e-6], abs=5e-9)


def _gemms(hw, job, m: float) -> float:
    """The pass's block GEMMs (attention projections, up/gate and down) over `m` tokens, as `inference._forward`."""
    a = job.arch
    attention = sum(K.gemm_time(hw, d, m, n, k) for (_, n, k), d in
                    zip(a.attn_gemms(1), attention_dtypes(a, job.precision, job.quantised_attention), strict=True))
    ffn = K.gemm_time(hw, job.precision, m, (a.ffn_mats - 1) * a.ffn, a.hidden) \
        + K.gemm_time(hw, job.precision, m, a.hidden, a.ffn)
    return a.layers * (attention + ffn)


def test_the_two_logs_need_a_per_iteration_cost_the_log_excludes(rows):
    """The Interactive and Server logs of the one engine, read without the model (`per_iteration_cost`, on the rows'
    measured tokens/s and mean TPOT), need every iteration to cost 13.6 ms whatever each request's work: the Server
    run serves 1.249x the tokens in iterations 1.218x as long. But some sample of the Interactive run took 128 gaps
    of 4.85 ms on average (the Server run's least: 3.47 ms), each an iteration holding at least its own decode: no
    iteration costs more than that, or 10.2 ms even if that sample's first token reached loadgen as late as the
    run's latest first token (683 ms) and its last at once. So no cost the same per iteration and the same per
    request at both rates, in the model or not, fits the two runs: the lighter run spends 1.10x (the late-token
    bound), 1.19x (4.85 ms) to 1.25x (no cost an iteration) the Server run's time per request. Every candidate of
    `test_each_candidate_at_the_interactive_state` is one of those two kinds (per token or per iteration), so none
    closes the gap however large it is made; the model's iteration, built of those kinds, is 1.57x and 1.25x short at
    the two states (`test_mlperf_v5.STEP_RATIO`: 1.57 / 1.25 = 1.26, the ratio the logs need at no cost an iteration).

    What the reading leaves open: that an iteration lasts one TPOT (each active request steps every iteration) and
    that the GPU never idles (both from the executor's loop, module docstring); a cost that grows as the load falls;
    a GEMM whose time a token is not affine in the pass's tokens (tile and wave quantization: the pass's M varies
    step to step with its Poisson prompts, which averages it; no source sizes it for these kernels);
    or a cost paid only by iterations that hold a prompt, whatever their number (the drain's decode-only iterations
    do not pay it, so the least TPOT does not bound it; nearly every loaded iteration does, 2.3 and 3.6 prompts a step
    on average): it would have to be at least 13.6 - 4.85 = 8.8 ms an iteration, where the model's whole attention
    over the step's 2.3 prompts is 0.22 ms. No source read here says which."""
    lo, hi = (_measured(rows[k][0]) for k in (INTERACTIVE, SERVER))
    f = per_iteration_cost(lo["tokens_per_second"], lo["tpot"], hi["tokens_per_second"], hi["tpot"])
    assert f == pytest.approx(0.01361, abs=5e-5)
    bound = LOGS["interactive"]["tpot_min"]
    late = bound + LOGS["interactive"]["ttft_max"] / GAPS
    assert late == pytest.approx(0.01019, abs=5e-5)
    assert LOGS["server"]["tpot_min"] < bound < late < f

    def work_ratio(cost):  # time per token at the Interactive rate over the Server's, with `cost` an iteration
        return (1.0 - cost / lo["tpot"]) / lo["tokens_per_second"] / (
            (1.0 - cost / hi["tpot"]) / hi["tokens_per_second"])

    assert [round(work_ratio(c), 2) for c in (late, bound, 0.0)] == [1.10, 1.19, 1.25]
    assert work_ratio(f) == pytest.approx(1.0)


def test_the_other_engines_fit_a_per_iteration_cost(cases_v5, accelerators):
    """The same reading of the other engines' Server and Interactive logs: a cost an iteration of 16.4 ms (Llama 2
    70B, B200), 39.2 ms (405B, B200) and 21.1 ms (405B, GB200), against the model's iteration with one decode of
    14.0, 23.4 and 23.4 ms. There the reading does not contradict itself: the Interactive logs' least TPOT (17.2 ms
    on the 70B, 41.3 ms on B200's 405B; mlperf_log_detail.txt, result_time_to_output_token_min 17,226,214 and
    41,306,598 ns) is above it. Their outputs vary in length, so a sample's least TPOT may be one gap, and GB200's
    (51,968 ns, below any iteration) shows tokens reaching loadgen together: these two bounds do not hold as the 8B's
    late-token one does. Nor are the two entries one engine's, as the 8B's are: the 70B's Interactive entry runs
    max_num_tokens 768 and gpu_batch_size 768 and states no KV-cache precision (Server: 3,584, 2,048, FP8), the 405B's
    run max_num_tokens 1,536 / 2,048 (B200) and 1,024 / 2,048 with gpu_batch_size 2,048 / 256 (GB200). So for these
    rows a per-iteration cost is a live candidate, on B200's 405B 1.67x the model's (its TP4 all-reduces, 252 an
    iteration at 14.4 us each for 24 tokens, 3.6 ms, are one part of it), where the 8B's logs rule one out."""
    rows_ = {c.id: c for c in cases_v5}
    pairs = {"llama2-70b-{}-8xb200-tp1-fp4": (0.01639, 1.17), "llama31-405b-{}-8xb200-tp4-fp4": (0.03915, 1.67),
             "llama31-405b-{}-72xgb200-tp4-fp4": (0.02107, 0.90)}  # (cost, cost / the model's one-decode iteration)
    for name, (want, ratio) in pairs.items():
        lo, hi = (_measured(rows_["mlperf51-" + name.format(s)]) for s in ("interactive", "server"))
        f = per_iteration_cost(lo["tokens_per_second"], lo["tpot"], hi["tokens_per_second"], hi["tpot"])
        assert f == pytest.approx(want, abs=5e-5), name
        c = rows_["mlperf51-" + name.format("interactive")]
        one = iteration_time(case_hardware(c, accelerators), _job(c), c.inference.tp, 1, 0)
        assert f / one == pytest.approx(ratio, abs=0.01), name


def test_the_405b_step_averaged_over_its_passes(cases_v5, accelerators):
    """`test_mlperf_v5.STEP_RATIO` times one iteration at the log's mean state. A 405B prompt (9,429 tokens) spans
    several passes of the budget (max_num_tokens 1,536 on B200, 1,024 on GB200; FCFS chunking fills it while a
    prompt is left), so the model's own iterations there alternate full passes (the budget less the decodes, a
    fraction prompt / that of them) and decode-only ones; the pass time is convex in its tokens (the weight read
    floors the decode-only pass), so their mean is longer than the pass at the mean: 51.1 against 46.2 ms on B200
    (the measured TPOT over it 1.22, not 1.35), 64.4 against 61.4 ms on GB200 (1.03, not 1.08). The 8B's prompts fit
    one pass (871 tokens of a 12,000 budget) and its pass is linear there: averaged over a Poisson number of prompts
    a step (mean 2.34), it is the pass at the mean, 14.91 ms, to 0.01 %: the reading stands for it."""
    rows_ = {c.id: c for c in cases_v5}
    want = {"mlperf51-llama31-405b-interactive-8xb200-tp4-fp4": (0.0511, 0.0462, 1.22),
            "mlperf51-llama31-405b-interactive-72xgb200-tp4-fp4": (0.0644, 0.0614, 1.03)}
    for cid, (mean_of_passes, pass_at_mean, ratio) in want.items():
        c = rows_[cid]
        hw, job, tp = case_hardware(c, accelerators), _job(c), c.inference.tp
        running, prompt = _state(c)
        full = c.inference.max_num_tokens - running
        share = prompt / full
        mean = share * iteration_time(hw, job, tp, running, full) + (1 - share) * iteration_time(hw, job, tp, running, 0)
        assert (mean, iteration_time(hw, job, tp, running, prompt)) == pytest.approx(
            (mean_of_passes, pass_at_mean), abs=1e-4), cid
        assert _measured(c)["tpot"] / mean == pytest.approx(ratio, abs=0.01), cid
    c = rows_[INTERACTIVE]
    hw, job = case_hardware(c, accelerators), _job(c)
    running, prompt = _state(c)
    per_step = prompt / c.inference.input_len
    poisson = sum(math.exp(-per_step) * per_step ** k / math.factorial(k)
                  * iteration_time(hw, job, 1, running, c.inference.input_len * k) for k in range(20))
    assert poisson == pytest.approx(iteration_time(hw, job, 1, running, prompt), rel=1e-4)


@pytest.mark.xfail(strict=True, reason="interact41: the 8B Interactive log's step, 23.39 ms at 310 in flight a GPU, "
                   "is 1.57x the model's; the two 8B logs need a per-iteration cost (13.6 ms) their own least TPOT "
                   "excludes (docs/perf-model.md, Limitations, 'The 8B Interactive step')")
def test_the_8b_interactive_step(rows):
    """The model's iteration at the Interactive log's state within 10 % of its measured TPOT (fails: 1.57x short)."""
    case, hw, job = rows[INTERACTIVE]
    assert iteration_time(hw, job, 1, *_state(case)) == pytest.approx(_measured(case)["tpot"], rel=0.10)
