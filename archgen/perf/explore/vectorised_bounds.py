"""Lower bounds of the step time of a layout set's layouts, point by point: what lets a batched sweep skip layouts.

`perf.explore.vectorised` searches each sweep point's layouts and times in full (`training.estimate_training`) only
those whose lower bound does not exceed the best step time found. Two bounds, both from the model's own functions:

* **plan bound** (`bounds`), for each (point, plan), a plan being the layouts that differ only in their sharding
  stage (and offload): m·t_max + bubble, the step time's first terms (`ranks.rank_times`). Plans that differ only
  in their interleave share their rank classes' times; those are computed once per distinct rank split
  ("rank group") and the bubble per plan, the same operations on the same numbers as `rank_times` does them.
* **layout floor** (`floors`), for the (point, plan) pairs whose plan bound is low enough: the plan bound plus the
  exposed data-parallel communication of the rank class where it is largest (`exposure.dp_exposed` with the
  arguments `estimate_training` gives it), for each of the plan's sharding stages. The step time adds the busiest
  class's DP communication and optimizer step (never less than any class's DP communication), the p2p and the
  weight quantisation, none negative, so the floor never exceeds it. The collectives are timed once per (point,
  plan) and the stages ride on an axis of their own. In the 10^5-point benchmark sweep the near-best layouts that
  the plan bound cannot tell apart are mostly ones whose ZeRO-3 gathers the compute does not hide: the floor
  leaves about one layout in ten of those to time in full.

A bound only decides which layouts are timed; the rows come from full estimates, so they are the per-point
search's (tests/perf/test_batch.py compares them, and checks both bounds against the step times they bound).
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import numpy as np

from archgen.perf.comm.collectives import HW_FIELDS
from archgen.perf.comm.racks import group_times
from archgen.perf.explore.vectorised_grid import batch_hw, grid_hw
from archgen.perf.explore.vectorised_rows import PointSet
from archgen.perf.hw import kernels as K
from archgen.perf.hw.numeric import where
from archgen.perf.train import layout_times
from archgen.perf.train.exposure import bucket_params, dp_exposed
from archgen.perf.train.job import Layout
from archgen.perf.train.layer import LayerTimes, layer_times
from archgen.perf.train.pipeline_split import Split, split
from archgen.perf.train.ranks import busiest_memory, class_times
from archgen.perf.train.training import ADAM_BYTES, CLIP_BYTES, dp_groups, estimate_training, pipeline_comm

#: Bytes of a block of a batch's plan bounds worked out at once (`_plan_bound`): a block and its bubbles fit a core's
#: second-level cache (2 MB a core on the 2-core development machine, where blocks of 8-64 points of 880 plans, 56-450
#: kB, took the least CPU).
BLOCK_BYTES = 1 << 18


@dataclasses.dataclass(frozen=True)
class Prepared:
    """A layout set's layouts and what does not depend on the hardware.

    The layouts without their sharding stage ("plans": the search's layouts differ in it last) share everything but
    the DP communication, the optimizer step and the memory; a plan's rows are its layouts, -1 padded. Plans that
    differ only in their interleave share a rank group (the same rank classes, timed alike).
    """

    lay: dict[str, np.ndarray]
    memory: np.ndarray       # busiest rank's bytes per layout
    plan_lay: dict[str, np.ndarray]
    plan_rows: np.ndarray    # (plans, most layouts of one plan)
    plan_memory: np.ndarray  # the least memory of a plan's layouts
    a_of_plan: np.ndarray    # each plan's row among the (tp, micro-batch, cp, ep, recompute) combinations
    a_of_row: np.ndarray     # each layout's
    plan_of_row: np.ndarray  # each layout's plan
    a_lay: dict[str, np.ndarray]
    split: Any
    m: np.ndarray
    group_of_plan: np.ndarray  # each plan's rank group
    a_of_group: np.ndarray
    group_split: Split         # each rank group's classes
    memo: dict = dataclasses.field(default_factory=dict, compare=False, repr=False)  # `_timer`'s times


def layout_of(lay: dict[str, np.ndarray], setup, take=slice(None)) -> Layout:
    """The search's `Layout` of the rows `take`, as `layouts.search_training` builds it (`layout_times.layout_of`)."""
    return layout_times.layout_of({k: v[take] for k, v in lay.items()}, setup.knobs.sequence_parallel, setup.pipeline)


def _unique_rows(columns: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of the columns, and each row's index among them."""
    u, inverse = np.unique(np.stack(columns, axis=1), axis=0, return_inverse=True)
    return u, inverse.reshape(-1)


def prepare(setup, lay: dict[str, np.ndarray]) -> Prepared:
    """What a layout set's search needs that does not depend on the hardware."""
    memory = np.asarray(busiest_memory(setup.job, layout_of(lay, setup)).total, dtype=float)
    plan_keys = ("tp", "pp", "dp", "cp", "ep", "micro_batch", "interleave", "recompute", "etp")
    u, plan = _unique_rows([lay[k] for k in plan_keys])
    plan_lay = {k: u[:, i] for i, k in enumerate(plan_keys)}
    order = np.argsort(plan, kind="stable")
    counts = np.bincount(plan, minlength=len(u))
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    rows = np.full((len(u), int(counts.max())), -1)
    rank = np.arange(len(plan)) - np.repeat(starts, counts)
    rows[plan[order], rank] = order
    least = np.full(len(u), np.inf)
    np.minimum.at(least, plan, memory)
    a_keys = ("tp", "micro_batch", "cp", "ep", "recompute", "etp")
    ua, a_of_plan = _unique_rows([plan_lay[k] for k in a_keys])
    a_lay = {k: ua[:, i] for i, k in enumerate(a_keys)}
    sl = split(setup.job.arch.layers, plan_lay["pp"], plan_lay["interleave"], setup.pipeline)
    m = setup.job.global_batch / (plan_lay["dp"] * plan_lay["micro_batch"])
    # rank groups: what `rank_times` reads of a plan but its interleave (which enters the bubble alone)
    classes = [np.broadcast_to(f, sl.count.shape)[:, c] for f in (sl.layers, sl.embedding, sl.loss, sl.count)
               for c in range(sl.count.shape[-1])]
    ug, group = _unique_rows([a_of_plan.astype(float), plan_lay["pp"].astype(float), *classes])
    first = np.zeros(len(ug), dtype=int)
    first[group[::-1]] = np.arange(len(group))[::-1]  # each group's first plan
    gsplit = Split(*(np.broadcast_to(f, sl.count.shape)[first] for f in (sl.layers, sl.embedding, sl.loss, sl.count,
                                                                          sl.position)))
    return Prepared(lay, memory, plan_lay, rows, least, a_of_plan, a_of_plan[plan], plan, a_lay, sl, m, group,
                    a_of_plan[first], gsplit)


class Parts(NamedTuple):
    """The plan bound of a batch's (point, plan) pairs and what the layout floors reuse of it."""

    bound: np.ndarray    # (points, the plans `live`)
    local: np.ndarray    # each plan's column in `bound` (-1: not live)
    col: np.ndarray      # each rank group's column in `t_rank`, `params`, `experts` (-1: no live plan)
    forward: Any         # layer times per (point, (tp, micro-batch, cp, ep, recompute) combination)
    backward: Any        # backward + recompute
    layer: LayerTimes    # all of them (`full` times its layouts on them)
    t_rank: list[np.ndarray]  # each class's (points, rank groups)
    params: np.ndarray   # (rank groups, classes)
    experts: np.ndarray


def parts(pts: PointSet, setup, prep: Prepared, take: slice, live: np.ndarray | None = None) -> Parts:
    """m·t_max + bubble of each (point, plan) of the points `take`: a lower bound of each of the plan's layouts.

    `live`: the plans to bound (default all; a search leaves out those that fit none of the batch's points).
    """
    live = np.arange(len(prep.m)) if live is None else live
    local = np.full(len(prep.m), -1)
    local[live] = np.arange(len(live))
    groups = np.unique(prep.group_of_plan[live])
    col = np.full(len(prep.a_of_group), -1)
    col[groups] = np.arange(len(groups))
    count = len(pts.indices[take])
    hw = batch_hw(pts, take, (count, 1))
    a = prep.a_lay
    tp = a["tp"]
    sp = np.asarray(setup.knobs.sequence_parallel, dtype=bool) & (tp > 1)
    # the layer and class times on the grid of the points' figures (`grid_hw`), then point by point
    grid = grid_hw(pts, take)
    on, points = (hw, (count,)) if grid is None else grid
    lt = layer_times(on, setup.job, tp=tp, mb=a["micro_batch"], cp=a["cp"], ep=a["ep"], rc=a["recompute"].astype(int),
                     sp=sp, etp=a["etp"])
    lts = (count, len(tp))
    flat = (lambda x: x) if grid is None else (  # noqa: E731
        lambda x: np.broadcast_to(x, (*points, len(tp))).reshape(lts) if np.ndim(x) else x)
    ag = prep.a_of_group[groups]
    shape = (count, len(ag))
    # `take` keeps the groups' axis last in memory (an index `[..., ag]` puts it first): the class times then come
    # out point-major, and viewing them as (points, groups) copies nothing
    per_layer, logits, embed = (np.take(x, ag, axis=-1) if np.ndim(x) else x for x in (lt.total, lt.logits, lt.embed))
    g = {f: a[f][ag] for f in ("tp", "ep", "etp")}
    pp = _group_pp(prep)[groups]
    sl = Split(*(f[groups] for f in (prep.group_split.layers, prep.group_split.embedding, prep.group_split.loss,
                                      prep.group_split.count, prep.group_split.position)))
    # `ranks.rank_times` class by class (the classes of `class_times` one at a time, 2-D: numpy reduces a short
    # trailing axis slowly); its max and its sum in order, as numpy sums up to 7 values (`fast.total`)
    t_max: Any = 0.0
    t_sum: Any = 0.0
    t_rank, params, experts = [], [], []
    for c in range(sl.count.shape[-1]):
        par, exp, t = class_times(on, setup.job, per_layer, logits, embed, g["tp"], pp, g["ep"], sl.layers[:, c],
                                  sl.embedding[:, c], sl.loss[:, c], g["etp"])
        t = np.broadcast_to(t, (*points, len(ag))).reshape(shape)  # a view where t has every point's
        real = sl.count[:, c] > 0
        every = bool(real.all())  # every group has ranks of this class: `where` would copy
        kept, ranks = (t, sl.count[:, c] * t) if every else (np.where(real, t, 0.0),
                                                               np.where(real, sl.count[:, c] * t, 0.0))
        t_max = np.maximum(t_max, kept) if c else kept
        t_sum = t_sum + ranks if c else ranks
        t_rank.append(np.broadcast_to(t, shape))
        params.append(np.broadcast_to(par, shape[1:]))
        experts.append(np.broadcast_to(exp, shape[1:]))
    gp = col[prep.group_of_plan[live]]  # per group, then per plan
    bound = _plan_bound(np.broadcast_to(t_max, shape), np.broadcast_to(t_sum - t_max, shape), gp,
                        prep.plan_lay["interleave"][live], prep.m[live])
    layer = LayerTimes(*(flat(getattr(lt, f.name)) for f in dataclasses.fields(lt)))
    return Parts(bound, local, col, layer.forward, layer.backward + layer.recompute, layer, t_rank,
                 np.stack(params, axis=-1), np.stack(experts, axis=-1))


def _plan_bound(t_max: np.ndarray, spread: np.ndarray, gp: np.ndarray, v: np.ndarray, m: np.ndarray) -> np.ndarray:
    """m·t_max + bubble of each (point, plan), worked out in blocks of points of about `BLOCK_BYTES`.

    The rank groups' columns `gp` of `t_max` and `spread` (t_sum - t_max) are taken plan by plan, and the bubble is
    `rank_times`'s, spread / v. These are the same operations on the same numbers as on the whole (points, plans)
    arrays, one block of points at a time: the batch's arrays (about 8 MB each) were written to memory and read back
    five times, where a block's stay in a core's second-level cache (workers39: 4.8 against 9.9 ms for 1,190 points
    by 880 plans, in one process).
    """
    count, plans = t_max.shape[0], len(gp)
    out = np.empty((count, plans))
    rows = max(1, BLOCK_BYTES // (8 * plans))
    bubble = np.empty((min(rows, count), plans))
    for a in range(0, count, rows):
        o, b = out[a:a + rows], bubble[:min(rows, count - a)]
        np.take(spread[a:a + rows], gp, axis=1, out=b, mode="clip")  # each live plan's group has a column: in range
        b /= v
        np.take(t_max[a:a + rows], gp, axis=1, out=o, mode="clip")
        o *= m
        o += b  # m·t_max + bubble
    return out


def _group_pp(prep: Prepared) -> np.ndarray:
    """Each rank group's pipeline size (that of its plans)."""
    pp = np.zeros(len(prep.a_of_group))
    pp[prep.group_of_plan] = prep.plan_lay["pp"]
    return pp


def bounds(pts: PointSet, setup, prep: Prepared, take: slice) -> np.ndarray:
    """m·t_max + bubble of each (point, plan): a lower bound of the step time of each of the plan's layouts."""
    return parts(pts, setup, prep, take).bound


def floors(pts: PointSet, setup, prep: Prepared, got: Parts, offset: int, pt: np.ndarray,
           kk: np.ndarray) -> np.ndarray:
    """The layout floor of each layout of the plans `kk` at the points `pt` (of the batch at `offset`).

    (pairs, slots of `plan_rows`): the plan bound plus the largest exposed DP communication of a rank class
    (`exposure.dp_exposed` as `training.estimate_training` calls it), at the slot's sharding stage; the plan bound
    alone for a layout that offloads activations (their transfers lengthen the time the ZeRO-3 gathers hide
    behind); infinite for a padding slot.
    """
    job = setup.job
    n = len(pt)
    col = lambda x: np.asarray(x, dtype=float)[:, None]  # noqa: E731 (pairs against the slot axis)
    k = {f: col(prep.plan_lay[f][kk]) for f in ("tp", "pp", "dp", "cp", "ep", "interleave", "etp")}
    tp, pp, dp, cp, ep, v, etp = (k[f] for f in ("tp", "pp", "dp", "cp", "ep", "interleave", "etp"))
    m = col(prep.m[kk])
    hw = batch_hw(pts, pt + offset, (n, 1))
    hx = hw.with_axis()
    x = lambda arr: np.asarray(arr)[..., None]  # noqa: E731 (against the class axis, as `ranks.per_class`)
    a = prep.a_of_plan[kk]
    g = prep.group_of_plan[kk]
    gc = got.col[g]
    width = len(got.t_rank)
    lts = (got.bound.shape[0], len(prep.a_lay["tp"]))
    fwd, bwd = (col(np.broadcast_to(f, lts)[pt, a]) for f in (got.forward, got.backward))
    t_rank = np.stack([t[pt, gc] for t in got.t_rank], axis=-1)[:, None, :]
    params, experts = (q[gc][:, None, :] for q in (got.params, got.experts))
    layers = prep.group_split.layers[g][:, None, :]
    real = prep.group_split.count[g][:, None, :] > 0
    rows = prep.plan_rows[kk]
    safe = np.where(rows >= 0, rows, rows[:, :1])
    zero = np.asarray(prep.lay["zero"][safe], dtype=float)
    sched, dpcp, k_dp, edp, k_edp = dp_groups(hw, tp, cp, dp, pp, ep, etp, v, m)  # as `estimate_training`'s tail
    bw, fw, dp_c = layers * x(bwd) * x(sched), layers * x(fwd) * x(sched), np.asarray(0.0)
    b = x(bucket_params(job, dp, tp))  # timed per kind of stage held (0, 1-2, 3: `dp_exposed`'s), memo keys as `full`'s
    for stage, on in ((0.0, zero < 1), (1.0, (zero >= 1) & (zero < 3)), (3.0, zero >= 3)):
        if on.any():
            timer = _timer(pts, offset, pt, kk + len(prep.m) * int(stage >= 3), 2 * len(prep.m), prep.memo)
            dp_c = np.where(x(on), dp_exposed(hx, job, params - experts, x(dpcp), x(k_dp), stage, bw, fw, t_rank,
                                              x(m), (experts, x(edp), x(k_edp), x(etp * ep)), timer, bucket=b,
                                              stride=x(tp)), dp_c)
    code = x(np.asarray(prep.lay["offload"][safe]).astype(int))
    on = x(zero) >= 1
    shard = (params - experts) / where(on, x(dpcp), 1.0) + experts / where(on, x(edp), 1.0)
    opt = where(code & 2, 0.0, K.memory_time(hx, ADAM_BYTES * shard)) + K.memory_time(
        hx, params * job.grad_bytes + CLIP_BYTES * shard)  # the optimizer step but the norm's all-reduce
    tail = where(code & 1, 0.0, dp_c) + opt  # offloaded activations lengthen the windows the DP transfers hide in
    tail = np.broadcast_to(tail, (n, rows.shape[1], width))
    worst = np.where(real[..., 0], tail[..., 0], 0.0)  # the max over the classes, one at a time (a short axis)
    for c in range(1, width):
        np.maximum(worst, np.where(real[..., c], tail[..., c], 0.0), out=worst)
    # the pipeline's p2p, as `estimate_training` times it (alike for every sharding stage)
    busiest = col(np.max(np.where(real, layers, 0.0), axis=-1)[:, 0])
    T = col(prep.plan_lay["micro_batch"][kk]) * (job.seq_len / cp)
    worst = worst + pipeline_comm(hw, job, T, tp, cp, dp, pp, v, m, busiest * fwd)
    out = got.bound[pt, got.local[kk]][:, None] + worst
    out = np.where(np.isnan(out), -np.inf, out)  # not a number: no bound, time it
    return np.where(rows >= 0, out, np.inf)


def _timer(pts: PointSet, offset: int, pt: np.ndarray, kk: np.ndarray, plans: int, memo: dict, slot: bool = True):
    """`dp_exposed`'s collectives of the (point, plan) pairs, timed once per distinct (network figures, plan).

    A plan and whether its stage is 3 (`kk` numbers them: (plan, stage 3 or not) of `plans`) set the groups (their
    sizes and strides) and the sizes, a point's network figures (`collectives.HW_FIELDS`) the rest, with the set's
    racks (`racks.group_times`, as the per-point path times them); HBM bandwidth and peak enter no collective.
    The times are kept in `memo` (the layout set's, `Prepared.memo`), by the group (`dp_exposed`'s "dp" or "expert")
    and the operations asked, then per (`kk`, network figures); one an earlier batch or round timed is looked up.
    `slot`: the pairs' axis is followed by the floors' slot axis (else `full`'s flat pairs), which sets the tables'
    shape. None where the table would be too large.
    """
    if "levels" not in memo:
        level, levels = np.zeros(len(pts.indices), dtype=np.int64), 1  # each point's network figures, numbered
        for f in (f for f in pts.fields if f in HW_FIELDS):
            _, rank = np.unique(pts.fields[f], return_inverse=True)  # the set's points: few distinct values
            level, levels = level * (int(rank.max()) + 1) + rank.reshape(-1), levels * (int(rank.max()) + 1)
        memo["levels"] = level, levels
    level, levels = memo["levels"]
    if len(pt) == 0 or plans * levels >= 1 << 24:
        return None
    key = kk.astype(np.int64) * levels + level[pt + offset]

    def timer(group, asked, n, k, stride):
        ops = tuple(op for op, _ in asked)
        done, tables = memo.setdefault((slot, group, ops), (np.zeros(plans * levels, dtype=bool), {}))
        tail = np.broadcast_shapes(*(np.shape(x)[1:] for x in (n, k, stride, *(s for _, s in asked)) if np.ndim(x)))
        at = np.full(plans * levels, -1)
        at[key[~done[key]]] = np.flatnonzero(~done[key])  # a pair of each key not timed yet (the last written)
        new = np.flatnonzero(at >= 0)
        if len(new):
            first = at[new]
            hw = batch_hw(pts, pt[first] + offset, (len(first), 1) if slot else (len(first),)).with_axis()

            def pick(a):
                return np.broadcast_to(a, (len(pt), *np.shape(a)[1:]))[first] if isinstance(a, np.ndarray) else a

            got = group_times(hw, [(op, pick(size)) for op, size in asked], pick(n), pick(k), pick(stride))
            for (op, _), t in zip(asked, got, strict=True):
                tables.setdefault(op, np.zeros((plans * levels, *tail)))[new] = np.broadcast_to(t, (len(new), *tail))
            done[new] = True
        return [tables[op][key] for op, _ in asked]

    return timer


def full(pts: PointSet, setup, prep: Prepared, point: np.ndarray, row: np.ndarray, got: Parts | None = None,
         offset: int = 0):
    """`estimate_training` of the given (point, layout) pairs, flat.

    With `got` (the parts of the batch at `offset`), on the layer times `parts` worked out for each point and
    (tp, micro-batch, cp, ep, recompute) combination, which are those `estimate_training` works out.
    """
    hw = batch_hw(pts, point, (len(point),))
    lt = timer = None
    if got is not None:
        at = (point - offset, prep.a_of_row[row])
        lt = LayerTimes(*(x if np.ndim(x) == 0 else np.broadcast_to(x, (got.bound.shape[0], len(prep.a_lay["tp"])))[at]
                          for x in (getattr(got.layer, f.name) for f in dataclasses.fields(got.layer))))
        # stage 3 gathers per step, 0-2 per bucket (`exposure.dp_exposure`): other sizes, so keyed apart in the memo
        key = prep.plan_of_row[row] + len(prep.m) * (np.asarray(prep.lay["zero"])[row] >= 3)
        timer = _timer(pts, 0, point, key, 2 * len(prep.m), prep.memo, slot=False)
    return estimate_training(hw, setup.job, layout_of(prep.lay, setup, row), lt, timer)
