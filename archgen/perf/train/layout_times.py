"""The layout search's timing (`layouts.search_training`): which layouts fit, and the fastest of them, best first.

Every layout's fit comes from its memory alone (`ranks.busiest_memory`, `TrainingEstimate.fits`' rule), which needs
no time; only a layout that fits can be the answer. Of those, each layer's times are worked out once per
combination of `LAYER_KEYS` (a few dozen among thousands of layouts, as the sweeps' search does:
`perf.explore.vectorised_bounds.parts`), and they bound each layout's step time from below: the busiest pipeline
rank holds at least the average rank's layers, layers / pp, each taking at least the layer's time
(`LayerTimes.total`; `ranks.class_times` adds the embedding, the loss and the gradient accumulation, none negative),
once per micro-batch, and the step's other terms are never negative (`training.estimate_training`), so

    step time >= m · (layers / pp) · LayerTimes.total.

The layouts are timed in blocks, least bound first (`BLOCK`, each next block twice the last), each block only where
its bound does not exceed the best step time found; a layout tied with the best is never left out (its bound is at
most its step time), and the answer is the search's rule: the least step time, the first in enumeration order on
ties. Timing a layout gives the same numbers whatever layouts are timed with it (tests/perf/test_search_fitting.py
holds the answer to timing every layout, bit for bit); a step time that is not a number, where one is timed, sends
the search back to timing every fitting layout, as it did before (checkspeed37). One on a layout whose bound is
above the best found is not timed, so not seen (timing every layout picked the first such, argmin's rule on NaN).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from archgen.perf.comm.racks import group_times
from archgen.perf.hw.hardware import Hardware
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.layer import LayerTimes, layer_times
from archgen.perf.train.pipeline_split import PipelineOptions, split
from archgen.perf.train.ranks import busiest_memory
from archgen.perf.train.training import TrainingEstimate, estimate_training

#: What a layer's times read of a layout (`layer.layer_times`): worked out once per combination.
LAYER_KEYS = ("tp", "micro_batch", "cp", "ep", "recompute", "etp")
#: Layouts in the first block timed (each next block twice the last: few calls, the first ones set the bound).
BLOCK = 256
#: Relative slack on the bound, far above rounding (the bound is the step time's own first term, regrouped).
SLACK = 1e-9


def layout_of(lay: dict[str, np.ndarray], sequence_parallel: bool | np.ndarray, pipeline: PipelineOptions) -> Layout:
    """The `Layout` of the layouts `lay` (parallel arrays, `layouts.KEYS` and etp; without etp, etp is tp).

    `sequence_parallel`: one setting, or one per layout (the plan search's, `perf.explore.plan_bound`).
    """
    return Layout(lay["tp"], lay["pp"], lay["dp"], lay["micro_batch"], lay["cp"], lay["ep"], lay["interleave"],
                  lay["recompute"].astype(int), sequence_parallel, lay["zero"], pipeline, lay["offload"].astype(int),
                  lay.get("etp"))


def fits(hw: Hardware, job: Job, lay: dict[str, np.ndarray], sequence_parallel: bool,
         pipeline: PipelineOptions) -> np.ndarray:
    """Whether each layout of `lay` fits, as `TrainingEstimate.fits` says, from its memory alone (no times)."""
    mem = busiest_memory(job, layout_of(lay, sequence_parallel, pipeline))
    return np.broadcast_to(mem.fits(hw.hbm_capacity, hw.host_capacity, hw.fit_waste), (len(lay["tp"]),))


def fastest(hw: Hardware, job: Job, lay: dict[str, np.ndarray], sequence_parallel: bool,
            pipeline: PipelineOptions) -> int:
    """The first layout of `lay` (all of which fit) of least step time, timed best first under the bound."""
    lt, group = _layer_times(hw, job, lay, sequence_parallel)
    bound = bounds(job, lay, lt, group)
    bound = np.where(np.isnan(bound), -np.inf, bound)  # no bound: timed first
    order = np.argsort(bound, kind="stable")
    best_t, best = np.inf, -1
    start, size = 0, BLOCK
    while start < len(order):
        block = order[start:start + size]
        start, size = start + size, 2 * size
        block = np.sort(block[bound[block] <= best_t * (1.0 + SLACK)])
        if len(block) == 0:
            break  # the bounds ascend: no later block has one low enough
        step = _timed(hw, job, lay, sequence_parallel, pipeline, lt, group, block)
        if np.isnan(step).any():  # the search's rule on a step time that is not a number is argmin's: time them all
            return int(np.argmin(_timed(hw, job, lay, sequence_parallel, pipeline, lt, group,
                                        np.arange(len(order)))))
        i = int(np.argmin(step))  # the block in enumeration order: its first of least step time
        if best < 0 or step[i] < best_t or (step[i] == best_t and block[i] < best):  # (the first: even if inf)
            best_t, best = float(step[i]), int(block[i])
    return best


def bounds(job: Job, lay: dict[str, np.ndarray], lt: LayerTimes, group: np.ndarray) -> np.ndarray:
    """Each layout's lower bound m · (layers / pp) · `LayerTimes.total`: at most its step time (module docstring)."""
    m = job.global_batch / (lay["dp"] * lay["micro_batch"])
    return m * (job.arch.layers / lay["pp"]) * np.broadcast_to(lt.total, (int(group.max()) + 1,))[group]


def compute_floor(hw: Hardware, job: Job, lay: dict[str, np.ndarray], sequence_parallel: bool | np.ndarray,
                  pipeline: PipelineOptions) -> np.ndarray:
    """Each layout's m · busiest · (forward + backward + recompute + host) of its layer times.

    At most its estimate's compute + optimizer time (`TrainingEstimate`, the plan search's bound): the busiest rank
    class (`busiest`: the most layers a rank holds, `ranks.rank_times`) takes at least that many times
    `LayerTimes.total` plus any offload and EP edge per micro-batch, and `compute` takes off m · busiest · (TP + CP +
    EP communication + the edge) alone (`training.estimate_training`); the optimizer step is never negative. Only
    the layer times (once per combination) and the pipeline split (once per pp and interleave).
    """
    lt, group = _layer_times(hw, job, lay, sequence_parallel)
    per = np.broadcast_to(lt.forward + lt.backward + lt.recompute + lt.host, (int(group.max()) + 1,))[group]
    stage = groups([lay["pp"], lay["interleave"]])
    first = _firsts(stage)
    sl = split(job.arch.layers, lay["pp"][first].astype(float), lay["interleave"][first].astype(float), pipeline)
    busiest = np.max(np.where(sl.count > 0, sl.layers, 0.0), axis=-1)[stage]
    return job.global_batch / (lay["dp"] * lay["micro_batch"]) * busiest * per


def _firsts(group: np.ndarray) -> np.ndarray:
    """Each group's first row (`group` numbers the groups from 0)."""
    first = np.zeros(int(group.max()) + 1, dtype=int)
    first[group[::-1]] = np.arange(len(group))[::-1]
    return first


def _layer_times(hw: Hardware, job: Job, lay: dict[str, np.ndarray],
                 sequence_parallel: bool | np.ndarray) -> tuple[LayerTimes, np.ndarray]:
    """`layer_times` once per combination of `LAYER_KEYS` and SP in `lay`, and each layout's combination.

    `sequence_parallel`: one setting, or one per layout (the plan search's).
    """
    sp = np.broadcast_to(np.asarray(sequence_parallel, dtype=bool), (len(lay["tp"]),))
    group = groups([lay[k] for k in LAYER_KEYS] + [sp.astype(float)])
    first = _firsts(group)  # each combination's first layout
    one = {k: lay[k][first] for k in LAYER_KEYS}
    return layer_times(hw, job, tp=one["tp"], mb=one["micro_batch"], cp=one["cp"], ep=one["ep"],
                       rc=one["recompute"].astype(int), sp=sp[first] & (one["tp"] > 1), etp=one["etp"]), group


def _timed(hw: Hardware, job: Job, lay: dict[str, np.ndarray], sequence_parallel: bool, pipeline: PipelineOptions,
           lt: LayerTimes, group: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The step times of the layouts `rows` of `lay`, on the layer times of their combinations (`_layer_times`)."""
    est = estimate_training(hw, job, layout_of({k: v[rows] for k, v in lay.items()}, sequence_parallel, pipeline),
                            _of_rows(lt, group[rows]))
    return np.broadcast_to(est.step_time, (len(rows),))


def shared_estimate(hw: Hardware, job: Job, lay: dict[str, np.ndarray], sequence_parallel: bool | np.ndarray,
                    pipeline: PipelineOptions) -> TrainingEstimate:
    """`estimate_training` of the layouts `lay`, the same bits, with what many of them share worked out once.

    Each layer's times once per combination of `LAYER_KEYS` and SP (`_layer_times`) and, on hardware of numbers,
    the data-parallel collectives once per distinct group and size (`distinct_times`): the plan search's bounds
    and plans (`perf.explore.plan_bound`) time 10^5 layouts of a few hundred combinations (planspeed39).
    """
    lt, group = _layer_times(hw, job, lay, sequence_parallel)
    return estimate_training(hw, job, layout_of(lay, sequence_parallel, pipeline), _of_rows(lt, group),
                             distinct_times(hw) if hw._numbers else None)


def _of_rows(lt: LayerTimes, at: np.ndarray) -> LayerTimes:
    """The layer times of combinations `at` (one per layout), from those of each combination."""
    return LayerTimes(*(x if np.ndim(x) == 0 else np.asarray(x)[at]
                        for x in (getattr(lt, f.name) for f in dataclasses.fields(lt))))


def distinct_times(hw: Hardware):
    """A timer for `exposure.dp_exposure`: `racks.group_times` once per distinct (sizes, n, k, stride), on `hw`.

    `hw` holds numbers (one hardware for every layout), so a collective's time depends on those figures alone; each
    distinct one is timed once and given to every element that asks it, the same bits as timing them all.
    """
    def timer(group, asked, n, k, stride):
        cols = [size for _, size in asked] + [n, k, stride]
        shape = np.broadcast_shapes(*(np.shape(c) for c in cols))
        if not shape:
            return group_times(hw, asked, n, k, stride)
        flat = [np.broadcast_to(c, shape).reshape(-1) for c in cols]
        at, first = _distinct(flat)
        got = group_times(hw, [(op, f[first]) for (op, _), f in zip(asked, flat, strict=False)], flat[-3][first],
                          flat[-2][first], flat[-1][first])
        return [np.broadcast_to(t, first.shape)[at].reshape(shape) for t in got]

    return timer


def _distinct(columns: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Each row's number among the distinct rows of `columns`, and each distinct row's first row.

    One sort of a hash of each row's bits (the columns' several sorts in `groups` took most of the time saved), the
    rows of a number then checked equal to their first in every column; `groups` where a hash is shared.
    """
    key = np.zeros(len(columns[0]), dtype=np.uint64)
    for col in columns:
        key = _mixed(key ^ np.ascontiguousarray(col, dtype=float).view(np.uint64))
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    new = np.r_[True, ordered[1:] != ordered[:-1]]
    at = np.empty(len(key), dtype=np.int64)
    at[order] = np.cumsum(new) - 1
    first = order[new]  # the stable sort keeps each number's rows in order: its first row first
    if not all(np.array_equal(col, col[first][at]) for col in columns):  # two rows of one hash (or a NaN)
        at = groups(columns)
        first = _firsts(at)
    return at, first


def _mixed(x: np.ndarray) -> np.ndarray:
    """64-bit words with every bit spread over all of them (SplitMix64's finaliser, Steele, Lea and Flood 2014)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def groups(columns: list[np.ndarray]) -> np.ndarray:
    """A group number per row: rows equal in every column share it (a mixed-radix key of each column's rank)."""
    key = np.zeros(len(columns[0]), dtype=np.int64)
    for col in columns:
        rank, count = _rank(col)
        key = key * count + rank
    return _rank(key)[0]


def _rank(col: np.ndarray) -> tuple[np.ndarray, int]:
    """Each value's rank among the distinct values of `col`, and their count: `np.unique`'s inverse.

    Small non-negative whole numbers (the layout fields, the group keys) are ranked by counting, without a sort; others
    by a stable sort (not `np.unique`, which imports `numpy.ma`: tests/test_startup.py keeps it out of `check`).
    """
    top = col.max(initial=0)
    if len(col) and col.min() >= 0 and top <= 4 * len(col) + 4096 and np.array_equal(col, np.floor(col)):
        whole = col.astype(np.int64)
        seen = np.bincount(whole, minlength=int(top) + 1) > 0
        ranks = np.cumsum(seen) - 1
        return ranks[whole], int(ranks[-1]) + 1
    order = np.argsort(col, kind="stable")
    ordered = col[order]
    rank = np.empty(len(col), dtype=np.int64)
    rank[order] = np.cumsum(np.r_[len(col) > 0, ordered[1:] != ordered[:-1]]) - 1
    return rank, int(rank.max(initial=-1)) + 1
