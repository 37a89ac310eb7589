"""Serving: the concurrency scenario, fixed per-kernel costs, quantised weights, MoE with EP and attention DP, and
validation-case files read case by case (one refused case does not hide the others)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archgen.perf.hw import kernels as K
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve.inference import ServeJob, estimate_inference, weights_per_gpu
from archgen.perf.serve.pass_costs import kernels_per_pass
from archgen.perf.serve.scheduler import estimate_serving
from archgen.scoring.cases import read_case_file
from archgen.scoring.scores import score_case_file
from tests.conftest import run_cli

MODERN = Path(__file__).resolve().parent.parent / "data" / "validation-modern.yaml"
LLAMA70 = Arch(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256, gated=True, rope=True, qk_norm=False)
#: Qwen3-235B-A22B's shape (94 layers, 128 experts, top-8, expert FFN 1536), as NVIDIA's perf overview serves it.
QWEN3_235B = Arch(layers=94, hidden=4096, heads=64, kv_heads=4, head_dim=128, ffn=12288, vocab=151936, gated=True,
                  experts=128, top_k=8, expert_ffn=1536, rope=True, qk_norm=True)

CASE = """\
- id: {id}
  source: test
  status: confirmed
  system: {{accelerator: h100-sxm5-80gb, count: 2, scale_up: {{domain: 8, bandwidth: "450 GB/s"}}}}
  model: {{layers: 80, hidden: 8192, heads: 64, kv_heads: 8, ffn: 28672, vocab: 128256, gated_ffn: true}}
  inference: {{precision: fp8, tp: 2, batch: {batch}, input_len: 5000, output_len: 500, scenario: concurrency}}
  measured: [{{metric: ttft, value: 400, unit: ms}}, {{metric: tpot, value: 18, unit: ms}}]
"""


def _file(tmp_path, *cases: tuple[str, str]) -> Path:
    p = tmp_path / "cases.yaml"
    p.write_text("schema: archgen-validation/1\ncases:\n" + "".join(CASE.format(id=i, batch=b) for i, b in cases),
                 encoding="utf-8")
    return p


def test_one_refused_case_leaves_the_others_scored(tmp_path, monkeypatch):
    """A case with `batch: 0` is a located error for that case; the good one is still scored; exit code 1."""
    monkeypatch.chdir(tmp_path)
    _file(tmp_path, ("bad", "0"), ("good", "1"))
    text = run_cli("estimate", "--cases", "cases.yaml")
    assert text.code == 1
    assert "good" in text.out and "ttft" in text.out and "1 case(s) refused:" in text.out
    assert ("cases.yaml:8:45: error: cases.0.inference.batch: expected a whole number of sequences above 0, or "
            "'max', got 0") in text.out
    got = json.loads(run_cli("estimate", "--cases", "cases.yaml", "--format", "json").out)
    assert got[0] == {"id": "bad", "refused": True, "problems": [
        {"file": "cases.yaml", "line": 8, "column": 45,
         "message": "cases.0.inference.batch: expected a whole number of sequences above 0, or 'max', got 0"}]}
    assert [(g["id"], g["metric"]) for g in got[1:]] == [("good", "ttft"), ("good", "tpot")]
    assert all(isinstance(g["error"], float) for g in got[1:])


def test_concurrency_needs_the_requests_in_flight(tmp_path):
    (refused,) = read_case_file(_file(tmp_path, ("c", "max"))).refused
    assert str(refused.problems[0]).replace(str(tmp_path) + "/", "") == (
        "cases.yaml:8:45: error: cases.0.inference.batch: the concurrency scenario needs batch: the requests kept in flight "
        "per replica, e.g. 'batch: 1' (as many as fit is the offline scenario)")


def test_the_modern_file_is_read_whole():
    """Every case of validation-modern.yaml is scored, its serving cases among them: none is refused now that the
    126-layer Llama 3.1 405B case runs with the embedding and loss as pipeline slots."""
    scores = score_case_file(MODERN)
    serving = {r.id for r in scores.results if r.metric in ("ttft", "tpot") or r.id.startswith(("trtllm", "nim"))}
    assert serving == {"nim18-llama33-70b-2xh100-fp8-5000-500-c1", "trtllm-h100-llama31-8b-fp8-tp1-20000-2000",
                       "trtllm-b200-llama33-70b-fp4-tp1-20000-2000"}
    assert scores.refused == []
    assert len({r.id for r in scores.results}) == 13


def test_serving_cases_within_25_percent():
    """NIM at concurrency 1 (TTFT, TPOT, tokens/s) and TensorRT-LLM offline on H100 FP8 (the file's sources)."""
    errors = {(r.id, r.metric): r.error for r in score_case_file(MODERN).results
              if r.id.startswith(("nim18", "trtllm-h100"))}
    assert len(errors) == 4 and all(abs(e) <= 0.25 for e in errors.values()), errors


def test_nvfp4_case_brackets_the_unstated_kv_precision(tmp_path):
    """TensorRT-LLM's NVFP4 row does not state its KV-cache precision: with the default (FP8 under FP4) the model is
    over, within 25 % since NVFP4 decode GEMMs stream at B200's measured rate (the catalog's gemm_stream.fp4; +42.5 %
    before); with a BF16 KV cache it is under. The measurement lies between (docs/perf-model.md)."""
    text = MODERN.read_text(encoding="utf-8")
    errors = {}
    for kv in ("", "kv_precision: bf16, "):
        p = tmp_path / "m.yaml"
        p.write_text(text.replace("precision: fp4, tp: 1", f"precision: fp4, {kv}tp: 1"), encoding="utf-8")
        (r,) = [r for r in score_case_file(p).results if r.id.startswith("trtllm-b200")]
        errors[kv or "fp8"] = r.error
    assert 0 < errors["fp8"] <= 0.25 and errors["kv_precision: bf16, "] < 0, errors


@pytest.fixture(scope="module")
def h100x2(accelerators):
    from archgen.units import Q_
    return hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_up_bandwidth=Q_(450, "GB/s"))


def test_concurrency_reports_as_a_serving_benchmark(h100x2):
    """genai-perf's definitions, over the simulated requests: request latency = TTFT + (out - 1) · TPOT per request,
    so tokens/s = N · out / mean latency (Little's law); at N = 1 TTFT is one prefill on an idle replica (the
    offline TTFT) and TPOT one decode step at the mean context (the offline TPOT at batch 1)."""
    off = estimate_inference(h100x2, ServeJob(LLAMA70, 5000, 500, "fp8"), 2, 1)
    for n in (1, 4, 16):
        e, run = estimate_serving(h100x2, ServeJob(LLAMA70, 5000, 500, "fp8", scenario="concurrency"), 2, n)
        latency = float(e.ttft) + 499 * float(e.tpot)
        assert float(e.tokens_per_second_replica) == pytest.approx(n * 500 / latency, rel=1e-9)
        assert run is not None and run.requests == 3 * n
        if n == 1:
            assert float(e.ttft) == pytest.approx(float(off.ttft), rel=1e-9)
            assert float(e.tpot) == pytest.approx(float(off.tpot), rel=1e-9)
        else:  # the others' decodes ride in its prompt's iteration, its decodes carry their prompts' chunks
            assert float(e.ttft) > float(off.ttft) and float(e.tpot) > float(off.tpot)


def test_fixed_cost_per_kernel(h100x2, monkeypatch):
    """Llama 3.3 70B at tp 2: 80 layers x (5 attention + 4 FFN kernels + 2 all-reduces) + 4 per pass = 884
    kernels at 1.3 us each (Hazy Research's H100 measurement with CUDA graphs), on every decode step. In FP8 the
    down projection's input cast adds one per layer (the all-reduce fusion quantises the norms' outputs): 964."""
    assert float(kernels_per_pass(LLAMA70, 2)) == 884 and float(kernels_per_pass(LLAMA70, 1)) == 724
    assert float(kernels_per_pass(LLAMA70, 2, dtype="fp8")) == 884 + 80
    job = ServeJob(LLAMA70, 5000, 500, "fp8")
    with_cost = estimate_inference(h100x2, job, 2, 8)
    monkeypatch.setattr(K, "KERNEL_OVERHEAD", 0.0)
    without = estimate_inference(h100x2, job, 2, 8)
    assert float(with_cost.decode_step - without.decode_step) == pytest.approx(964 * 1.3e-6, rel=1e-9)


def test_quantised_weights_keep_embeddings_in_bf16():
    """NVFP4: 0.5 B per weight plus one FP8 scale per 16 (0.0625 B); the embedding and output layer in BF16."""
    embed = 2 * 128256 * 8192
    assert weights_per_gpu(LLAMA70, "fp4", 1) == pytest.approx((LLAMA70.params() - embed) * 0.5625 + embed * 2)
    assert weights_per_gpu(LLAMA70, "fp8", 2) == pytest.approx(((LLAMA70.params() - embed) * 1 + embed * 2) / 2)


def test_attention_dp_holds_the_whole_attention_and_a_share_of_the_requests(accelerators):
    """With attention DP each of the 8 ranks keeps the non-expert weights whole and the KV cache (all heads) of its
    own 1/8 of the sequences; the experts stay split 8 ways. The replica holds 8x the sequences one rank holds."""
    h200 = hardware_for(accelerators["h200-sxm-141gb"], scale_up_size=8)
    a = QWEN3_235B
    experts = a.moe_layers * a.experts * a.expert_params
    rest = a.params() - experts - 2 * a.vocab * a.hidden
    embed = 2 * a.vocab * a.hidden * 2
    dp = ServeJob(a, 1000, 1000, "fp8", ep=8, attention_dp=True)
    tp = ServeJob(a, 1000, 1000, "fp8", ep=8)
    e_dp, e_tp = estimate_inference(h200, dp, 8), estimate_inference(h200, tp, 8)
    assert float(e_dp.weights_per_gpu) == pytest.approx(experts / 8 + rest + embed)
    assert float(e_tp.weights_per_gpu) == pytest.approx((experts + rest + embed) / 8)
    kv_full = 2 * 94 * 4 * 128 * 1.0 * 2000  # all 4 KV heads, FP8, input + output
    # 90 % of what the profiling peak leaves (kvpeak37; a ServeJob's defaults are TensorRT-LLM's, its rule too since
    # kvtidy38): the weights, the CUDA context, the TP group's NCCL communicator and the pass's largest tensor, the
    # routed experts' up/gate output of the replica's 8 x 8,192 tokens x top_k 8 x 2 x 1,536 over 8 ranks, in BF16
    peak = 0.4e9 + 0.688e9 + 8192 * a.top_k * 2 * a.expert_ffn * 2
    usable = 0.9 * (h200.hbm_capacity - float(e_dp.weights_per_gpu) - peak)
    assert float(e_dp.max_batch) == 8 * (usable // kv_full)
    assert float(e_dp.memory_per_gpu) == pytest.approx(float(e_dp.weights_per_gpu) + float(e_dp.batch) / 8 * kv_full)


@pytest.mark.parametrize(("model", "ep", "tp", "message"), [
    ("moe", 3, 8, "cases.0.inference.ep: ep (3) must divide tp (8): the replica's tp ranks hold the experts, ep ways by "
                  "expert"),
    ("dense", 2, 2, "c.inference.ep: ep (2) needs a mixture-of-experts model; this one is dense"),
    ("moe", 16, 16, "c.inference.ep: ep (16) does not divide the 8 experts: each rank holds (experts + "
                    "redundant_experts) / ep whole slots; state redundant_experts so that they divide (EPLB's extra "
                    "copies, e.g. 8 or 24 at ep 16), or an ep that divides them, such as 8 (with a tp it divides)"),
])
def test_expert_parallel_layouts_that_cannot_run(tmp_path, model, ep, tp, message):
    moe = ", moe: {experts: 8, top_k: 2, expert_ffn: 14336}" if model == "moe" else ""
    p = tmp_path / "cases.yaml"
    p.write_text(f"""\
schema: archgen-validation/1
cases:
- id: c
  source: test
  status: confirmed
  system: {{accelerator: h100-sxm5-80gb, count: 16, scale_up: {{domain: 16, bandwidth: "450 GB/s"}}}}
  model: {{layers: 4, hidden: 4096, heads: 32, kv_heads: 8, ffn: 14336, vocab: 32000{moe}}}
  inference: {{precision: fp8, tp: {tp}, ep: {ep}, batch: 4, input_len: 100, output_len: 100}}
  measured: [{{metric: tokens_per_second, value: 1, unit: 1/s}}]
""", encoding="utf-8")
    (refused,) = score_case_file(p).refused
    assert str(refused.problems[0]).split("error: ", 1)[1] == message


def test_attention_dp_on_a_dense_model_is_refused_at_its_field(tmp_path):
    """Attention DP keeps a MoE model's experts split; on a dense model it would be plain DP labelled tp 8."""
    p = tmp_path / "cases.yaml"
    p.write_text("""\
schema: archgen-validation/1
cases:
- id: c
  source: test
  status: confirmed
  system: {accelerator: h100-sxm5-80gb, count: 8, scale_up: {domain: 8, bandwidth: "450 GB/s"}}
  model: {layers: 4, hidden: 4096, heads: 32, kv_heads: 8, ffn: 14336, vocab: 32000}
  inference: {precision: fp8, tp: 8, attention_dp: true, batch: 4, input_len: 100, output_len: 100}
  measured: [{metric: tokens_per_second, value: 1, unit: 1/s}]
""", encoding="utf-8")
    (refused,) = score_case_file(p).refused
    (problem,) = refused.problems
    assert str(problem).split("error: ", 1)[1] == (
        "c.inference.attention_dp: attention_dp needs a mixture-of-experts model (its experts stay split over the "
        "replica); this one is dense: run replicas of tp 1 for plain data parallelism")
    assert ":8:52: error" in str(problem)  # at the attention_dp key itself


def test_an_arrival_rate_needs_the_server_scenario(tmp_path):
    """Poisson arrivals are the server scenario's load; under a closed loop or offline the rate would go unread."""
    p = _file(tmp_path, ("c", "4"))
    p.write_text(p.read_text(encoding="utf-8").replace("scenario: concurrency", "scenario: concurrency, arrival_rate: "
                                                        "10 1/s"), encoding="utf-8")
    (refused,) = read_case_file(p).refused
    assert str(refused.problems[0]).split("error: ", 1)[1] == (
        "cases.0.inference.arrival_rate: arrival_rate applies to the server scenario (Poisson arrivals); this job's "
        "scenario is 'concurrency'")


UNDER_LOAD = Path(__file__).resolve().parent / "data" / "serving-under-load.yaml"


def test_an_open_loop_is_measured_in_its_steady_state(accelerators):
    """MLPerf Inference v4.1, Server, 8 x H100 as four TP2 replicas, Llama 2 70B in FP8 at loadgen's 75.10
    scheduled queries/s, 18.8 per replica; the log shows the replicas keeping up (74.42 completed per second; the
    file's source). The first 400 arrivals span 21 s, about three of the run's request latencies: a run of them
    alone ends while the requests in flight still ramp up from an empty replica, and counts the drain after the last
    arrival as the replica falling behind ('outrun'). Extended to `OPEN_SPANS` latencies and measured between the
    first and the last, the same replica keeps up, at the offered rate within 7 % (6.2 % under it since the K loop's
    fixed cost per tile on Hopper, `kernels.k_loop_efficiency`, slowed its decode step; the scored row, measured
    5.4 % under the offered rate, is -5.4 %)."""
    from archgen.perf.serve.scheduler import OPEN_REQUESTS, OPEN_SPANS, simulate
    from archgen.scoring.cases import case_hardware, read_cases

    case = read_cases(UNDER_LOAD)[0][0]
    inf = case.inference
    assert inf is not None and inf.arrival_rate is not None and case.model is not None
    hw = case_hardware(case, accelerators)
    job = ServeJob(Arch.from_model(case.model), inf.input_len, inf.output_len, inf.precision, scenario="server")
    cap = min(int(inf.batch), int(float(estimate_inference(hw, job, inf.tp, None).max_batch)))
    rate = inf.arrival_rate.m_as("1/s") / inf.replicas
    short = simulate(hw, job, inf.tp, max_batch=cap, arrival_rate=rate, requests=OPEN_REQUESTS)
    assert not short.stable and any("outrun" in n for n in short.notes)
    run = simulate(hw, job, inf.tp, max_batch=cap, arrival_rate=rate)
    assert run.stable and not any("outrun" in n or "ramp-up" in n for n in run.notes)
    latency = run.ttft.mean + (inf.output_len - 1) * run.tpot.mean
    assert run.requests >= 0.7 * OPEN_SPANS * latency * rate  # all but the first and the last latency's arrivals
    assert run.tokens_per_second == pytest.approx(rate * inf.output_len, rel=0.07)


def test_mlperf_server_and_offline_rows_are_scored():
    """The file's MLPerf v4.1 Llama 2 70B rows. NVIDIA, TensorRT-LLM on 8 x H100 (TP2 x 4) and 8 x H200 (TP1 x 8),
    FP8: Server tokens/s within 10 % (a replica that keeps up serves what arrives, its arrival rate x output_len); Server TTFT and TPOT 40-90 %
    low: the model's replica is about 15 % faster at a batch of ~850 than the logs show (the Offline rows of the
    same systems, +15 % and +13 %; +18 % and +16 % before the FFN activation's bytes were charged, issue 20), and an
    open loop close to its capacity turns that into far fewer requests in
    flight (about 150 against the 845 that Little's law gives on the H100 log: 75.10/s over 4 replicas x 44.95 s
    mean latency), so a far shorter step (docs/perf-model.md). AMD, vLLM on 8 x MI300X (TP1 x 8, FP8 weights and
    KV cache): Server tokens/s within 10 %, TTFT within 30 % once its harness batcher is stated (groups of ~22 queries
    reach a replica every ~2.4 s: the wait for the group and its prefill; -91.5 % without it), TPOT 65-97 % low,
    and the Offline row still over by 40-55 %
    with the MI300X's FP8 GEMMs at AMD's measured Max-Achievable FLOPs (0.487 of peak, ROCm blog "Measuring
    Max-Achievable FLOPs - Part 2", Table 1; +78 % when they were assumed as efficient as BF16's): vLLM's v4.1 run
    reached about 27 % of FP8 peak. The Server rows' p50 and p99 (the logs' percentiles) err as their means do:
    NVIDIA's 39-78 % low (44-80 % before), AMD's TTFT 13-24 % low and TPOT 69-76 % low (69.8-76.2 % with its prompts run as vLLM
    0.x runs them without chunked prefill, `prefill: separate`). Bars set after the run, as a guard against
    drift."""
    errors = {(r.id.split("-")[3], r.id.split("-")[4], r.metric): r.error for r in score_case_file(UNDER_LOAD).results}
    assert len(errors) == 24
    for (scenario, system, metric), e in errors.items():
        amd = system == "8xmi300x"
        if metric == "tokens_per_second" and scenario == "server":
            # a replica that keeps up serves the arrival rate x output_len (flow conservation): the logs' tokens/s
            # lie within 10 % of their own offered rate (the H100 row 0.8 % under it)
            assert -0.10 <= e <= 0.10, (system, e)
        elif metric == "tokens_per_second":
            assert 0.40 <= e <= 0.55 if amd else 0.10 <= e <= 0.20, (system, e)
        elif amd and metric.startswith("ttft"):
            assert -0.30 <= e <= 0.0, (metric, e)
        else:
            low = -0.35  # H200's ttft_p50: -39.7 % (-44.9 % before issue 20's FFN bytes)
            assert (-0.97 <= e <= -0.65) if amd else (-0.90 <= e <= low), (system, metric, e)


def test_a_stated_power_other_than_the_catalog_tdp_is_refused():
    """NVIDIA's MLPerf v4.1 Llama 2 70B runs of the same 8 x H200 system at 1,000 W (H200-SXM-141GB-CTSx8_TRT) and
    at a 500 W limit (H200-SXM-141GBx8_TRT_MaxQ) measured Offline 34,864.2 and 25,262.1 tokens/s against 31,302.7
    at the part's 700 W (the file's sources): +11.4 % and -19.3 %. The model has no power-to-clock mechanism and
    would predict one figure for all three, so those rows are refused with a located reason; the 700 W rows state
    their power and are scored."""
    scores = score_case_file(UNDER_LOAD)
    refused = {r.id: str(r.problems[0]) for r in scores.refused}
    assert sorted(refused) == sorted(f"mlperf41-llama2-70b-{s}-8xh200-{p}-tp1-fp8"
                                     for s in ("server", "offline") for p in ("cts-1000w", "maxq-500w"))
    assert all("serving-under-load.yaml:" in why and "catalog TDP (700 W)" in why for why in refused.values())
    scored = {r.id for r in scores.results}
    assert {"mlperf41-llama2-70b-server-8xh200-tp1-fp8", "mlperf41-llama2-70b-offline-8xh200-tp1-fp8"} <= scored
