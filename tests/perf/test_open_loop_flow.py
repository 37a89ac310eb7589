"""A replica that keeps up with an open loop serves its arrival rate, and holds what Little's law says.

The input that showed it (newuser19): Llama 3.1 70B in FP8 on the DGX B200 SuperPOD, TP 8 over 64 GPUs (8 replicas),
2,048 + 128 tokens, Poisson arrivals. At 160 requests/s the estimate read 18,890 tokens/s where the flow is 160 x 128
= 20,480 (-7.8 %): the rate was counted as the requests finished within a window of ten latencies, which misses the
requests in flight at its edges, and it moved with any hardware factor (`--what-if hbm_bandwidth=1.5 --what-if
peak=2` gave +9.5 % tokens/s at a fixed rate). At 8 requests/s (1 per replica) `concurrency` read 1.38, the requests
decoding averaged over the replica's busy time only, where Little's law gives the rate x the mean latency, 0.79.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import SPECS, run_cli


def workload(rate: int) -> str:
    """newuser19's scratch workload at `rate` requests per second."""
    return f"""\
kind: Workload
id: l70-open
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 64
inference: {{precision: fp8, tp: 8, input_len: 2048, output_len: 128, scenario: server, arrival_rate: {rate} 1/s}}
"""


def estimate(tmp_path, rate: int, *extra: str) -> dict:
    """The JSON estimate of the workload at `rate`."""
    (tmp_path / "w.yaml").write_text(workload(rate), encoding="utf-8")
    got = run_cli("estimate", SPECS, tmp_path, "--workload", "l70-open", "--format", "json", *extra)
    assert got.code == 0, got.out
    return json.loads(got.out)


def value(doc: dict, name: str) -> float:
    """A metric's value."""
    return doc["metrics"][name]["value"]


def test_a_stable_open_loop_serves_its_arrival_rate(tmp_path):
    """Flow conservation: a replica that keeps up finishes requests as fast as they arrive, so tokens/s = arrival
    rate x output_len, whatever the hardware (its speed shows in the latencies, not in the throughput)."""
    doc = estimate(tmp_path, 160)
    assert value(doc, "tokens_per_second") == pytest.approx(160 * 128, rel=1e-9)
    faster = estimate(tmp_path, 160, "--what-if", "hbm_bandwidth=1.5", "--what-if", "peak=2")["estimate"]
    assert value(faster, "tokens_per_second") == pytest.approx(160 * 128, rel=1e-9)


def test_open_loop_concurrency_is_littles_law(tmp_path):
    """Requests in flight per replica = arrival rate per replica x mean request latency (TTFT + (out - 1) TPOT)."""
    doc = estimate(tmp_path, 8)
    latency = value(doc, "ttft") + 127 * value(doc, "tpot")
    assert value(doc, "concurrency") == pytest.approx(1.0 * latency, rel=1e-9)
    assert value(doc, "concurrency") < 1.0


def test_a_run_breakdown_adds_up_to_its_tokens_per_second(tmp_path):
    """The breakdown is the replica's time per request, output_len / tokens/s per replica, split as the run spent
    it (prompts, decodes, and waiting for arrivals). Before, decode was 128 x TPOT / max_batch 3,699 where about 45
    are in flight: 30.67 ms + 0.593 ms, 4,094 tokens/s per replica where the run served 2,560 (2,361 before the rate
    was read as arrivals x output_len)."""
    for rate in (8, 160):
        doc = estimate(tmp_path, rate)
        parts = doc["breakdown"]
        assert set(parts) <= {"prefill_per_request", "decode_per_request", "idle_per_request"}
        per_replica = value(doc, "tokens_per_second") / 8
        assert sum(p["value"] for p in parts.values()) == pytest.approx(128 / per_replica, rel=1e-9)
        assert all(p["value"] > 0 for p in parts.values())
    assert "idle_per_request" in estimate(tmp_path, 8)["breakdown"]  # 1 request/s per replica of 0.79 s latency
