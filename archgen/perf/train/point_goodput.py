"""A sweep point's goodput: `perf.train.goodput`'s closed forms for one workload at one accelerator count, kept.

The REL stage (`analyse.goodput`) and a sweep (`perf.explore.points`, `perf.explore.vectorised`) run the same
`job_goodput`; a sweep's points at one accelerator count and interval share one (`_goodputs`, `_unblocked`, cached),
with the same range ends, spares charged and other end (`free_end`) as `check`. Split from `perf.train.goodput` for
its size: that module holds the closed forms and one job's goodput, this one what a point asks of them.
"""

from __future__ import annotations

import functools
import math
from dataclasses import replace

from archgen.model.reliability import Checkpointing
from archgen.model.workload import Model, Workload
from archgen.perf.hw.arch import Arch
from archgen.perf.train.goodput import (
    DEFAULT_GOODPUT_TARGET,
    Failures,
    free_end,
    job_goodput,
    range_ends,
    spares_charged,
)

#: `goodput_of`'s figures: goodput, its range's low and high end, the idle nodes its cost range charges, the
#: checkpoint write and restore times (s), and the job's MTTI with its range's low and high end (s; infinite with no
#: interruption).
PointGoodput = tuple[float, float, float, int, float, float, float, float, float]


def goodput_of(f: Failures, workload: Workload, model: Model, gpus: int,
               ends: tuple[Failures, ...] = ()) -> PointGoodput:
    """A sweep point's goodput and its range's ends, the spares its cost charges, checkpoint times, MTTI and ends.

    The same `job_goodput` the REL stage runs, on `f` and on each of `ends` (`analyse.goodput_range.failure_ends`: the
    rate sets and Poisson intervals `check`'s range spans), and the same `spares_charged`; the MTTI is that
    `job_goodput`'s `mtti` and its ends the least and most over the same ends (`analyse.goodput.goodput`'s `band`). NaN
    without checkpoint storage, or for the ranges without ends (0 spares without storage). The checkpoint write and
    restore times (seconds) are the central `job_goodput`'s, as `check` gives `checkpoint_write_time` and
    `checkpoint_restore_time` (`analyse.goodput.workload_metrics`).
    """
    cp = workload.checkpoint
    return _goodputs(for_job(f, workload), tuple(for_job(e, workload) for e in ends), cp,
                     checkpoint_bytes(model, workload), gpus,
                     cp.goodput_target or DEFAULT_GOODPUT_TARGET)


def checkpoint_bytes(model: Model, workload: Workload) -> float:
    """Checkpoint size: the job's parameters x `checkpoint.bytes_per_parameter` (`check`, `analyse.goodput`, a sweep).

    The job's parameters (`Arch.of_workload`, as its memory counts them) include the multi-token prediction layers its
    training trains: Megatron-core builds them inside the `GPTModel` (`self.mtp`, megatron/core/models/gpt/
    gpt_model.py), so its checkpoint saves them with their optimizer state; DeepSeek-V3's released weights hold its
    module (deepseek-ai/DeepSeek-V3 README.md: "685B, which includes 671B of the Main Model weights and 14B of the
    Multi-Token Prediction (MTP) Module weights").
    """
    return Arch.of_workload(model, workload).params() * workload.checkpoint.bytes_per_parameter


def for_job(f: Failures, workload: Workload) -> Failures:
    """`f` for `workload`: its stated accelerators per scale-up domain (`placement.per_domain`), else 0 (in order)."""
    return replace(f, per_domain=workload.placement.per_domain if workload.placement is not None else 0)


def unblocked_of(f: Failures, workload: Workload, model: Model, gpus: int) -> float:
    """A sweep point's goodput at the other end of what it does not know, else NaN.

    With no blocking at all where its blocking time is assumed (REL008, `with_unblocked`), and with no wait for a
    repair where no hot spare stands in (`with_swapped`), as `check` takes them: a sweep requirement met at the
    point's goodput and not at this one, or the reverse, is not judged (`upper_bounds.unsettled_at`).
    """
    cp = workload.checkpoint
    return _unblocked(for_job(f, workload), cp, checkpoint_bytes(model, workload), gpus,
                      cp.goodput_target or DEFAULT_GOODPUT_TARGET)


@functools.lru_cache(maxsize=4096)
def _unblocked(f: Failures, cp: Checkpointing, size: float, gpus: int, target: float) -> float:
    """`unblocked_of`'s figure, kept per accelerator count as `_goodputs` are."""
    g = job_goodput(f, cp, size, gpus, target)
    free = free_end(g, f, cp, size, gpus, target) if g is not None else None
    return free.goodput if free is not None else math.nan


@functools.lru_cache(maxsize=4096)
def _goodputs(f: Failures, ends: tuple[Failures, ...], cp: Checkpointing, size: float, gpus: int,
              target: float) -> PointGoodput:
    """`goodput_of`'s figures, kept: a sweep's points at one accelerator count and interval share them.

    Each `job_goodput` takes ~0.15 ms of CPU, and a range has two per rate set.
    """
    g = job_goodput(f, cp, size, gpus, target)
    spread = range_ends(g, ends, cp, size, gpus, target)
    values, mttis = [e.goodput for e in spread], [e.mtti for e in spread]
    low, high = min(values, default=math.nan), max(values, default=math.nan)
    m_low, m_high = min(mttis, default=math.nan), max(mttis, default=math.nan)
    if g is None:
        return math.nan, low, high, 0, math.nan, math.nan, math.nan, m_low, m_high
    return g.goodput, low, high, spares_charged(g, spread), g.write_time, g.restore_time, g.mtti, m_low, m_high
