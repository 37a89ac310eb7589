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

from archgen.perf.hw.hardware import Hardware
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.layer import LayerTimes, layer_times
from archgen.perf.train.pipeline_split import PipelineOptions
from archgen.perf.train.ranks import busiest_memory
from archgen.perf.train.training import estimate_training

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
    return np.broadcast_to((mem.total <= hw.hbm_capacity) & (mem.host <= hw.host_capacity), (len(lay["tp"]),))


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


def _layer_times(hw: Hardware, job: Job, lay: dict[str, np.ndarray],
                 sequence_parallel: bool) -> tuple[LayerTimes, np.ndarray]:
    """`layer_times` once per combination of `LAYER_KEYS` in `lay`, and each layout's combination."""
    group = groups([lay[k] for k in LAYER_KEYS])
    first = np.zeros(int(group.max()) + 1, dtype=int)
    first[group[::-1]] = np.arange(len(group))[::-1]  # each combination's first layout
    one = {k: lay[k][first] for k in LAYER_KEYS}
    return layer_times(hw, job, tp=one["tp"], mb=one["micro_batch"], cp=one["cp"], ep=one["ep"],
                       rc=one["recompute"].astype(int), sp=np.asarray(sequence_parallel, dtype=bool) & (one["tp"] > 1),
                       etp=one["etp"]), group


def _timed(hw: Hardware, job: Job, lay: dict[str, np.ndarray], sequence_parallel: bool, pipeline: PipelineOptions,
           lt: LayerTimes, group: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The step times of the layouts `rows` of `lay`, on the layer times of their combinations (`_layer_times`)."""
    at = group[rows]
    sub = LayerTimes(*(x if np.ndim(x) == 0 else np.asarray(x)[at]
                       for x in (getattr(lt, f.name) for f in dataclasses.fields(lt))))
    est = estimate_training(hw, job, layout_of({k: v[rows] for k, v in lay.items()}, sequence_parallel, pipeline),
                            sub)
    return np.broadcast_to(est.step_time, (len(rows),))


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
