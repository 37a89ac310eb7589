"""MLPerf Inference's Server/Interactive latency constraints (perf/serve/mlperf.py) as requirements on a simulated run."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from archgen.errors import AnalyseError
from archgen.perf.serve.mlperf import COMMIT, SERVER_LATENCY_MS, server_requirements
from tests.conftest import SPECS, run_cli, sweep_problems_of

CONF = Path(__file__).resolve().parent / "data" / "mlperf-conf-server-latency.conf"


def test_limits_are_mlperf_conf_s():
    """The table equals the lines of loadgen/mlperf.conf copied in the test data, at the commit both name."""
    text = CONF.read_text(encoding="utf-8")
    assert COMMIT in text and "*.Server.target_latency_percentile = 99" in text
    got: dict[str, dict[str, int]] = {}
    for bench, kind, ms in re.findall(r"^(\S+)\.Server\.(ttft|tpot)_latency = (\d+)$", text, re.M):
        got.setdefault(bench, {})[kind] = int(ms)
    assert {b: (v["ttft"], v["tpot"]) for b, v in got.items()} == SERVER_LATENCY_MS


def test_an_unknown_benchmark_names_the_nearest():
    with pytest.raises(AnalyseError, match="did you mean 'llama3_1-8b-interactive'"):
        server_requirements("llama3_1-8b-interactiv")


WORKLOAD = """\
kind: Workload
id: llama70-mlperf-server
name: Llama 3.1 70B under MLPerf Server-style load
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 8
inference: {{precision: fp8, tp: 2, input_len: 2048, output_len: 256, scenario: server, arrival_rate: {rate}}}
requirements: {reqs}
"""


# Under load most limits the estimate meets are at risk: on MLPerf v4.1's own Llama 2 70B Server logs (tests/perf/data/
# serving-under-load.yaml) the measured TTFT p99 is 1.30x to 3.40x the model's and TPOT p99 2.23x to 4.33x (1.33-3.72x
# and 2.40-4.78x before the FFN activation's bytes were charged, issue 20), so the pessimistic end of a band passes
# these limits from 30 requests/s up. The v5.1 Server logs (mlperf-inference-v5.yaml) widen both bands: TTFT p99 up to
# 50x the model's (Llama 3.1 8B on B200, -98.0 %) and TPOT p99 up to 6.2x (-83.9 %).
@pytest.mark.parametrize(("bench", "rate", "want", "load_bin"), [
    ("llama2-70b", "8 1/s", ("met", "at risk"), "light"),  # load 0.14: no p99 measured below 0.5 (loadband), so
    # no band and no pessimistic end: met at the estimate with nothing to bound its error, at risk (issue 20 part 7;
    # "met" before serve3, as if lighter load needed no band); since light39 TTFT p99 is met beyond every TTFT error
    # measured at light load (-88.9 %: its 2 s limit holds at the estimate / 0.111), TPOT p99's too few runs (4)
    ("llama2-70b-interactive", "30 1/s", ("at risk", "at risk"), "moderate..near-capacity"),  # TTFT p99 ~0.30 s,
    # TPOT p99 ~27 ms; at the offline band's low end the load reaches past 0.85 since TensorRT-LLM's KV rule
    # (kvrule37: a larger cache, and the throughput band's low end moved)
    ("llama2-70b-interactive", "40 1/s", ("not met", "not met"), "moderate..near-capacity"),  # TTFT p99 past its
    # limit; TPOT p99 too since the FFN activation's bytes are charged (issue 20: the replica's step is longer); at the
    # offline band's low end the load reaches past 0.85, so the band is both bins' (nu68fix)
    ("deepseek-r1-interactive", "40 1/s", ("at risk", "not met"), "moderate..near-capacity"),  # its 15 ms TPOT limit
    ("llama2-70b", "400 1/s", ("not met", "not met"), "near-capacity"),  # arrivals outrun the full replicas: TTFT
    # unbounded (the queue grows with the run), TPOT the full replica's, ~0.23 s
])
def test_server_limits_are_checked_as_requirements(tmp_path, bench, rate, want, load_bin):
    """A server workload with an arrival rate reports ttft_p99 and tpot_p99 from its simulated run, and MLPerf's
    limits, given as requirements, are judged on them and on their band: the model's error on the p99s of the
    MLPerf v4.1 and v5.1 Server logs taken at the run's own load bin (light < 0.5 <= moderate < 0.85, none measured
    light); the pessimistic end is the estimate / (1 + lowest error)."""
    shutil.copytree(SPECS, tmp_path / "specs")
    reqs = [r.model_dump(mode="json", exclude_defaults=True) for r in server_requirements(bench)]
    for r in reqs:
        r["target"] = str(r["target"]) if not isinstance(r["target"], str) else r["target"]
    (tmp_path / "specs" / "workloads" / "mlperf.yaml").write_text(
        WORKLOAD.format(rate=rate, reqs=json.dumps(reqs)), encoding="utf-8")
    doc = json.loads(run_cli("estimate", "--workload", "llama70-mlperf-server", "--format", "json", "--path",
                             str(tmp_path / "specs")).out)
    assert {"ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99"} <= set(doc["metrics"])
    assert [r["metric"] for r in doc["requirements"]] == ["ttft_p99", "tpot_p99"]
    assert tuple(r["status"] for r in doc["requirements"]) == want, doc["metrics"]
    for r in doc["requirements"]:
        band = doc["bands"][r["metric"]]
        assert band["family"] == "serving-under-load" and band["load"]["bin"] == load_bin
        # unmeasured at this load (none, or fewer than MIN_BIN: near capacity under Poisson arrivals holds 2 since
        # newuser45), or unbounded
        if band["error"] is None or r["value"]["value"] is None:
            continue
        assert r["pessimistic"]["value"] == pytest.approx(r["value"]["value"] / (1 + band["error"]["low"]))


SWEEP = """kind: Sweep
id: qps
workload: llama70-mlperf-server
axes:
  arrival_rate: ["8 1/s", "30 1/s", "400 1/s"]
objectives:
  - {metric: tokens_per_second}
  - {metric: ttft_p99}
"""


def test_a_sweep_over_the_arrival_rate_finds_the_load_that_meets_the_limits(tmp_path):
    """The `arrival_rate` axis: the highest load whose TTFT and TPOT p99 meet llama2-70b-interactive's limits
    (a point is one estimate: one simulated run of a replica)."""
    from archgen.perf.explore.points import evaluate

    shutil.copytree(SPECS, tmp_path / "specs")
    reqs = [r.model_dump(mode="json", exclude_defaults=True) for r in server_requirements("llama2-70b-interactive")]
    (tmp_path / "specs" / "workloads" / "mlperf.yaml").write_text(
        WORKLOAD.format(rate="8 1/s", reqs=json.dumps(reqs)), encoding="utf-8")
    (tmp_path / "sweep.yaml").write_text(SWEEP, encoding="utf-8")
    problem = sweep_problems_of(tmp_path / "sweep.yaml", [tmp_path / "specs"])[0]
    rows = evaluate(problem, 0, problem.size)
    assert [r.feasible for r in rows] == [True, True, False]
    ttft = [r.metrics["ttft_p99"] for r in rows]
    assert ttft[0] < ttft[1] < ttft[2]


def test_a_stated_batcher_reaches_the_estimate(tmp_path):
    """`inference.batcher` (AMD's MLPerf v4.1 harness: groups of up to 96 queries, or what gathered 0.3 s after the
    previous group) delays each query until its group leaves and prefills it with the group's others: at 8
    queries/s about 2.4 gather per 0.3 s (the loop checks as each query arrives, ~0.125 s apart), so a query waits
    about 0.2 s for its group and its 2,048-token prompt shares an iteration with ~1.4 others: its first token
    comes 0.15-0.6 s later than without the batcher, and the estimate says why."""
    shutil.copytree(SPECS, tmp_path / "specs")
    docs = {}
    for name, extra in (("plain", ""), ("batched", ", batcher: {size: 96, timeout: 0.3 s}")):
        (tmp_path / "specs" / "workloads" / "mlperf.yaml").write_text(
            WORKLOAD.format(rate="8 1/s" + extra, reqs="[]"), encoding="utf-8")
        docs[name] = json.loads(run_cli("estimate", "--workload", "llama70-mlperf-server", "--format", "json",
                                        "--path", str(tmp_path / "specs")).out)
    wait = docs["batched"]["metrics"]["ttft"]["value"] - docs["plain"]["metrics"]["ttft"]["value"]
    assert docs["plain"]["metrics"]["ttft"]["unit"] == "s"
    assert 0.15 < wait < 0.6, wait
    assert any("batcher: 96 queries or 0.3 s" in n for n in docs["batched"]["notes"])
