"""The training data a job reads from its cluster's storage: what it reads per token and what the storage holds.

A storage architect sizes the storage's read bandwidth for the data loaders as well as for restores, and its
capacity for the dataset beside the checkpoints kept (docs/reliability.md, "Dataset reads and storage capacity").
"""

from typing import Literal

from pydantic import Field

from archgen.model.spec import Spec
from archgen.units import Information


class Dataset(Spec):
    """The training data a job reads from its cluster's `storage:` (docs/reliability.md)."""

    read_per_token: Information = Field(description=(
        "Bytes the job reads from the storage per training token, as the data is stored, e.g. '4 B': a "
        "pre-tokenized text corpus in Megatron's indexed format stores each token id as int32 where the vocabulary "
        "has 65,500 ids or more (Llama 3's 128,256), uint16 below (megatron/core/datasets/indexed_dataset.py, "
        "`DType.optimal_dtype`); images or video read as stored (compressed) per token of the sequence they "
        "become, as measured. `dataset_read_bandwidth` is it times the job's tokens per second, and REL013 judges "
        "that against the read bandwidth the storage gives the job."))
    size: Information | None = Field(None, description=(
        "What the dataset takes on the storage, e.g. '60 TB': REL001 counts it beside the checkpoints kept "
        "against `storage.capacity`. Left out: the capacity is judged on the checkpoints alone."))
    basis: Literal["sourced", "assumed"] = Field(description="Whether the figures are sourced or assumed.")
    source: str = Field(min_length=3, description="Where the figures come from (the data format, a measurement).")
