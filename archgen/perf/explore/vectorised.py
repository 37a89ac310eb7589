"""Sweep points evaluated in batches: the points' hardware as arrays and one layout search over all of them.

`evaluate(problem, start, stop)` returns the rows `perf.explore.points.evaluate_point` returns, point for point, much
faster for training jobs (a test compares every field on the shipped sweeps and on generated ones). The points of a
chunk are grouped into *layout sets*: the points that share every axis except the hardware figures a factor or a value
changes (`VECTOR_AXES`), so they share their cluster, job, accelerator count, valid layouts and, layout by layout,
memory. A set is evaluated as one problem of points x layouts, with the hardware fields as arrays:

1. the layouts are enumerated once (`layouts.enumerate_layouts`, the rule set of every search) and their memory
   computed once (it does not depend on the hardware); a layout fits a point when it fits that point's HBM;
2. each layer's times (`layer.layer_times`) are computed once per point and (tp, micro-batch, cp, ep,
   recompute), and the pipeline ranks' (`ranks.rank_times`) once per point and rank split, which gives each
   layout's m·t_max + bubble (`vectorised_bounds`): the first terms of its step time, whose other terms (p2p,
   exposed DP communication, optimizer step) are never negative, so it bounds the step time from below;
3. the plans (layouts but their sharding stage) of least bound come first; for those, each layout's floor adds the
   exposed DP communication (`exposure.dp_exposed`) to the bound; each point's layout of least floor is timed in
   full (`training.estimate_training`), which gives an upper bound S on the point's best step time; only the
   fitting layouts whose bound and floor are at most S can be the best or tie with it, and those alone are timed
   in full;
4. the best is chosen as `layouts.search_training` chooses it: the least step time among the fitting layouts, the
   first in enumeration order on ties.

The answer is the per-point search's, not an approximation; the bounds only decide which layouts need the full
model (a timed layout found below its floor sends its point to the per-point path). Sets are cut into batches of
at most `BATCH_ROWS` (point, plan) pairs, a few tens of MB of arrays; inference and collective workloads, a set
whose first point is invalid, and one whose timing raises a spec error (an FP8 job on a part with no FP8 peak: it
aborted the sweep before, where the per-point path makes the points invalid), take the per-point path. A set's points
at a `scale_up_bandwidth` its switched domain's ports or chip links refuse (`vectorised_sets.port_rule`) are invalid
rows with the per-point path's reason (asked once per level); the rest of the set is searched.
"""

from __future__ import annotations

import dataclasses
import math
from functools import cache, partial
from typing import NamedTuple

import numpy as np

from archgen.errors import ArchgenError
from archgen.perf.explore.batch_path import per_point
from archgen.perf.explore.point_axes import point_base, point_hardware, point_job
from archgen.perf.explore.points import evaluate_point
from archgen.perf.explore.problem import PointRow, SweepProblem
from archgen.perf.explore.set_bands import step_span
from archgen.perf.explore.vectorised_bounds import Prepared, floors, parts
from archgen.perf.explore.vectorised_bounds import bounds as _bounds  # noqa: F401 (tests/perf/test_batch.py)
from archgen.perf.explore.vectorised_bounds import full as _full
from archgen.perf.explore.vectorised_bounds import layout_of as _layout
from archgen.perf.explore.vectorised_bounds import prepare as _prepare  # noqa: F401 (tests/perf/test_batch.py)
from archgen.perf.explore.vectorised_grid import VECTOR_AXES, grid_batch, point_fields
from archgen.perf.explore.vectorised_grid import batch_hw as _batch_hw
from archgen.perf.explore.vectorised_least import least as _least
from archgen.perf.explore.vectorised_least import least_floor as _least_floor
from archgen.perf.explore.vectorised_rows import PointSet, finish, timed_metrics
from archgen.perf.explore.vectorised_sets import Cached, Preparation, port_rule, preparation
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.launch import HOST_OPS
from archgen.perf.hw.memory import OFFLOAD_CODES, does_not_fit_note, none_fits_note
from archgen.perf.train.job import Layout
from archgen.perf.train.layouts import KEYS
from archgen.perf.train.point_goodput import goodput_ends
from archgen.perf.train.ranks import busiest_memory
from archgen.perf.train.refused import without_refused_offloads
from archgen.perf.train.training import RECOMPUTE_CODES, estimate_training
from archgen.perf.workload.cluster import estimate_hardware
from archgen.perf.workload.estimate import within_context
from archgen.perf.workload.training_setup import on_its_vendor

#: Most (point, plan) pairs evaluated at once: arrays of 1 MB each, a few tens of MB in all.
BATCH_ROWS = 1 << 20
#: Relative slack on the pruning bound, far above rounding (the bound is the step time's own first terms).
SLACK = 1e-9
#: Plans (layouts but the sharding stage) of least bound taken first, per point: their best layout prunes the rest.
FIRST = 8
#: Each next round takes GROW times as many plans as the last (few calls; the first rounds set the bound).
GROW = 4
_NAMES = {v: k for k, v in RECOMPUTE_CODES.items()}
_OFFLOADS = {v: k for k, v in OFFLOAD_CODES.items()}


def evaluate(problem: SweepProblem, start: int, stop: int, cached: Cached | None = None) -> list[PointRow]:
    """Evaluate points `start` to `stop` - 1 (one chunk; what a worker runs), as `perf.explore.points.evaluate` does.

    `cached` keeps each layout set's `Preparation` (`commands.workers` gives each worker process one, so that a worker
    evaluating several chunks of a set prepares it once); its keys tell the sets of `problem` apart, not problems.
    """
    if per_point(problem) or problem.model is None:   # a serving or collective sweep, the training ones it names
        return [evaluate_point(problem, i) for i in range(start, stop)]
    levels = _levels(problem, start, stop)
    keyed = [a for a in problem.axes if a not in VECTOR_AXES]
    rows: list[PointRow | None] = [None] * (stop - start)
    if keyed:
        _, group = np.unique(np.stack([levels[a] for a in keyed], axis=1), axis=0, return_inverse=True)
        group = group.reshape(-1)
    else:
        group = np.zeros(stop - start, dtype=int)
    t = problem.workload.training
    arch = Arch.from_model(problem.model, t.mtp_layers if t is not None else 0)
    for g in dict.fromkeys(group.tolist()):  # sets in order of their first point
        pos = np.flatnonzero(group == g)
        key = tuple(int(levels[a][pos[0]]) for a in keyed)  # the set's levels of the axes that tell sets apart
        for row in _evaluate_set(problem, arch, start, pos, levels, key, cached):
            rows[row.index - start] = row
    done = [row for row in rows if row is not None]
    assert len(done) == len(rows), "every point of the chunk belongs to one set"
    return done


def set_stride(problem: SweepProblem) -> int:
    """Points of a layout set that follow one another in point order (a whole set where the sets' axes come first).

    The product of the sizes of the axes after the last axis that tells sets apart (not in `VECTOR_AXES`; `cluster`
    always is one). A chunk cut at its multiples holds whole blocks of sets, each evaluated as in one chunk
    (`commands.workers.submit`, in this process).
    """
    names = list(problem.axes)
    last = max((i for i, a in enumerate(names) if a not in VECTOR_AXES), default=-1)
    return math.prod(len(problem.axes[a]) for a in names[last + 1:])


def set_size(problem: SweepProblem) -> int:
    """Points of a layout set: the product of the sizes of the axes that do not tell sets apart (`VECTOR_AXES`).

    `set_stride` is this where the sets' axes come first: each block of `set_stride` points is then a whole set.
    """
    return math.prod(len(v) for a, v in problem.axes.items() if a in VECTOR_AXES)


def _levels(problem: SweepProblem, start: int, stop: int) -> dict[str, np.ndarray]:
    """The level index of every axis at each point of the range (`SweepProblem.point`, vectorised)."""
    index = np.arange(start, stop)
    out = {}
    for name in reversed(list(problem.axes)):
        index, out[name] = np.divmod(index, len(problem.axes[name]))
    return out


def _evaluate_set(problem: SweepProblem, arch: Arch, start: int, pos: np.ndarray, levels, key: tuple,
                  cached: Cached | None) -> list[PointRow]:
    """The rows of a layout set's points `pos`: those the port rule refuses (`port_rule`) invalid, the rest searched."""
    base = point_base(problem, _values(problem, levels, pos[:1])[0])  # a set holds one level of the facility axes
    pos, refused = port_rule(problem, base, levels, pos)
    out = [r for at in refused for r in _invalid_set(problem, start + at, _values(problem, levels, at))]
    return out + (_admitted(problem, arch, start, pos, levels, key, cached, base) if len(pos) else [])


def _values(problem: SweepProblem, levels, pos: np.ndarray) -> list[dict]:
    """Each point's axis values, as `SweepProblem.point` gives them."""
    names = list(problem.axes)
    return [dict(zip(names, v, strict=True)) for v in zip(
        *([problem.axes[n][i] for i in levels[n][pos].tolist()] for n in names), strict=True)]


def _admitted(problem: SweepProblem, arch: Arch, start: int, pos: np.ndarray, levels, key: tuple,
              cached: Cached | None, base) -> list[PointRow]:
    """The rows of the set's points the port rule admits (`pos`), on `base`, the set's machine."""
    indices = start + pos
    values = _values(problem, levels, pos)
    first = values[0]
    try:
        workload = job = point_job(problem.workload, first)
        assert problem.model is not None, "batched only with the workload's model (evaluate)"
        within_context(workload, problem.model)  # as `estimate` refuses it (a longer seq_len was estimated "ok")
        gpus = workload.accelerators or base.accelerators
        assert workload.training is not None, "batched only for a training job (evaluate)"
        dtype = workload.training.precision
        point = point_hardware(base.hardware, first, dtype, base.mesh_limit, base.switch)
        hw = estimate_hardware(workload, base, point)  # as `estimate_on_cluster`
        extra = hw.scale_up_latency - point.scale_up_latency  # the stated hop (`job_hardware` keeps the latency)
        workload = on_its_vendor(workload, hw.vendor)  # no stack stated: the vendor's newest profile, as `estimate`
    except ArchgenError:
        return _invalid_set(problem, indices, values)

    def make() -> Preparation:
        return preparation(workload, arch, hw, gpus, base.accelerators)

    setup, lay, prepared = make() if cached is None else cached(key, make)
    if setup is None:
        return _invalid_set(problem, indices, values)
    assert problem.model is not None, "batched only with the workload's model (evaluate)"
    # by what a restore reads at a layout (`point_goodput.restore_key`), kept for the set; of the job as check reads it
    goodput = cache(partial(goodput_ends, base.failures, job, problem.model, gpus, base.failure_ends)) \
        if base.failures else None
    fields = point_fields(problem, base.hardware, levels, pos, dtype)
    if extra and "scale_up_latency" in fields:   # a latency axis scales the part's step, the stated hop added after
        fields["scale_up_latency"] = fields["scale_up_latency"] + extra
    pts = PointSet(problem, indices, values, base, gpus, hw, fields, dtype, goodput)
    try:
        return _timed(pts, setup, lay, prepared)
    except ArchgenError:   # raised while timing (a data type the part has no peak for): the per-point path's rows
        return [evaluate_point(problem, int(i)) for i in indices]   # (`invalid`, with its reason), not an abort


def _timed(pts: PointSet, setup, lay: dict[str, np.ndarray] | None, prepared: Prepared | None) -> list[PointRow]:
    """The rows of a layout set's points: its given layout timed (`_complete`), or its layouts searched."""
    if setup.complete:
        return _complete(pts, setup)
    assert lay is not None and prepared is not None, "enumerated and prepared for a setup that leaves layouts open"
    prepared = dataclasses.replace(prepared, memo={})  # `vectorised_bounds._timer`'s, for this chunk's points
    per = grid_batch(pts.problem, BATCH_ROWS // len(prepared.m))  # whole rows of the points' grid (`grid_hw`)
    out: list[PointRow] = []
    for a in range(0, len(pts.indices), per):
        out += _searched(pts, setup, prepared, slice(a, a + per))
    if pts.hardware.host_capacity > 0 and setup.fixed.get("offload") is None and setup.offloads:
        out = _offloading(pts, setup, lay, out)
    return out


def _offloading(pts: PointSet, setup, lay: dict[str, np.ndarray], out: list[PointRow]) -> list[PointRow]:
    """Where no layout fits, the search tries each again with each offload (`layouts.search_training`).

    A point where one of them fits takes the per-point path; the others keep their row, with the count of layouts
    the search evaluated (each layout and its offloads, less those the stack refuses: `without_refused_offloads`).
    Memory does not depend on the hardware.
    """
    unfit = [k for k, r in enumerate(out) if r.status == "does not fit"]
    if not unfit:
        return out
    n = len(lay["tp"])
    tight = {k: np.repeat(v, len(setup.offloads)) for k, v in lay.items()}  # as `search_training` retries them
    tight = without_refused_offloads(tight | {"offload": np.tile(np.asarray(setup.offloads, float), n)}, setup.zeros)
    mem, m = busiest_memory(setup.job, _layout(tight, setup)), len(tight["tp"])
    hbm, host = (np.broadcast_to(np.asarray(x, dtype=float), (m,)) for x in (mem.total, mem.host))
    caps = pts.fields.get("hbm_capacity", np.full(len(out), pts.hardware.hbm_capacity))
    note = none_fits_note(n + m, pts.gpus, pts.hardware.accelerator)
    for k in unfit:
        if np.any((hbm <= caps[k]) & (host <= pts.hardware.host_capacity)):
            out[k] = evaluate_point(pts.problem, out[k].index)
        else:
            out[k] = dataclasses.replace(out[k], reason=note)
    return out


def _invalid_set(problem: SweepProblem, indices: np.ndarray, values: list[dict]) -> list[PointRow]:
    """Points whose layout set cannot run: the per-point path's reason (it depends only on what they share)."""
    row = evaluate_point(problem, int(indices[0]))
    if row.status != "invalid":  # not expected; the per-point path stays the reference
        return [row] + [evaluate_point(problem, int(i)) for i in indices[1:]]
    rest = zip(indices[1:], values[1:], strict=True)
    return [row] + [PointRow(int(i), v, row.cluster, "invalid", row.reason) for i, v in rest]


def _searched(pts: PointSet, setup, prep: Prepared, take: slice) -> list[PointRow]:
    """The rows of the points `take` of a searched layout set."""
    count = len(pts.indices[take])
    offset = take.start or 0
    cap = np.broadcast_to(_batch_hw(pts, take, (count,)).hbm_capacity, (count,))
    live = np.flatnonzero(prep.plan_memory <= np.max(cap))  # the plans that fit some point of the batch
    live = live if len(live) else np.arange(len(prep.m))
    plans = len(live)
    got = parts(pts, setup, prep, take, live)
    fits = prep.plan_memory[live][None, :] <= cap[:, None]  # a plan fits when one of its layouts does
    bound = got.bound if fits.all() else np.where(fits, got.bound, np.inf)
    # best first: the FIRST plans of least bound, then GROW times as many each round; the best step time so far
    # bounds the point's from above, and a plan whose bound exceeds it cannot hold the best layout or one tied with
    # it. Of a round's plans, only the layouts whose floor does not exceed it either are timed in full, each point's
    # least first.
    early = min(plans, FIRST * (1 + GROW))  # the first two rounds' plans: ordered first, the others when needed
    order, ranked = _least(bound, early)
    idx = np.arange(count)  # the points still searched (the rows of `order`)
    upper = np.full(count, np.inf)
    odd = np.isnan(bound).any(axis=1) if np.isnan(np.min(bound)) else np.zeros(count, dtype=bool)
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    kept: list[_Timed] = []  # what the rows read of each timed layout's estimate
    lo, size = 0, FIRST
    while lo < plans:
        if lo == early:  # the points whose best so far some plan beyond the first rounds' may still beat
            idx = idx[ranked[:, early - 1] <= upper[idx] * (1.0 + SLACK)]
            if not len(idx):
                break
            order = np.argsort(bound[idx], axis=1, kind="stable")
            ranked = np.take_along_axis(bound[idx], order, axis=1)
        hi = min(plans, lo + size)
        cut = ranked[:, lo:hi] <= (upper[idx] * (1.0 + SLACK))[:, None]  # inf <= inf: each fitting plan of round 1
        cut &= np.isfinite(ranked[:, lo:hi])
        if not cut.any():
            break
        pt = np.broadcast_to(idx[:, None], cut.shape)[cut]
        kk = live[order[:, lo:hi][cut]]
        slots = prep.plan_rows[kk]
        floor = floors(pts, setup, prep, got, offset, pt, kk)
        floor = np.where((slots >= 0) & (prep.memory[slots] <= cap[pt][:, None]), floor, np.inf)
        keep = floor.reshape(-1) < np.inf
        fp, fr, ff = np.repeat(pt, slots.shape[1])[keep], slots.reshape(-1)[keep], floor.reshape(-1)[keep]
        head = _least_floor(fp, ff)
        for least in (True, False):  # each point's least floor, then every floor its best so far leaves
            if least:
                pick = head[ff[head] <= upper[fp[head]] * (1.0 + SLACK)]
            else:
                mask = ff <= upper[fp] * (1.0 + SLACK)
                mask[head] = False
                pick = np.flatnonzero(mask)
            if not len(pick):
                continue
            pp_, rw = fp[pick], fr[pick]
            est = _full(pts, setup, prep, pp_ + offset, rw, got, offset)
            st = np.where(np.broadcast_to(est.fits, pp_.shape), est.step_time, np.inf)
            odd[pp_[st * (1.0 + SLACK) < ff[pick]]] = True  # a floor above the step time: the per-point path
            np.minimum.at(upper, pp_, st)
            found.append((pp_, rw, st))
            kept.append(_Timed(*(np.broadcast_to(np.asarray(f, dtype=float), pp_.shape) for f in (
                est.step_time, est.tokens_per_second, est.model_flops_per_gpu, est.mfu, est.memory.total,
                est.memory.reserve))))
        lo, size = hi, size * GROW
    p, r, s = (np.concatenate([f[i] for f in found]) if found else np.zeros(0, dtype=int) for i in range(3))
    # the search's rule: the least step time among the fitting layouts, the first on ties
    order = np.lexsort((r, s, p))
    p, r, s = p[order], r[order], s[order]
    timed = _Timed(*(np.concatenate([getattr(t, f) for t in kept])[order] if kept else np.zeros(0)
                     for f in _Timed._fields))
    head = np.flatnonzero(np.r_[True, p[1:] != p[:-1]]) if len(p) else np.zeros(0, dtype=int)
    best = np.full(count, -1)
    best[p[head]] = r[head]
    odd[p[head]] |= ~np.isfinite(s[head])  # a step time that is not a finite number: the per-point path decides
    best[odd] = -1
    chosen = np.flatnonzero(best >= 0)
    at = np.zeros(count, dtype=int)
    at[p[head]] = head
    rows = _rows(pts, prep, take, chosen, best, _Timed(*(f[at[chosen]] for f in timed)), setup)
    for q in np.flatnonzero(odd).tolist():
        rows[q] = evaluate_point(pts.problem, int(pts.indices[offset + q]))
    return rows


class _Timed(NamedTuple):
    """What a row reads of a layout's estimate (`training.TrainingEstimate`), per timed (point, layout) pair."""

    step_time: np.ndarray
    tokens_per_second: np.ndarray
    model_flops_per_gpu: np.ndarray
    mfu: np.ndarray
    total: np.ndarray  # memory per accelerator
    reserve: np.ndarray  # the runtime's, in it (`reserve.memory_ends`)


def _rows(pts: PointSet, prep: Prepared, take: slice, chosen: np.ndarray, best: np.ndarray, est: _Timed,
          setup) -> list[PointRow]:
    """Rows of searched points: `est` times the best layout (`best`) of each point `chosen` (the others: none fits).

    The estimates are those the search timed the layouts with (the same numbers a new estimate gives); each chosen
    layout is re-timed on other hardware only where its band spans the part's stated ranges (`finish`'s `span_of`),
    and at the other end of the host's time per operation, as an estimate is (`training_estimate.host_ends`).
    """
    count = len(best)
    metrics, host = {}, {}
    cap = np.broadcast_to(_batch_hw(pts, take, (count,)).hbm_capacity, (count,))
    if len(chosen):
        metrics = timed_metrics(est, est.total, cap[chosen], pts.gpus, chosen.shape,
                                est.reserve if setup.job.runtime_reserve else None)
        # the host's other end (`training_estimate.host_ends`): the chosen layouts timed at 20 us an operation
        slow = estimate_training(_batch_hw(pts, (take.start or 0) + chosen, (len(chosen),)),
                                 dataclasses.replace(setup.job, host_op=HOST_OPS[1]),
                                 _layout(prep.lay, setup, best[chosen]))
        host = timed_metrics(slow, slow.memory.total, cap[chosen], pts.gpus, chosen.shape)
    layouts: dict[int, dict[str, int | str]] = {}
    shared: dict[int, dict[str, int | str]] = {}  # points with the same best layout share its dict (rows are read,
    # never changed)
    for p in chosen.tolist():
        r = int(best[p])
        if r not in shared:
            row = {k: int(prep.lay[k][r]) for k in KEYS}
            shared[r] = {**row, "recompute": _NAMES[row["recompute"]]}
            if prep.lay["etp"][r] != prep.lay["tp"][r]:  # as `layouts.search_training` reports it
                shared[r]["etp"] = int(prep.lay["etp"][r])
            if shared[r].pop("offload"):  # as `layouts.search_training` reports it: only an offload it takes
                shared[r]["offload"] = _OFFLOADS[int(prep.lay["offload"][r])]
        layouts[p] = shared[r]
    note = none_fits_note(len(prep.memory), pts.gpus, pts.hardware.accelerator)
    return finish(pts, take, best >= 0, chosen, metrics, layouts, [note] * count, lambda: step_span(  # when it spans
        _batch_hw(pts, (take.start or 0) + chosen, (len(chosen),)), pts.dtype,
        lambda h: estimate_training(h, setup.job, _layout(prep.lay, setup, best[chosen])).step_time), host)


def _complete(pts: PointSet, setup) -> list[PointRow]:
    """Rows of a layout set whose workload gives the whole layout: one estimate per point, nothing searched."""
    lay = setup.layout
    count = len(pts.indices)
    hw = _batch_hw(pts, slice(None), (count,))
    given = Layout(lay["tp"], lay["pp"], lay["dp"], lay["micro_batch"], lay["cp"], lay["ep"], lay["interleave"],
                   RECOMPUTE_CODES[lay["recompute"]], setup.knobs.sequence_parallel, lay["zero"], setup.pipeline,
                   OFFLOAD_CODES[lay.get("offload", "none")], lay.get("etp"))
    est = estimate_training(hw, setup.job, given)
    slow = estimate_training(hw, dataclasses.replace(setup.job, host_op=HOST_OPS[1]), given)   # `host_ends`' end
    every = np.arange(count)
    total = np.broadcast_to(np.asarray(est.memory.total, dtype=float), (count,))
    cap = np.broadcast_to(np.asarray(hw.hbm_capacity, dtype=float), (count,))
    fit = np.broadcast_to(np.asarray(est.fits), (count,))
    metrics = timed_metrics(est, total, cap, pts.gpus, (count,), np.broadcast_to(np.asarray(
        est.memory.reserve, dtype=float), (count,)) if setup.job.runtime_reserve else None)
    notes = ["" if f else does_not_fit_note(t, c)
             for f, t, c in zip(fit.tolist(), total.tolist(), cap.tolist(), strict=True)]
    return finish(pts, slice(None), fit, every, metrics, dict.fromkeys(every.tolist(), dict(lay)), notes,
                  lambda: step_span(hw, pts.dtype, lambda h: estimate_training(h, setup.job, given).step_time),
                  timed_metrics(slow, total, cap, pts.gpus, (count,)))
