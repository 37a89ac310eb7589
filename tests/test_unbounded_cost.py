"""A job whose pessimistic goodput is 0 has a cost per token with no upper bound, said so, and a cost target at risk.

The input that showed it: the shipped Llama 3.1 70B job on 512 DGX B200 GPUs with its checkpoint storage at
1.2 MB/s of writes (a 1 TB checkpoint takes about ten days): goodput 0.034, its range 0 to 0.246. `cost_ends` dropped
both ends of the cost range where goodput's low end makes no tokens, so `check` gave a cost per token of 6.8 µUSD
with no range and judged `cost_per_token <= 10 uUSD` met, where the pessimistic end makes no token at any price.
"""

from __future__ import annotations

import contextlib
import json
import math
import shutil
from pathlib import Path

import pytest

from tests.conftest import SPECS, sweep_problems_of

JOB = "workload/llama3-70b-pretrain-b200"
COST = "  - {id: REQ-COST-9, statement: Cost per token, metric: cost_per_token, target: \"<= 10 uUSD\"}\n"


def slow_storage(root: Path) -> Path:
    """The shipped specs with the DGX B200 SuperPOD's checkpoint writes at 1.2 MB/s and a cost target on the job."""
    specs = root / "specs"
    shutil.copytree(SPECS, specs, ignore=shutil.ignore_patterns("catalog"))
    cluster = specs / "clusters" / "dgx-b200-superpod.yaml"
    cluster.write_text(cluster.read_text(encoding="utf-8").replace("write_bandwidth: 200 GB/s",
                                                                   "write_bandwidth: 1.2 MB/s"), encoding="utf-8")
    work = specs / "workloads" / "llama3-70b.yaml"
    text = work.read_text(encoding="utf-8")
    anchor = "target: \">= 600000 tokens/s\"}\n"
    assert anchor in text
    work.write_text(text.replace(anchor, anchor + COST, 1), encoding="utf-8")
    return specs


@pytest.fixture(scope="module")
def slow(tmp_path_factory):
    """`check` of the slow-storage specs, run from their root."""
    from archgen.pipeline import run

    root = tmp_path_factory.mktemp("slow")
    slow_storage(root)
    with contextlib.chdir(root):
        return run([Path("specs")])


def test_the_cost_range_has_no_upper_bound_where_goodputs_low_end_is_0(slow):
    m = slow.workloads[JOB].estimate.metrics
    assert m["goodput_low"].m == 0 < m["goodput"].m
    assert m["cost_per_token_high"].m == math.inf and math.isfinite(m["cost_per_token_low"].m)
    assert m["cost_per_token_low"] < m["cost_per_token"]


def test_a_cost_requirement_with_an_unbounded_high_end_is_at_risk(slow):
    status = {j.bound.req.id: j.outcome.status.value for j in slow.requirements}
    assert status["REQ-COST-9"] == "at risk"
    (finding,) = [f for f in slow.findings if f.id == "REQ004" and f.requirement == "REQ-COST-9"]
    assert "no upper bound: goodput's low end is 0" in finding.message, finding.message


def test_check_json_says_the_high_end_is_unbounded(tmp_path):
    """JSON has no number for it: null, with the reason, never a bare null that reads as not provided."""
    from tests.conftest import run_cli

    slow_storage(tmp_path)
    with contextlib.chdir(tmp_path):
        r = run_cli("check", "specs", "--format", "json")
    doc = json.loads(r.out)
    high = doc["metrics"][JOB]["cost_per_token_high"]
    assert high == {"value": None, "unit": "USD", "unbounded": "no upper bound: goodput's low end is 0"}
    (finding,) = [f for f in doc["findings"] if f["id"] == "REQ004" and f["requirement"] == "REQ-COST-9"]
    assert finding["value"]["unbounded"] and "no upper bound" in finding["message"]


SWEEP = """kind: Sweep
id: ub
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [512]
objectives:
  - {metric: tokens_per_second}
  - {metric: cost_per_token}
requirements:
  - {id: REQ-SWP-C, statement: Cost, metric: cost_per_token, target: "<= 10 uUSD"}
"""


def test_a_sweep_point_has_the_same_unbounded_end_and_judges_the_cost_at_risk(tmp_path):
    """A sweep point (one at a time and batched) carries the infinite end; its cost requirements, the sweep's and the
    workload's, are at risk (met at the value); the CSV, the document's tables and the JSON say "no upper bound"."""
    from archgen.perf.explore.points import evaluate_point
    from archgen.perf.explore.vectorised import evaluate as batched
    from tests.conftest import run_cli

    slow_storage(tmp_path)
    (tmp_path / "sweep.yaml").write_text(SWEEP, encoding="utf-8")
    with contextlib.chdir(tmp_path):
        problem = sweep_problems_of(Path("sweep.yaml"), [Path("specs")])[0]
        for row in (evaluate_point(problem, 0), *batched(problem, 0, 1)):
            assert row.metrics["cost_per_token_high"] == math.inf and row.feasible
            assert row.at_risk == ("REQ-COST-9", "REQ-SWP-C") and row.met["REQ-SWP-C"] is True
        r = run_cli("sweep", "sweep.yaml", "--path", "specs", "--out", "out", "--formats", "md,csv", "--format",
                    "json")
        csv = (tmp_path / "out" / "ub" / "points.csv").read_text(encoding="utf-8")
        md = (tmp_path / "out" / "ub" / "ub.md").read_text(encoding="utf-8")
    assert r.code == 0, r.err
    (front,) = json.loads(r.out)["sweeps"][0]["front"]
    assert front["metrics"]["cost_per_token_high"]["unbounded"] == "no upper bound: goodput's low end is 0"
    assert ",no upper bound: goodput's low end is 0," in csv and "| no upper bound: goodput's low end is 0 |" in md


def test_diff_to_an_unbounded_end_says_so(tmp_path):
    """`archgen diff` of the shipped specs against the slow storage raised OverflowError on the infinite change."""
    from tests.conftest import run_cli

    slow_storage(tmp_path)
    r = run_cli("diff", SPECS, tmp_path / "specs")
    assert r.code == 0, r.err
    row = next(line for line in r.out.splitlines() if "| cost\\_per\\_token\\_high |" in line)
    # 0.2535 µUSD before rope40 charged Llama 3.1's rotary embedding; 0.2627 µUSD while the nemo-2025 profile reduced
    # gradients in fp32 (before gradreduce)
    # diffhonest41: BASE's end with the model's band on it; HEAD's, unbounded, has no number to band; worse, as the
    # cost per token it bounds reads (newuser107: "—" before, the ends had no direction of their own)
    assert row.endswith("| 0.2542 µUSD (band 0.2287 to 0.4085 µUSD) | no upper bound: goodput's low end is 0 | — | — "
                        "| worse ▲ |"), row


def test_gap_shows_the_unbounded_end_not_a_dash(tmp_path):
    """`gap` of a requirement on the high end itself: not met, shown unbounded (was "— µUSD" and "-inf %")."""
    from tests.conftest import run_cli

    slow_storage(tmp_path)
    (tmp_path / "req").mkdir()
    (tmp_path / "req" / "r.yaml").write_text(
        "kind: Requirements\nid: rq\nrequirements:\n  - {id: REQ-G-1, statement: Dearest token, subject: "
        f"'{JOB}', metric: cost_per_token_high, target: '<= 1 uUSD'}}\n", encoding="utf-8")
    with contextlib.chdir(tmp_path):
        r = run_cli("gap", "specs", "--against", "req")
    assert r.code == 1, r.err
    row = next(line for line in r.out.splitlines() if line.startswith("| REQ-G-1 |"))
    assert row.endswith("| \\<= 1 µUSD | no upper bound: goodput's low end is 0 | ❌ not met | — |"), row
