"""`estimate_serving` evaluates the closed form once per batch it reads and passes it down (simresume38).

Before, an open loop's estimate evaluated `estimate_inference` five times with two distinct inputs (the KV capacity
twice, the cap three times: its own, `simulate`'s capacity check, `full_run`'s fits check). Folding them must leave
every figure the same float: each test compares against the unfolded path (`simulate` and `full_run` evaluating
their own) with `==`.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve import inference as I
from archgen.perf.serve.scheduler import estimate_serving, full_run, simulate
from archgen.units import Q_

LLAMA70 = Arch(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256, gated=True, rope=True, qk_norm=False)


@pytest.fixture(scope="module")
def h100x2(accelerators):
    return hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_up_bandwidth=Q_(450, "GB/s"))


def _counted(monkeypatch) -> list[object]:
    """The `batch` of every `estimate_inference` call from here on."""
    calls: list[object] = []
    real = I.estimate_inference

    def counting(hw, job, tp, batch=None):
        calls.append(batch)
        return real(hw, job, tp, batch)
    monkeypatch.setattr(I, "estimate_inference", counting)
    return calls


def test_an_open_loop_evaluates_each_closed_form_once_and_reads_the_same(h100x2, monkeypatch):
    job = I.ServeJob(LLAMA70, 2000, 200, "fp8", scenario="server")
    kv = int(float(I.estimate_inference(h100x2, job, 2, None).max_batch))
    cap = kv // 2
    want = simulate(h100x2, job, 2, max_batch=cap, arrival_rate=0.5)
    full = full_run(h100x2, job, 2, cap)
    assert full is not None
    calls = _counted(monkeypatch)
    est, run = estimate_serving(h100x2, job, 2, cap, 0.5)
    assert calls == [None, cap]   # was [None, cap, cap, None, cap]
    assert run is not None and est.ttft == want.ttft.mean and est.tpot == want.tpot.mean
    assert run == replace(want, load=0.5 * 200 / full.tokens_per_second, capacity=full.tokens_per_second / 200)


def test_a_closed_loop_below_the_kv_capacity_checks_its_full_run_once(h100x2, monkeypatch):
    job = I.ServeJob(LLAMA70, 2000, 200, "fp8", scenario="concurrency")
    kv = int(float(I.estimate_inference(h100x2, job, 2, None).max_batch))
    full = full_run(h100x2, job, 2, None)
    assert full is not None and full.max_running <= kv
    calls = _counted(monkeypatch)
    _, run = estimate_serving(h100x2, job, 2, 16)
    assert calls == [None, 16, kv]   # was [None, 16, None, kv]
    assert run is not None and run.capacity == full.tokens_per_second / 200


def test_a_closed_form_at_another_batch_is_not_taken(h100x2, monkeypatch):
    """`simulate` reads a passed closed form only at its own `max_batch`; at another it evaluates its own."""
    job = I.ServeJob(LLAMA70, 2000, 200, "fp8", scenario="server")
    at8, at64 = I.estimate_inference(h100x2, job, 2, 8), I.estimate_inference(h100x2, job, 2, 64)
    calls = _counted(monkeypatch)
    run = simulate(h100x2, job, 2, max_batch=64, arrival_rate=0.5, offline=at8)
    assert calls == [64]
    assert simulate(h100x2, job, 2, max_batch=64, arrival_rate=0.5, offline=at64) == run and calls == [64]
