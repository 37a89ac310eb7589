"""The batched sweep path and the per-point path give the same rows on every shipped sweep and every shipped cluster.

A drift test (issue 25, sweepspeed3): `archgen sweep` takes the batched path (`perf.explore.vectorised`) for training
points, which re-derives, on arrays, what `perf.explore.points.evaluate_point` (the reference: one `estimate` per
point) does; a change to the model or to what a sweep point adds (power, price, the vendor's stack, a second hop) that
reaches one path and not the other moves the sweep's rows and nothing else would say so. The comparison is exact,
every field of every row to the last bit (`test_batch.same`): both paths call the same model functions on the same
numbers, and the batch reduces in the order the per-point path does (`perf.train.fast`), so no tolerance is needed
and none is granted.

The sweeps are found, not listed: every `kind: Sweep` file under `specs/` and `examples/`, so that a sweep shipped
later is compared too; the clusters likewise, each with a generated sweep of job size, precision and hardware factors
on a training job of the catalog's Llama 3.1 70B. Samples keep the per-point path (some 20 ms a searched point) to a
few seconds: every point of a sweep of up to `WHOLE` points, else every level of every axis.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from archgen.perf.explore import vectorised as batch
from archgen.perf.explore.points import evaluate_point
from archgen.perf.explore.problem import SweepProblem
from tests.conftest import REPO, SPECS, sweep_problems_of
from tests.perf.test_batch import same

#: Sweeps of at most this many points are compared point for point, larger ones on a sample (`sample`).
WHOLE = 64
#: The spec trees shipped: the specs and each example, each loaded on its own (with the catalog) as the docs run them.
TREES = [SPECS, *sorted(p for p in (REPO / "examples").iterdir() if p.is_dir())]


def _of_kind(tree: Path, kind: str) -> list[Path]:
    """The spec files under `tree` holding a document of `kind` (the catalog excluded: it ships no clusters, sweeps)."""
    line = re.compile(rf"^kind:\s*{kind}\s*$", re.MULTILINE)
    return sorted(p for p in tree.rglob("*.y*ml") if "catalog" not in p.relative_to(tree).parts
                  and line.search(p.read_text(encoding="utf-8")))


def sample(p: SweepProblem) -> list[int]:
    """Every point of a small sweep; of a larger one, a stride through it and a point at every level of every axis."""
    if p.size <= WHOLE:
        return list(range(p.size))
    picked = set(range(0, p.size, p.size // WHOLE))
    stride = 1
    for name in reversed(list(p.axes)):   # the last axis varies fastest (`SweepProblem.point`)
        picked |= {level * stride for level in range(len(p.axes[name]))}
        stride *= len(p.axes[name])
    return sorted(picked)


def _compare(p: SweepProblem) -> set[str]:
    """Batched rows against per-point rows at the sample's points; the statuses met."""
    fast = batch.evaluate(p, 0, p.size)
    assert [r.index for r in fast] == list(range(p.size))
    seen = set()
    for i in sample(p):
        ref = evaluate_point(p, i)
        same(fast[i], ref)
        seen.add(ref.status)
    return seen


SWEEPS = [f for tree in TREES for f in _of_kind(tree, "Sweep")]


def test_the_shipped_sweeps_are_found():
    assert SPECS / "sweeps" / "llama3-70b.yaml" in SWEEPS


@pytest.mark.parametrize("path", SWEEPS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_shipped_sweep_batched_is_the_per_point_rows(path):
    tree = next(t for t in TREES if t in path.parents)
    problems = sweep_problems_of(path, [tree])
    assert problems
    for p in problems:
        assert "ok" in _compare(p), p.sweep.id   # a sweep whose points all fail compares little


#: A training job for each shipped cluster, and a sweep on it: two job sizes, both data types a B200 trains in (a TPU
#: v4 has no FP8: those points are invalid, on both paths) and the chip's and fabric's figures scaled.
JOB = """kind: Workload
id: drift
model: llama3-70b
cluster: {cluster}
accelerators: 64
training: {{seq_len: 4096, global_batch: 256, precision: bf16}}
requirements:
  - {{id: REQ-DRIFT-001, statement: Throughput, metric: tokens_per_second, target: ">= 100000 tokens/s"}}
---
kind: Sweep
id: drift-sweep
workload: drift
axes:
  accelerators: [64, 128]
  precision: [bf16, fp8]
  hbm_bandwidth: [1, 1.5]
  scale_out_bandwidth: [0.5, 1]
objectives: [{{metric: tokens_per_second}}, {{metric: energy_per_token}}]
"""
CLUSTERS = [(tree, re.search(r"^id:\s*(\S+)", f.read_text(encoding="utf-8"), re.MULTILINE).group(1))  # type: ignore
            for tree in TREES for f in _of_kind(tree, "Cluster")]


def test_the_shipped_clusters_are_found():
    ids = {c for _, c in CLUSTERS}
    assert {"dgx-b200-superpod", "gb200-nvl72-su", "tpu-v4-pod", "mi355x-th5", "gb300-nvl72-su"} <= ids


@pytest.mark.parametrize(("tree", "cluster"), CLUSTERS, ids=[c for _, c in CLUSTERS])
def test_every_shipped_cluster_batched_is_the_per_point_rows(tmp_path, tree, cluster):
    path = tmp_path / "drift.yaml"
    path.write_text(JOB.format(cluster=cluster), encoding="utf-8")
    (p,) = sweep_problems_of(path, [tree, tmp_path])
    assert p.size == 16
    assert "ok" in _compare(p)
