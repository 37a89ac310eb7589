"""The rate at which the model's replica meets each MLPerf row's p99 limits, against the rate the submitter tuned
(issue 20, interactive40; a reported figure beside the scored latencies, not a replacement for them).

MLPerf's Server and Interactive rates are the submitters': each is the highest scheduled rate that passed the
benchmark's p99 TTFT and TPOT limits (the logs' "Test Parameters Used": ttft_latency, tpot_latency; the limits in
`archgen.perf.serve.mlperf.SERVER_LATENCY_MS`, loadgen's mlperf.conf). The rows of tests/perf/data/
mlperf-inference-v5.yaml are scored at those logged rates, where the model's latencies are read at the edge of the
real system's stable region. The like-for-like figure is the rate the model itself would tune to: the highest at
which its simulated replica passes both limits (stable, both p99s within them), found here by bisection to 1 %.
Its ratio to the logged rate is a capacity-and-latency error in one number. server8b40 found +36 % on the 8B Server
row; the figures below are the model's, nothing fitted, and the bars were set after the run as a guard against drift.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.perf.serve.mlperf import SERVER_LATENCY_MS
from archgen.perf.serve.scheduler import estimate_serving
from archgen.scoring.cases import case_hardware, read_case_file
from tests.perf.test_mlperf_8b_state import _job

V5 = Path(__file__).resolve().parent / "data" / "mlperf-inference-v5.yaml"
#: Each limit-tuned row: its benchmark (the limits its log prints) and the model's tuned rate over the logged one.
TUNED = {
    "mlperf51-llama2-70b-server-8xb200-tp1-fp4": ("llama2-70b", 1.003),
    "mlperf51-llama2-70b-interactive-8xb200-tp1-fp4": ("llama2-70b-interactive", 1.445),
    "mlperf51-llama2-70b-server-4xgb200-tp1-fp4": ("llama2-70b", 1.025),
    "mlperf51-llama31-8b-server-8xb200-tp1-fp4": ("llama3_1-8b", 1.362),
    "mlperf51-llama31-8b-interactive-8xb200-tp1-fp4": ("llama3_1-8b-interactive", 1.650),
    "mlperf51-llama31-405b-server-8xb200-tp4-fp4": ("llama3_1-405b", 0.976),
    "mlperf51-llama31-405b-interactive-8xb200-tp4-fp4": ("llama3_1-405b-interactive", 1.238),
    "mlperf51-llama31-405b-server-72xgb200-tp4-fp4": ("llama3_1-405b", 0.960),
    "mlperf51-llama31-405b-interactive-72xgb200-tp4-fp4": ("llama3_1-405b-interactive", 0.857),
    "mlperf51-llama31-405b-server-72xgb300-tp2-fp4": ("llama3_1-405b", 1.088),
    "mlperf51-llama2-70b-server-8xh200-dell-tp1-fp8": ("llama2-70b", 1.073),
    "mlperf51-llama2-70b-server-8xmi325x-vllm-tp1-fp8": ("llama2-70b", 1.036),
}


def _tuned_rate(case, hw, benchmark: str) -> float:
    """The highest system rate (to 1 %) at which the simulated replica is stable and passes both p99 limits."""
    inf, job = case.inference, _job(case)
    ttft, tpot = (x / 1e3 for x in SERVER_LATENCY_MS[benchmark])

    def passes(rate: float) -> bool:
        _, run = estimate_serving(hw, job, inf.tp, inf.batch, rate / inf.replicas, replicas=inf.replicas)
        return run is not None and run.stable and run.ttft.p99 <= ttft and run.tpot.p99 <= tpot

    logged = inf.arrival_rate.m_as("1/s")
    lo, hi = (logged, 4 * logged) if passes(logged) else (logged / 4, logged)
    while hi / lo > 1.01:
        mid = (lo * hi) ** 0.5
        lo, hi = (mid, hi) if passes(mid) else (lo, mid)
    return lo


def test_every_limit_tuned_row_is_listed():
    """The file's twelve rows under load (eight Server, four Interactive), each with the limits its log prints."""
    rows = [c.id for c in read_case_file(V5).cases if c.inference.scenario == "server"]
    assert sorted(rows) == sorted(TUNED)
    assert all(("-interactive-" in cid) == bench.endswith("-interactive") for cid, (bench, _) in TUNED.items())


@pytest.mark.parametrize("cid", list(TUNED))
def test_the_rate_the_model_would_tune_to(cid, accelerators):
    """The model's tuned rate over the logged one: 0.86 (GB200's 405B Interactive: the model's TPOT p99 is over
    80 ms at the logged rate) to 1.65 (the 8B Interactive). Llama 2 70B Server rows within 0-4 % (the model's step
    at their state is within 1-2 %), the 405B Server rows 2-4 % under (their TTFT p99 over 6 s at the logged rate:
    +37 %, +64 %), the 8B +36 % (server8b40) and +65 %, the B200 Interactive rows +24 % to +65 %: where the model's
    step at light load is short (tests/perf/test_mlperf_v5.py, STEP_RATIO), its tuned rate is high."""
    c = next(c for c in read_case_file(V5).cases if c.id == cid)
    bench, want = TUNED[cid]
    ratio = _tuned_rate(c, case_hardware(c, accelerators), bench) / c.inference.arrival_rate.m_as("1/s")
    assert ratio == pytest.approx(want, abs=0.015), (cid, ratio)
