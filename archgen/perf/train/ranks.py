"""The pipeline rank classes of a training layout: each class's time per micro-batch, and the busiest one's memory.

`pipeline_split.split` gives a layout's rank classes (ranks that hold the same layers, embedding and loss) on a trailing
axis; `rank_times` times each class from the per-layer times of `layer.layer_times`, and `busiest_memory` finds
the class that needs the most HBM. Both broadcast over arrays of layouts (the search, batched sweeps).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from archgen.perf.hw import kernels as K
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.memory import (
    TrainingMemory,
    expert_split,
    layer_activation_bytes,
    layer_parts,
    layout_memory,
    rank_parts,
    training_memory,
)
from archgen.perf.hw.numeric import as_float
from archgen.perf.hw.record import quick_init
from archgen.perf.hw.reserve import runtime_reserve
from archgen.perf.train import fast
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.pipeline_split import Split, split


@quick_init
@dataclass(frozen=True)
class RankTimes:
    """The pipeline rank classes (trailing axis) of a layout: parameters, time per micro-batch, and the schedule."""

    params: np.ndarray | list[Any]    # a list: one layout's classes as plain numbers (`fast`)
    t_rank: np.ndarray | list[Any]
    real: np.ndarray | list[bool]     # whether a class has ranks
    t_max: np.ndarray | float      # the busiest class's time per micro-batch
    t_sum: np.ndarray | float      # every rank's time per micro-batch, summed
    busiest: np.ndarray | float    # decoder layers on the rank that holds the most
    bubble: np.ndarray | float     # (t_sum - t_max) / v
    experts: np.ndarray | float | list[Any] = 0.0  # routed experts' share of `params` (expert DP group)


class LayoutArrays(NamedTuple):
    """A layout's fields as numbers or arrays, as the step time and the memory fit read them."""

    tp: np.ndarray | float
    pp: np.ndarray | float
    dp: np.ndarray | float
    cp: np.ndarray | float
    ep: np.ndarray | float
    v: np.ndarray | float          # interleave
    mb: np.ndarray | float         # micro-batch
    rc: np.ndarray | int           # recompute
    sp: np.ndarray | bool          # sequence parallel, where tp > 1
    zero: np.ndarray | float       # ZeRO stage (the distributed optimizer is stage 1)
    etp: np.ndarray | float        # the experts' tensor-parallel size (MoE parallel folding; tp unless stated)


def layout_arrays(job: Job, layout: Layout) -> LayoutArrays:
    """The layout's fields as `LayoutArrays` (one place for the defaults both readers apply)."""
    fields = layout.tp, layout.pp, layout.dp, layout.cp, layout.ep, layout.interleave, layout.micro_batch
    if fast.plain(*fields):  # one layout's numbers: `as_float`'s floats, without a comprehension (issue 25)
        tp, pp, dp, cp, ep, v, mb = float(fields[0]), float(fields[1]), float(fields[2]), float(fields[3]), float(
            fields[4]), float(fields[5]), float(fields[6])
    else:
        tp, pp, dp, cp, ep, v, mb = [as_float(x) for x in fields]
    rc, sp = layout.recompute, layout.sequence_parallel
    if isinstance(tp, np.ndarray) or isinstance(rc, np.ndarray | list | tuple) or isinstance(sp, np.ndarray):
        rc, sp = np.asarray(rc), np.asarray(sp, dtype=bool) & (tp > 1)
    else:  # one layout: plain numbers, which the model's formulas keep plain (numpy is slow on scalars, issue 25)
        rc, sp = int(rc), bool(sp) and tp > 1
    zero = as_float(layout.zero if layout.zero is not None else (1 if job.distributed_optimizer else 0))
    etp = tp if layout.etp is None else as_float(layout.etp)
    return LayoutArrays(tp, pp, dp, cp, ep, v, mb, rc, sp, zero, etp)


def per_class(arr):
    """A layout quantity against the trailing class axis (a number as it is: it broadcasts against any axis)."""
    if isinstance(arr, fast.NUMBER):
        return arr
    arr = np.asarray(arr)
    return arr if arr.ndim == 0 else arr[..., None]


def rank_times(hw: Hardware, job: Job, per_layer, logits, embed, *, tp, pp, ep, v, sl: Split, etp=None) -> RankTimes:
    """Each rank class's layers, embedding and loss per micro-batch, with the weight-gradient accumulation.

    `per_layer`, `logits` and `embed` are those of `LayerTimes`. Weight gradients are accumulated into the gradient
    buffer once per micro-batch: unfused, a separate pass reads it, reads the new 16-bit gradient and writes it back
    (2·grad_bytes + 2 bytes per parameter); with `grad_accum_fusion` the weight-gradient GEMM reads and writes the
    main gradient in its epilogue (cuBLAS beta = 1 into the fp32 buffer: Megatron-LM fused_weight_gradient_dense.cu,
    Transformer Engine linear.py `out=main_grad, accumulate`), 2·grad_bytes - 2 bytes beyond the 16-bit output the
    GEMM's roofline already counts, and only `unfused_params` keep the pass. `hw` must broadcast against
    the class axis (`Hardware.with_axis`).
    """
    one = fast.classes(sl, per_layer, logits, embed, tp, pp, ep, 0.0 if etp is None else etp) if hw._numbers else None
    if one is not None:  # one layout of plain numbers: class by class (`fast`)
        parts = layer_parts(job.arch, tp, ep, etp)  # alike for every class
        # one pass over the classes, each list filled in it (a comprehension apiece cost about a microsecond each)
        params, experts, t_rank, on, live, weighted, held = [], [], [], [], [], [], []
        for c in one:
            p, e, t = class_times(hw, job, per_layer, logits, embed, tp, pp, ep, c.layers, c.embedding, c.loss, etp,
                                  parts)
            o = c.ranks > 0
            params.append(p)
            experts.append(e)
            t_rank.append(t)
            on.append(o)
            live.append(t if o else 0.0)
            weighted.append(c.ranks * t if o else 0.0)
            held.append(c.layers if o else 0.0)
        t_max, t_sum = fast.most(live), fast.total(weighted)
        return RankTimes(params, t_rank, on, t_max, t_sum, fast.most(held), (t_sum - t_max) / v, experts)
    x = per_class
    params, experts, t_rank = class_times(hw, job, x(per_layer), x(logits), x(embed), x(tp), x(pp), x(ep), sl.layers,
                                          sl.embedding, sl.loss, None if etp is None else x(etp))
    real = sl.count > 0
    t_max = np.max(np.where(real, t_rank, 0.0), axis=-1)
    t_sum = np.sum(np.where(real, sl.count * t_rank, 0.0), axis=-1)
    busiest = np.max(np.where(real, sl.layers, 0.0), axis=-1)
    return RankTimes(params, t_rank, real, t_max, t_sum, busiest, (t_sum - t_max) / v, experts)


def class_times(hw: Hardware, job: Job, per_layer, logits, embed, tp, pp, ep, layers, embedding, loss, etp=None,
                parts=None):
    """Parameters, the routed experts' share and time per micro-batch of rank classes (see `rank_times`).

    `layers`, `embedding` and `loss` are those of `pipeline_split.Split` (the class axis), or one class's numbers;
    `parts` is `memory.layer_parts` of the layout where the caller has it.
    """
    dense, experts = expert_split(job.arch, tp, pp, ep, layers, embedding, loss, etp, parts)
    params = dense + experts
    gb = job.grad_bytes
    if job.grad_accum_fusion:  # the GEMMs' epilogue: gb in, gb out, in place of the 16-bit output (`accumulation`)
        loose = unfused_params(job.arch, tp, layers, embedding)
        accumulate = K.memory_time(hw, loose * (2.0 * gb + 2.0) + (params - loose) * (2.0 * gb - 2.0))
    else:
        accumulate = K.memory_time(hw, params * (2.0 * gb + 2.0))
    return params, experts, layers * per_layer + loss * logits + embedding * embed + accumulate


def unfused_params(arch, tp, layers, embedding):
    """Parameters of a rank whose gradient no linear layer's GEMM computes: `grad_accum_fusion` leaves them a pass.

    They are the input embedding (its lookup's scatter-add gradient), each layer's two norms
    and the MoE router (a plain torch linear, megatron/core/transformer/moe/router.py at core_v0.9.0); each is added
    to the main gradient by the DDP hook (`main_grad.add_(grad)`). The output layer is a ColumnParallelLinear
    (megatron/core/models/gpt/gpt_model.py), which fuses. Split tp ways as `memory.layer_parts` splits them.
    """
    moe_share = arch.moe_layers / arch.layers
    per_layer = (2.0 * arch.hidden + moe_share * arch.hidden * (arch.experts or 0)) / tp
    return layers * per_layer + embedding * arch.vocab * arch.hidden / tp


def at_worst(tail, *values) -> list:
    """Each of `values` (against the class axis) at the class where `tail` is largest, as 0-d arrays for one layout.

    One layout (a 1-D `tail`) indexes its worst class directly: what `np.take_along_axis` picks, without its cost.
    """
    if tail.ndim == 1:
        i = int(np.argmax(tail))
        return [np.broadcast_to(v, tail.shape)[..., i] for v in values]
    worst = np.argmax(tail, axis=-1)[..., None]
    return [np.take_along_axis(np.broadcast_to(v, tail.shape), worst, -1)[..., 0] for v in values]


def busiest_memory(job: Job, layout: Layout, sl: Split | None = None, per_layer=None,
                   arrays: LayoutArrays | None = None) -> TrainingMemory:
    """Memory per accelerator of the rank class that needs the most HBM, and the most host memory any offloads.

    It does not depend on the hardware; `sl` is the layout's `pipeline_split.split` when the caller has it, `per_layer`
    its `memory.layer_activation_bytes` (used for one layout of plain numbers), `arrays` its `layout_arrays`. Every
    rank also holds its runtime's own memory (`reserve.runtime_reserve`), counted in the total, where its runtime
    does (`Job.runtime_reserve`: not on a TPU).
    """
    arrays = layout_arrays(job, layout) if arrays is None else arrays
    tp, pp, dp, cp, ep = arrays[:5]
    held = runtime_reserve(tp, pp, dp, cp, ep) if job.runtime_reserve else 0.0
    w, g, o, a, host = _busiest(job, layout, sl, per_layer, arrays)  # (one `TrainingMemory` built, issue 25)
    return TrainingMemory(w, g, o, a, host, held)


def _busiest(job: Job, layout: Layout, sl: Split | None, per_layer, arrays: LayoutArrays) -> tuple:
    """`busiest_memory`'s weights, gradients, optimizer, activations and host, in `TrainingMemory`'s order."""
    tp, pp, dp, cp, ep, v, mb, rc, sp, zero, etp = arrays
    m = job.global_batch / (dp * mb)
    sl = split(job.arch.layers, pp, v, layout.pipeline) if sl is None else sl
    code = int(layout.offload) if isinstance(layout.offload, fast.NUMBER) else np.asarray(layout.offload).astype(int)
    one = fast.classes(sl, tp, pp, dp, cp, ep, v, mb, rc, sp, zero, etp, m, code)
    if one is not None:  # one layout of plain numbers: class by class (`fast`), the busiest by index
        if per_layer is None:
            per_layer = layer_activation_bytes(job.arch, seq_len=job.seq_len, micro_batch=mb, tp=tp, cp=cp,
                                               recompute=rc, sp=sp, flash=job.attention == "flash",
                                               precision=job.precision, dropout=job.dropout, etp=etp)
        shared = layout_memory(job.arch, precision=job.precision, seq_len=job.seq_len, micro_batch=mb, tp=tp, pp=pp,
                               dp=dp * cp, cp=cp, ep=ep, interleave=v, recompute=rc, sp=sp,
                               flash=job.attention == "flash", microbatches=m, zero=zero, grad_bytes=job.grad_bytes,
                               weight_bytes=job.weight_bytes, dropout=job.dropout, offload=code, etp=etp,
                               per_layer=per_layer)  # what the classes share: `training_memory` of each, below
        mems, totals, hosts = [], [], []  # one pass over the classes (not a comprehension per list)
        plain = isinstance(per_layer, fast.NUMBER)  # every figure of `shared` a number (`fast.rank_parts`)
        for c in one:
            f = fast.rank_parts(shared, c) if plain else rank_parts(shared, c.layers, c.embedding, c.loss, c.position)
            mems.append(f)
            held = c.ranks > 0
            totals.append(0 + f[0] + f[1] + f[2] + f[3] if held else -np.inf)
            hosts.append(f[4] if held else 0.0)
        w, g, opt, act, _ = mems[fast.worst(totals)]
        return float(w), float(g), float(opt), float(act), float(fast.most(hosts))
    x = per_class
    mem = training_memory(job.arch, precision=job.precision, seq_len=job.seq_len, micro_batch=x(mb), tp=x(tp),
                          pp=x(pp), dp=x(dp * cp), cp=x(cp), ep=x(ep), interleave=x(v), recompute=x(rc), sp=x(sp),
                          flash=job.attention == "flash", microbatches=x(m), zero=x(zero),
                          grad_bytes=job.grad_bytes, weight_bytes=job.weight_bytes, dropout=job.dropout,
                          layers=sl.layers, embedding=sl.embedding, loss=sl.loss, position=sl.position,
                          offload=x(code), etp=x(etp))
    fields = (mem.weights, mem.gradients, mem.optimizer, mem.activations, mem.host)
    if max(np.ndim(f) for f in (*fields, sl.count)) == 1:  # one layout: its busiest class by index, unbroadcast
        real = sl.count > 0
        i = int(np.argmax(np.where(real, 0 + fields[0] + fields[1] + fields[2] + fields[3], -np.inf)))
        w, g, o, a = (float(np.asarray(f)[i]) if np.ndim(f) else float(f) for f in fields[:4])
        return w, g, o, a, float(np.max(np.where(real, fields[4], 0.0)))
    shape = np.broadcast_shapes(*(np.shape(f) for f in (*fields, sl.count)))
    parts = [np.broadcast_to(f, shape) for f in fields]
    real = np.broadcast_to(sl.count, shape) > 0
    total = np.where(real, sum(parts[:4]), -np.inf)
    if len(shape) == 1:  # one layout: its busiest class by index (what take_along_axis picks)
        i = int(np.argmax(total))
        w, g, o, a = (float(f[i]) for f in parts[:4])
        return w, g, o, a, float(np.max(np.where(real, parts[4], 0.0)))
    worst = np.argmax(total, axis=-1)[..., None]
    pick = [np.take_along_axis(f, worst, -1)[..., 0] for f in parts[:4]] + [np.max(np.where(real, parts[4], 0.0), -1)]
    if pick[0].ndim == 0:
        pick = [float(f) for f in pick]
    return tuple(pick)
