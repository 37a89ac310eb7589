"""The bounds a batched sweep prunes with (`perf.explore.vectorised_bounds`): valid, tight, and the rows unchanged."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from archgen.perf.explore import vectorised as batch
from archgen.perf.explore import vectorised_bounds as vb
from archgen.perf.explore import vectorised_grid as vg
from archgen.perf.explore.points import evaluate_point
from archgen.perf.train.layer import layer_times
from archgen.perf.train.ranks import rank_times
from tests.perf.test_batch import MIXED, _set, problems, same

#: A mixture-of-experts job (Mixtral 8x7B: experts reduced over their own data-parallel group) with the hardware
#: axes the 10^5-point benchmark sweeps.
MOE = """kind: Workload
id: mixtral-train
model: mixtral-8x7b
cluster: dgx-b200-superpod
accelerators: 64
training: {seq_len: 4096, global_batch: 256, precision: bf16}
---
kind: Sweep
id: moe
workload: mixtral-train
axes:
  hbm_bandwidth: [0.5, 1, 2]
  scale_out_bandwidth: [0.25, 1, 4]
  peak: [1, 2]
objectives: [{metric: tokens_per_second}]
"""


def _floors_and_steps(p, pos: np.ndarray):
    """Each layout's floor and step time at the points `pos` of one layout set, flat."""
    pts, setup, prep = _set(p, batch._levels(p, 0, int(pos[-1]) + 1), pos)
    got = vb.parts(pts, setup, prep, slice(0, len(pos)))
    plans = len(prep.m)
    pt, kk = np.repeat(np.arange(len(pos)), plans), np.tile(np.arange(plans), len(pos))
    floor = vb.floors(pts, setup, prep, got, 0, pt, kk)
    rows = prep.plan_rows[kk]
    assert np.all(floor[rows < 0] == np.inf)  # padding
    assert np.all(got.bound[pt, kk][:, None] <= floor)  # the floor adds to the plan bound
    ok = (rows >= 0).reshape(-1)
    point, row = np.repeat(pt, rows.shape[1])[ok], rows.reshape(-1)[ok]
    step = np.asarray(batch._full(pts, setup, prep, point, row).step_time)
    return floor.reshape(-1)[ok], step


def test_the_layout_floor_never_exceeds_the_step_time_and_is_close_to_it(tmp_path):
    """Dense (factors and values on every hardware axis, FP8) and mixture-of-experts layout sets, every layout."""
    (dense,) = problems(tmp_path, MIXED.replace("accelerators: [64, 72, 512, 2000]", "accelerators: [128]")
                        .replace("precision: [bf16, fp8]", "precision: [fp8]"))
    (moe,) = problems(tmp_path, MOE)
    for p, pos in ((dense, np.arange(0, 64, 8)), (moe, np.arange(0, moe.size, 3))):
        floor, step = _floors_and_steps(p, pos)
        assert np.all(floor <= step)
        # it is the step time but the weight quantisation and the norm's all-reduce, which are small
        assert np.median(floor / step) > 0.99


@pytest.mark.parametrize("rows", [0, 5])
def test_the_plan_bound_by_rank_group_is_rank_times_plan_by_plan(tmp_path, monkeypatch, rows: int):
    """Rank classes timed once per rank split give each plan's m·t_max + bubble to the last bit.

    Also where the bound is worked out in blocks of 5 points (`vectorised_bounds._plan_bound`), the last one short.
    """
    (p,) = problems(tmp_path, MIXED.replace("accelerators: [64, 72, 512, 2000]", "accelerators: [128]"))
    pos = np.arange(32)
    pts, setup, prep = _set(p, batch._levels(p, 0, 32), pos)
    if rows:
        monkeypatch.setattr(vb, "BLOCK_BYTES", 8 * len(prep.m) * rows)
    assert len(prep.a_of_group) < len(prep.m)  # plans that differ in their interleave share a group
    hw = vg.batch_hw(pts, slice(0, 32), (32, 1))
    a = prep.a_lay
    lt = layer_times(hw, setup.job, tp=a["tp"], mb=a["micro_batch"], cp=a["cp"], ep=a["ep"],
                     rc=a["recompute"].astype(int), sp=np.asarray(setup.knobs.sequence_parallel) & (a["tp"] > 1),
                     etp=a["etp"])
    k = prep.plan_lay
    rk = rank_times(hw.with_axis(), setup.job, *(np.broadcast_to(x, (32, len(a["tp"])))[:, prep.a_of_plan]
                                                 for x in (lt.total, lt.logits, lt.embed)),
                    tp=k["tp"], pp=k["pp"], ep=k["ep"], v=k["interleave"], sl=prep.split, etp=k["etp"])
    assert np.array_equal(batch._bounds(pts, setup, prep, slice(0, 32)), prep.m * rk.t_max + rk.bubble)


def test_a_mixture_of_experts_sweep_batched_is_the_per_point_rows(tmp_path: Path):
    (p,) = problems(tmp_path, MOE)
    fast = batch.evaluate(p, 0, p.size)
    for i in range(p.size):
        same(fast[i], evaluate_point(p, i))


def test_the_layer_times_on_the_points_grid_are_those_point_by_point(tmp_path, monkeypatch):
    """`grid_hw`: each vector axis of a layout set on an axis of its own, each field on the axes it varies along;
    the layer times taken back point by point are the flat batch's to the bit, and so are `parts`' bounds."""
    (mixed,) = problems(tmp_path, MIXED.replace("accelerators: [64, 72, 512, 2000]", "accelerators: [128]"))
    (moe,) = problems(tmp_path, MOE)
    for p, n in ((mixed, 128), (moe, moe.size)):
        pos = np.arange(n)
        pts, setup, prep = _set(p, batch._levels(p, 0, n), pos)
        grid, shape = vg.grid_hw(pts, slice(0, n))
        assert np.prod(shape) == n and len(shape) > 2
        assert vg.grid_hw(pts, slice(1, n // 2 + 2)) is None  # not whole rows of the grid, nor of its last axis
        a = prep.a_lay
        kw = dict(tp=a["tp"], mb=a["micro_batch"], cp=a["cp"], ep=a["ep"], rc=a["recompute"].astype(int),
                  sp=np.asarray(setup.knobs.sequence_parallel) & (a["tp"] > 1), etp=a["etp"])
        # the whole set, and a batch of 2 x 2 points, smaller than a row: whole blocks of the last axis
        for take, size in ((slice(0, n), n), (slice(2, 6), 4)):
            grid, shape = vg.grid_hw(pts, take)
            assert np.prod(shape) == size and (size == n or shape == (2, 2))
            on_grid = layer_times(grid, setup.job, **kw)
            flat = layer_times(vg.batch_hw(pts, take, (size, 1)), setup.job, **kw)
            for f in dataclasses.fields(flat):
                got = np.broadcast_to(getattr(on_grid, f.name), (*shape, len(a["tp"]))).reshape(size, -1)
                assert np.array_equal(got, np.broadcast_to(getattr(flat, f.name), got.shape)), f.name
        grid, shape = vg.grid_hw(pts, slice(0, n))
    assert np.shape(grid.hbm_bandwidth) == (3, 1, 1, 1) and np.shape(grid.scale_out_bandwidth) == (1, 3, 1, 1)
    assert np.shape(grid.peak["bf16"]) == (1, 1, 2, 1)
    on_grid = vb.parts(pts, setup, prep, slice(0, n))
    monkeypatch.setattr(vb, "grid_hw", lambda *a: None)
    flat = vb.parts(pts, setup, prep, slice(0, n))
    for a, b in [(on_grid.bound, flat.bound), (on_grid.forward, flat.forward), *zip(on_grid.t_rank, flat.t_rank, strict=True)]:
        assert np.array_equal(a, np.broadcast_to(b, np.shape(a)))


def test_full_estimates_on_the_parts_layer_times_are_the_estimates(tmp_path):
    """`full` with the batch's parts times each layout on the layer times `parts` worked out, and its DP collectives
    once per (plan, network figures) of the set (`Prepared.memo`, looked up the second time): the same estimates."""
    (moe,) = problems(tmp_path, MOE)
    pos = np.arange(moe.size)
    pts, setup, prep = _set(moe, batch._levels(moe, 0, moe.size), pos)
    got = vb.parts(pts, setup, prep, slice(2, moe.size))
    rows = np.arange(0, len(prep.memory), 7)
    point = np.repeat(np.arange(2, moe.size), len(rows))
    row = np.tile(rows, moe.size - 2)
    reused, fresh = vb.full(pts, setup, prep, point, row, got, 2), vb.full(pts, setup, prep, point, row)
    again = vb.full(pts, setup, prep, point[::-1], row[::-1], got, 2)
    assert prep.memo  # the DP collectives were kept
    for f in ("step_time", "compute", "tp_comm", "ep_comm", "bubble", "dp_comm"):
        assert np.array_equal(getattr(reused, f), getattr(fresh, f)), f
        assert np.array_equal(getattr(again, f), getattr(fresh, f)[::-1]), f



def test_the_dp_collective_memo_is_keyed_by_group_not_by_call_order(tmp_path, monkeypatch):
    """`_timer` keeps `dp_exposed`'s times by what sets them (the group, "dp" or "expert", and the operations), so a
    later timer asked in another order finds each group's own times: the MoE set's two groups, asked again in
    reverse order on the same memo, give what they gave first, and what a timer on an empty memo gives."""
    (moe,) = problems(tmp_path, MOE)
    pos = np.arange(moe.size)
    pts, setup, prep = _set(moe, batch._levels(moe, 0, moe.size), pos)
    got = vb.parts(pts, setup, prep, slice(0, moe.size))
    rows = np.arange(0, len(prep.memory), 7)
    point, row = np.repeat(pos, len(rows)), np.tile(rows, moe.size)
    calls, made = [], vb._timer

    def recording(*args, **kwargs):
        timer = made(*args, **kwargs)
        return lambda group, asked, n, k, stride: calls.append(
            (group, asked, n, k, stride, timer(group, asked, n, k, stride))) or calls[-1][5]

    monkeypatch.setattr(vb, "_timer", recording)
    vb.full(pts, setup, prep, point, row, got, 0)
    assert [c[0] for c in calls] == ["dp", "expert"]
    again = made(pts, 0, point, prep.plan_of_row[row], len(prep.m), prep.memo, slot=False)
    empty = made(pts, 0, point, prep.plan_of_row[row], len(prep.m), {}, slot=False)
    for group, asked, n, k, stride, first in reversed(calls):
        for a, b, c in zip(again(group, asked, n, k, stride), first, empty(group, asked, n, k, stride), strict=True):
            assert np.array_equal(a, b) and np.array_equal(a, c), group


def test_the_dp_memo_keeps_a_plans_fsdp_rows_apart_from_its_bucketed_ones(tmp_path):
    """Stage 3 gathers a step's parameters at once, stages 0-2 bucket by bucket (`exposure.dp_exposure`), so one plan's
    rows ask collectives of other sizes. Timed through one memo, either kind first, they are the estimates without it
    (keyed by the plan alone, the second kind took the first's times: 72 of the 10,080-point benchmark sweep's points
    fell back to the per-point path, which made the batched sweep 2.9x slower)."""
    (p,) = problems(tmp_path, MIXED.replace("accelerators: [64, 72, 512, 2000]", "accelerators: [128]"))
    pos = np.arange(8)
    pts, setup, prep = _set(p, batch._levels(p, 0, 8), pos)
    got = vb.parts(pts, setup, prep, slice(0, 8))
    zero = np.asarray(prep.lay["zero"])
    both = [r[r >= 0] for r in prep.plan_rows if len(set((zero[r[r >= 0]] >= 3).tolist())) == 2]
    assert both  # plans with rows of both kinds, and more than one bucket (70B over tp x pp <= 128 GPUs)
    rows = np.concatenate(both)
    fsdp, bucketed = rows[zero[rows] >= 3], rows[zero[rows] < 3]
    for order in ((fsdp, bucketed), (bucketed, fsdp)):
        memo = dataclasses.replace(prep, memo={})
        for r in order:
            point, row = np.repeat(pos, len(r)), np.tile(r, len(pos))
            kept, fresh = vb.full(pts, setup, memo, point, row, got, 0), vb.full(pts, setup, prep, point, row)
            for f in ("dp_comm", "step_time"):
                assert np.array_equal(getattr(kept, f), getattr(fresh, f)), f


def test_the_least_plans_of_similar_points_are_those_a_stable_sort_puts_first():
    """`vectorised._least` partitions only the plans under some point's ceiling (the k-th least bound among the
    first point's 2k least plans): each row's k least, in order, as a stable argsort gives them."""
    rng = np.random.default_rng(25)
    base = rng.uniform(1.0, 100.0, 770)
    bound = base[None, :] * rng.uniform(0.98, 1.02, (300, 770))  # nearby points: bounds alike
    bound[5, 3] = np.inf  # a plan that does not fit one point
    order, ranked = batch._least(bound, 40)
    ref = np.argsort(bound, axis=1, kind="stable")[:, :40]
    assert np.array_equal(order, ref) and np.array_equal(ranked, np.take_along_axis(bound, ref, axis=1))
    spread = bound.copy()
    spread[::2] = spread[::2, ::-1]  # plans that are least somewhere: every plan is kept, the whole partition runs
    assert np.array_equal(batch._least(spread, 40)[0], np.argsort(spread, axis=1, kind="stable")[:, :40])
