"""The rows of a batch of sweep points: the sweep's own metrics, the requirements judged on arrays, feasibility.

`perf.explore.vectorised` times a layout set's points (the training metrics of each, as arrays); `finish` turns them
into the `PointRow`s `perf.explore.points.evaluate_point` returns, point for point: power, energy per token, goodput and
cost per token from `perf.workload.derived` as on the per-point path, and each requirement judged on arrays by
`perf.workload.derived.judge_values` (`model.requirements.judge_each`, the array form of the one judgement, and the
one "at risk" rule, `model.requirements.status_of`) with the model's error band the point's estimate would carry
(`perf.explore.set_bands`); a sweep's own and those on goodput through `perf.workload.derived.judge_points`, with their
range, as on the per-point path.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from archgen.metrics_bands import BANDED
from archgen.model.requirements import PASSING, Status, spread
from archgen.model.sweep import SWEEP_METRICS
from archgen.model.unsettled import unsettled_note
from archgen.perf.explore.batch_path import UNITS
from archgen.perf.explore.hardware_scope import unpowered_base
from archgen.perf.explore.point_axes import point_job
from archgen.perf.explore.points import (
    feasibility,
    host_words,
    loose_at,
    on_estimate,
    on_lower_bound,
    on_point,
    over_hall,
    point_scopes,
    provides,
    requirements,
)
from archgen.perf.explore.problem import PointRow, SweepProblem
from archgen.perf.explore.set_bands import PointBands, set_bands, spans
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.reserve import memory_ends
from archgen.perf.train.point_goodput import GoodputEnds, PointGoodput, restore_key
from archgen.perf.workload.band_families import MADE_FROM_RATE
from archgen.perf.workload.derived import (
    host_corners,
    judge_points,
    judge_values,
    judged,
    other_end_metrics,
    point_metrics,
    restore_ends,
)
from archgen.perf.workload.machine import Machine
from archgen.quantity_json import json_unit
from archgen.units import Q_


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
    #: the job's goodput on the cluster by what a restore reads at a layout (`restore_key`), its range's ends, the
    #: spares its cost charges, its MTTI with the ends of its range and its two other ends (`goodput_ends`, kept)
    goodput: Callable[[tuple[int, int] | None], GoodputEnds] | None


def finish(pts: PointSet, take: slice, fit: np.ndarray, chosen: np.ndarray, metrics: dict,
           layouts: dict[int, dict], notes: list[str], span_of: StepAt | None = None,
           host: dict | None = None) -> list[PointRow]:
    """Rows as `perf.explore.points.evaluate_point` builds them: the sweep's own metrics, requirements, feasibility.

    `metrics` maps each estimate metric to (values of the points `chosen`, unit); `fit` is per point of `take`. Power,
    energy per token, goodput and cost per token are `perf.workload.derived.point_metrics`, point by point, as on the
    per-point path; the requirements are judged on arrays (`perf.workload.derived.judge_values`; a sweep's own
    through `perf.workload.derived.judge_points`, as on the per-point path), each with the model's error band the
    point's estimate carries (`perf.explore.set_bands`). `span_of` gives the least and greatest step time of the points
    `chosen` (their layouts re-timed) over the part's stated ranges, which a band spans on a part with no
    measurement of its own (`set_bands.spans`). `host` holds `metrics` at the other end of the host's time per
    operation (`launch.HOST_OPS`: the layouts `chosen` timed at 20 us, as `training_estimate.host_ends` times an
    estimate's): a requirement met at one end only, on the figure or on one made from the rate
    (`derived.host_corners`), is not judged, as on the per-point path.
    """
    problem = pts.problem
    base = pts.base
    lists = {name: Q_(vals, unit).to(_json_unit(unit)).magnitude.tolist() for name, (vals, unit) in metrics.items()}
    slow = {name: Q_(vals, unit).to(_json_unit(unit)).magnitude.tolist() for name, (vals, unit) in (host or {}).items()}
    bound = set(np.flatnonzero(np.any([np.asarray(v) != np.asarray(lists[k]) for k, v in slow.items()], axis=0))
                .tolist()) if slow and len(chosen) else set()   # the chosen points the host's other end moves
    where = {int(p): j for j, p in enumerate(chosen.tolist())}
    fits = fit.tolist()
    # REL008 and the repair wait (`free`), a restore's read (`replicas`): the points' other ends, by what a restore
    # reads at their layouts (`restore_key`), as `points.evaluate_point`'s; once per layout dict of `layouts`
    ends_at: dict[int, tuple[Callable[[], PointGoodput], float, float, str]] = {}
    run = problem.workload.checkpoint.tokens   # the token budget: time to train (a training job's, as batched)
    judging = bool(on_point(problem))   # the other ends judge these only
    rows: list[dict[str, float]] = []
    # scaled hardware: no power, nor price (as `evaluate_point`)
    powerless, priced = zip(*point_scopes(problem, base, pts.values[take]), strict=True) if fits else ((), ())
    machines: dict[tuple[str, str], Machine] = {}   # one per distinct pair of whys (copying a Machine is not cheap)
    others: list[dict[str, float] | None] = []
    corners: list[list[dict[str, float]]] = []   # at the host's other end (`derived.host_corners`)
    restored: list[Sequence[dict[str, float]]] = []   # at the replicas' read (`derived.restore_ends`)
    freed: list[str] = []   # what the other end frees a point of (`point_goodput.freed_of`)
    for p in range(len(fits)):
        j = where.get(p)
        plain = {k: v[j] for k, v in lists.items()} if j is not None else {}
        machine = machines.get((powerless[p], priced[p]))
        if machine is None:
            machine = machines[powerless[p], priced[p]] = unpowered_base(base, powerless[p], priced[p])
        goodput: Callable[[], PointGoodput] | None = None
        free, replicas, words = math.nan, math.nan, ""
        if pts.goodput is not None:
            lay = layouts.get(p)   # points of one best layout share its dict (`vectorised._rows`)
            held = ends_at.get(id(lay))
            if held is None:
                figures, unblocked, read, said = pts.goodput(restore_key(lay))
                held = ends_at[id(lay)] = _held(figures), unblocked, read, said
            goodput, free, replicas, words = held
        freed.append(words)
        rows.append(point_metrics(plain, machine, pts.gpus, fits[p], goodput, run))
        others.append(other_end_metrics(plain, machine, pts.gpus, fits[p], free, run))
        moved = {k: v[j] for k, v in slow.items() if v[j] != plain[k]} if j in bound and fits[p] else {}
        corners.append(host_corners(rows[p], others[p], moved))
        restored.append(restore_ends(plain, machine, pts.gpus, fits[p], replicas, moved, run) if judging else ())
    met: list[dict[str, bool | None]] = [{} for _ in rows]
    risk: list[list[str]] = [[] for _ in rows]
    band = _bands(pts, chosen, metrics, span_of)
    edges: dict[str, list[float]] = {}   # the band's ends where a published run measured the figure (as
    for name in BANDED if len(chosen) else ():   # `evaluate_point` adds them), each figure's low then high
        pair = band.ends(name, np.asarray(lists[name], dtype=float), np.arange(len(chosen))) if name in lists else None
        if pair is not None and not np.isnan(pair[0]).all():
            edges[f"{name}_low"], edges[f"{name}_high"] = pair[0].tolist(), pair[1].tolist()
    if edges:
        for p, j in where.items():
            if fits[p]:
                rows[p].update({k: v[j] for k, v in edges.items()})
    why = host_words(problem.workload)
    loose: list[dict[str, str]] = [{} for _ in rows]
    # the workload's requirements, on the estimate's metrics with their band (memory ones also when the layout does
    # not fit), as `check` judges them: met, at risk (REQ004) or not met; not provided at one host end only
    for req in on_estimate(problem):
        verdicts = None
        if req.metric in metrics:
            vals, unit = metrics[req.metric]
            verdicts = judge_values(req, vals, unit, _own(metrics, req.metric, np.arange(len(chosen)))
                                    or band.ends(req.metric, vals, np.arange(len(chosen)), True))
        ends = (host or {}).get(req.metric)
        for p, got in enumerate(met):
            j = where.get(p)
            if ends is not None and j is not None and fits[p] and ends[0][j] != vals[j] and unsettled_note(
                    req, Q_(float(vals[j]), unit), {req.metric: (Q_(float(ends[0][j]), ends[1]), "")}):
                got[req.id], loose[p][req.id] = None, why
                continue
            use = verdicts is not None and j is not None and judged(req.metric, fits[p])
            status = verdicts[j] if use and verdicts is not None and j is not None else None
            got[req.id] = None if status is None else status in PASSING
            if status is Status.AT_RISK:
                risk[p].append(req.id)
    for req in on_point(problem):   # the sweep's, and the workload's on goodput and what is made from it
        have = [p for p, m in enumerate(rows) if judged(req.metric, fits[p]) and provides(rows[p], req.metric)]
        # a range of its own (a training job's memory) is in each row, where `judge_points` takes it (`spread`)
        ends = band.ends(req.metric, np.asarray([rows[p][req.metric] for p in have], dtype=float),
                         np.asarray([where.get(p, 0) for p in have], dtype=int), True) \
            if have and spread(metrics, req.metric) is None else None
        statuses = judge_points(req, [rows[p] for p in have], SWEEP_METRICS[req.metric],
                                None if ends is None else list(zip(ends[0].tolist(), ends[1].tolist(), strict=True)))
        for got in met:
            got[req.id] = None
        for p, status in zip(have, [None] * len(have) if statuses is None else statuses, strict=True):
            if unset := loose_at((req,), rows[p], others[p], corners[p], base.energy_share, why, restored[p]):
                loose[p] |= unset
                continue
            if status is None:
                continue
            status = on_lower_bound(req, status, base)
            met[p][req.id] = status in PASSING
            if status is Status.AT_RISK:
                risk[p].append(req.id)
    order = [r.id for r in requirements(problem)]
    met = [{k: got[k] for k in order} for got in met]
    risk = [sorted(ids, key=order.index) if len(ids) > 1 else ids for ids in risk]   # in the order of `requirements`
    outcomes = [feasibility(problem, fits[p], rows[p], met[p], loose[p], priced[p], base.cluster, powerless[p],
                            base.energy_share, over_hall(machines[powerless[p], priced[p]]), freed[p])
                for p in range(len(fits))]
    indices = pts.indices[take].tolist()
    values = pts.values[take]
    return [PointRow(indices[p], values[p], base.cluster, "ok" if fits[p] else "does not fit",
                     outcomes[p][1] if fits[p] else notes[p], layouts.get(p, {}), rows[p], met[p],
                     outcomes[p][0], tuple(risk[p]))
            for p in range(len(fits))]


def timed_metrics(est, total, cap, gpus: int, shape: tuple[int, ...],
                  reserve=None) -> dict[str, tuple[np.ndarray, str]]:
    """The metrics of timed points, as `finish` takes them: (values, unit) of each (`training_estimate.figures`).

    `est` is a `training.TrainingEstimate` of arrays or what the search kept of one (`_Timed`), `total` its memory per
    accelerator and `cap` the points' HBM; with the runtime `reserve`, the memory's range over the allocator's
    waste too (`reserve.memory_ends`).
    """
    tps = est.tokens_per_second
    raw = {"step_time": est.step_time, "tokens_per_second": tps, "tokens_per_second_per_gpu": tps / gpus,
           "model_flops_per_gpu": est.model_flops_per_gpu, "mfu": est.mfu, "memory_per_gpu": total,
           "memory_headroom": cap - total, **({} if reserve is None else memory_ends(total, reserve, cap))}
    return {k: (np.broadcast_to(np.asarray(v, dtype=float), shape), UNITS[k]) for k, v in raw.items()}


def _held(figures: PointGoodput) -> Callable[[], PointGoodput]:
    """A point's goodput `figures` as `derived.point_metrics` takes them: a call, made where the point makes tokens."""
    return lambda: figures


def _own(metrics: dict, metric: str, at: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The range of its own `metric` has at the chosen points `at` (`requirements.spread`), in its unit; or None.

    A training job's memory over the allocator's waste (`reserve.memory_ends`): judged across it, as the per-point
    path judges a point's `_low` and `_high` (`derived.judge_points`), not with the unknown ends of a figure with no
    band (`derived.unmeasured_figure`).
    """
    ends = spread(metrics, metric)
    return None if ends is None else (np.asarray(ends[0][0])[at], np.asarray(ends[1][0])[at])


def _json_unit(unit: str) -> str:
    """The unit a metric in `unit` is reported in (`quantity_json.json_magnitude`)."""
    label = json_unit(Q_(1.0, unit))
    return {"FLOP/s": "FLOPS", "": "dimensionless"}.get(label, label)


#: The least and greatest step time of a batch's chosen points, each at its layout, over the part's stated ranges
#: (`set_bands.step_span`; `finish`'s `span_of`, called only where the band spans them).
StepAt = Callable[[], tuple[np.ndarray, np.ndarray]]


def _bands(pts: PointSet, chosen: np.ndarray, metrics: dict, span_of: StepAt | None) -> PointBands:
    """The model's error band of the points `chosen` (`set_bands`), spanning their ranges where the part's does."""
    problem = pts.problem
    assert problem.model is not None, "batched only with the workload's model (vectorised.evaluate)"
    got = set_bands(point_job(problem.workload, pts.values[0]), problem.model, pts.hardware,
                    [*UNITS, *MADE_FROM_RATE])   # a run's time: the step time's band (`run_figures.run_bands`)
    if span_of is None or not len(chosen) or "step_time" not in metrics or not spans(got, pts.hardware, pts.dtype):
        return PointBands(got)
    lo, hi = span_of()
    return PointBands(got, (np.asarray(metrics["step_time"][0], dtype=float), lo, hi))
