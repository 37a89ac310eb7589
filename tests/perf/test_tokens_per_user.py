"""A serving job's interactivity, tokens per second per user: 1 / TPOT, with TPOT's band turned (nu52fix).

newuser52: `metric: tokens_per_second_per_user`, the per-user decode rate InferenceMAX plots as interactivity
(tok/s/user, `1000.0 / tpot_ms`: InferenceMAX/InferenceMAX utils/process_result.py at 19f43e0a87, line 42) and a
serving SLA states, was refused as an unknown metric ("did you mean 'tokens_per_second_per_gpu'?"); the user had to
write `tpot <= 1/x`. It is now a metric of every serving estimate, in the JSON with its unit, a requirement's and a
sweep's, and a requirement on it is judged as the same limit on TPOT is: met, at risk (REQ004) or not met alike.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archgen import metrics
from archgen.perf.explore.points import evaluate_point
from archgen.perf.serve.mlperf import SERVER_LATENCY_MS
from tests.conftest import SPECS, sweep_problem_written

#: Llama 3.1 70B FP8 at TP 8 on DGX B200, a closed loop of 256: a run near capacity, where the serving-under-load
#: family's closed-loop TPOT band has 5 measurements (expected coverage 67 %, `bands.LIKELY` 66 %).
WORKLOAD = """kind: Workload
id: l70-user
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 8
inference: {{tp: 8, precision: fp8, input_len: 2048, output_len: 128, scenario: concurrency, batch: 256}}
requirements:
{requirements}"""


def _estimate(cli, tmp_path: Path, requirements: str = "  []") -> dict:
    path = tmp_path / "l70-user.yaml"
    path.write_text(WORKLOAD.format(requirements=requirements), encoding="utf-8")
    r = cli("estimate", str(SPECS), str(path), "--workload", "l70-user", "--format", "json")
    assert r.code in (0, 1) and r.out, r.err   # 1: a requirement not met
    return json.loads(r.out)


def test_the_metric_is_declared_with_its_unit_and_direction() -> None:
    m = metrics.find("workload", "tokens_per_second_per_user")
    assert m is not None and m.maximise and m.jobs == ("inference",) and m.sweep
    assert m.dimension == "1/s" and m.rate_unit() == "tokens/s"
    assert metrics.unknown("tokens_per_second_per_user", ["workload"]) is None   # before: "unknown metric"


def test_it_is_one_over_tpot_and_its_band_is_tpots_turned(cli, tmp_path) -> None:
    est = _estimate(cli, tmp_path)
    tpot, user = est["metrics"]["tpot"], est["metrics"]["tokens_per_second_per_user"]
    assert user["unit"] == "1/s" and user["value"] == pytest.approx(1 / tpot["value"], rel=1e-12)
    b_tpot, b_user = est["bands"]["tpot"], est["bands"]["tokens_per_second_per_user"]
    assert b_user["measurements"] == b_tpot["measurements"] > 0
    assert b_user["low"]["value"] == pytest.approx(1 / b_tpot["high"]["value"], rel=1e-12)
    assert b_user["high"]["value"] == pytest.approx(1 / b_tpot["low"]["value"], rel=1e-12)


def test_a_requirement_on_it_is_judged_as_the_same_limit_on_tpot(cli, tmp_path) -> None:
    """Targets below the band, inside it and above the estimate: met, at risk and not met, as on TPOT."""
    first = _estimate(cli, tmp_path)
    user = first["metrics"]["tokens_per_second_per_user"]["value"]
    low, high = (first["bands"]["tokens_per_second_per_user"][end]["value"] for end in ("low", "high"))
    # the model over-predicted every closed-loop run near capacity until kvrule37 (high < user); under TensorRT-LLM's
    # KV rule NIM's rows above the cache's edge read TPOT +7 %, so the band now reaches past the estimate
    assert low < user < high
    rates = {"met": 0.9 * low, "at risk": (low + user) / 2, "not met": 1.1 * user}
    reqs = "".join(f"  - {{id: REQ-U-{k}, statement: u, metric: tokens_per_second_per_user, target: '>= {r!r} 1/s'}}\n"
                   f"  - {{id: REQ-T-{k}, statement: t, metric: tpot, target: '<= {1 / r!r} s'}}\n"
                   for k, r in enumerate(rates.values()))
    got = {r["id"]: r["status"] for r in _estimate(cli, tmp_path, reqs)["requirements"]}
    for k, status in enumerate(rates):
        assert got[f"REQ-U-{k}"] == got[f"REQ-T-{k}"] == status


def test_mlperf_interactive_tpot_limit_reads_as_a_per_user_rate() -> None:
    # llama2-70b-interactive: TPOT p99 within 40 ms (mlcommons/inference loadgen/mlperf.conf), 25 tokens/s per user
    assert 1 / (SERVER_LATENCY_MS["llama2-70b-interactive"][1] / 1e3) == pytest.approx(25.0)


def test_a_sweep_ranks_and_judges_on_it(tmp_path) -> None:
    (tmp_path / "l70-user.yaml").write_text(WORKLOAD.format(requirements="  []"), encoding="utf-8")
    p = sweep_problem_written(tmp_path, "kind: Sweep\nid: u\nworkload: l70-user\naxes:\n  batch: [256]\n"
                              "objectives: [{metric: tokens_per_second_per_user}]\nrequirements:\n"
                              "  - {id: REQ-S-1, statement: u, metric: tokens_per_second_per_user, target: '>= 1 1/s'}\n")
    row = evaluate_point(p, 0)
    assert row.metrics["tokens_per_second_per_user"] == pytest.approx(1 / row.metrics["tpot"], rel=1e-12)
    assert row.met["REQ-S-1"] is True and not row.at_risk
