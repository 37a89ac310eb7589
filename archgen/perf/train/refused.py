"""Layouts and switch pairs the stack refuses, each with the Megatron-LM line that refuses it.

The rules here are used by every path that builds a layout (`layout_rules.layout_problems`, the layout search's offload
retry `layouts.search_training`, the sweeps' `perf.explore.vectorised` and the plan search `perf.explore.plan`), so a
layout one of them refuses is refused by all. A stated layout is refused with the same messages (`model.training_rules`,
`scoring.case_checks.training_problems`, `perf.workload.training_setup.training_setup`).
"""

from __future__ import annotations

import numpy as np

from archgen.perf.train.job import Job

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
