"""What a training job asks of its cluster's storage beyond one checkpoint: the checkpoints kept and its data reads.

`checkpoint_storage_needed` is the checkpoints a retention policy keeps at once (`checkpoint.keep`) times the
checkpoint; `dataset_read_bandwidth` is what the data loaders read (`dataset.read_per_token`) at the job's tokens per
second, times the ranks that read each sample (`sample_readers`: two under pipeline parallelism). Neither is given
where its input is not stated: archgen assumes no retention and no data format (docs/reliability.md, "Dataset reads
and storage capacity"). REL001 judges the capacity, REL013 the reads. `checkpoint_restore_read` is what a restore
reads from the storage under Megatron-core's default load, every data-parallel replica reading its own copy of the
weights (`restore_read`; docs/reliability.md, "What a restore reads").
"""

from __future__ import annotations

from collections.abc import Mapping

from archgen.display import figure
from archgen.model.workload import Model, Workload
from archgen.perf.train.point_goodput import checkpoint_bytes
from archgen.units import Q_, Q

#: Why `checkpoint_storage_needed` is not provided.
NO_KEEP = ("the workload states no `checkpoint.keep` (how many checkpoints the storage holds at once, the one being "
           "written counted)")
#: Why `dataset_read_bandwidth` is not provided.
NO_DATASET = ("the workload states no `dataset:` (`read_per_token`, the bytes its data loaders read from storage per "
              "training token)")


def sample_readers(layout: Mapping[str, object]) -> int:
    """How many ranks read each training sample from the storage under a training `layout` (its `pp` and `cp`).

    Megatron-LM builds the dataset on tensor-parallel rank 0 of the first and of the last pipeline stage only
    (pretrain_gpt.py, `is_dataset_built_on_rank`: `(is_pipeline_first_stage() or is_pipeline_last_stage()) and
    get_tensor_model_parallel_rank() == 0`; the first stage takes the tokens, the last the labels), so a job with
    pp above 1 reads each sample twice, and each context-parallel rank reads the whole sample before keeping its
    slice (`get_batch_on_this_cp_rank`); the tensor-parallel ranks get it by broadcast (`get_batch_on_this_tp_rank`).
    Ranks that share a node's page cache read it once: that saving is not modelled (they stand on different nodes in
    Megatron's tp-cp-ep-dp-pp rank order once tp fills a node).
    """
    pp, cp = layout.get("pp", 1), layout.get("cp", 1)
    return (2 if isinstance(pp, int) and pp > 1 else 1) * (cp if isinstance(cp, int) and cp > 1 else 1)


#: Bytes of the model's weights per parameter a checkpoint holds (BF16), of `checkpoint.bytes_per_parameter`: the
#: default 14 B is 2 (BF16 weights) + 4 (FP32 master weights) + 8 (two FP32 Adam moments), as its field says.
WEIGHT_BYTES = 2.0


def restore_read(model: Model, workload: Workload, layout: dict[str, int | str]) -> float:
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

    Assumed, and said in docs/reliability.md: the weights are `WEIGHT_BYTES` of `bytes_per_parameter` (BF16); an
    MoE's expert weights are counted as replicated over dp x cp as a dense weight is (an upper bound where experts
    are spread over expert-parallel ranks); the storage serves each replica's read from its drives (no server cache
    dedups the copies).
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


def storage_demand(workload: Workload, model: Model, tokens_per_second: Q | None,
                   layout: dict[str, int | str] | None = None) -> tuple[dict[str, Q], dict[str, str]]:
    """A training job's `checkpoint_storage_needed`, `dataset_read_bandwidth` and `checkpoint_restore_read`.

    The read rate is at the job's estimated tokens per second while it trains (not its goodput rate): what the
    storage must sustain between interruptions, times the ranks that read each sample at the estimate's `layout`
    (`sample_readers`; one without a layout). No figure without its input (`NO_KEEP`, `NO_DATASET`); the restore's
    read at the `layout` (`restore_read`), none without one. Returns the figures and why each one not given is not.
    """
    out: dict[str, Q] = {}
    why: dict[str, str] = {}
    if layout is not None and not workload.checkpoint.in_memory:
        read = restore_read(model, workload, layout)
        out["checkpoint_restore_read"] = Q_(read, "B").to("TB")
    keep = workload.checkpoint.keep
    if keep is None:
        why["checkpoint_storage_needed"] = NO_KEEP
    else:
        size = checkpoint_bytes(model, workload)
        out["checkpoint_storage_needed"] = Q_(keep * size, "B").to("TB")
    data = workload.dataset
    if data is None:
        why["dataset_read_bandwidth"] = NO_DATASET
    elif tokens_per_second is not None:
        readers = sample_readers(layout) if layout is not None else 1
        out["dataset_read_bandwidth"] = (data.read_per_token * tokens_per_second * readers).to("GB/s")
    return out, why


def capacity_needed(workload: Workload, checkpoint_size: float) -> tuple[float, str, str]:
    """What a job keeps on its cluster's storage (B) and what that counts, for REL001: for the team, for a customer.

    The checkpoints kept (`checkpoint.keep`, else one: a lower bound, said so; an in-memory job's only where it states
    `keep`, the copies it persists) and the dataset where it states a size.
    """
    keep, in_memory = workload.checkpoint.keep, workload.checkpoint.in_memory
    need = (keep or (0 if in_memory else 1)) * checkpoint_size
    size = amount(checkpoint_size)
    said = (f"{keep} checkpoint(s) kept (checkpoint.keep) of {size}" if keep else "" if in_memory
            else f"one checkpoint of {size} (no checkpoint.keep: a lower bound)")
    public = (f"{keep} checkpoint(s) of {size} kept at once" if keep else "" if in_memory
              else f"one checkpoint of {size} (no retention stated: a lower bound)")
    data = workload.dataset
    if data is not None and data.size is not None:
        need += data.size.m_as("B")
        said += f"{' and ' if said else ''}the dataset's {amount(data.size.m_as('B'))}"
        public += f"{' and ' if public else ''}the training dataset's {amount(data.size.m_as('B'))}"
    return need, said, public


def amount(size: float) -> str:
    """`size` (B) as a message shows it: in TB, or in PB from 1,000 TB, at four significant figures."""
    tb = Q_(size, "B").to("TB")
    return figure(tb.to('PB') if tb.m >= 1000 else tb)
