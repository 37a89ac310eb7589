"""The pipeline rank classes of a training layout: each class's time per micro-batch, and the busiest one's memory.

`pipeline.split` gives a layout's rank classes (ranks that hold the same layers, embedding and loss) on a trailing
axis; `rank_times` times each class from the per-layer times of `training.layer_times`, and `busiest_memory` finds
the class that needs the most HBM. Both broadcast over arrays of layouts (the search, batched sweeps).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from archgen.perf.comm.algorithms import as_float
from archgen.perf.hw import kernels as K
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.memory import TrainingMemory, expert_split, training_memory
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.pipeline_split import Split, split


@dataclass(frozen=True)
class RankTimes:
    """The pipeline rank classes (trailing axis) of a layout: parameters, time per micro-batch, and the schedule."""

    params: np.ndarray
    t_rank: np.ndarray
    real: np.ndarray               # whether a class has ranks
    t_max: np.ndarray | float      # the busiest class's time per micro-batch
    t_sum: np.ndarray | float      # every rank's time per micro-batch, summed
    busiest: np.ndarray | float    # decoder layers on the rank that holds the most
    bubble: np.ndarray | float     # (t_sum - t_max) / v
    experts: np.ndarray | float = 0.0  # the routed experts' share of `params` (reduced over the expert DP group)


class LayoutArrays(NamedTuple):
    """A layout's fields as numbers or arrays, as the step time and the memory fit read them."""

    tp: np.ndarray | float
    pp: np.ndarray | float
    dp: np.ndarray | float
    cp: np.ndarray | float
    ep: np.ndarray | float
    v: np.ndarray | float          # interleave
    mb: np.ndarray | float         # micro-batch
    rc: np.ndarray                 # recompute
    sp: np.ndarray                 # sequence parallel, where tp > 1
    zero: np.ndarray | float       # ZeRO stage (the distributed optimizer is stage 1)
    etp: np.ndarray | float        # the experts' tensor-parallel size (MoE parallel folding; tp unless stated)


def layout_arrays(job: Job, layout: Layout) -> LayoutArrays:
    """The layout's fields as `LayoutArrays` (one place for the defaults both readers apply)."""
    tp, pp, dp = (as_float(x) for x in (layout.tp, layout.pp, layout.dp))
    cp, ep, v = (as_float(x) for x in (layout.cp, layout.ep, layout.interleave))
    mb = as_float(layout.micro_batch)
    rc = np.asarray(layout.recompute)
    sp = np.asarray(layout.sequence_parallel, dtype=bool) & (tp > 1)
    zero = as_float(layout.zero if layout.zero is not None else (1 if job.distributed_optimizer else 0))
    etp = tp if layout.etp is None else as_float(layout.etp)
    return LayoutArrays(tp, pp, dp, cp, ep, v, mb, rc, sp, zero, etp)


def per_class(arr):
    """A layout quantity against the trailing class axis."""
    return np.asarray(arr)[..., None]


def rank_times(hw: Hardware, job: Job, per_layer, logits, embed, *, tp, pp, ep, v, sl: Split, etp=None) -> RankTimes:
    """Each rank class's layers, embedding and loss per micro-batch, with the weight-gradient accumulation.

    `per_layer`, `logits` and `embed` are those of `LayerTimes`. Weight gradients are accumulated into the gradient
    buffer once per micro-batch (read it, read the new 16-bit gradient, write it back). `hw` must broadcast against
    the class axis (`Hardware.with_axis`).
    """
    x = per_class
    dense, experts = expert_split(job.arch, x(tp), x(pp), x(ep), sl.layers, sl.embedding, sl.loss,
                                  None if etp is None else x(etp))
    params = dense + experts
    accumulate = K.memory_time(hw, params * (2.0 * job.grad_bytes + 2.0))
    t_rank = sl.layers * x(per_layer) + sl.loss * x(logits) + sl.embedding * x(embed) + accumulate
    real = sl.count > 0
    t_max = np.max(np.where(real, t_rank, 0.0), axis=-1)
    t_sum = np.sum(np.where(real, sl.count * t_rank, 0.0), axis=-1)
    busiest = np.max(np.where(real, sl.layers, 0.0), axis=-1)
    return RankTimes(params, t_rank, real, t_max, t_sum, busiest, (t_sum - t_max) / v, experts)


def at_worst(tail, *values) -> list:
    """Each of `values` (against the class axis) at the class where `tail` is largest, as 0-d arrays for one layout.

    One layout (a 1-D `tail`) indexes its worst class directly: what `np.take_along_axis` picks, without its cost.
    """
    if tail.ndim == 1:
        i = int(np.argmax(tail))
        return [np.broadcast_to(v, tail.shape)[..., i] for v in values]
    worst = np.argmax(tail, axis=-1)[..., None]
    return [np.take_along_axis(np.broadcast_to(v, tail.shape), worst, -1)[..., 0] for v in values]


def busiest_memory(job: Job, layout: Layout, sl: Split | None = None) -> TrainingMemory:
    """Memory per accelerator of the rank class that needs the most HBM, and the most host memory any offloads.

    It does not depend on the hardware; `sl` is the layout's `pipeline.split` when the caller has it.
    """
    tp, pp, dp, cp, ep, v, mb, rc, sp, zero, etp = layout_arrays(job, layout)
    m = job.global_batch / (dp * mb)
    sl = split(job.arch.layers, pp, v, layout.pipeline) if sl is None else sl
    x = per_class
    mem = training_memory(job.arch, precision=job.precision, seq_len=job.seq_len, micro_batch=x(mb), tp=x(tp),
                          pp=x(pp), dp=x(dp * cp), cp=x(cp), ep=x(ep), interleave=x(v), recompute=x(rc), sp=x(sp),
                          flash=job.attention == "flash", microbatches=x(m), zero=x(zero),
                          grad_bytes=job.grad_bytes, weight_bytes=job.weight_bytes, dropout=job.dropout,
                          layers=sl.layers, embedding=sl.embedding, loss=sl.loss, position=sl.position,
                          offload=x(np.asarray(layout.offload).astype(int)), etp=x(etp))
    fields = (mem.weights, mem.gradients, mem.optimizer, mem.activations, mem.host)
    shape = np.broadcast_shapes(*(np.shape(f) for f in (*fields, sl.count)))
    parts = [np.broadcast_to(f, shape) for f in fields]
    real = np.broadcast_to(sl.count, shape) > 0
    total = np.where(real, sum(parts[:4]), -np.inf)
    if len(shape) == 1:  # one layout: its busiest class by index (what take_along_axis picks)
        i = int(np.argmax(total))
        return TrainingMemory(*(float(f[i]) for f in parts[:4]), float(np.max(np.where(real, parts[4], 0.0))))
    i = np.argmax(total, axis=-1)[..., None]
    pick = [np.take_along_axis(f, i, -1)[..., 0] for f in parts[:4]] + [np.max(np.where(real, parts[4], 0.0), -1)]
    if pick[0].ndim == 0:
        pick = [float(f) for f in pick]
    return TrainingMemory(*pick)
