"""An open loop whose arrivals outrun its replicas (newuser104): its words and its throughput's band.

Llama 3.1 70B FP4 at tp 4 on one GB200 NVL72 tray group (4 accelerators, one replica) at 100 requests/s, about four
times the replica's simulated capacity (~23 requests/s): the queue grows for the whole run, TTFT has no upper bound.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO, run_cli

WORKLOAD = """\
kind: Workload
id: l70-overrun
name: Llama 3.1 70B FP4 past its replica's capacity
model: llama3-70b
cluster: gb200-nvl72-su
accelerators: 4
inference: {precision: fp4, tp: 4, input_len: 2048, output_len: 256, scenario: server, arrival_rate: 100 1/s}
"""


@pytest.fixture(scope="module")
def overrun(tmp_path_factory: pytest.TempPathFactory) -> dict:
    path = tmp_path_factory.mktemp("overrun") / "w.yaml"
    path.write_text(WORKLOAD, encoding="utf-8")
    r = run_cli("estimate", str(REPO / "specs"), str(path), "--workload", "l70-overrun", "--format", "json")
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_the_replicas_convention_says_no_upper_bound_not_inf(overrun: dict) -> None:
    """Before, "at load 4.27 this run's replicas read inf s": Python's float printed as a time."""
    assert overrun["metrics"]["ttft_p99"]["value"] is None   # unbounded
    words = overrun["conventions"]["replicas_to_keep_up"]
    assert "inf" not in words.split() and "inf s" not in words
    assert "read no upper bound: arrivals outrun them" in words


def test_its_throughput_takes_the_replica_capacitys_band(overrun: dict) -> None:
    """Outrun, the replica serves its capacity: tokens/s = replicas x capacity x output_len, so its band is the
    capacity's band times the same, its errors the capacity's. Before, it took the serving-under-load family's
    tokens/s errors, -0.1 % to +22.3 % (measured on runs whose throughput was their offered load), where the same
    figure as a capacity read -8.1 % to +46.2 %: 4,901 to 5,997 tokens/s beside 16.01 to 25.47 requests/s."""
    m, b = overrun["metrics"], overrun["bands"]
    cap, tps = b["replica_capacity"], b["tokens_per_second"]
    assert m["tokens_per_second"]["value"] == pytest.approx(m["replica_capacity"]["value"] * 256, rel=1e-6)
    assert tps["low"]["value"] == pytest.approx(cap["low"]["value"] * 256, rel=1e-9)
    assert tps["high"]["value"] == pytest.approx(cap["high"]["value"] * 256, rel=1e-9)
    assert tps["error"]["low"] == pytest.approx(cap["error"]["low"], abs=1e-4)
    assert tps["error"]["high"] == pytest.approx(cap["error"]["high"], abs=1e-4)
    per_gpu = b["tokens_per_second_per_gpu"]
    assert per_gpu["low"]["value"] == pytest.approx(cap["low"]["value"] * 256 / 4, rel=1e-9)


def test_an_open_loop_does_not_claim_its_requests_keep_in_step(overrun: dict) -> None:
    """Poisson arrivals spread the requests: the closed loop's words (test_closed_loop_in_step.py) are not its."""
    assert "keep in step" not in overrun["conventions"]["request_lengths"]


def test_one_replica_is_one_replica_in_the_words(tmp_path) -> None:
    """The delivered band's text read "min(offered, 1 replicas x the replica capacity's band ...)"."""
    path = tmp_path / "w.yaml"
    path.write_text(WORKLOAD, encoding="utf-8")
    r = run_cli("estimate", str(REPO / "specs"), str(path), "--workload", "l70-overrun")
    assert r.code == 0, r.err
    assert "min(offered, 1 replica x the replica capacity's band" in r.out and "1 replicas" not in r.out
