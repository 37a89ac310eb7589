"""A light-load latency no band holds, met beyond every error measured at light load, is met, not at risk (light39).

newuser97's repro (/work/wt/newuser97-specs/proj/workloads/nu97-serve.yaml): Llama 3.1 405B NVFP4 on one GB200
NVL72 rack, TensorRT-LLM, TP 8, 2,048 + 128 tokens, Poisson arrivals at 8 requests/s, is at load 0.10 (0.14 at the
capacity band's low end). No published run of the dense family under Poisson arrivals was taken at light load, so its
latencies have no band, and `ttft_p99 <= 6 s` read at risk at 228.7 ms, a 26x margin. At light load the model's TTFT
error on every serving family and arrival (`light_load.worst`) runs from -88.9 % (DeepSeek-R1 on 72 GB300, MLPerf
v5.1 Server, TTFT p99) to +40.9 % on 5 runs: a target the estimate meets at both ends of that is met, saying so; one
within it (1 s: 228.7 ms / (1 - 0.889) = 2.06 s) stays at risk, as does a TPOT target, whose light-load errors come
from 4 runs, too few to likely hold a further one ((n - 1) / (n + 1) = 60 %, under 66 %).

Also newuser97's: a band wholly on one side of its estimate (TPOT at concurrency 64) says so beside its ends.
"""

from __future__ import annotations

import json
import math

import pytest

from archgen import display
from archgen.model.at_risk import UNBANDED
from archgen.perf.workload.bands import LIKELY, MIN_BIN, Band, band, expected_coverage
from archgen.perf.workload.light_load import Worst, worst
from tests.conftest import SPECS, run_cli

SERVE = """
kind: Workload
id: nu97-405b-fp4-gb200-server
name: Llama 3.1 405B NVFP4 on one GB200 NVL72 rack, TensorRT-LLM, server
model: llama3-405b
cluster: gb200-nvl72-su
accelerators: 72
inference:
  precision: fp4
  engine: tensorrt-llm
  free_gpu_memory_fraction: 0.9
  tp: 8
  input_len: 2048
  output_len: 128
  scenario: server
  arrival_rate: 8 requests/s
requirements:
  - {id: NU-SRV-001, statement: TTFT p99, metric: ttft_p99, target: "<= 6 s"}
  - {id: NU-SRV-002, statement: TPOT p99, metric: tpot_p99, target: "<= 175 ms"}
  - {id: NU-SRV-003, statement: mean TTFT, metric: ttft, target: "<= 2 s", level: should}
  - {id: NU-SRV-005, statement: tight TTFT p99, metric: ttft_p99, target: "<= 1 s"}
"""
SWEEP = """
kind: Sweep
id: nu97-rate
workload: nu97-405b-fp4-gb200-server
axes:
  arrival_rate: ["8 requests/s"]
objectives:
  - {metric: ttft_p99}
requirements:
  - {id: SWP-TTFT, statement: TTFT p99, metric: ttft_p99, target: "<= 6 s"}
  - {id: SWP-TTFT-TIGHT, statement: tight TTFT p99, metric: ttft_p99, target: "<= 1 s"}
"""
#: A band table of two families with light-load rows of both arrivals (`worst`'s own arithmetic).
TABLE = {"serving-under-load": {"ttft@light@closed": (4, -0.10, 0.40, 0.1), "ttft_p99@light@closed": (2, -0.2, 0.1, 0.1),
                                "ttft@moderate@poisson": (9, -0.99, 0.9, 0.5)},
         "moe-serving-under-load": {"ttft_p99@light@poisson": (1, -0.80, -0.80, 0.8),
                                    "ttft@light@poisson": (1, -0.7, -0.7, 0.7)}}


def test_worst_takes_every_family_and_arrival_at_light_load_and_counts_the_fewest_runs():
    """The lowest and highest error over the latency's mean and percentiles at light load, every family and arrival
    (never another bin's: the moderate row's -99 % is not taken); its runs the most any one figure has (the mean's
    4 + 1), not the sum over figures a run gives each of."""
    w = worst("ttft_p50", "serving-under-load", TABLE)
    assert w is not None
    assert (w.runs, w.own, w.low, w.high) == (5, 4, -0.80, 0.40)
    moe = worst("ttft", "moe-serving-under-load", TABLE)
    assert moe is not None and (moe.runs, moe.own) == (5, 1)
    assert w.lowest == "MoE serving under load's TTFT p99 under Poisson arrivals at a rate"   # words, not the key
    assert worst("tpot", "serving-under-load", TABLE) is None
    assert worst("tokens_per_second", "serving-under-load", TABLE) is None


def test_beyond_is_only_at_light_load_and_with_enough_runs():
    """A band unmeasured at light load carries the worst errors; one unmeasured at moderate load none, and a MoE
    job's none to judge by: its own family measured TTFT at light load once (DeepSeek-R1 on 72 GB300), fewer than a
    band needs, so its worst errors would all be another family's. (newuser33's DeepSeek-R1 on a DGX B200 at MLPerf's
    5.02/s, load 0.23 by the model, read TTFT p99 87 ms where the run measured 1.696 s, 19.4x: beyond the -88.9 %.)"""
    light = band("serving-under-load", "ttft_p99", load=0.10, arrival="poisson")
    assert light is not None and not light.measured and light.light is not None
    assert expected_coverage(light.light.runs) >= LIKELY
    low, high = light.beyond(1.0) or (0.0, 0.0)
    assert (low, high) == pytest.approx((1 / (1 + light.light.high), 1 / (1 + light.light.low)))
    moderate = band("serving-under-load", "ttft_p99", load=0.6, arrival="closed")
    assert moderate is not None and not moderate.measured and moderate.beyond(1.0) is None
    moe = band("moe-serving-under-load", "ttft_p99", load=0.10, arrival="poisson")
    assert moe is not None and not moe.measured and moe.light is not None and moe.light.own < 3
    assert moe.beyond(1.0) is None
    # a user's decode rate is TPOT turned: its light-load errors are TPOT's, turned
    rate, tpot = (band("serving-under-load", m, load=0.10, arrival="poisson")
                  for m in ("tokens_per_second_per_user", "tpot"))
    assert rate is not None and tpot is not None and rate.light is not None and tpot.light is not None
    assert rate.light.high == pytest.approx(1 / (1 + tpot.light.low) - 1)


def test_the_26x_margin_is_met_and_a_target_within_the_worst_error_is_at_risk(spec_tree):
    """newuser97's job: TTFT p99 <= 6 s and mean TTFT <= 2 s met beyond every light-load error (before: at risk);
    TTFT p99 <= 1 s within it, and TPOT p99 on too few runs, at risk with the unbanded reason; `check` reports
    REQ004 for those two alone."""
    specs = spec_tree({"workloads/nu97.yaml": SERVE})
    doc = json.loads(run_cli("estimate", "--workload", "nu97-405b-fp4-gb200-server", "--format", "json", "--path",
                             str(SPECS), "--path", str(specs)).out)
    p99 = doc["metrics"]["ttft_p99"]["value"]
    w = worst("ttft_p99", "serving-under-load")
    assert w is not None and 6.0 * (1 + w.low) > p99 > 1.0 * (1 + w.low)   # the case is what the test says it is
    assert doc["bands"]["ttft_p99"]["error"] is None   # still no band: none is made
    reqs = {r["id"]: r for r in doc["requirements"]}
    for rid in ("NU-SRV-001", "NU-SRV-003"):
        assert reqs[rid]["status"] == "met", rid
        assert reqs[rid]["note"].startswith("unmeasured at this load; met beyond every error measured at light load")
    for rid in ("NU-SRV-002", "NU-SRV-005"):
        assert reqs[rid]["status"] == "at risk", rid
        assert reqs[rid]["note"].startswith(UNBANDED), rid
    check = run_cli("check", str(SPECS), str(specs)).out
    flagged = {rid for rid in reqs if f"REQ004 workload/nu97-405b-fp4-gb200-server: {rid}" in check}
    assert flagged == {"NU-SRV-002", "NU-SRV-005"}
    # and the two met beyond every light-load error say so (REQ006, info; leftover39: `check` said nothing of them)
    beyond = {rid for rid in reqs if f"info: REQ006 workload/nu97-405b-fp4-gb200-server: {rid}" in check}
    assert beyond == {"NU-SRV-001", "NU-SRV-003"}, check


def test_a_sweep_point_is_judged_as_estimate_judges_it(spec_tree, tmp_path):
    """The same job as a sweep point: at risk where `estimate` says so, met where the margin is beyond the errors."""
    specs = spec_tree({"workloads/nu97.yaml": SERVE, "sweeps/nu97.yaml": SWEEP})
    out = run_cli("sweep", str(specs / "sweeps" / "nu97.yaml"), "--path", str(SPECS), "--path", str(specs), "--out",
                  str(tmp_path / "o"), "--format", "json").out
    (doc,) = json.loads(out)["sweeps"]
    (point,) = doc["front"]
    assert set(point["at_risk"]) == {"NU-SRV-002", "NU-SRV-005", "SWP-TTFT-TIGHT"}
    assert point["requirements"]["SWP-TTFT"] and point["requirements"]["NU-SRV-001"]


CONCURRENCY = """
kind: Workload
id: nu97-70b-fp8-b200-conc
name: Llama 3.1 70B FP8 at concurrency 64 on DGX B200, TensorRT-LLM
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 8
inference: {precision: fp8, engine: tensorrt-llm, tp: 8, batch: 64, scenario: concurrency, input_len: 1024,
            output_len: 1024}
"""


def test_a_band_wholly_on_one_side_of_its_estimate_says_so_beside_its_ends(spec_tree):
    """newuser97's concurrency-64 job: its TPOT band (a closed loop at light load, every run under-predicted) lies
    wholly above the point, and the line says so beside the ends; the point is the model's, not moved into it. A
    user's decode rate, TPOT turned, lies wholly below; TTFT's band straddles its point and says nothing."""
    assert display.outside(1.0, (1.1, 1.2)) == ", wholly above the estimate"
    assert display.outside(1.0, (0.8, 0.9)) == ", wholly below the estimate"
    assert display.outside(1.0, (0.9, 1.1)) == "" and display.outside(1.0, None) == ""
    specs = spec_tree({"workloads/conc.yaml": CONCURRENCY})
    args = ("estimate", "--workload", "nu97-70b-fp8-b200-conc", "--path", str(SPECS), "--path", str(specs))
    doc = json.loads(run_cli(*args, "--format", "json").out)
    tpot, band_ = doc["metrics"]["tpot"]["value"], doc["bands"]["tpot"]
    assert band_["error"]["high"] < 0 and band_["low"]["value"] > tpot   # every run under-predicted: above
    lines = {ln.split()[0]: ln for ln in run_cli(*args).out.splitlines() if ln.startswith("  ")}
    assert ", wholly above the estimate (expected coverage" in lines["tpot"]
    assert ", wholly below the estimate (expected coverage" in lines["tokens_per_second_per_user"]
    assert "wholly" not in lines["ttft"]


@pytest.mark.parametrize(("runs", "own", "judged"), [(5, 3, True), (4, 3, False), (5, 2, False), (87, 3, True)])
def test_one_run_fewer_at_either_count_leaves_a_target_at_risk(runs, own, judged):
    """The two counts at their edges (review59): 5 pooled runs give an expected coverage of 4 / 6 = 66.7 %, past
    `LIKELY` (66 %, archgen's choice: the IPCC's 'likely'), 4 give 60 %, under it, so the TTFT rule today (5 runs)
    rests on one run; the job's own family needs `MIN_BIN` (3) of them. Below either, no ends to judge at."""
    w = Worst(runs, own, -0.889, 0.409, "MoE serving under load's TTFT p99 under Poisson arrivals at a rate")
    b = Band("serving-under-load", "ttft_p99", 0, math.nan, math.nan, math.nan, load=0.1, bin="light",
             arrival="poisson", light=w)
    assert (expected_coverage(runs) >= LIKELY) is (runs >= 5) and (own >= MIN_BIN) is (own >= 3)
    ends = b.beyond(1.0)
    assert (ends is not None) is judged and (b.beyond_words() != "") is judged
    if ends is not None:
        assert ends == pytest.approx((1 / 1.409, 1 / 0.111))
        assert f"on {runs} or more runs at light load" in b.beyond_words()
