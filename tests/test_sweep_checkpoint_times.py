"""A sweep's training points have the checkpoint write and restore times `check` gives (storage2, item 1).

A storage architect's workload states a SHALL on `checkpoint_write_time`; `archgen sweep` refused it (SWP001: "a
sweep does not compute"), so a checkpoint-time target could not be swept. A point now has both times, from the same
`job_goodput` the REL stage runs (the job's ports on the storage fabric at the point's accelerator count), judged as
a goodput requirement is; a cluster without checkpoint storage still refuses it, naming what is missing.
"""

from __future__ import annotations

import json

import pytest

from archgen.model.sweep import JOB_METRICS
from tests.test_sweep_workload_requirements import SWEEP, _specs, _sweep

WORKLOAD = "llama3-70b-pretrain-b200"


def _check_metrics(cli, specs) -> dict[str, float]:
    """The workload's checkpoint times as `archgen check` gives them (its own 512 accelerators), in seconds."""
    r = cli("check", specs, "--format", "json")
    m = json.loads(r.out)["metrics"][f"workload/{WORKLOAD}"]
    return {k: m[k]["value"] for k in ("checkpoint_write_time", "checkpoint_restore_time")}


def test_training_points_have_the_checkpoint_times_check_gives():
    """Both are sweep metrics of a training job (the registry's `sweep` flag), and no others' figures came with."""
    assert {"checkpoint_write_time", "checkpoint_restore_time"} <= set(JOB_METRICS["training"])
    assert "checkpoint_write_time" not in JOB_METRICS["inference"]


@pytest.mark.parametrize("target, feasible", [("<= 60 s", 2), ("<= 1 s", 0)])
def test_a_workload_shall_on_checkpoint_write_time_is_judged_at_every_point(tmp_path, cli, target, feasible):
    """Before: refused, "targets 'checkpoint_write_time', which a sweep does not compute", exit 1, no point ran.
    Now each point is judged on its own write time: the 512-accelerator point's is `check`'s for the workload
    (which runs on 512), a target above it is met at both points and one under it at none."""
    specs = _specs(tmp_path, f"{{id: REQ-X, statement: Checkpoint write, metric: checkpoint_write_time, "
                             f"target: '{target}'}}")
    r = cli("sweep", _sweep(tmp_path), "--path", specs, "--out", tmp_path / "o", "--format", "json")
    assert "Traceback" not in r.err and "does not compute" not in r.err, r.err
    assert r.code == (0 if feasible else 1), r.err
    (doc,) = json.loads(r.out)["sweeps"]
    assert doc["summary"]["points"] == 2 and doc["summary"]["feasible"] == feasible
    if feasible:
        want = _check_metrics(cli, specs)
        (p,) = [p for p in doc["front"] if p["axes"]["accelerators"] == 512]
        got = {k: p["metrics"][k]["value"] for k in want}
        assert got == pytest.approx(want, rel=1e-9)
        assert p["requirements"]["REQ-X"] is True
    else:
        assert any("REQ-X" in x["reason"] for x in doc["reasons"]), doc["reasons"]


def _without_storage(specs) -> None:
    """The shipped B200 SuperPOD without its checkpoint `storage:` (two lines of its file)."""
    path = specs / "clusters" / "dgx-b200-superpod.yaml"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("storage:"))
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith(" "))
    path.write_text("".join(lines[:start] + lines[end:]), encoding="utf-8")


@pytest.mark.parametrize("level, at", [("shall", "llama3-70b.yaml:18:"), ("should", "sweep.yaml:8:14:")])
def test_restore_time_without_checkpoint_storage_is_refused(tmp_path, cli, level, at):
    """A cluster with nowhere to write checkpoints has no such time. A workload SHALL on it is refused at its line
    (SWP001's "no point of the sweep can compute", with REL006's reason); at SHOULD, the sweep's objective on it is
    refused at the objective's line, naming checkpoint storage (not goodput, which it is not)."""
    specs = _specs(tmp_path, "{id: REQ-X, statement: Restore, metric: checkpoint_restore_time, "
                             f"target: '<= 60 s', level: {level}}}")
    _without_storage(specs)
    r = cli("sweep", _sweep(tmp_path, SWEEP + "  - {metric: checkpoint_restore_time}\n"), "--path", specs,
            "--out", tmp_path / "o")
    assert r.code in (1, 2) and "Traceback" not in r.err, r.err
    assert at in r.err and "checkpoint_restore_time" in r.err and "REL006" in r.err, r.err
    if level == "shall":
        assert "which no point of the sweep can compute: cluster 'dgx-b200-superpod' gives no checkpoint " \
            "`storage:` (REL006)" in r.err, r.err
    else:
        assert "needs the training job's checkpoint storage, and" in r.err, r.err
