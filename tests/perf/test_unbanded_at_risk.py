"""A requirement met on an estimated figure with no measured band is at risk, not a plain pass (issue 20 part 7).

newuser33's finding 1: MoE serving-under-load latency bands exist only at light load (three MLPerf v5.1
DeepSeek-R1 Server rows, tests/perf/data/mlperf-inference-v5-deepseek.yaml), so the B200 DeepSeek-R1 job at
20 queries/s, 4 x the 5.02/s the real run sustained (closed/NVIDIA/results/.../deepseek-r1/Server, mlcommons/
inference_results_v5.1@965182b0), had no band and MLPerf's limits (TTFT p99 2 s, TPOT p99 80 ms, loadgen/mlperf.conf)
read met with no finding: more load gave fewer warnings. The lead's decision: met on a figure no published run bounds
is at risk (REQ004), with the reason, in `estimate`, `check` and sweeps alike. The job runs at 15/s since serve30:
at 20/s the replica no longer keeps up under Poisson arrivals (TTFT p99 41.7 s), each lone prompt's attention-side
GEMMs now on its own rank (`chunks.busiest_tokens`), so the limits were no longer met at the estimate.
"""

from __future__ import annotations

import json

from archgen.model.at_risk import UNBANDED
from tests.conftest import SPECS, run_cli
from tests.perf.test_mlperf_v5_deepseek import DSR1_B200_SERVER

AT_15 = DSR1_B200_SERVER.replace("arrival_rate: 5.02 1/s", "arrival_rate: 15 1/s")
SWEEP = """
kind: Sweep
id: dsr1-rate-15
workload: dsr1-mlperf-server
axes:
  arrival_rate: ["15 1/s"]
objectives:
  - {metric: tpot_p99}
requirements:
  - {id: REQ-SWP-TPOT, statement: MLPerf deepseek-r1 TPOT p99, metric: tpot_p99, target: "<= 80 ms"}
"""


def test_limits_met_where_no_band_was_measured_are_at_risk_with_the_reason(spec_tree):
    """At 15/s both latencies have no band (not the light bin's three rows); they meet the limits at the estimate,
    so each is at risk with `UNBANDED` as its reason, and `check` reports REQ004 for both (before: met, no finding)."""
    specs = spec_tree({"workloads/dsr1.yaml": AT_15})
    doc = json.loads(run_cli("estimate", "--workload", "dsr1-mlperf-server", "--format", "json", "--path",
                             str(SPECS), "--path", str(specs)).out)
    for metric in ("ttft_p99", "tpot_p99"):
        assert doc["bands"][metric]["error"] is None, metric   # no measured band at this load
    reqs = {r["id"]: r for r in doc["requirements"]}
    for rid, limit in {"REQ-DSR1-TTFT": 2.0, "REQ-DSR1-TPOT": 0.080}.items():
        r = reqs[rid]
        assert r["value"]["value"] <= limit, rid            # met at the estimate
        assert (r["status"], r["pessimistic"]) == ("at risk", None), rid
    text = run_cli("estimate", "--workload", "dsr1-mlperf-server", "--path", str(SPECS), "--path", str(specs)).out
    line = next(ln for ln in text.splitlines() if "REQ-DSR1-TPOT: tpot_p99 <= 80 ms: at risk (" in ln)
    assert f"({UNBANDED}: no band" in line, line   # after the assumed inputs it rests on, as check says (nu99fix)
    check = run_cli("check", str(SPECS), str(specs)).out
    for rid in ("REQ-DSR1-TTFT", "REQ-DSR1-TPOT"):
        line = next(ln for ln in check.splitlines() if f"REQ004 workload/dsr1-mlperf-server: {rid}" in ln)
        assert UNBANDED in line, line


def test_a_sweep_point_with_no_band_is_at_risk(spec_tree, tmp_path):
    """The same job as a sweep point at 15/s: the workload's limits and the sweep's own TPOT p99 target are at risk
    there, as `estimate` and `check` judge them (before: met in every column)."""
    specs = spec_tree({"workloads/dsr1.yaml": AT_15, "sweeps/dsr1.yaml": SWEEP})
    out = run_cli("sweep", str(specs / "sweeps" / "dsr1.yaml"), "--path", str(SPECS), "--path", str(specs), "--out",
                  str(tmp_path / "o"), "--format", "json").out
    (doc,) = json.loads(out)["sweeps"]
    (point,) = doc["front"]
    assert set(point["at_risk"]) == {"REQ-DSR1-TTFT", "REQ-DSR1-TPOT", "REQ-SWP-TPOT"}
    assert all(point["requirements"][r] for r in point["at_risk"])   # at risk passes: the point stays feasible
