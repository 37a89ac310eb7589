"""Layouts and switch pairs the stack refuses, each with the Megatron-LM line that refuses it.

The rules here are used by every path that builds a layout (`layout_rules.layout_problems`, the layout search's offload
retry `layouts.search_training`, the sweeps' `perf.explore.vectorised` and the plan search `perf.explore.plan`), so a
layout one of them refuses is refused by all. A stated layout is refused with the same messages (`model.training_rules`,
`scoring.case_checks.training_problems`, `perf.workload.training_setup.training_setup`).
"""

from __future__ import annotations

import numpy as np

from archgen.model.stack_profiles import STACKS
from archgen.model.switch_allows import UNEVEN_SPLITS, uneven_splits
from archgen.perf.train.job import Job
from archgen.perf.train.pipeline_split import DEFAULT, PipelineOptions, slot_count, stage_counts, uniform_layout

#: Why a stack before Megatron-core f7dfb99 refuses tp above the KV heads (`job.QKV_SUBSHARDING`).
TP_ABOVE_KV = ("Megatron-core before f7dfb99 (core_v0.16.0) raises 'num_query_groups ... must be a multiple of "
               "tensor_model_parallel_size' (transformer_config.py at core_v0.9.0, lines 339-343)")

#: Megatron-LM refuses optimizer offload without the distributed optimizer: `--optimizer-cpu-offload` needs
#: `--use-precision-aware-optimizer` (megatron/training/arguments.py at d98e8a6, line 1885: "The optimizer cpu offload
#: must be used in conjunction with `--use-precision-aware-optimizer`"), which needs the distributed optimizer
#: (megatron/core/optimizer/__init__.py at d98e8a6, line 1057: "--use-precision-aware-optimizer only supported with
#: distributed optimizer").
OPTIMIZER_OFFLOAD_NEEDS_DO = ("optimizer offload needs the distributed optimizer (zero 1, 2 or 3; Megatron-LM: "
                              "--optimizer-cpu-offload needs --use-precision-aware-optimizer, which is 'only "
                              "supported with distributed optimizer')")
#: Megatron-core's own attention asserts `context_parallel_size == 1` (megatron/core/transformer/
#: dot_product_attention.py at d98e8a6, line 59): only Transformer Engine's attention runs context parallelism.
CP_NEEDS_TE_ATTENTION = ("cp > 1 needs Transformer Engine's attention (attention: flash); attention materialized "
                         "is Megatron-core's own, which asserts 'Context parallelism is only supported by "
                         "TEDotProductAttention!'")

#: Why cp > 1 needs the sequence in 2·cp equal chunks. Megatron-core's data loader cuts each sequence into 2·cp chunks
#: and gives rank r chunks r and 2cp−1−r (`val.view(..., 2 * cp_size, val.shape[seq_dim] // (2 * cp_size), ...)`:
#: megatron/core/utils.py at d98e8a6, lines 2549-2554, "The sequence length must be divisible by 2 * cp_size"; the
#: same view at 3097d81, Megatron-Bridge 26.04's pin, lines 2025-2030; at d3528a2, Primus's pin, lines 2114-2119; and
#: in megatron/training/utils.py at core_v0.9.0, lines 250-255), and Transformer Engine's CP attention asserts "Sequence
#: length per GPU needs to be divisible by 2!" before it halves each rank's part (transformer_engine/pytorch/attention/
#: dot_product_attention/context_parallel.py at d0067d0, lines 1569-1571 for p2p and 3141-3143 for all_gather; the a2a
#: path asserts seq_len % 2 at line 4242; the same p2p assertion at v2.9, line 1262, and in attention.py at v1.11,
#: line 1468).
CP_SPLIT_SOURCE = ("Megatron-core cuts each sequence into 2 x cp chunks for its load-balanced split, "
                   "get_batch_on_this_cp_rank, megatron/core/utils.py at d98e8a6, lines 2549-2554; Transformer "
                   "Engine asserts 'Sequence length per GPU needs to be divisible by 2!', context_parallel.py at "
                   "d0067d0, line 1571")


def cp_split_problem(seq_len: int, cp: int) -> str | None:
    """Why `cp` cannot split a sequence of `seq_len` tokens (`CP_SPLIT_SOURCE`), or None: at cp > 1 a multiple of 2·cp.

    A cp that does not divide the sequence is named so; one that does but leaves each rank an odd count is named with
    that count and the nearest lengths that split.
    """
    if cp <= 1 or seq_len % (2 * cp) == 0:
        return None
    if seq_len % cp:
        return f"cp ({cp}) does not divide the sequence length {seq_len}"
    lo, hi = seq_len // (2 * cp) * 2 * cp, (seq_len // (2 * cp) + 1) * 2 * cp
    return (f"cp ({cp}) leaves each rank {seq_len // cp:,} of the {seq_len:,} tokens, an odd count: cp > 1 needs the "
            f"sequence length to be a multiple of 2 x cp = {2 * cp} ({CP_SPLIT_SOURCE}); expected seq_len "
            f"{lo:,} or {hi:,}, or a cp that splits {seq_len:,} into 2 x cp equal chunks")


def cp_splits(seq_len: int, cp: int) -> bool:
    """Whether `cp` splits a sequence of `seq_len` tokens as Megatron-core and Transformer Engine need them split."""
    return cp_split_problem(seq_len, cp) is None


def optimizer_offload_refused(offload, zero):
    """Whether Megatron-LM refuses the offload: the optimizer state offloaded at ZeRO stage 0.

    Numbers or arrays of layouts alike (`memory.OFFLOAD_CODES`: bit 2 offloads the optimizer state); the message is
    `OPTIMIZER_OFFLOAD_NEEDS_DO`.
    """
    return ((np.asarray(offload).astype(int) & 2) > 0) & (np.asarray(zero) == 0)


def without_refused_offloads(lay: dict[str, np.ndarray], zeros: tuple[int, ...]) -> dict[str, np.ndarray]:
    """The layouts of `lay` (with their `offload`) less those `optimizer_offload_refused`.

    A row at dp 1 takes the least sharded stage of `zeros` instead of 0 where it offloads the optimizer: the
    distributed optimizer over one rank holds what stage 0 does, and runs the offload (the search enumerates only
    stage 0 at dp 1, `enumerate_layouts`). The one rule of the layout search's offload retry (`search_training`),
    the sweeps' (`vectorised._offloading`) and the plan search's (`plan.search_plan`).
    """
    refused = optimizer_offload_refused(lay["offload"], lay["zero"])
    sharded = [z for z in zeros if z >= 1]
    if sharded:
        lay = dict(lay, zero=np.where(refused & (lay["dp"] == 1), float(min(sharded)), lay["zero"]))
        refused = optimizer_offload_refused(lay["offload"], lay["zero"])
    return {k: v[~refused] for k, v in lay.items()}


def moe_tp_refused(experts, tp, sp):
    """Whether Megatron-core refuses the layouts: an MoE model trained at tp > 1 without sequence parallelism.

    `MoELayer.forward` raises on it (`training_rules.MOE_TP_NEEDS_SP`; a stated layout's message is
    `training_rules.moe_tp_problem`). `experts` the model's, `sp` the job's; numbers or arrays of layouts alike.
    """
    return (np.asarray(tp) > 1) & (experts > 0) & ~np.asarray(sp, dtype=bool)


def without_refused_tp(lay: dict[str, np.ndarray], job: Job, sp) -> dict[str, np.ndarray]:
    """The layouts of `lay` less those `moe_tp_refused` for `job`'s model.

    The rule of the layout search (`search_training`) and the sweeps' (`vectorised_sets.preparation`); the plan
    search applies `moe_tp_refused` to its plans without sequence parallelism (`plan_bound.Search`).
    """
    keep = ~moe_tp_refused(job.arch.experts, lay["tp"], sp)
    return lay if keep.all() else {k: v[keep] for k, v in lay.items()}


def kv_heads_problem(kv_heads: int, tp: int, subsharding: bool) -> str | None:
    """Why `tp` cannot split `kv_heads` key/value heads under a stack that does (`subsharding`) or not; else None.

    One divides the other or Megatron-core refuses (transformer_config.py at 3097d81, line 1211: "must be a multiple
    or divisor"); tp above the heads runs only from f7dfb99 on (`TP_ABOVE_KV`; `job.QKV_SUBSHARDING`).
    """
    if kv_heads % tp and tp % kv_heads:
        return f"tp ({tp}) and the {kv_heads} key/value heads do not divide one another"
    if tp > kv_heads and not subsharding:
        return (f"tp ({tp}) is above the {kv_heads} key/value heads, which this stack does not run: {TP_ABOVE_KV}; "
                f"expected tp at most {kv_heads}, or stack nemo-2025 or primus-2025 (Megatron-core with QKV "
                "sub-sharding)")
    return None


def needed_placement(layers: int, pp: int, v: int, opts: PipelineOptions = DEFAULT) -> str | None:
    """The placement beyond an even split that a valid split of `layers` on pp x v takes, else None (even).

    One of `switch_allows.UNEVEN_SPLITS`' names: the stated one, else the embedding and loss slots where they alone
    make the split divide, else (a non-interleaved pp that does not divide) DeepSpeed's uniform partition, which the
    Megatron stacks run only as a layout string places it (`pipeline_split.uniform_layout`).
    """
    if opts.layout is not None:
        return "layout"
    if opts.first_stage_layers is not None or opts.last_stage_layers is not None:
        return "counts" if v == 1 else "interleaved_counts"
    if opts.embedding_slot or opts.loss_slot or slot_count(layers, pp, v, opts):
        return "slots"
    return "layout" if layers % pp or (layers // pp) % v else None


def runs_split(stack: str | None, layers: int, pp: int, v: int, opts: PipelineOptions = DEFAULT) -> bool:
    """Whether `stack` places `layers` on pp x v as `opts` says (`needed_placement` in `UNEVEN_SPLITS`)."""
    need = needed_placement(layers, pp, v, opts)
    return need is None or need in uneven_splits(stack)


def bare_split_problem(stack: str | None, layers: int, pp: int, v: int, opts: PipelineOptions = DEFAULT,
                       ranks: int | None = None, mtp: int = 0) -> str | None:
    """Why `stack` cannot run a split that states no placement, with what it runs instead; else None.

    Where pp x v divides the layers only with the embedding and loss slots, or (not interleaved) not at all, the
    stack needs a placement it may lack (`UNEVEN_SPLITS`): Megatron-LM v2.6 asserts an even split, core_v0.9.0 (the
    2024 recipe) builds l // pp layers a rank. Names the nearest pp that divide the layers (and `ranks`, the
    accelerators per tp x cp group, where given), the first/last-stage counts where the stack runs them, and the
    stacks that place the split, with the layout string they run it as (`uniform_layout`, with the job's `mtp` MTP
    layers' `m`s, which such a string must hold). A stated placement is estimated as stated.
    """
    if opts.stated or runs_split(stack, layers, pp, v, opts):
        return None
    need = needed_placement(layers, pp, v, opts)
    assert stack is not None and need is not None, "the newest stack runs every placement"
    has = uneven_splits(stack)
    evens = [d for d in range(1, layers + 1) if layers % d == 0 and (layers // d) % v == 0 and (ranks or d) % d == 0]
    near = [max((d for d in evens if d < pp), default=None), min((d for d in evens if d > pp), default=None)]
    also = f" and the {ranks} pipeline x data ranks" if ranks else ""
    pair = stage_counts(layers, pp, v) if ("counts" if v == 1 else "interleaved_counts") in has else None
    counts = f", or first_stage_layers {pair[0]} and last_stage_layers {pair[1]}" if pair else ""
    placing = [s for s in STACKS if need in uneven_splits(s)]
    string = uniform_layout(layers, pp, v, opts, mtp) if need == "layout" else None
    how = (f" with pipeline_layout '{string}'" if string else
           " with embedding_slot and loss_slot true" if need == "slots" else "")
    why = ("divide only with the embedding and loss as layer slots" if need == "slots" else
           f"do not divide by pp {pp}")
    return (f"the {layers} layers {why}, which stack {stack} cannot place ({UNEVEN_SPLITS.setting(stack)[1]}): "
            + (f"state a pp that divides them{also} ({' or '.join(str(d) for d in near if d)}){counts}, or "
               if any(near) else f"state {counts[5:]}, or " if counts else "state ")
            + f"a stack that places them ({', '.join(placing)}){how}")
