"""A SHALL on goodput or cost that no point of a sweep can compute is refused before any point runs (SWP001).

The shipped MI355X cluster gives no checkpoint `storage:` (REL006) and has unpriced parts (COST002), so no point of
its training job has a goodput or a cost per token. A workload SHALL on either used to run every point and find none
feasible ("not met" or "not provided" at each); the sweep's own requirement on them was already refused. The
workload's (and a `Requirements` document's on it) now takes the same rule as a figure no point computes
(`checks.sweep.unanswerable`, `analyse.sweep_inputs.missing`): refused at its line, naming the requirement, what is
missing and how to give it; SWP001 in `check`. A SHALL that some cluster or chip of the sweep can give is still judged
point by point.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import SPECS

MI355X = "llama3-70b-pretrain-mi355x"
JOB = "  global_batch: 512\n  precision: bf16\n---\nkind: Workload\nid: allreduce-mi355x-th5"
SWEEP = ("kind: Sweep\nid: m\nworkload: llama3-70b-pretrain-mi355x\naxes:\n  accelerators: [256, 512]\n"
         "objectives:\n  - {metric: tokens_per_second}\n")
B200_SWEEP = ("kind: Sweep\nid: b\nworkload: llama3-70b-pretrain-b200\naxes:\n  accelerator: [gb300]\n"
              "  accelerators: [512]\nobjectives:\n  - {metric: tokens_per_second}\n")
THROUGHPUT = '  - {id: REQ-PERF-002, statement: Training throughput, metric: tokens_per_second, target: ">= 600000 tokens/s"}\n'


def _specs(tmp_path: Path, requirement: str, b200: bool = False) -> Path:
    """The shipped specs (the catalog read from the repository) with `requirement` on the MI355X training job, or on
    the B200 one with `b200`."""
    root = tmp_path / "specs"
    shutil.copytree(SPECS, root, ignore=shutil.ignore_patterns("catalog"))
    if b200:
        path, old, new = root / "workloads" / "llama3-70b.yaml", THROUGHPUT, THROUGHPUT + f"  - {requirement}\n"
    else:
        path, old = root / "clusters" / "mi355x-th5.yaml", JOB
        new = JOB.replace("bf16\n", f"bf16\nrequirements:\n  - {requirement}\n", 1)
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return root


def _sweep(tmp_path: Path, text: str = SWEEP) -> Path:
    path = tmp_path / "sweep.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _swp001(cli, specs: Path, sweep: Path, sweep_id: str) -> list[tuple[str, int, str]]:
    checked = json.loads(cli("check", specs, sweep, "--format", "json").out)
    return [(Path(f["file"]).name, f["line"], f["message"]) for f in checked["findings"]
            if f["id"] == "SWP001" and f["object"] == f"sweep/{sweep_id}"]


@pytest.mark.parametrize("metric, target, missing", [
    ("goodput", ">= 0.9", "cluster 'mi355x-th5' gives no checkpoint `storage:` (REL006); so no point"),
    ("mtti", ">= 10 h", "cluster 'mi355x-th5' gives no checkpoint `storage:` (REL006); so no point"),
    ("cost_per_token", "<= 1 uUSD", "cluster 'mi355x-th5' gives no checkpoint `storage:` (REL006); mi355x-th5's "
                                    "capex rests on unpriced parts (mi355x-compute x16, mi355x-network x2, "
                                    "amd-mi355x-platform x64, arista-7060x6-64pe x12; COST002); so no point")])
def test_a_shall_no_point_can_compute_is_refused_at_its_line(tmp_path, cli, metric, target, missing):
    """Before: both points ran, 0 feasible, exit 1 ("REQ-X not met" with a NaN goodput, or "not provided: the point
    has no cost_per_token"). Now nothing runs; the error is at the requirement's line of the cluster file."""
    specs = _specs(tmp_path, f"{{id: REQ-X, statement: Target, metric: {metric}, target: '{target}'}}")
    r = cli("sweep", _sweep(tmp_path), "--path", specs, "--out", tmp_path / "o")
    assert r.code == 1 and "Traceback" not in r.err and not (tmp_path / "o" / "m").exists(), r.err
    want = (f"sweep 'm': workload '{MI355X}' requirement REQ-X (SHALL) targets '{metric}', which no point of the "
            f"sweep can compute: {missing} could meet it and none would be feasible (to judge it: give the cluster "
            "a checkpoint `storage:`")
    line = (specs / "clusters" / "mi355x-th5.yaml").read_text(encoding="utf-8").splitlines().index(
        f"  - {{id: REQ-X, statement: Target, metric: {metric}, target: '{target}'}}") + 1
    assert f"mi355x-th5.yaml:{line}:44: error: {want}" in r.err, r.err   # at the metric
    assert "or make it SHOULD or MAY, which the sweep reports as not provided; docs/sweeps.md)" in r.err
    found = _swp001(cli, specs, _sweep(tmp_path), "m")
    assert [(f, n, m.startswith(want)) for f, n, m in found] == [("mi355x-th5.yaml", line, True)]


def test_at_should_it_is_reported_per_point(tmp_path, cli):
    """At SHOULD not provided is a warning in `check`: the sweep runs and both points stay feasible."""
    specs = _specs(tmp_path, "{id: REQ-X, statement: Target, metric: goodput, target: '>= 0.9', level: should}")
    r = cli("sweep", _sweep(tmp_path), "--path", specs, "--out", tmp_path / "o", "--format", "json")
    (doc,) = json.loads(r.out)["sweeps"]
    assert doc["summary"]["feasible"] == 2, r.err


def test_a_cost_shall_with_only_other_chips_on_the_accelerator_axis_is_refused(tmp_path, cli):
    """The gap sweepfix2 left: the cluster prices its own B200 systems, and an `accelerator` axis of GB300 only
    leaves no point priced. Before: the point ran, "not provided: ... prices its own 'b200-sxm-180gb' systems, not
    'gb300' ones", 0 feasible. With the cluster's own chip on the axis too it runs
    (tests/test_sweep_workload_requirements.py)."""
    specs = _specs(tmp_path, "{id: REQ-COST, statement: Cost, metric: cost_per_token, target: '<= 100 uUSD'}",
                   b200=True)
    r = cli("sweep", _sweep(tmp_path, B200_SWEEP), "--path", specs, "--out", tmp_path / "o")
    assert r.code == 1 and not (tmp_path / "o" / "b").exists()
    assert "llama3-70b.yaml:18:45: error: sweep 'b': workload 'llama3-70b-pretrain-b200' requirement REQ-COST " \
        "(SHALL) targets 'cost_per_token', which no point of the sweep can compute: the `accelerator` axis swaps " \
        "'gb300' for the 'b200-sxm-180gb' of cluster 'dgx-b200-superpod', whose prices are those of its own " \
        "systems; so no point could meet it" in r.err, r.err


@pytest.mark.parametrize("level", ["shall", "should"])
def test_a_cluster_of_the_sweep_without_storage_leaves_goodput_not_provided_not_missed(tmp_path, level):
    """A SHALL some cluster of the sweep can give is judged per point, not refused. On the cluster without storage
    the point's goodput is NaN, which was judged "not met" (no reason given; `check` says not provided, REQ002): it
    is now not provided, with the reason, on both sweep paths; at SHOULD the point stays feasible."""
    from archgen.commands.sweep import analyse
    from archgen.commands.sweep_problems import problems
    from archgen.perf.api import evaluate as batched
    from archgen.perf.explore.points import evaluate

    specs = _specs(tmp_path, f"{{id: REQ-GP, statement: Goodput, metric: goodput, target: '>= 0.9', level: {level}}}",
                   b200=True)
    text = B200_SWEEP.replace("id: b\n", "id: x\n").replace("accelerator: [gb300]", "cluster: [dgx-b200-superpod, "
                                                                                    "mi355x-th5]")
    analysed, sweeps = analyse(_sweep(tmp_path, text), [specs])
    (problem,) = problems(analysed.specs, analysed.clusters, sweeps)
    shall = level == "shall"
    for rows in (evaluate(problem, 0, problem.size), batched(problem, 0, problem.size)):
        assert [(r.cluster, r.met["REQ-GP"], r.feasible) for r in rows] == [
            ("dgx-b200-superpod", True, True), ("mi355x-th5", None, not shall)]
        assert rows[1].reason == ("REQ-GP (SHALL) not provided: the point has no goodput: its checkpoints have "
                                  "nowhere to go on its cluster (REL006 in `archgen check`)" if shall else "")
