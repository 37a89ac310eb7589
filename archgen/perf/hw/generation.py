"""What the model keys on an accelerator's CUDA compute capability, and what it takes for a part that states none.

NCCL keys its tuning tables on the compute capability (`perf.comm.nccl.generation`: the LL and LL128 protocols, NVLS
from Hopper), Transformer Engine its FP8 operand layouts (`perf.hw.quant`: one quantised copy from 10.0, two below)
and Megatron-Bridge its TP-overlap streams (`perf.train.tp_comm`: several from 10.0). A part that states none (0 in
`Hardware`) is read as not an NVIDIA GPU and given what `WITHOUT` lists (an AMD part's collectives inside its
scale-up domain take RCCL's own table instead, `perf.comm.rccl`). That is right for an AMD, Google or Intel part; an
NVIDIA part that leaves it out (a new generation whose figure is not yet published) gets the same, which
no NVIDIA GPU runs: `archgen check` flags it (CAT008) and its estimates say what they assumed (`perf.workload.
defaults_note.generation_note`). A part that states `scale_up.in_network_reduction: true` below Hopper, or with no
compute capability, has NVLS the model never uses: CAT009 and `defaults_note.nvls_note` say so.
"""

from __future__ import annotations

from archgen.model.accelerator import AMD, is_nvidia, vendor_name

#: The lowest compute capability NCCL runs NVLS on: Hopper (NVIDIA/nccl at 5067397c2676, src/graph/tuning.cc 139,
#: `nvlsEfficiency` 0 before it; `perf.comm.nccl.NVLS_EFFICIENCY`).
NVLS_FROM = 9.0

#: What the model takes for a part that states no compute capability (read in `perf.comm.algorithms`,
#: `perf.hw.quant`, `perf.train.tp_comm` and `perf.workload.nvidia_only`); the first two apply to any estimate with
#: a collective, the rest to training.
WITHOUT = (
    "collectives on NCCL's Simple protocol only (no LL or LL128)",
    "no NVLS in-switch reduction",
    "FP8 training quantised by Transformer Engine's rule for Hopper (each quantised tensor written twice, once "
    "transposed; once from 10.0)",
    "TP-overlap GEMM chunks on one stream (several from 10.0)",
    "the HybridEP MoE dispatcher refused",
)
#: How many of `WITHOUT` apply to any estimate (the others to training only).
ANY_ESTIMATE = 2


def generation_unstated(vendor: str, compute_capability: float | None) -> bool:
    """Whether a part is NVIDIA's (`vendor`) and states no compute capability."""
    return is_nvidia(vendor) and not compute_capability


def another_vendors(vendor: str, compute_capability: float | None) -> bool:
    """Whether a part is not NVIDIA's and states no CUDA compute capability: NVIDIA's stack is not its own.

    The stack, FP4, FP8 and CUDA-switch notes say so (`perf.workload.defaults_note`); an NVIDIA part without a
    compute capability is `generation_unstated`'s instead.
    """
    return not compute_capability and not is_nvidia(vendor)


def runs_nvls(in_network_reduction: bool, compute_capability: float | None) -> bool:
    """Whether NCCL's `auto` choice (`perf.comm.algorithms`) offers NVLS: in-network reduction from `NVLS_FROM`.

    The one place the Hopper cutoff is kept: the estimate, CAT009 and the estimate's note read it here.
    """
    return bool(in_network_reduction) and (compute_capability or 0.0) >= NVLS_FROM


def nvls_unused(in_network_reduction: bool, compute_capability: float | None) -> bool:
    """Whether a part states in-network reduction that the model never runs (no compute capability, or below 9.0)."""
    return bool(in_network_reduction) and not runs_nvls(in_network_reduction, compute_capability)


def assumed_without(training: bool, nvls_stated: bool = False) -> str:
    """`WITHOUT` in words: what an estimate (a training one, if `training`) takes for a part with no capability.

    `nvls_stated`: the part states `scale_up.in_network_reduction: true`, which the NVLS item then says is unused.
    """
    items = list(WITHOUT if training else WITHOUT[:ANY_ESTIMATE])
    if nvls_stated:
        items[1] += ", so its stated `scale_up.in_network_reduction: true` is not used"
    return "; ".join(items)


def fp4_format(vendor: str, compute_capability: float | None) -> str:
    """The FP4 format a part computes in: OCP MXFP4 on AMD's parts (no CUDA compute capability), else NVFP4.

    AMD's CDNA 4 (MI350X, MI355X, gfx950) FP4 is MXFP4 (the sources of `fp4_kv_problem`: OCP MX v1.0; ROCm/aiter
    PR 2037's MI355X FP4 GEMMs are "a4w4 blockscale", E8M0 scales per 32). Any other vendor's part with no compute
    capability keeps NVFP4, its own format not being known to the model (`defaults_note.fp4_format_note` says so).
    """
    return "mxfp4" if another_vendors(vendor, compute_capability) and vendor_name(vendor) == AMD else "nvfp4"
