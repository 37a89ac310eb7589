"""A simulated serving run's replica capacity and the replicas that keep up a rate (perf/serve/run.py, newuser68).

Checked against NVIDIA's MLPerf Inference v5.1 Llama 3.1 405B runs on a GB300 NVL72 (TP2 x 36, fp4 weights, fp8 KV
cache, max_num_tokens 1536; tests/perf/data/mlperf-inference-v5.yaml): Offline 25.5809 samples/s (mlcommons/
inference_results_v5.1@965182b0 closed/NVIDIA/results/GB300-NVL72_GB300-288GB_aarch64x72_TRT/llama3.1-405b/Offline/
performance/run_1/mlperf_log_summary.txt) is what 36 full replicas complete; its Server run kept up at 19.55
scheduled samples/s (19.46 completed, the same directory's Server log).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli

WORKLOAD = """\
kind: Workload
id: mlperf-405b-gb300
name: Llama 3.1 405B as NVIDIA's MLPerf v5.1 GB300 Server run states it
model: llama3-405b
cluster: gb300-nvl72-su
accelerators: 72
inference: {{precision: fp4, kv_precision: fp8, kv_reserve: mean, max_num_tokens: 1536, tp: 2,
            input_len: 9429, output_len: 629, scenario: {scenario}}}
"""
OFFLINE_SAMPLES_PER_S, SERVER_SAMPLES_PER_S, REPLICAS = 25.5809, 19.55, 36


def _estimate(folder: Path, scenario: str) -> dict:
    """`archgen estimate --format json` of the workload in `scenario` on the GB300 NVL72 SU example."""
    path = folder / "w.yaml"
    path.write_text(WORKLOAD.format(scenario=scenario), encoding="utf-8")
    r = run_cli("estimate", str(REPO / "examples" / "gb300-nvl72-su"), str(path), "--workload", "mlperf-405b-gb300",
                "--format", "json")
    assert r.code == 0, r.err
    return json.loads(r.out)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return _estimate(tmp_path_factory.mktemp("keepup"), f"server, arrival_rate: {SERVER_SAMPLES_PER_S} 1/s")


def test_replicas_to_keep_up_is_the_rate_over_the_capacity(server: dict) -> None:
    m = server["metrics"]
    cap = m["replica_capacity"]["value"]
    assert m["replicas_to_keep_up"]["value"] == math.ceil(SERVER_SAMPLES_PER_S / cap)
    # the load the bands are binned by is the rate per replica over the same capacity
    assert server["bands"]["ttft_p99"]["load"]["load"] == pytest.approx(SERVER_SAMPLES_PER_S / REPLICAS / cap, rel=1e-9)


def test_the_measured_offline_capacity_lies_in_the_capacity_band(server: dict) -> None:
    """36 full replicas completed 25.58 samples/s: 0.711 a replica, inside the band of the model's 0.812
    (0.881 before serve37)."""
    b = server["bands"]["replica_capacity"]
    assert b["family"] == "offline-serving"
    assert b["low"]["value"] <= OFFLINE_SAMPLES_PER_S / REPLICAS <= b["high"]["value"]
    # the model's replica is faster than the measured one (+14 %; +24 % before serve37), the direction of the offline band's high end
    assert server["metrics"]["replica_capacity"]["value"] > OFFLINE_SAMPLES_PER_S / REPLICAS


def test_the_band_of_the_replicas_is_whole_replicas_at_the_capacity_bands_ends(server: dict) -> None:
    """ceil(rate / capacity) at each end of the capacity's band: 23 to 36 replicas, the 36 the run kept up on (35
    before lengths40 scored the capacity's band at one length, +46.2 % where the tokens/s band's is +43.0 %; 21 to
    32 before serve37 left a closed loop's drain out of the capacity, `measure.closed_measured`). Before review33 the
    band was the turned errors on the rounded 23, 21.06 to 32.69: no count of replicas, and its low end above the 21
    that the capacity band's high end keeps the rate up with."""
    cap, keep = server["bands"]["replica_capacity"], server["bands"]["replicas_to_keep_up"]
    assert keep["low"]["value"] == math.ceil(SERVER_SAMPLES_PER_S / cap["high"]["value"]) == 23
    assert keep["high"]["value"] == math.ceil(SERVER_SAMPLES_PER_S / cap["low"]["value"]) == 36


def test_the_replicas_that_kept_up_are_at_least_the_models_count(server: dict) -> None:
    """The Server run kept up on 36 replicas, so the count that keeps up is at most 36: the model says 25 (23 before serve37)."""
    assert server["metrics"]["replicas_to_keep_up"]["value"] <= REPLICAS
    assert "replicas_to_keep_up" in server["conventions"]


def test_a_closed_loop_has_a_capacity_but_no_rate_to_keep_up(tmp_path: Path) -> None:
    m = _estimate(tmp_path, "concurrency, batch: 16")["metrics"]
    assert m["replica_capacity"]["value"] > 0 and "replicas_to_keep_up" not in m


def test_an_offline_job_has_neither(tmp_path: Path) -> None:
    m = _estimate(tmp_path, "offline")["metrics"]
    assert "replica_capacity" not in m and "replicas_to_keep_up" not in m


def test_its_band_says_the_count_at_each_end_of_the_capacitys(server: dict) -> None:
    """servetidy42: the band read only "model error -31.6% to +8.8%", the capacity's -8.1% to +46.2% turned, with
    nothing saying that the capacity's high end needs fewer replicas and its low end more."""
    est = server
    keep, cap = est["bands"]["replicas_to_keep_up"], est["bands"]["replica_capacity"]
    low, high = keep["low"]["value"], keep["high"]["value"]
    turned = 1 / (1 + cap["error"]["low"]) - 1   # the capacity's errors, turned: -8.1 % is a count's +8.8 %
    assert low < high and keep["error"]["high"] == pytest.approx(turned, rel=1e-9)
    assert keep["carried"].startswith(f"ceil({SERVER_SAMPLES_PER_S:g} requests/s / the replica capacity): {low:.0f} "
                                      "replicas at the capacity band's high end (")
    assert f"), {high:.0f} at its low end (" in keep["carried"]
    assert keep["carried"].endswith("so fewer where the capacity is higher than the model's and more where lower; "
                                    "the capacity's errors turned, as a count's")
