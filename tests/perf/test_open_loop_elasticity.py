"""An open loop that keeps up has its elasticities of the replica's capacity, not of tokens/s (newuser68).

A server run whose replicas keep up serves what arrives (flow conservation: tokens/s = arrival rate x output_len),
so the elasticities of its tokens/s per accelerator to every hardware parameter read +0.000, as if the hardware did
not matter. What the hardware moves is the replica's capacity (`replica_capacity`, its full closed loop), which sets
how many replicas keep the rate up: the estimate has its elasticities of that, and says so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import SPECS, run_cli

WORKLOAD = """\
kind: Workload
id: llama70-open-loop
name: Llama 3.1 70B FP8 under Poisson arrivals
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 8
inference: {{precision: fp8, tp: 2, input_len: 2048, output_len: 256, {scenario}}}
"""


def _estimate(tmp_path: Path, scenario: str) -> dict:
    path = tmp_path / "w.yaml"
    path.write_text(WORKLOAD.format(scenario=scenario), encoding="utf-8")
    r = run_cli("estimate", str(SPECS), str(path), "--workload", "llama70-open-loop", "--format", "json")
    assert r.code == 0, r.err
    return json.loads(r.out)


@pytest.fixture(scope="module")
def keeps_up(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return _estimate(tmp_path_factory.mktemp("open"), "scenario: server, arrival_rate: 8 1/s")


def test_its_elasticities_are_of_the_replica_capacity(keeps_up: dict) -> None:
    assert keeps_up["sensitivity_of"] == "replica_capacity"
    e = keeps_up["sensitivity"]
    # before, every one was 0: the offered load does not move with the hardware
    assert e["peak"] > 0 and e["hbm_bandwidth"] > 0
    # the full replica's iteration is a sum of compute, memory and link terms, each inversely proportional to its
    # rate, and fixed costs: the elasticities to the three rates are each in [0, 1] and sum to at most 1
    rates = (e["peak"], e["hbm_bandwidth"], e["scale_up_bandwidth"])
    assert all(0 <= x <= 1 for x in rates) and sum(rates) <= 1.0 + 1e-3


def test_the_text_says_what_they_are_of(tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(WORKLOAD.format(scenario="scenario: server, arrival_rate: 8 1/s"), encoding="utf-8")
    r = run_cli("estimate", str(SPECS), str(path), "--workload", "llama70-open-loop")
    assert r.code == 0, r.err
    assert "elasticity of replica capacity (a server run that keeps up serves its offered load" in r.out


def test_an_offline_job_keeps_tokens_per_second(tmp_path: Path) -> None:
    got = _estimate(tmp_path, "scenario: offline")
    assert got["sensitivity_of"] == "tokens_per_second_per_gpu" and got["sensitivity"]["hbm_bandwidth"] > 0


def test_an_overrun_keeps_tokens_per_second(tmp_path: Path) -> None:
    """Arrivals past capacity: tokens/s is the full replica's, which the hardware moves, so it keeps its own."""
    got = _estimate(tmp_path, "scenario: server, arrival_rate: 400 1/s")
    assert got["sensitivity_of"] == "tokens_per_second_per_gpu"
    assert got["sensitivity"]["peak"] + got["sensitivity"]["hbm_bandwidth"] > 0


def test_its_span_over_the_stated_ranges_is_of_the_replica_capacity(keeps_up: dict) -> None:
    """Over the part's stated efficiency ranges its tokens/s is the offered load at both ends: the note read
    "the tokens/s per accelerator spans 170.8 tokens/s to 170.8 tokens/s" (newuser68's open item 9). It names the
    span of what the ranges move, the replica capacity, around the estimate's (review33)."""
    import re

    assert not any(re.search(r"spans ([\d.]+) tokens/s to \1 tokens/s", n) for n in keeps_up["notes"])
    (note,) = [n for n in keeps_up["notes"] if "the replica capacity (its tokens/s is the offered load" in n]
    low, high = map(float, re.findall(r"spans ([\d.]+) requests/s to ([\d.]+) requests/s", note)[0])
    assert low < high and low <= keeps_up["metrics"]["replica_capacity"]["value"] * (1 + 5e-4) and \
        keeps_up["metrics"]["replica_capacity"]["value"] <= high * (1 + 5e-4)


def test_on_an_unmeasured_part_the_capacity_band_spans_the_stated_ranges(tmp_path: Path) -> None:
    """newuser99: on a part no serving run measured (a start-up's; here the example's Rubin) the replica capacity's
    band must span its range over the part's stated efficiency ranges, as an offline job's tokens/s band does. It
    took the offered load's span, "the tokens/s per accelerator (160 tokens/s to 160 tokens/s around 160 tokens/s)",
    a factor of 1 at both ends: the band read the model's error alone (19.02 to 29.58 requests/s, now 14.7 to 30.91
    on that part), and replicas_to_keep_up and the delivered tokens/s with it."""
    path = tmp_path / "w.yaml"
    path.write_text(WORKLOAD.replace("id: llama70-open-loop", "id: llama70-open-loop-vr")
                    .replace("dgx-b200-superpod", "vr-nvl72-su")
                    .format(scenario="scenario: server, arrival_rate: 8 1/s"), encoding="utf-8")
    r = run_cli("estimate", str(SPECS.parent / "examples" / "vera-rubin"), str(path), "--workload",
                "llama70-open-loop-vr", "--format", "json")
    assert r.code == 0, r.err
    got = json.loads(r.out)
    cap, band = got["metrics"]["replica_capacity"]["value"], got["bands"]["replica_capacity"]
    assert band["on_accelerator"]["measurements"] == 0
    lo, hi = band["spread"]["low"], band["spread"]["high"]
    assert lo < 0.95 and hi > 1.0          # the ranges move the capacity both ways around the point
    err = band["error"]
    assert band["low"]["value"] == pytest.approx(cap * lo / (1 + err["high"]))
    assert band["high"]["value"] == pytest.approx(cap * hi / (1 + err["low"]))


@pytest.mark.parametrize("scenario", ["scenario: server, arrival_rate: 400 1/s", "scenario: offline"])
def test_idle_accelerators_keep_the_band_around_the_estimate(tmp_path: Path, scenario: str) -> None:
    """newuser99: 2 replicas of tp 2 on a 16-accelerator job of an unmeasured part. The tokens/s per accelerator
    counts the idle ones (half here), but its span over the stated ranges was per serving accelerator: on a start-up's
    part, 2 replicas of tp 4 on 64 read "120.6 tokens/s band 598.2 tokens/s to 1,012 tokens/s, wholly above the
    estimate". The span is now per the job's accelerators, so the band holds the estimate."""
    path = tmp_path / "w.yaml"
    path.write_text(WORKLOAD.replace("id: llama70-open-loop", "id: llama70-idle-vr")
                    .replace("dgx-b200-superpod", "vr-nvl72-su").replace("accelerators: 8", "accelerators: 16")
                    .replace("tp: 2,", "tp: 2, replicas: 2,").format(scenario=scenario), encoding="utf-8")
    r = run_cli("estimate", str(SPECS.parent / "examples" / "vera-rubin"), str(path), "--workload",
                "llama70-idle-vr", "--format", "json")
    assert r.code == 0, r.err
    got = json.loads(r.out)
    point, band = got["metrics"]["tokens_per_second_per_gpu"]["value"], got["bands"]["tokens_per_second_per_gpu"]
    assert band["on_accelerator"]["measurements"] == 0
    assert band["low"]["value"] <= point <= band["high"]["value"]
    if "server" in scenario:   # outrun: the replicas' capacity band, its span in its ends (newuser104)
        cap = got["bands"]["replica_capacity"]
        assert cap["spread"] is not None and band["spread"] is None
        assert band["low"]["value"] == pytest.approx(cap["low"]["value"] * 2 * 256 / 16, rel=1e-9)
    else:
        assert band["spread"] is not None and band["spread"]["low"] <= 1.0 <= band["spread"]["high"] + 1e-9
