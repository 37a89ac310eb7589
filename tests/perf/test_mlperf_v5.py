"""MLPerf Inference v5.1 (tests/perf/data/mlperf-inference-v5.yaml): every row parses and predicts, the rows state
what the submissions ran, and the model's iteration at the state the Server logs show.

Sources (mlcommons/inference_results_v5.1 at 965182b0): NVIDIA's closed/NVIDIA/configs/<system>/<scenario>/*.py
(precision 'fp4', kv_cache_dtype 'fp8', batch_scheduler_policy 'max_util', gpu_batch_size, max_num_tokens) and
AMD's closed/AMD/code/llama2-70b-99/harness_llm (vLLM, fp8, kv_cache_dtype fp8, chunked prefill off). The logs'
figures are in each case's `source`. The bars below were set after the run, as a guard against drift.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from archgen.perf.hw.arch import Arch
from archgen.perf.serve.inference import ServeJob, estimate_inference
from archgen.perf.serve.scheduler import iteration_time, simulate
from archgen.scoring.cases import _model, case_hardware, read_case_file, serve_job
from archgen.scoring.scores import score_case_file

V5 = Path(__file__).resolve().parent / "data" / "mlperf-inference-v5.yaml"


@pytest.fixture(scope="module")
def cases():
    return {c.id: c for c in read_case_file(V5).cases}


@pytest.fixture(scope="module")
def errors():
    return {(r.id, r.metric): r.error for r in score_case_file(V5).results}


def _job(case) -> ServeJob:
    inf = case.inference
    return ServeJob(Arch.from_model(_model(case)), inf.input_len, inf.output_len, inf.precision, inf.kv_precision,
                    inf.kv_reserve, scenario=inf.scenario, max_num_tokens=inf.max_num_tokens, prefill=inf.prefill,
                    max_batch_size=serve_job(case).max_batch_size)


def test_every_row_parses_and_predicts(cases, errors):
    """Nineteen rows, none refused: seven Offline (one tokens/s each; B300's from v6.1), eight Server and four
    Interactive (loadgen's Server scenario under tighter limits: scored as Server rows; means and percentiles)."""
    cf = read_case_file(V5)
    assert cf.refused == [] and len(cases) == 19
    assert sum(c.inference.scenario == "offline" for c in cases.values()) == 7
    assert sum("-interactive-" in c.id and c.inference.scenario == "server" for c in cases.values()) == 4
    assert len(errors) == 7 + 12 * 7 and all(math.isfinite(e) for e in errors.values())


def test_rows_state_what_the_submissions_ran(cases):
    """NVIDIA: NVFP4 weights (Dell's H200: FP8), FP8 KV cache held as sequences grow (max_util), the configs'
    max_num_tokens. AMD: FP8
    weights and KV cache, prompts run whole (vLLM 0.x without chunked prefill). Every Server row states the log's
    scheduled rate. The v6.1 B300 row's harness YAML is not in the copy read: KV cache, reservation, batch and
    tokens per iteration are the model's defaults there. The B200 Llama 2 70B Interactive entry sets no
    trtllm_checkpoint_flags (its Server entry: kv_cache_dtype fp8): its KV cache's precision is not stated."""
    for c in cases.values():
        inf = c.inference
        if c.id.startswith("mlperf61-"):
            assert "kv_precision" not in inf.model_fields_set and inf.kv_reserve == "full" and inf.batch == "max"
            assert "max_num_tokens" not in inf.model_fields_set
        elif c.id == "mlperf51-llama2-70b-interactive-8xb200-tp1-fp4":
            assert inf.kv_precision is None and inf.kv_reserve == "mean" and inf.max_num_tokens == 768
        else:
            assert inf.kv_precision == "fp8" and inf.kv_reserve == "mean", c.id
        want = ("fp8", "separate") if "mi325x" in c.id else ("fp8" if "h200" in c.id else "fp4", "chunked")
        assert (inf.precision, inf.prefill) == want, c.id
        assert (inf.arrival_rate is not None) == (inf.scenario == "server"), c.id


def test_batch_max_only_where_the_harness_batch_exceeds_the_kv_cache(cases, accelerators):
    """The llama3.1-8b Offline (gpu_batch_size 6000), GB300 405B Offline (2048) and Dell H200 Offline (2048) rows state
    `batch: max`: the model's KV cache holds fewer at the mean context, and the Offline closed form would run the
    stated batch whole."""
    stated = {"mlperf51-llama31-8b-offline-8xb200-tp1-fp4": 6000,
              "mlperf51-llama31-405b-offline-72xgb300-tp2-fp4": 2048,
              "mlperf51-llama2-70b-offline-8xh200-dell-tp1-fp8": 2048}
    for cid, c in cases.items():
        inf = c.inference
        if cid.startswith("mlperf61-"):
            continue  # no stated batch to compare (test_rows_state_what_the_submissions_ran)
        held = float(estimate_inference(case_hardware(c, accelerators), _job(c), inf.tp, None).max_batch)
        if cid in stated:
            assert inf.batch == "max" and held < stated[cid], cid
        else:
            assert isinstance(inf.batch, int), cid
            if inf.scenario == "offline":
                assert inf.batch <= held, cid


def test_offline_and_server_throughput(errors):
    """Offline tokens/s: Llama 2 70B NVFP4 on B200 and GB200 4-5 % low (6-7 % before their NVFP4 points were
    re-derived over B300's own 14,000 TFLOP/s), on B300 (v6.1, the model's defaults for what
    is not stored) +1 %, FP8 on Dell's H200 -0.2 %; GB300's 405B +9 % (+7 % at the default KV fraction 0.9, before
    kvcfg38 stated its 0.95; +3 % before its NVFP4 fraction was taken over the B300's corrected 14,000 TFLOP/s), MI325X's vLLM run +19 %, Llama 3.1 8B +25 %
    with each dataset's output spread stated (outputcv, `output_len_cv`: the decode context weighted by length; at
    one length 3-5 % low, +5, +3, +3, +21, +25 %; before the FFN activation's bytes were charged, issue 20: within
    2 %, +12, +6, +13, +24, +35 %).
    Server tokens/s -7 % to +3 %: the replicas keep up with what arrives (-3 % to -14 %, the 405B ones 7-13 % short,
    while the seeded arrivals of a run came at 0.89 to 0.99 of the stated rate: batcher.py). Llama 2 70B on B200
    and GB200 read -7 % and -4 % (-39 % and -38 % when a rate above the offline closed form's capacity was
    simulated for 400 requests only, the drain counted: issue 20): their simulated replica, full, serves 48 and 49
    requests/s against the 45.5 that arrive, so it keeps up."""
    offline = {i: e for (i, m), e in errors.items() if "-offline-" in i}
    assert all(-0.06 <= offline[f"mlperf51-llama2-70b-offline-{s}-tp1-fp4"] <= -0.03 for s in ("8xb200", "4xgb200"))
    # +3 % since serve3 streams GB300's FP4 decode GEMMs at B200's measured 0.405 (its stated range [0.405, 0.85]);
    # +6.6 % since GB300's NVFP4 GEMM fraction is its die's over the B300's corrected 14,000 TFLOP/s (0.382, was 0.357)
    # +8.8 % since kvcfg38 stated its config's kvcache_free_gpu_mem_frac 0.95 (`batch: max`, 135 sequences, not 128)
    assert 0.07 <= offline["mlperf51-llama31-405b-offline-72xgb300-tp2-fp4"] <= 0.10
    assert 0.0 <= offline["mlperf61-llama2-70b-offline-8xb300-tp1-fp4"] <= 0.05
    # +2.5 % with the FFN activation in the GEMM epilogue, as Dell's config builds it (gemm_swiglu_plugin fp8;
    # -0.2 % with the default separate kernel, newuser45)
    assert 0.0 <= offline["mlperf51-llama2-70b-offline-8xh200-dell-tp1-fp8"] <= 0.04
    assert 0.17 <= offline["mlperf51-llama2-70b-offline-8xmi325x-vllm-tp1-fp8"] <= 0.25
    assert 0.20 <= offline["mlperf51-llama31-8b-offline-8xb200-tp1-fp4"] <= 0.30
    server = {i: e for (i, m), e in errors.items() if ("-server-" in i or "-interactive-" in i)
              and m == "tokens_per_second"}
    assert len(server) == 12 and all(-0.07 <= e <= 0.03 for e in server.values())


def test_a_rate_above_capacity_does_not_keep_up(cases, accelerators):
    """The B200 Server row at 1.2 times its logged rate: its replica, full (the closed loop at the KV capacity),
    serves fewer requests than arrive. The run says so with both rates, reports the full replica's tokens/s and TPOT,
    and an unbounded TTFT (MLPerf: INVALID), not the low tokens/s of a short run's ramp and drain."""
    c = cases["mlperf51-llama2-70b-server-8xb200-tp1-fp4"]
    inf, hw, job = c.inference, case_hardware(c, accelerators), _job(c)
    rate = 1.2 * inf.arrival_rate.m_as("1/s") / inf.replicas
    full = simulate(hw, job, inf.tp, max_batch=inf.batch, concurrency=inf.batch)
    run = simulate(hw, job, inf.tp, max_batch=inf.batch, arrival_rate=rate)
    assert full.tokens_per_second / job.output_len < rate
    assert not run.stable and run.tokens_per_second == full.tokens_per_second and run.tpot == full.tpot
    assert math.isinf(run.ttft.mean) and math.isinf(run.ttft.p99)
    assert any(n.startswith(f"does not keep up: arrivals {rate:.4g}/s per replica, capacity "
                            f"{full.tokens_per_second / job.output_len:.4g}/s") and "INVALID" in n for n in run.notes)
    # at the logged rate the same replica keeps up
    assert simulate(hw, job, inf.tp, max_batch=inf.batch, arrival_rate=rate / 1.2).stable


#: The measured TPOT over the model's iteration at the log's state, by row (docs/perf-model.md).
#: B200 and GB200 NVFP4 rows at 0.97 / 0.99 / 1.23 / 1.04 / 1.04 before their NVFP4 points were re-derived over B300's
#: own 14,000 TFLOP/s (0.476 / 0.446 -> 0.488 / 0.459).
STEP_RATIO = {"mlperf51-llama2-70b-server-8xb200-tp1-fp4": 0.99, "mlperf51-llama2-70b-server-4xgb200-tp1-fp4": 1.02,
              "mlperf51-llama31-8b-server-8xb200-tp1-fp4": 1.25, "mlperf51-llama31-405b-server-8xb200-tp4-fp4": 1.05,
              "mlperf51-llama31-405b-server-72xgb200-tp4-fp4": 1.05,
              "mlperf51-llama31-405b-server-72xgb300-tp2-fp4": 1.20,  # 1.15 at B300's former fp4 peak (15,000)
              "mlperf51-llama2-70b-server-8xmi325x-vllm-tp1-fp8": 1.15,
              "mlperf51-llama2-70b-server-8xh200-dell-tp1-fp8": 1.06,
              # the Interactive rows (interactive40): lighter states, where the model's step is much shorter
              "mlperf51-llama2-70b-interactive-8xb200-tp1-fp4": 1.32, "mlperf51-llama31-8b-interactive-8xb200-tp1-fp4": 1.57,
              "mlperf51-llama31-405b-interactive-8xb200-tp4-fp4": 1.35,
              "mlperf51-llama31-405b-interactive-72xgb200-tp4-fp4": 1.08}


def test_the_step_at_the_logs_state(cases, accelerators):
    """Requests in flight per replica by Little's law (rate x (TTFT + (out - 1) x TPOT)) and prompt tokens per step
    (rate x input x TPOT), from the log's scheduled rate and mean latencies: the model's iteration there is within 5 %
    of the measured TPOT on Llama 2 70B and the TP4 405B rows on Blackwell (B200 at 1,542 in flight per GPU; 1 %
    longer and 2 % shorter than measured on B200 and GB200 since their NVFP4 points were re-derived over B300's own
    14,000 TFLOP/s, 3 % and 1 % longer before that, 2-4 % shorter before the FFN activation's bytes were charged),
    6 % on Dell's H200, so their Server misses are the open loop's magnification near capacity; 20 % short on GB300
    (15 % while its NVFP4 GEMM fraction was taken over the B300's former 15,000 TFLOP/s peak, not the corrected
    14,000: the GB300 takes its die's fraction, 0.382, so its prefill runs 7 % faster) and 15 % on MI325X, 25 % on
    the 8B (23 % before the NVFP4 re-derivation; 18, 18 and 31 % before the FFN activation's bytes).
    At the Interactive logs' lighter states (interactive40: 24 to 310 in flight per replica) the model's iteration is
    32 % (Llama 2 70B, B200, KV cache scored in FP8: the config states none), 57 % (8B) and 35 % (405B, B200) short,
    8 % on GB200's 405B: at the same engine's Server state 1 %, 25 % and 5 %. What the real step holds at light load
    that the model's does not is not known (no source splits it); the Interactive misses are not only the open
    loop's magnification. interact41 (tests/perf/test_mlperf_interactive_step.py): on the 8B no cost per token or
    per iteration can hold it (the two logs need 13.6 ms an iteration, the Interactive log's least TPOT allows
    4.85 ms); the 405B ratios are 1.22 and 1.03 over the model's own passes averaged, not the pass at the mean."""
    for cid, want in STEP_RATIO.items():
        c = cases[cid]
        inf = c.inference
        m = {x.metric: x.value / 1e3 for x in c.measured if x.metric in ("ttft", "tpot")}
        rate = inf.arrival_rate.m_as("1/s") / inf.replicas
        running = rate * (m["ttft"] + (inf.output_len - 1) * m["tpot"])
        prompt = rate * inf.input_len * m["tpot"]
        step = iteration_time(case_hardware(c, accelerators), _job(c), inf.tp, round(running), round(prompt))
        assert m["tpot"] / step == pytest.approx(want, abs=0.01), cid
    b200 = cases["mlperf51-llama2-70b-server-8xb200-tp1-fp4"]
    rate = b200.inference.arrival_rate.m_as("1/s") / 8
    assert rate * (0.24590 + 273 * 0.12332) == pytest.approx(1542, abs=1)
