"""A workload's own requirements in a sweep: on a metric no point computes, and on cost at a swapped chip.

A PoC planner sweeps the workload they already `check`: its requirements are judged at every point beside the
sweep's own. A SHALL on a figure only `check`'s operations stage gives (`checkpoint_blocking_time`; `mtti` and `checkpoint_write_time` until
issue 22, `time_to_train` until newuser38: tests/test_sweep_time_to_train.py) was not provided at
every point, so the sweep ran every point and found none feasible; it is now refused before any point runs, at the
requirement's line, naming what a point does compute. The cluster's prices are its own systems': the sweep's own
requirement on cost beside another chip is refused at the axis value, and the workload's is not provided at that
chip's points (docs/sweeps.md says both).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from archgen.model.sweep import JOB_METRICS
from tests.conftest import SPECS

WORKLOAD = "llama3-70b-pretrain-b200"
THROUGHPUT = '  - {id: REQ-PERF-002, statement: Training throughput, metric: tokens_per_second, target: ">= 600000 tokens/s"}\n'
SWEEP = ("kind: Sweep\nid: t\nworkload: llama3-70b-pretrain-b200\naxes:\n  accelerators: [256, 512]\n"
         "objectives:\n  - {metric: tokens_per_second}\n")


def _specs(tmp_path: Path, requirement: str) -> Path:
    """The shipped specs with `requirement` added to the 70B B200 training workload's, after its last one.

    The catalog stays the shipped one (a copy of it would be judged as the user's own parts, by the hall's
    requirements too).
    """
    root = tmp_path / "specs"
    shutil.copytree(SPECS, root, ignore=shutil.ignore_patterns("catalog"))
    path = root / "workloads" / "llama3-70b.yaml"
    text = path.read_text(encoding="utf-8")
    assert THROUGHPUT in text
    path.write_text(text.replace(THROUGHPUT, THROUGHPUT + f"  - {requirement}\n", 1), encoding="utf-8")
    return root


def _sweep(tmp_path: Path, text: str = SWEEP) -> Path:
    path = tmp_path / "sweep.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("metric, target", [("checkpoint_blocking_time", "<= 60 s")])
def test_a_workload_shall_on_a_metric_no_point_computes_is_refused_at_its_line(tmp_path, cli, metric, target):
    """Before: every point ran, each "not provided: a sweep does not compute mtti" (mtti is now
    a sweep metric: tests/test_sweep_checkpoint_interval.py), 0 feasible, exit 1. Now the
    sweep stops before any point runs, at the workload requirement's line (line 18 of the workload file), with
    what a training point computes; `archgen check` reports the same as SWP001, at the same line."""
    specs = _specs(tmp_path, f"{{id: REQ-X, statement: Uninterrupted, metric: {metric}, target: '{target}'}}")
    r = cli("sweep", _sweep(tmp_path), "--path", specs, "--out", tmp_path / "o")
    assert r.code == 1 and "Traceback" not in r.err, r.err
    want = (f"llama3-70b.yaml:18:51: error: sweep 't': workload '{WORKLOAD}' requirement REQ-X (SHALL) targets "
            f"'{metric}', which a sweep does not compute, so no point could meet it and none would be feasible; a "
            f"training point has {', '.join(JOB_METRICS['training'])}")
    assert want in r.err, r.err
    assert not (tmp_path / "o" / "t").exists()    # no point ran, nothing written
    checked = cli("check", specs, _sweep(tmp_path), "--format", "json")
    swp = [f for f in json.loads(checked.out)["findings"] if f["id"] == "SWP001" and f["object"] == "sweep/t"]
    assert [(f["file"].endswith("llama3-70b.yaml"), f["line"], f["severity"]) for f in swp] == [(True, 18, "error")]
    assert swp[0]["message"].startswith(want.split("error: ")[1])


def test_the_same_requirement_at_should_is_reported_not_refused(tmp_path, cli):
    """At SHOULD a requirement not provided is a warning in `check`: the sweep runs, reports it, keeps the points."""
    specs = _specs(tmp_path, "{id: REQ-X, statement: Uninterrupted, metric: spares, target: '<= 10', level: should}")
    r = cli("sweep", _sweep(tmp_path), "--path", specs, "--out", tmp_path / "o", "--format", "json")
    assert r.code == 0, r.err
    (doc,) = json.loads(r.out)["sweeps"]
    assert doc["summary"]["feasible"] == 2 and all(p["requirements"]["REQ-X"] is None for p in doc["front"])


def test_a_workload_cost_requirement_is_not_provided_at_a_swapped_chips_points(tmp_path, cli):
    """The sweep's own cost requirement beside another chip is refused at the axis value (test_sweep's
    test_a_swapped_chip_is_not_priced_at_the_clusters_prices); the workload's own, written for its cluster, is judged
    at the cluster's own chip and not provided at the other's: at SHALL those points are not feasible, with the
    reason, and the own chip's points stay feasible."""
    specs = _specs(tmp_path, "{id: REQ-COST, statement: Cost, metric: cost_per_token, target: '<= 100 uUSD'}")
    text = SWEEP.replace("accelerators: [256, 512]", "accelerator: [b200-sxm-180gb, gb300]\n  accelerators: [512]")
    r = cli("sweep", _sweep(tmp_path, text), "--path", specs, "--out", tmp_path / "o", "--format", "json")
    assert r.code == 0, r.err
    (doc,) = json.loads(r.out)["sweeps"]
    assert doc["summary"]["feasible"] == 1
    assert [p["axes"]["accelerator"] for p in doc["front"]] == ["b200-sxm-180gb"]
    assert doc["front"][0]["requirements"]["REQ-COST"] is True
    assert [(x["status"], x["points"], x["reason"]) for x in doc["reasons"]] == [
        ("ok", 1, "REQ-COST (SHALL) not provided: the point has no cost_per_token: cluster 'dgx-b200-superpod' "
                  "prices its own 'b200-sxm-180gb' systems, not 'gb300' ones")]
    refused = text + "requirements:\n  - {id: REQ-S-COST, statement: Cost, metric: cost_per_token, target: '<= 1 uUSD'}\n"
    r = cli("sweep", _sweep(tmp_path, refused), "--path", specs, "--out", tmp_path / "o")
    assert r.code == 2 and "sweep.yaml:5:33: error: sweep 't': requirement 'REQ-S-COST' on 'cost_per_token' needs " \
        "prices, and cluster 'dgx-b200-superpod' prices its own 'b200-sxm-180gb' systems, not 'gb300' ones" in r.err, r.err
