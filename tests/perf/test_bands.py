"""Error bands (`perf.workload.bands`): computed from scored measurements, looked up by family, shown by `estimate`, and the
generated table current against the model."""

from __future__ import annotations

import json
import math

import pytest

from archgen.perf.workload.band_families import FAMILIES, family
from archgen.perf.workload.band_source import compute_table
from archgen.perf.workload.band_table import TABLE
from archgen.perf.workload.bands import band
from archgen.units import Q_
from tests.conftest import REPO, SPECS, docs_script, run_cli

#: A small fixture of scored measurements, (family, metric, (predicted - measured) / measured).
SCORED = [
    ("dense-training", "step_time", -0.10),           # step time 10 % short
    ("dense-training", "tokens_per_second", 0.25),    # 25 % fast: a step time 1/1.25 - 1 = -20 % short
    ("dense-training", "mfu", -0.20),                 # 20 % low: a step time 1/0.8 - 1 = +25 % long
    ("offline-serving", "tokens_per_second", 0.40),
    ("offline-serving", "tokens_per_second", -0.05),
    ("offline-serving", "tokens_per_second", 0.10),
    ("collectives", "busbw", 0.25),                   # a time 1/1.25 - 1 = -20 %
]


def test_band_table_from_hand_computed_errors():
    """Each (family, quantity): count, lowest and highest error in the quantity's direction, median |error|."""
    table = compute_table(SCORED)
    # step-time errors -0.10, -0.20, +0.25: median |error| 0.20
    assert table["dense-training"] == {"step_time": (3, -0.2, 0.25, 0.2)}
    assert table["offline-serving"] == {"tokens_per_second": (3, -0.05, 0.4, 0.1)}
    assert table["collectives"] == {"time": (1, -0.2, -0.2, 0.2)}
    assert "moe-training" not in table and "serving-under-load" not in table


def test_a_rate_band_is_the_time_band_seen_from_the_other_side():
    """A training step-time band [-0.2, +0.25] is a throughput band [1/1.25 - 1, 1/0.8 - 1] = [-0.2, +0.25]; the
    value range of an estimate p is [p / (1 + high), p / (1 + low)]."""
    table = {"dense-training": {"step_time": (3, -0.2, 0.25, 0.2)}, "collectives": {"time": (1, -0.2, -0.2, 0.2)}}
    step = band("dense-training", "step_time", table)
    assert (step.low, step.high, step.count) == (-0.2, 0.25, 3)
    lo, hi = step.values(Q_(10.0, "s"))
    assert lo.m_as("s") == pytest.approx(8.0) and hi.m_as("s") == pytest.approx(12.5)
    tps = band("dense-training", "tokens_per_second", table)
    assert (tps.low, tps.high) == (pytest.approx(-0.2), pytest.approx(0.25))
    busbw = band("collectives", "busbw", table)       # a time 20 % short is a busbw 25 % high
    assert (busbw.low, busbw.high) == (pytest.approx(0.25), pytest.approx(0.25))
    lo, hi = busbw.values(Q_(500.0, "GB/s"))
    assert lo.m_as("GB/s") == pytest.approx(400.0) and hi.m_as("GB/s") == pytest.approx(400.0)


def test_a_one_sided_band_says_it_lies_on_one_side_of_the_estimate():
    """Every collective time in the fixture is 20 % short (busbw 25 % high): the busbw band is [400, 400] GB/s around
    an estimate of 500, below its own point. The description says why, instead of reading as a contradiction; a
    band with errors of both signs says nothing more."""
    table = {"dense-training": {"step_time": (3, -0.2, 0.25, 0.2)}, "collectives": {"time": (1, -0.2, -0.2, 0.2)}}
    assert band("collectives", "busbw", table).describe().endswith(
        "; the model over-predicted every one of them, so the band lies below the estimate")
    assert band("collectives", "time", table).describe().endswith(
        "; the model under-predicted every one of them, so the band lies above the estimate")
    assert band("dense-training", "step_time", table).describe().endswith("dense training measurements")


def test_unmeasured_and_unbanded_metrics():
    """A banded metric no run of the family measured has a band of no measurement; memory carries none."""
    unmeasured = band("offline-serving", "ttft", {"offline-serving": {"tokens_per_second": (3, -0.05, 0.4, 0.1)}})
    assert not unmeasured.measured and unmeasured.values(Q_(1.0, "s")) is None
    assert "no published offline serving measurement of ttft" in unmeasured.describe()
    assert band("dense-training", "memory_per_gpu") is None


@pytest.mark.parametrize(("args", "expected"), [
    (("training", True), "moe-training"), (("training", False), "dense-training"),
    (("inference", False, "offline"), "offline-serving"), (("inference", False, "server"), "serving-under-load"),
    (("inference", False, "concurrency"), "serving-under-load"), (("collective",), "collectives"),
    (("inference", True, "offline"), "moe-offline-serving"), (("inference", True, "server"), "moe-serving-under-load"),
    (("inference", True, "concurrency"), "moe-serving-under-load"),
])
def test_families(args, expected):
    assert family(*args) == expected and expected in FAMILIES


def test_band_table_is_current():
    """The generated table equals what the case files give with the model as it is: `python docs/gen_bands.py`."""
    gen = docs_script("gen_bands")
    assert (REPO / "archgen" / "perf" / "workload" / "band_table.py").read_text(encoding="utf-8") == gen.source(), \
        "stale: run python docs/gen_bands.py"


def test_estimate_shows_the_band_in_text_and_json():
    """`archgen estimate` gives each banded metric its value range and the model's error, in text and JSON."""
    text = run_cli("estimate", "--workload", "llama3-70b-pretrain-b200", "--path", str(SPECS)).out
    row = next(line for line in text.splitlines() if line.strip().startswith("step_time"))
    step = band("dense-training", "step_time")
    assert f"model error {step.low:+.1%} to {step.high:+.1%}" in row and f"on {step.count} dense training" in row
    doc = json.loads(run_cli("estimate", "--workload", "llama3-70b-pretrain-b200", "--format", "json", "--path",
                             str(SPECS)).out)
    got = doc["bands"]["step_time"]
    p = doc["metrics"]["step_time"]["value"]
    assert got["family"] == "dense-training" and got["measurements"] == TABLE["dense-training"]["step_time"][0]
    assert got["low"]["value"] == pytest.approx(p / (1 + step.high))
    assert got["high"]["value"] == pytest.approx(p / (1 + step.low))
    assert "memory_per_gpu" not in doc["bands"]
    tput = doc["bands"]["tokens_per_second"]["error"]    # the throughput's band is the step time's turned round
    assert tput["high"] == pytest.approx(1 / (1 + step.low) - 1)
    assert all(r["pessimistic"] is not None for r in doc["requirements"])
    assert not math.isnan(tput["median"])


def test_estimate_reports_a_requirement_at_risk_and_still_exits_0():
    """The shipped NVL72 all-reduce (about 916 GB/s against >= 800 GB/s) is met by the estimate, but the collectives
    band's low end, busbw / (1 + highest busbw error), is under 800 GB/s: at risk, a warning, exit code 0."""
    r = run_cli("estimate", "--workload", "nccl-allreduce-nvl72-rack", "--path", str(SPECS))
    busbw = band("collectives", "busbw")
    line = r.out.splitlines()[-1]
    assert r.code == 0 and line.startswith("REQ-PERF-041: busbw >= 800 GB/s: at risk (the pessimistic end of its band")
    doc = json.loads(run_cli("estimate", "--workload", "nccl-allreduce-nvl72-rack", "--path", str(SPECS),
                             "--format", "json").out)
    req = doc["requirements"][0]
    assert (req["status"], req["met"]) == ("at risk", True)
    assert req["pessimistic"]["value"] == pytest.approx(doc["metrics"]["busbw"]["value"] / (1 + busbw.high))


#: Mixtral 8x7B (a library MoE model) served offline in FP8 on one DGX B200, and under load at 40 requests/s.
MOE_SERVING = """
kind: Workload
id: mixtral-serve
model: mixtral-8x7b
cluster: dgx-b200-superpod
accelerators: 8
inference: {precision: fp8, tp: 8, input_len: 427, output_len: 146}
requirements:
  - {id: REQ-MOE-1, statement: Throughput, metric: tokens_per_second_per_gpu, target: ">= 2000 1/s"}
---
kind: Workload
id: mixtral-server
model: mixtral-8x7b
cluster: dgx-b200-superpod
accelerators: 8
inference: {precision: fp8, tp: 8, input_len: 804, output_len: 128, scenario: server, arrival_rate: 20 1/s}
"""


def test_moe_offline_serving_rests_on_moe_measurements_only(spec_tree):
    """MoE offline serving's band is its own MLPerf v5.1 rows: four Mixtral (+28.4 % to +46.3 %,
    tests/perf/data/mlperf-inference-v5-moe.yaml; +37.0 % to +55.4 % before issue 20's FFN bytes) and two DeepSeek-R1
    (+102.4 %, +115.4 % with their dataset's output spread, +145.6 % and +159.6 % before, outputcv;
    tests/perf/data/mlperf-inference-v5-deepseek.yaml; newuser33), not the dense
    models' (-8.4 % to +42.4 % on 53 dense measurements); TTFT, which no MoE Offline log measures, still has none,
    and TPOT, which none measures either, carries that tokens/s band by Little's law (offband38). The job is at those rows' mean request, 427 + 146 tokens (a longer one has no band: test_context_band)."""
    specs = spec_tree({"workloads/moe.yaml": MOE_SERVING})
    doc = json.loads(run_cli("estimate", "--workload", "mixtral-serve", "--format", "json", "--path", str(SPECS),
                             "--path", str(specs)).out)
    tput = doc["bands"]["tokens_per_second_per_gpu"]
    count, low, high, _ = TABLE["moe-offline-serving"]["tokens_per_second"]
    assert (tput["family"], tput["measurements"], count) == ("moe-offline-serving", 6, 6)
    assert 0.25 < low < 0.50 and 1.1 < high < 1.2
    assert "tpot" not in TABLE["moe-offline-serving"] and doc["bands"]["tpot"]["measurements"] == 6
    assert doc["bands"]["tpot"]["carried"] and doc["bands"]["ttft"]["measurements"] == 0
    text = run_cli("estimate", "--workload", "mixtral-serve", "--path", str(SPECS), "--path", str(specs)).out
    row = next(line for line in text.splitlines() if line.strip().startswith("tokens_per_second_per_gpu"))
    assert "on 6 MoE offline serving measurements" in row and "no band" not in row


def test_moe_serving_under_load_has_no_band_from_dense_serving(spec_tree):
    """A MoE serving-under-load estimate takes no band from dense serving: MoE training's error (-88.1 % to +5.5 %)
    shows how far dense figures are from telling what a MoE job's is. Its latencies at light load now have the
    DeepSeek-R1 Server rows' bands (tests/perf/test_mlperf_v5_deepseek.py); its tokens/s still has none: those
    rows' throughput is an open loop's, which serves what arrives (error ~0 whatever the replica's speed), and
    would wrongly narrow a closed loop's tokens/s, which is as far off as its TPOT (newuser33). Its prompt is the
    longest the MoE runs scored (804 tokens; at 2,048 it is past their margin and has no band, margin43)."""
    specs = spec_tree({"workloads/moe.yaml": MOE_SERVING})
    assert "tokens_per_second" not in TABLE["moe-serving-under-load"]
    doc = json.loads(run_cli("estimate", "--workload", "mixtral-server", "--format", "json", "--path", str(SPECS),
                             "--path", str(specs)).out)
    tput = doc["bands"]["tokens_per_second_per_gpu"]
    # nu68fix: an open loop that keeps up delivers min(offered, replicas x capacity), so its tokens/s takes the
    # replica capacity's band, MoE offline serving's (`band_lookup.delivered`), not a dense family's
    assert tput["family"] == "moe-offline-serving"
    assert tput["measurements"] == TABLE["moe-offline-serving"]["tokens_per_second"][0]
    text = run_cli("estimate", "--workload", "mixtral-server", "--path", str(SPECS), "--path", str(specs)).out
    row = next(line for line in text.splitlines() if line.strip().startswith("tokens_per_second_per_gpu"))
    assert "what the open loop delivers, min(offered" in row and "MoE offline serving measurements" in row
