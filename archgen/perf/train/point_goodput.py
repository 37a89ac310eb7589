"""A sweep point's goodput: `perf.train.goodput`'s closed forms for one workload at one accelerator count, kept.

The REL stage (`analyse.goodput`) and a sweep (`perf.explore.points`, `perf.explore.vectorised`) run the same
`job_goodput`; a sweep's points at one accelerator count and interval share one (`_goodputs`, `_unblocked`, cached),
with the same range ends, spares charged and other end (`free_end`) as `check`. Split from `perf.train.goodput` for
its size: that module holds the closed forms and one job's goodput, this one what a point asks of them. What a
restore reads (`restore_reads`: the checkpoint once, or each data-parallel replica's weights, by the job's load) is
here too, for `check` (`analyse.goodput`, `analyse.storage_demand`) and a point at its layout alike (restore42;
perf reads no analysis).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import replace

from archgen.model.reliability import Checkpointing
from archgen.model.workload import Model, Workload
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.memory import WEIGHT_BYTES
from archgen.perf.train.goodput import (
    DEFAULT_GOODPUT_TARGET,
    Failures,
    JobGoodput,
    free_end,
    job_goodput,
    range_ends,
    spares_charged,
    waits_for_repair,
)

#: `goodput_of`'s figures: goodput, its range's low and high end, the idle nodes its cost range charges, the
#: checkpoint write and restore times (s), and the job's MTTI with its range's low and high end (s; infinite with no
#: interruption).
PointGoodput = tuple[float, float, float, int, float, float, float, float, float]


def goodput_of(f: Failures, workload: Workload, model: Model, gpus: int,
               ends: tuple[Failures, ...] = (), layout: Mapping[str, int | str] | None = None) -> PointGoodput:
    """A sweep point's goodput and its range's ends, the spares its cost charges, checkpoint times, MTTI and ends.

    The same `job_goodput` the REL stage runs, on `f` and on each of `ends` (`analyse.goodput_range.failure_ends`: the
    rate sets and Poisson intervals `check`'s range spans), and the same `spares_charged`; the MTTI is that
    `job_goodput`'s `mtti` and its ends the least and most over the same ends (`analyse.goodput.goodput`'s `band`). NaN
    without checkpoint storage, or for the ranges without ends (0 spares without storage). The checkpoint write and
    restore times (seconds) are the central `job_goodput`'s, as `check` gives `checkpoint_write_time` and
    `checkpoint_restore_time` (`analyse.goodput.workload_metrics`). A restore reads what the job's load reads at the
    point's `layout` (`restore_reads`, as `check`'s): where which load is unsettled, the range reaches the replicas'
    read, whose goodput is the point's other end there (`replicas_of`; restore42: a sweep read the checkpoint once).
    """
    cp = workload.checkpoint
    restore, other = restore_reads(model, workload, layout)
    return _goodputs(for_job(f, workload), tuple(for_job(e, workload) for e in ends), cp,
                     checkpoint_bytes(model, workload), gpus, cp.goodput_target or DEFAULT_GOODPUT_TARGET, restore,
                     other)


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


def restore_read(model: Model, workload: Workload, layout: Mapping[str, int | str]) -> float:
    """Bytes a restore reads from the storage (B) under Megatron-core's default load, at the job's `layout`.

    Megatron-LM at d98e8a64 (2026-08-22): `--ckpt-fully-parallel-load` is off by default
    (megatron/training/config/training_config.py:541, `fully_parallel_load: bool = field(default=False ...)`), so
    the `FullyParallelLoadStrategyWrapper` (megatron/core/dist_checkpointing/strategies/fully_parallel.py), which
    has each replica read a share and exchange it, is not used: every rank reads its whole sharded state dict. A
    weight is marked replicated over the data- and context-parallel group (megatron/core/utils.py:1018
    `make_tp_sharded_tensor_for_checkpoint`, `dp_replica_id` the rank in `dp_cp_group`), so each of the dp x cp
    replicas reads the weights of its tensor/pipeline shard. The distributed optimizer (ZeRO 1 or 2) shards the
    master weights and moments over the data-parallel ranks (megatron/core/optimizer/distrib_optimizer.py
    `get_parameter_state_dp_reshardable`, `replica_id` with the data-parallel rank): read once in all. At ZeRO 0
    they are replicated as the weights are; at ZeRO 3 (sharded weights) everything is read once.

    Assumed, and said in docs/reliability.md: the weights are `WEIGHT_BYTES` (BF16, the working weights the memory
    model counts: `perf.hw.memory`) of `bytes_per_parameter`, whose default 14 B is 2 (BF16 weights) + 4 (FP32 master
    weights) + 8 (two FP32 Adam moments), as its field says; an MoE's expert weights are counted as replicated over
    dp x cp as a dense weight is (an upper bound where experts are spread over expert-parallel ranks); the storage
    serves each replica's read from its drives (no server cache dedups the copies).
    """
    size = checkpoint_bytes(model, workload)
    bytes_per_parameter = workload.checkpoint.bytes_per_parameter
    zero = int(layout.get("zero", 0))
    replicas = int(layout.get("dp", 1)) * int(layout.get("cp", 1))
    if zero >= 3 or replicas <= 1:
        return size
    weights = size * min(WEIGHT_BYTES, bytes_per_parameter) / bytes_per_parameter
    return weights * replicas + (size - weights) * (replicas if zero == 0 else 1)


#: Whether a restore under each stack profile reads each byte once (a fully parallel load), with where that is read;
#: None where no one source settles it: goodput's range then spans both reads (docs/reliability.md).
STACK_LOADS: dict[str, tuple[bool | None, str]] = {
    "megatron-lm-2021": (None, "Megatron-LM of 2021 predates its distributed checkpoint; its load is not read here"),
    "megatron-core-2024": (True, "NeMo 24.x loads in parallel: NeMo v2.0.0's `MegatronStrategy` turns "
                                 "`ckpt_parallel_load` on (nemo/lightning/pytorch/strategies/megatron_strategy.py:191) "
                                 "and every LLM recipe states it (e.g. nemo/collections/llm/recipes/gpt3_175b.py:112); "
                                 "MLPerf Training v4.1 NeMo GPT-3 conf/custom.yaml: dist_ckpt_parallel_load True "
                                 "(plain Megatron-LM's `--ckpt-fully-parallel-load` is off unless given)"),
    "nemo-2025": (None, "NeMo 2's `MegatronStrategy` turns `ckpt_parallel_load` on (NVIDIA/NeMo "
                        "nemo/lightning/pytorch/strategies/megatron_strategy.py:275 at 8cfedd72), Megatron-Bridge's "
                        "`CheckpointConfig` keeps Megatron's off (`fully_parallel_load`, at 067f987d)"),
    "primus-2025": (None, "Primus's checkpoint load default is not read here"),
}


def loads_once(workload: Workload) -> tuple[bool | None, str]:
    """(whether a restore reads each byte once, why): the stated `checkpoint.parallel_load`, else the stack's.

    None where neither settles it (`STACK_LOADS`); a job with no training stack (none) reads once.
    """
    stated = workload.checkpoint.parallel_load
    if stated is not None:
        return stated, "stated (`checkpoint.parallel_load`)"
    if workload.training is None:
        return True, ""
    return STACK_LOADS.get(workload.training.stack, (None, "the stack's load is not read here"))


def restore_reads(model: Model, workload: Workload,
                  layout: Mapping[str, int | str] | None) -> tuple[float, float | None]:
    """(bytes goodput's restore reads, the other end's where the stack's load is unsettled, else None).

    A fully parallel load (`loads_once`: stated, or the stack's) reads the checkpoint once; Megatron's default has
    each data-parallel replica read its weights (`restore_read`), and goodput counts that. Where neither is settled,
    goodput keeps the one-copy read, its range reaches the replicas' read, and the job at that read is the other end
    (`Goodput.replicas`) of every figure it moves: a requirement met at one end only is not provided (REQ002), as for
    an unknown blocking time or repair wait. Without a layout, or in memory: once.
    """
    cp = workload.checkpoint
    size = checkpoint_bytes(model, workload)
    read = restore_read(model, workload, layout) if layout is not None and not cp.in_memory else size
    once, _ = loads_once(workload)
    if read <= size * (1 + 1e-9) or once is True:
        return size, None
    return (read, None) if once is False else (size, read)


def unblocked_of(f: Failures, workload: Workload, model: Model, gpus: int,
                 layout: Mapping[str, int | str] | None = None) -> float:
    """A sweep point's goodput at the other end of what it does not know, else NaN.

    With no blocking at all where its blocking time is assumed (REL008, `with_unblocked`), and with no wait for a
    repair where no hot spare stands in (`with_swapped`), as `check` takes them: a sweep requirement met at the
    point's goodput and not at this one, or the reverse, is not judged (`upper_bounds.unsettled_at`). Its restore
    reads what the value's does (`restore_reads` at `layout`), as `check`'s `Goodput.unblocked` and `.swapped`.
    """
    cp = workload.checkpoint
    return _unblocked(for_job(f, workload), cp, checkpoint_bytes(model, workload), gpus,
                      cp.goodput_target or DEFAULT_GOODPUT_TARGET, restore_reads(model, workload, layout)[0])


def replicas_of(f: Failures, workload: Workload, model: Model, gpus: int,
                layout: Mapping[str, int | str] | None = None) -> float:
    """A sweep point's goodput with each data-parallel replica reading its weights, where its load is unsettled; NaN.

    `restore_reads`' other end at the point's `layout`: `check`'s `Goodput.replicas`, the figures at which are the
    other end of each one it moves (`analyse.goodput_notes.RESTORE_ENDS`), so a sweep requirement met at one read only
    is not judged, as `check` leaves it not provided (restore42).
    """
    _, other = restore_reads(model, workload, layout)
    if other is None:
        return math.nan
    cp = workload.checkpoint
    g = _job(for_job(f, workload), cp, checkpoint_bytes(model, workload), gpus, cp.goodput_target or
             DEFAULT_GOODPUT_TARGET, other)
    return g.goodput if g is not None else math.nan


#: What a sweep point's other end (`unblocked_of`) frees it of, each in words (`freed_of`).
BLOCKING_WORDS = ("the unknown checkpoint blocking time (the whole write charged, or no stop at all; the nodes give no "
                  "host_memory.link, REL008)")
REPAIR_WORDS = ("the unknown repair wait (every hardware failure waiting the rate set's repair time, or a failed node "
                "replaced at once; the job leaves no idle node to stand in)")


def freed_of(f: Failures, workload: Workload, model: Model, gpus: int,
             layout: Mapping[str, int | str] | None = None) -> str:
    """What a sweep point's other end (`unblocked_of`) frees it of, in words; "" where nothing.

    Its assumed blocking time (REL008, `BLOCKING_WORDS`), its wait for a repair where no hot spare stands in
    (`REPAIR_WORDS`), or both, each named once, as `check`'s reasons name them (`analyse.goodput_notes`). Before
    (tail42), a sweep named the blocking time alone, even where the repair wait moved the point.
    """
    cp = workload.checkpoint
    return _freed(for_job(f, workload), cp, checkpoint_bytes(model, workload), gpus,
                  cp.goodput_target or DEFAULT_GOODPUT_TARGET, restore_reads(model, workload, layout)[0])


@functools.lru_cache(maxsize=4096)
def _freed(f: Failures, cp: Checkpointing, size: float, gpus: int, target: float, restore: float) -> str:
    """`freed_of`'s words, kept per accelerator count as `_unblocked`'s figure is."""
    g = _job(f, cp, size, gpus, target, restore)
    said = [BLOCKING_WORDS] * (g is not None and g.blocking_assumed) + [REPAIR_WORDS] * (
        g is not None and waits_for_repair(g))
    return " and ".join(said)


#: A sweep point's goodput figures (`goodput_of`), its two other ends: no blocking nor repair wait (`unblocked_of`)
#: and each replica reading its weights at a restore (`replicas_of`), NaN where none, and what the first frees it of
#: (`freed_of`).
GoodputEnds = tuple[PointGoodput, float, float, str]


def goodput_ends(f: Failures, workload: Workload, model: Model, gpus: int, ends: tuple[Failures, ...],
                 key: tuple[int, int] | None) -> GoodputEnds:
    """`goodput_of`, `unblocked_of`, `replicas_of` and `freed_of` of a point whose layout's `restore_key` is `key`.

    What a restore reads depends on its layout through that key alone (`restore_read`), so a batch's points share
    these by it (`perf.explore.vectorised`, `vectorised_rows.finish`); None: no layout (the checkpoint read once).
    """
    layout = None if key is None else {"dp": key[0], "zero": key[1]}
    return (goodput_of(f, workload, model, gpus, ends, layout), unblocked_of(f, workload, model, gpus, layout),
            replicas_of(f, workload, model, gpus, layout), freed_of(f, workload, model, gpus, layout))


def restore_key(layout: Mapping[str, int | str] | None) -> tuple[int, int] | None:
    """What of a `layout` a restore's read depends on (`restore_read`): its data x context replicas and ZeRO stage.

    A batch of sweep points shares its goodput figures by it (`perf.explore.vectorised_rows.finish`).
    """
    if layout is None:
        return None
    return int(layout.get("dp", 1)) * int(layout.get("cp", 1)), int(layout.get("zero", 0))


@functools.lru_cache(maxsize=4096)
def _unblocked(f: Failures, cp: Checkpointing, size: float, gpus: int, target: float, restore: float) -> float:
    """`unblocked_of`'s figure, kept per accelerator count as `_goodputs` are."""
    g = _job(f, cp, size, gpus, target, restore)
    free = free_end(g, f, cp, size, gpus, target, restore_bytes=restore) if g is not None else None
    return free.goodput if free is not None else math.nan


@functools.lru_cache(maxsize=4096)
def _job(f: Failures, cp: Checkpointing, size: float, gpus: int, target: float, read: float) -> JobGoodput | None:
    """`job_goodput` with a restore reading `read`, kept: computed once for all that a point asks of it.

    A point's goodput (`_goodputs`) and its other ends (`_unblocked`, `_freed`) ask it at the restore's read; goodput's
    range (`_goodputs`) and the replicas' end (`replicas_of`) at the replicas' read, where the load is unsettled.
    Before, `replicas_of` ran again the `job_goodput` that `_goodputs` had run for its range's low end.
    """
    return job_goodput(f, cp, size, gpus, target, read)


@functools.lru_cache(maxsize=4096)
def _goodputs(f: Failures, ends: tuple[Failures, ...], cp: Checkpointing, size: float, gpus: int,
              target: float, restore: float, other: float | None) -> PointGoodput:
    """`goodput_of`'s figures, kept: a sweep's points at one accelerator count, interval and read share them.

    Each `job_goodput` takes ~0.15 ms of CPU, and a range has two per rate set; where the load is unsettled, the range
    spans the replicas' read (`other`) too, as `analyse.goodput.goodput`'s.
    """
    g = _job(f, cp, size, gpus, target, restore)
    spread = range_ends(g, ends, cp, size, gpus, target, restore)
    low = _job(f, cp, size, gpus, target, other) if other is not None else None
    if low is not None:   # the stack's load unsettled: the range reaches the replicas' read
        spread += [low, *range_ends(low, ends, cp, size, gpus, target, other)]
    values, mttis = [e.goodput for e in spread], [e.mtti for e in spread]
    low_end, high = min(values, default=math.nan), max(values, default=math.nan)
    m_low, m_high = min(mttis, default=math.nan), max(mttis, default=math.nan)
    if g is None:
        return math.nan, low_end, high, 0, math.nan, math.nan, math.nan, m_low, m_high
    return g.goodput, low_end, high, spares_charged(g, spread), g.write_time, g.restore_time, g.mtti, m_low, m_high
