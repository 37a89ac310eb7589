"""The memory a training rank's runtime holds beside the model's tensors: the CUDA context and NCCL's buffers.

Per runtime (`holds_reserve`): NVIDIA's figures on an NVIDIA GPU, and, as a stated stand-in, on a part whose runtime
is another GPU-like one with a collective library of NCCL's design (AMD's RCCL, Gaudi's HCCL, Trainium's Neuron
runtime); none on a TPU, whose XLA runtime has no CUDA context and no NCCL communicators, and whose own reserve no
source states (not provided, said beside the estimate, `reserve_convention`).

`memory.TrainingMemory.reserve`, counted in its total, so that every fit check (an estimate's, the layout search's, a
sweep's, the plan search's) holds it back. What is not reserved, the caching allocator's fragmentation, is the memory
estimate's band instead (`memory_ends`): from none to the most a published measurement found, so that a requirement on
a training job's memory is judged at both ends (`memory_per_gpu_low/high`, `memory_headroom_low/high`); kernel
workspaces are said, not added (`TRAINING_RESERVE`).
"""

from __future__ import annotations

import numpy as np

from archgen.model.accelerator import vendor_name
from archgen.perf.hw.generation import another_vendors
from archgen.perf.hw.numeric import NUMBER, where

#: Memory a training rank's runtime holds beside the model's tensors (`runtime_reserve`), each from a measurement:
#: the CUDA context, "around 400MB if CUDA >= 11.7 is used and lazy module loading enabled (default in PyTorch)"
#: (NVIDIA's ptrblck, pytorch/pytorch#109888, 2023-09-23);
CUDA_CONTEXT_BYTES = 400e6
#: an NCCL communicator used for ring collectives, 688 MB per rank after one 4 MB all-reduce in a PyTorch process
#: group of more than two A100s on NVLink (544 MB with two; NVIDIA/nccl#964, 2023-08-16; NCCL's buffers scale with
#: its channels, NCCL_BUFFSIZE 4 MiB of them for the Simple protocol each, sjeaugey in NVIDIA/nccl#864);
NCCL_COMM_BYTES = 688e6
#: and an all-to-all communicator, which connects every pair over all its channels: 1.06 GB -> 4.34 GB of NCCL
#: memory per H100 after the first all_to_all_single over 8 GPUs (32 channels a pair; NVIDIA/nccl#1685,
#: 2025-04-16).
NCCL_ALLTOALL_BYTES = 4.34e9 - 1.06e9
#: The most of the caching allocator's reserved memory a published measurement found holding no tensor: "Default GPU
#: memory allocators of popular deep learning frameworks like PyTorch ... can waste up to 43% of memory" in LLM
#: training under virtual pipelining and recomputation (Huang et al., "Reducing GPU Memory Fragmentation via
#: Spatio-Temporal Planning for Efficient Large-Scale Model Training", arXiv:2507.16274v1, 2025, abstract; A800 GPUs).
#: The abstract does not say of what the 43 % is; it is read as of the reserved memory (fragmentation = 1 - allocated
#: / reserved, GMLake's ratio: "the memory utilization ratio, which equals peak active memory divided by peak reserved
#: memory. The fragmentation ratio equals (1-utilization ratio)", intelligent-machine-learning/glake GMLake/README.md
#: at 2898380, Training Performance Evaluation), the pessimistic reading: reserved = allocated / (1 - 0.43), 1.75 x
#: the tensors (of the tensors it would be 1.43 x). GMLake found PyTorch's at least 33 % on one of eight LLM
#: fine-tuning runs on A100-80GB: its stitching cut fragmentation "15% (up to 33%)" (Guo et al., ASPLOS '24,
#: arXiv:2401.08156, abstract; its README says "up to 30%" for the caching allocator under recomputation, offloading,
#: distributed training and LoRA). Both are the most over runs chosen for fragmenting (virtual pipelining and
#: recomputation; LoRA, offload and ZeRO-3 fine-tuning), not a typical run's waste: the high end is a worst case.
#: Against it, the runs found that print their peak allocated and peak reserved memory (Megatron's report_memory;
#: tests/perf/data/allocator-waste-readings.yaml, one source a row) left 4.9 % to 37.7 % of the reserved memory
#: holding no tensor over 17 readings, median 14.5 %: Megatron-Core's 11.1 % to 20.5 % (Megatron-LM's activation
#: offloading README, H100), Megatron-DeepSpeed's up to 37.7 % (ZeRO-2 with activation checkpointing, A100 40GB),
#: and the two with expandable segments on 8.9 % and 12.4 % (NeMo-RL #926, FSDP2 on H100). None runs virtual
#: pipelining with recomputation, the case the 43 % is of, so none bounds it; and the worst lies above 30 %, the
#: share of the reserved memory that 43 % of the tensors would be, so the reading as a share of the reserved memory
#: is the one the runs bear out. The high end stays the stress maximum, above every run's log found (alloc42).
ALLOCATOR_WASTE_HIGH = 0.43
#: Where the band's words send a reader for the allocator's waste (`ALLOCATOR_WASTE_HIGH`).
WASTE_SOURCE = "arXiv:2507.16274, abstract; GMLake, arXiv:2401.08156, abstract: at least 33 %"
#: What the runs' own logs show of it (tests/perf/data/allocator-waste-readings.yaml, computed there from the rows).
RUN_READINGS = "17 readings from 4 sources, 4.9 % to 37.7 % of the reserved memory, median 14.5 %"
#: The readings found with expandable segments on (the rows whose `expandable_segments` is true).
EXPANDABLE_READINGS = "two readings found with it on (8.9 % and 12.4 %, NVIDIA-NeMo/RL#926)"
#: What the training reserve says of itself, beside every training estimate (its `conventions`).
TRAINING_RESERVE = ("CUDA context 0.4 GB, 0.688 GB per NCCL communicator the layout uses (tp, pp, cp, dp x cp > 1), "
                    "3.28 GB more for the expert all-to-all (ep > 1), counted in memory_per_gpu (`reserve`) "
                    "(pytorch#109888, NVIDIA/nccl#964, #1685; A100 and H100 measurements, a newer part's NCCL may "
                    "take more channels); the caching allocator's fragmentation is the band of memory_per_gpu and "
                    f"memory_headroom, up to {ALLOCATOR_WASTE_HIGH:.0%} of its reserved memory ({WASTE_SOURCE}), "
                    f"above every published run's log found ({RUN_READINGS}); Megatron-Bridge's performance recipes "
                    "set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against it (src/megatron/bridge/perf_recipes "
                    "at 067f987; its performance guide: 'not enabled by default', docs/performance-guide.md at "
                    f"067f987, line 365), and the {EXPANDABLE_READINGS} are too few to narrow the band; not counted: "
                    "kernel workspaces, 32 MiB per cuBLAS handle and stream on Hopper and later "
                    "(pytorch/pytorch#120925, after the cuBLAS guide's cublasSetWorkspace), how many a run opens "
                    "not stated")

#: Vendors whose parts run XLA's own runtime (PJRT on a TPU) rather than a GPU runtime with a collective library: the
#: collectives over ICI are compiled into the XLA program, so no NCCL-style communicator buffers exist to hold back.
XLA_VENDORS = ("Google",)
#: What the estimate says of a TPU's reserve: no figure of Google's was found, so none is held, and the observations
#: found (on 32 GiB TPUs of a model the posts do not name) are given as what the source does say.
XLA_RESERVE = (
    "not provided: the part runs XLA's TPU runtime, which holds no CUDA context and no NCCL communicators (its "
    "collectives are compiled into the XLA program), so NVIDIA's reserve is not held back, and no source found states "
    "what the TPU runtime keeps of HBM, so none is held; memory_per_gpu is the model's tensors alone, against the "
    "part's stated capacity. What was found: JAX's memory_stats() bytes_limit on a 32 GiB TPU (model not named) is "
    "34,088,157,184 B, 0.25 GiB under 32 GiB (pytorch/xla PR 7086, 2024-05-20) and 33,014,415,360 B, 1.25 GiB under "
    "(jax-ml/jax#1491, 2023-06-13): the reserve a TPU's runtime keeps may be of that size, not measured on this part")


def holds_reserve(vendor: str) -> bool:
    """Whether a training rank on a part of `vendor` holds `runtime_reserve` back: all but a TPU's (`XLA_VENDORS`)."""
    return vendor_name(vendor).strip().casefold() not in {v.casefold() for v in XLA_VENDORS}


def runtime_reserve(tp, pp, dp, cp, ep):
    """Bytes a training rank's runtime holds on the accelerator (`TRAINING_RESERVE`); arrays of layouts alike.

    One NCCL communicator per parallel group of more than one rank that the step uses: TP's collectives, the
    pipeline's sends, CP's ring and the data-parallel gradient reduction over dp x cp; EP's all-to-all at its own
    figure. Megatron creates more groups (the embedding's, the model-parallel group for the gradient norm), which are
    left out: PyTorch creates a group's NCCL communicator at its first collective.
    """
    if isinstance(tp, NUMBER) and isinstance(pp, NUMBER) and isinstance(dp, NUMBER) and isinstance(cp, NUMBER) \
            and isinstance(ep, NUMBER):  # one layout of numbers: the same sums as floats (numpy: slower, issue 25)
        comms = 0 + (1.0 if tp > 1 else 0.0) + (1.0 if pp > 1 else 0.0) + (1.0 if cp > 1 else 0.0) + (
            1.0 if dp * cp > 1 else 0.0)  # `sum`'s, written out (its generator cost more than the sums)
        return CUDA_CONTEXT_BYTES + NCCL_COMM_BYTES * comms + (NCCL_ALLTOALL_BYTES if ep > 1 else 0.0)
    comms = sum((np.asarray(x) > 1).astype(float) for x in (tp, pp, cp, np.asarray(dp) * np.asarray(cp)))
    return CUDA_CONTEXT_BYTES + NCCL_COMM_BYTES * comms + where(np.asarray(ep) > 1, NCCL_ALLTOALL_BYTES, 0.0)


def memory_ends(total, reserve, capacity) -> dict:
    """A training rank's memory at both ends of its band, as metrics in bytes (floats, or arrays of layouts alike).

    `total` is `TrainingMemory.total` (its tensors and the runtime's `reserve`); the tensors are what the caching
    allocator holds, from themselves alone (no waste) to tensors / (1 - `ALLOCATOR_WASTE_HIGH`); the reserve, outside
    the allocator, is the same at both ends. `capacity` the part's memory, for the headroom's ends.
    """
    high = fit_memory(total, reserve, ALLOCATOR_WASTE_HIGH)
    return {"memory_per_gpu_low": total, "memory_per_gpu_high": high,
            "memory_headroom_low": capacity - high, "memory_headroom_high": capacity - total}


def fit_memory(total, reserve, waste: float):
    """A training rank's memory with `waste` of the caching allocator's reserved memory holding no tensor (B).

    `total` itself (the model's figure) where `waste` is 0; else the reserve, outside the allocator, and the tensors
    as `1 - waste` of what the allocator reserves: at `ALLOCATOR_WASTE_HIGH`, the range's high end (`memory_ends`).
    """
    return total if not waste else reserve + (total - reserve) / (1 - waste)


def reserve_convention(accelerator: str, vendor: str, compute_capability: float | None) -> str:
    """`TRAINING_RESERVE`, and on a part that is not an NVIDIA GPU, that its figures are NVIDIA's (newuser50).

    Both are measured on NVIDIA GPUs (a CUDA context, NCCL's buffers); a Gaudi 3 or a Trainium2 runs another runtime
    and another collective library, whose reserve no source here gives, so the figure held back is NVIDIA's. A TPU
    holds none (`holds_reserve`): `XLA_RESERVE` says why and what was found (nu71fix).
    """
    if not holds_reserve(vendor):
        return XLA_RESERVE
    if not another_vendors(vendor, compute_capability):
        return TRAINING_RESERVE
    return (f"{TRAINING_RESERVE}; these are NVIDIA GPUs' figures: {accelerator} states no CUDA compute capability, "
            "and what its own runtime and collective library hold is not known, so NVIDIA's is held back in its place")
