"""MLPerf Inference v4.1 Llama 2 70B (tests/perf/data/serving-under-load.yaml): what the submission states, and the
model's iteration at the state the logs show.

Sources (mlcommons/inference_results_v4.1 at a2f5d66d17e8): NVIDIA's code/llama2-70b/tensorrt/README.md quantises
with `--kv_cache_dtype fp8`; code/common/arguments.py sets `trtllm_batch_sched_policy` to "max_util" by default
(TensorRT-LLM's MAX_UTILIZATION: KV blocks allocated as sequences grow); generation_config.json sets
max_output_len 1024. The logs' figures are in each case's `source`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from pydantic import ValidationError

from archgen.model.inference import Inference
from archgen.perf.comm.collectives import collective_time, members_per_domain
from archgen.perf.hw import kernels as K
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve.batcher import hand_over, open_arrivals
from archgen.perf.serve.inference import ServeJob, estimate_inference
from archgen.perf.serve.scheduler import _Pass, estimate_serving, iteration_time, simulate
from archgen.scoring.cases import _model, case_hardware, predict, read_cases
from archgen.units import Q_

UNDER_LOAD = Path(__file__).resolve().parent / "data" / "serving-under-load.yaml"
#: The harness's max_output_len (code/llama2-70b/tensorrt/generation_config.json).
MAX_OUTPUT_LEN = 1024


@pytest.fixture(scope="module")
def cases():
    return {c.id: c for c in read_cases(UNDER_LOAD)[0]}


def _job(case, **changes) -> ServeJob:
    inf = case.inference
    fields = dict(input_len=inf.input_len, output_len=inf.output_len, precision=inf.precision,
                  kv_precision=inf.kv_precision, kv_reserve=inf.kv_reserve, scenario=inf.scenario)
    fields.update(changes)
    return ServeJob(Arch.from_model(_model(case)), **fields)


def _state(case) -> tuple[float, float]:
    """Requests in flight per replica (Little's law: rate x (TTFT + (out - 1) x TPOT)) and prompt tokens per step
    (rate x input x TPOT), from the log's scheduled rate and mean latencies."""
    inf = case.inference
    m = {x.metric: x.value / 1e3 for x in case.measured if x.metric in ("ttft", "tpot")}
    rate = inf.arrival_rate.m_as("1/s") / inf.replicas
    return rate * (m["ttft"] + (inf.output_len - 1) * m["tpot"]), rate * inf.input_len * m["tpot"]


def test_nvidia_rows_state_the_submissions_kv_cache_and_budget(cases):
    """FP8 KV cache (the README's quantize command) held as sequences grow (MAX_UTILIZATION), 4,096 tokens per
    iteration (the engines' max_num_tokens), on every NVIDIA row."""
    nvidia = [c for c in cases.values() if "mi300x" not in c.id]
    assert len(nvidia) == 8
    assert all(c.inference.kv_precision == "fp8" and c.inference.kv_reserve == "mean"
               and c.inference.max_num_tokens == 4096 for c in nvidia)


def test_the_requests_in_flight_need_kv_held_as_they_grow(cases, accelerators):
    """The H100 TP2 Server log has ~846 requests in flight per replica (75.10/s over four replicas x 45.0 s). The
    model's KV capacity under MAX_UTILIZATION (`mean`) admits them; reserving the harness's max_output_len for every
    request, as GUARANTEED_NO_EVICT would, admits about half (433 a replica). kvtidy38: the job took vLLM's KV rule
    beside TensorRT-LLM's other defaults (409, "fewer than half"); this harness runs TensorRT-LLM, whose rule it takes."""
    case = cases["mlperf41-llama2-70b-server-8xh100-tp2-fp8"]
    running, _ = _state(case)
    assert running == pytest.approx(846, abs=1)
    hw = case_hardware(case, accelerators)
    held = float(estimate_inference(hw, _job(case), 2).max_batch)
    reserved = float(estimate_inference(hw, _job(case, kv_reserve="full", output_len=MAX_OUTPUT_LEN), 2).max_batch)
    assert held >= running > 1.9 * reserved


def test_iteration_time_is_the_simulators_hybrid_iteration(cases, accelerators):
    """`iteration_time` is `simulate`'s iteration: the pass over decodes and prompts, their decode attention at the
    mean context and each whole prompt's causal attention."""
    case = cases["mlperf41-llama2-70b-server-8xh200-tp1-fp8"]
    hw = case_hardware(case, accelerators)
    job = _job(case)
    p = _Pass(hw, job, 1, 2000)
    want = p.rest(400 + 444, 402) + p.dec_unit * 400 * (222 + 291 / 2) + 2 * p.prompt(222)
    assert iteration_time(hw, job, 1, 400, 444) == pytest.approx(want, rel=1e-12)


def test_the_step_at_the_logs_state_is_fast_and_the_measured_one_falls_with_power(cases, accelerators):
    """At the state each Server log shows, the model's iteration is faster than the measured TPOT on every row. On
    NVIDIA's one H200 system at 500 W, 700 W and 1,000 W (same software, configs' power_limit and the 1,000 W CTS
    board) the measured step over the model's falls as power rises, 1.42 / 1.15 / 1.06 (1.46 / 1.18 / 1.09 before
    the FFN activation's bytes were charged, issue 20; 1.48 / 1.19 / 1.11 before the K loop's fixed cost per tile on
    Hopper and the measured HBM efficiency): the model has no
    power-to-clock mechanism, and that much of the gap goes with the power limit."""
    ratio = {}
    for cid, case in cases.items():
        if case.inference.scenario != "server":
            continue
        running, prompt = _state(case)
        hw = case_hardware(case, accelerators)
        step = iteration_time(hw, _job(case), case.inference.tp, round(running), round(prompt))
        tpot = next(x.value for x in case.measured if x.metric == "tpot") / 1e3
        ratio[cid] = tpot / step
    assert all(r > 1.0 for r in ratio.values()), ratio
    h200 = [ratio[f"mlperf41-llama2-70b-server-8xh200-{w}tp1-fp8"] for w in ("maxq-500w-", "", "cts-1000w-")]
    assert h200[0] > h200[1] > h200[2]
    assert h200 == pytest.approx([1.42, 1.15, 1.06], abs=0.01)


VIDUR = Path(__file__).resolve().parent / "data" / "vidur-h100-llama2-70b.yaml"


@pytest.fixture(scope="module")
def vidur():
    return yaml.safe_load(VIDUR.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def h100(accelerators):
    return hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_up_bandwidth=Q_(450, "GB/s"))


def _linear_ratio(hw, row, m) -> float:
    """Vidur's time of a layer's four linear GEMMs over the model's (each with its fixed fill and launch cost)."""
    tp, n = row["tp"], row["tokens"]
    q, kv, h, f = m["heads"] * m["head_dim"], m["kv_heads"] * m["head_dim"], m["hidden"], m["ffn"]
    shapes = {"qkv": ((q + 2 * kv) / tp, h), "out": (h, q / tp), "up_gate": (2 * f / tp, h), "down": (h, f / tp)}
    model = sum(float(K.gemm_time(hw, "fp16", n, nn, k)) + K.GEMM_FILL + K.KERNEL_OVERHEAD
                for nn, k in shapes.values())
    return sum(row[g] for g in shapes) * 1e-3 / model


def test_the_large_batch_gemms_are_as_measured(vidur, h100):
    """At the token counts of a large decode batch (768 to 4,096 tokens, TP1 and TP2), Llama 2 70B's four linear
    GEMMs measure 1.01x to 1.10x the model's time on an H100 (Vidur, FP16; 1.00x to 1.09x before the K loop's fixed
    cost per tile and the measured HBM efficiency): the GEMM term explains at most ~9 % of
    the MLPerf step's gap (the model's FP8 rate checks against DeepGEMM at M = 1,024 in the same way). At 256 and 512
    tokens they measure 0.82x to 0.90x: there the model is slow, outside this check."""
    big = [_linear_ratio(h100, r, vidur["model"]) for r in vidur["linear_rows"] if r["tokens"] >= 768]
    assert len(big) == 12
    assert 1.0 <= min(big) and max(big) <= 1.10, big


def test_a_two_gpu_all_reduce_measures_a_quarter_slower_than_the_model(vidur, h100):
    """NCCL all-reduce over two H100s of a DGX H100 at 16-64 MiB (Vidur) takes 1.22x to 1.29x the model's time:
    the TP2 all-reduces of the MLPerf H100 step (160 of 24 MB, 13.0 ms in the model) would take ~3 ms more. The
    model's NVLink efficiency (0.824) is measured on eight GPUs (the catalog's ASTRA-sim source)."""
    k = members_per_domain(h100, 2, 1)
    ratio = [r["ms"] * 1e-3 / float(collective_time(h100, "all_reduce", r["mib"] * 2**20, 2, k))
             for r in vidur["allreduce_2gpu_rows"] if r["mib"] >= 16]
    assert 1.2 <= min(ratio) and max(ratio) <= 1.3, ratio


def test_the_harness_batcher_groups_as_amds_loop_does():
    """sync_sut.py `batch_samples_loop` (size 3, timeout 0.3 s here): a full group leaves at once (0.2 s); one that is
    not full leaves at the first check 0.3 s after the previous group (0.5 s), or at the next query after a quiet
    spell (0.9 s, 2.0 s); groups go to the replicas in turn."""
    system = np.array([0.0, 0.1, 0.2, 0.35, 0.5, 0.9, 2.0])
    groups = hand_over(system, 3, 0.3)
    assert [round(t, 9) for t, _ in groups] == [0.2, 0.5, 0.9, 2.0]
    assert [g for _, g in groups] == [[0.0, 0.1, 0.2], [0.35, 0.5], [0.9], [2.0]]
    plain = open_arrivals(9.2, 50, 0)
    assert np.array_equal(plain[0], plain[1])  # no batcher: each query reaches its replica as it arrives
    arrivals, handed = open_arrivals(73.66 / 8, 500, 0, (96, 0.3), 8)
    assert np.all(handed >= arrivals)
    # at 73.66 queries/s about 22 gather in 0.3 s: the timeout binds, each group reaches one of 8 replicas every
    # ~2.4 s, and a query waits about half the timeout
    assert np.mean(handed - arrivals) == pytest.approx(0.15, abs=0.02)
    assert np.median(np.diff(np.unique(handed))) == pytest.approx(8 * 0.3, rel=0.05)


def test_amds_batcher_explains_its_server_ttft(cases, accelerators):
    """AMD's MLPerf v4.1 Server harness hands each replica ~22 queries at once every ~2.4 s (batcher: 96 or 0.3 s,
    test_VllmFp8_SyncServer_perf.sh --enable-batcher, mainVllmFp8_SyncServer.py defaults): their TTFT is the wait for
    the group plus the group's prefill. Stated in the case, the model's TTFT comes within 25 % of the measured
    1.006 s (without it, -91.5 %)."""
    case = cases["mlperf41-llama2-70b-server-8xmi300x-vllm-tp1-fp8"]
    assert case.inference.batcher is not None
    assert (case.inference.batcher.size, case.inference.batcher.timeout.m_as("s")) == (96, 0.3)
    ttft = predict(case, accelerators)["ttft"]
    assert ttft == pytest.approx(1.00633, rel=0.25)
    no_batcher = case.model_copy(update={"inference": case.inference.model_copy(update={"batcher": None})})
    assert predict(no_batcher, accelerators)["ttft"] < 0.2


def test_a_batcher_needs_arrivals():
    """A batcher groups arriving queries: without an arrival rate it is refused, naming the field."""
    with pytest.raises(ValidationError, match="a batcher groups arriving queries"):
        Inference.model_validate({"input_len": 222, "output_len": 290, "scenario": "offline",
                                  "batcher": {"size": 96, "timeout": "0.3 s"}})


# --- Serving under load at MLPerf's operating point (docs/perf-model.md, Limitations) ---------------------------

SCORED = {"8xh100-tp2-fp8": 2, "8xh200-tp1-fp8": 1, "8xmi300x-vllm-tp1-fp8": 1}


def _server_job(case, slower: float = 1.0) -> ServeJob:
    """The Server row's job as `predict` builds it; with `slower`, the batcher's timeout in time units `slower` times
    longer (the run with every iteration `slower` times longer, `_rescaled`)."""
    inf = case.inference
    batcher = None if inf.batcher is None else (inf.batcher.size, inf.batcher.timeout.m_as("s") / slower)
    return _job(case, max_num_tokens=inf.max_num_tokens, batcher=batcher)


def _rescaled(case, accelerators, slower: float):
    """The Server row's run with every iteration `slower` times longer: the same run as the arrival rate and the
    batcher's timeout scaled by `slower` and its latencies by 1 / `slower`. Returns (TTFT, TPOT) in seconds."""
    inf = case.inference
    hw = case_hardware(case, accelerators)
    job = _server_job(case, slower)
    cap = min(int(float(estimate_inference(hw, job, inf.tp, None).max_batch)), inf.batch)
    rate = inf.arrival_rate.m_as("1/s") / inf.replicas
    run = simulate(hw, job, inf.tp, max_batch=cap, arrival_rate=rate * slower, replicas=inf.replicas)
    assert run.stable
    return run.ttft.mean * slower, run.tpot.mean * slower


def _measured(case, metric: str) -> float:
    return next(x.value for x in case.measured if x.metric == metric)


def test_the_runtime_limits_bind_at_neither_state(cases, accelerators):
    """Neither the model's settled state nor the log's (Little's law) reaches the sequences the submissions allow
    (gpu_batch_size 1,024 / 896, vLLM max_num_seqs 1,024) or the tokens per iteration (4,096 on NVIDIA's engines,
    49,152 in AMD's Server harness): the scheduler's limits are not the TPOT gap."""
    for key, tp in SCORED.items():
        case = cases[f"mlperf41-llama2-70b-server-{key}"]
        inf = case.inference
        hw = case_hardware(case, accelerators)
        rate = inf.arrival_rate.m_as("1/s") / inf.replicas
        est, run = estimate_serving(hw, _server_job(case), tp, inf.batch, rate, replicas=inf.replicas)
        assert run is not None and run.max_running < inf.batch / 3
        model_tokens = run.mean_running + rate * inf.input_len * run.tpot.mean
        running, prompt = _state(case)
        assert running < inf.batch and model_tokens < running + prompt < inf.max_num_tokens, key


def test_the_offline_error_carries_the_h200_server_row_not_the_h100_one(cases, accelerators):
    """Each Server row run with every iteration slower by its Offline row's error (predicted over measured tokens/s,
    1.125 / 1.115 / 1.421 with the dataset's output spread, CV 0.79, outputcv; 1.145 / 1.133 / 1.456 at one length
    once the FFN activation's bytes are charged, issue 20; 1.180 / 1.164 / 1.493 before: information, not a fit). H200: TTFT 184 ms and TPOT 101 ms against the log's 198 and 123 (from 115 and 58): the
    Offline over-prediction carries most of the gap. MI300X: TPOT 200 ms against 143, more than all of it (its
    Offline harness runs eager, its Server harness with graphs). H100 TP 2: TPOT 59 ms against 155, a fifth of the
    gap: its Server run costs more than its Offline one (next test)."""
    got = {}
    for key in SCORED:
        server, offline = (cases[f"mlperf41-llama2-70b-{s}-{key}"] for s in ("server", "offline"))
        slower = predict(offline, accelerators)["tokens_per_second"] / _measured(offline, "tokens_per_second")
        got[key] = (slower, *_rescaled(server, accelerators, slower), server)
    slower, ttft, tpot, case = got["8xh200-tp1-fp8"]
    assert slower == pytest.approx(1.115, abs=0.01)
    assert ttft == pytest.approx(_measured(case, "ttft") / 1e3, rel=0.10)
    model_tpot = predict(case, accelerators)["tpot"]
    closed = (tpot - model_tpot) / (_measured(case, "tpot") / 1e3 - model_tpot)
    assert 0.6 < closed < 1.0, closed
    slower, ttft, tpot, case = got["8xmi300x-vllm-tp1-fp8"]
    assert tpot > _measured(case, "tpot") / 1e3
    slower, ttft, tpot, case = got["8xh100-tp2-fp8"]
    assert slower == pytest.approx(1.125, abs=0.01)
    assert tpot < 0.5 * _measured(case, "tpot") / 1e3 and ttft < 0.5 * _measured(case, "ttft") / 1e3


def test_h100_tp2_serves_a_token_slower_under_load_than_offline(cases, accelerators):
    """Per token processed (decodes plus prompt tokens per step), from the logs: H100 TP 2 Server 155.0 ms / (846 +
    646) = 0.104 ms, Offline 896 / (24,525 / 4) s / (896 + 686) = 0.092 ms, +12 %; H200 Server 123.3 / (455 + 346) =
    0.154 ms, Offline 806 / (31,303 / 8) / (806 + 615) = 0.145 ms, +6 %. The model gives the H200 pair the same +6 %
    (the weights read for fewer tokens per step) and the H100 pair none: the H100 Server run has a cost its Offline
    run has not (docs/perf-model.md, Limitations)."""
    measured, model = {}, {}
    for key, tp in SCORED.items():
        if "mi300x" in key:
            continue
        server, offline = (cases[f"mlperf41-llama2-70b-{s}-{key}"] for s in ("server", "offline"))
        running, prompt = _state(server)
        tpot = _measured(server, "tpot") / 1e3
        b = offline.inference.batch
        per_replica = _measured(offline, "tokens_per_second") / offline.inference.replicas
        off_prompt = b * offline.inference.input_len / offline.inference.output_len
        measured[key] = (tpot / (running + prompt)) / (b / per_replica / (b + off_prompt))
        hw = case_hardware(server, accelerators)
        job = _server_job(server)
        at_server = iteration_time(hw, job, tp, round(running), round(prompt)) / (round(running) + round(prompt))
        at_offline = iteration_time(hw, job, tp, b, round(off_prompt)) / (b + round(off_prompt))
        model[key] = at_server / at_offline
    assert measured["8xh100-tp2-fp8"] == pytest.approx(1.12, abs=0.01)
    assert measured["8xh200-tp1-fp8"] == pytest.approx(1.06, abs=0.01)
    assert model["8xh200-tp1-fp8"] == pytest.approx(measured["8xh200-tp1-fp8"], abs=0.02)
    assert model["8xh100-tp2-fp8"] == pytest.approx(1.0, abs=0.02)


def test_the_shared_offline_rows_agreement_rests_on_its_input_length(cases, accelerators):
    """The shared file's H100 Offline row (validation-cases.yaml, +1.9 %; +4.8 % before the FFN activation's bytes
    were charged, issue 20) is this file's Offline measurement with 294 input tokens, marked unconfirmed there, where
    the dataset's mean is 222.3 (+14.5 %; +18.0 % before). The run is compute-bound, so the tokens/s go inversely
    with the tokens processed per request: (294 + 290) / (222 + 290) = 1.14. Both at one output length, as the
    shared row states no output_len_cv (this file's row states the dataset's 0.79 and reads +12.7 %; +12.5 % before
    decode36 counted output_len - 1 decode steps a request)."""
    stated = cases["mlperf41-llama2-70b-offline-8xh100-tp2-fp8"]
    case = stated.model_copy(update={"inference": stated.inference.model_copy(update={"output_len_cv": None})})
    at_294 = case.model_copy(update={"inference": case.inference.model_copy(update={"input_len": 294})})
    modern, legacy = (predict(c, accelerators)["tokens_per_second"] for c in (case, at_294))
    assert modern / legacy == pytest.approx((294 + 290) / (222 + 290), rel=0.02)
    measured = _measured(case, "tokens_per_second")
    assert 0.0 < legacy / measured - 1 < 0.04 and modern / measured - 1 > 0.13
    assert predict(stated, accelerators)["tokens_per_second"] / measured - 1 == pytest.approx(0.127, abs=0.001)
