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
from archgen.perf.train.point_goodput import checkpoint_bytes, restore_read
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
