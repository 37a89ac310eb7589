"""The rows of a batch of sweep points: the sweep's own metrics, the requirements judged on arrays, feasibility.

`perf.explore.vectorised` times a layout set's points (the training metrics of each, as arrays); `finish` turns them
into the `PointRow`s `perf.explore.points.evaluate_point` returns, point for point: power, energy per token, goodput and
cost per token from `perf.workload.derived` as on the per-point path, and each requirement judged by
`model.requirements.judge_each`, the array form of the one judgement (a sweep's own with its range and the one "at
risk" rule, `perf.workload.derived.judge_points`, as on the per-point path).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from archgen import metrics as registry
from archgen.model.requirements import PASSING, Requirement, Status, judge_each
from archgen.model.sweep import SWEEP_METRICS
from archgen.perf.explore.points import (
    PointRow,
    SweepProblem,
    feasibility,
    on_estimate,
    on_point,
    provides,
    requirements,
    unpriced,
)
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.train.goodput import PointGoodput, unblocked_of
from archgen.perf.workload.cluster import Machine
from archgen.perf.workload.derived import (
    band_factors,
    judge_points,
    judged,
    point_metrics,
    risky_points,
    unsettled_at,
)
from archgen.perf.workload.estimate import family
from archgen.quantity_json import json_unit
from archgen.units import Q_

#: The training metrics a batch computes for each point, with the unit of their dimension (the registry's).
UNITS: dict[str, str] = {name: (m.dimension if (m := registry.find("workload", name)) else "") or "dimensionless"
                         for name in ("step_time", "tokens_per_second", "tokens_per_second_per_gpu",
                                      "tflops_per_gpu", "mfu", "memory_per_gpu", "memory_headroom")}


@dataclass(frozen=True)
class PointSet:
    """The points of one layout set and what they share."""

    problem: SweepProblem
    indices: np.ndarray            # point indices
    values: list[dict[str, Any]]   # axis values per point
    base: Machine
    gpus: int
    hardware: Hardware             # the first point's (scalar fields)
    fields: dict[str, np.ndarray]  # per-point values of the fields the vector axes change
    dtype: str
    #: the job's goodput on the cluster, its range's ends, the spares its cost charges and its MTTI with the ends of
    #: its range (`goodput_of`: by count)
    goodput: PointGoodput | None


def finish(pts: PointSet, take: slice, fit: np.ndarray, chosen: np.ndarray, metrics: dict,
           layouts: dict[int, dict], notes: list[str]) -> list[PointRow]:
    """Rows as `perf.explore.points.evaluate_point` builds them: the sweep's own metrics, requirements, feasibility.

    `metrics` maps each estimate metric to (values of the points `chosen`, unit); `fit` is per point of `take`. Power,
    energy per token, goodput and cost per token are `perf.workload.derived.point_metrics`, point by point, as on the
    per-point path; the requirements are judged on arrays (`model.requirements.judge_each`; a sweep's own through
    `perf.workload.derived.judge_points`, as on the per-point path).
    """
    problem = pts.problem
    base = pts.base
    lists = {name: Q_(vals, unit).to(_json_unit(unit)).magnitude.tolist() for name, (vals, unit) in metrics.items()}
    where = {int(p): j for j, p in enumerate(chosen.tolist())}
    fits = fit.tolist()
    goodput = None if pts.goodput is None else (lambda g=pts.goodput: g)
    free = math.nan   # REL008: blocking time unknown, the points with none are the other end (points.evaluate_point)
    if goodput is not None and base.failures is not None and problem.model is not None:
        free = unblocked_of(base.failures, problem.workload, problem.model, pts.gpus)
    rows: list[dict[str, float]] = []
    others: list[dict[str, float] | None] = []
    for p in range(len(fits)):
        j = where.get(p)
        plain = {k: v[j] for k, v in lists.items()} if j is not None else {}
        rows.append(point_metrics(plain, base, pts.gpus, fits[p], goodput))
        others.append(point_metrics(plain, base, pts.gpus, fits[p], lambda: (free, math.nan, math.nan, 0))
                      if free == free else None)
    met: list[dict[str, bool | None]] = [{} for _ in rows]
    # the workload's requirements, on the estimate's metrics (memory ones also when the layout does not fit)
    risk: list[list[str]] = [[] for _ in rows]
    for req in on_estimate(problem):
        verdicts = judge_each(req, Q_(*metrics[req.metric])) if req.metric in metrics else None
        for p, got in enumerate(met):
            j = where.get(p)
            use = verdicts is not None and j is not None and judged(req.metric, fits[p])
            got[req.id] = verdicts[j] if use and verdicts is not None and j is not None else None
        if verdicts is not None:   # met at the value, at risk where one end of its band is not (points.evaluate_point)
            for p in _at_risk(pts, req, metrics[req.metric], where, take, met):
                risk[p].append(req.id)
    loose: list[set[str]] = [set() for _ in rows]
    for req in on_point(problem):   # the sweep's, and the workload's on goodput and what is made from it
        have = [p for p, m in enumerate(rows) if judged(req.metric, fits[p]) and provides(rows[p], req.metric)]
        statuses = judge_points(req, [rows[p] for p in have], SWEEP_METRICS[req.metric])
        for got in met:
            got[req.id] = None
        for p, status in zip(have, [None] * len(have) if statuses is None else statuses, strict=True):
            if unsettled_at((req,), rows[p], others[p], SWEEP_METRICS):
                loose[p].add(req.id)
                continue
            if status is None:
                continue
            met[p][req.id] = status in PASSING
            if status is Status.AT_RISK:
                risk[p].append(req.id)
        if req.metric in metrics:   # a target on a banded figure of the estimate, as the workload's own above
            for p in _at_risk(pts, req, metrics[req.metric], where, take, met):
                if req.id not in risk[p]:
                    risk[p].append(req.id)
    order = [r.id for r in requirements(problem)]
    met = [{k: got[k] for k in order} for got in met]
    priced = unpriced(problem, base)
    outcomes = [feasibility(problem, fits[p], rows[p], met[p], loose[p], priced, base.cluster)
                for p in range(len(fits))]
    indices = pts.indices[take].tolist()
    values = pts.values[take]
    return [PointRow(indices[p], values[p], base.cluster, "ok" if fits[p] else "does not fit",
                     outcomes[p][1] if fits[p] else notes[p], layouts.get(p, {}), rows[p], met[p],
                     outcomes[p][0], tuple(risk[p]))
            for p in range(len(fits))]


def _at_risk(pts: PointSet, req: Requirement, column: tuple[Any, str], where: dict[int, int], take: slice,
             met: list[dict[str, bool | None]]) -> list[int]:
    """The points (of `take`) where the workload's `req` is met by the estimate but not at one end of its band.

    `column` holds the chosen points' values and their unit; the band is `derived.band_factors`', as the per-point
    path (`points.estimate_at_risk`) takes it.
    """
    problem = pts.problem
    t = problem.workload.training
    assert t is not None and problem.model is not None, "batched only for a training job (evaluate)"
    fam = family("training", bool(Arch.from_model(problem.model).experts))
    have = [p for p, got in enumerate(met) if got.get(req.id) and p in where]
    values = [float(column[0][where[p]]) for p in have]
    contexts = [int(v.get("seq_len", t.seq_len)) for v in pts.values[take]]
    factors = [band_factors(fam, req.metric, pts.hardware.accelerator, context=contexts[p]) for p in have]
    risky = risky_points(req, values, factors, column[1]) if have else []
    return [p for p, r in zip(have, risky, strict=True) if r]


def _json_unit(unit: str) -> str:
    """The unit a metric in `unit` is reported in (`quantity_json.json_magnitude`)."""
    label = json_unit(Q_(1.0, unit))
    return {"FLOP/s": "FLOPS", "": "dimensionless"}.get(label, label)
