"""What a training job cannot run on a part that is not an NVIDIA GPU: refused, not costed as if it could.

`perf.workload.defaults_note` names what an estimate on such a part (one that states no CUDA compute capability)
costs as it runs on NVIDIA GPUs and the part may run otherwise (CUDA graphs, Transformer Engine's FP8 recipe, NVFP4):
the part has an equivalent, whose cost is not modelled. HybridEP has none: NVIDIA's MoE dispatch kernels are written
for NVIDIA GPUs alone (`HYBRIDEP_NVIDIA_ONLY`), so a MoE job whose dispatcher resolves to it on such a part (stated,
following a stated `permute_in_dispatch`, or the `nemo-2025` profile's) is refused with what it may state instead:
the estimate would time a job no one can run, as `model.training_rules` refuses NVFP4 with the TP overlap. DeepEP
runs on NVIDIA GPUs and, through Primus-Turbo's port, on AMD's gfx942 and gfx950 parts (`DEEPEP_ROCM`, where an AMD
job's estimate says it is costed as NVIDIA's DeepEP, `deepep_rocm_note`): on a part of another vendor (a TPU, Trainium,
Gaudi) it is refused too, and either refusal names only what runs there, the plain all-to-all.

The TP communication overlap has an equivalent on ROCm, unlike HybridEP: ROCm's Transformer Engine runs its own
comm-GEMM overlap (`ROCM_TP_OVERLAP`), so an overlap the job turns on there is kept, and costed as NVIDIA's userbuffers
run it; the estimate says so (`tp_overlap_note`) rather than accepting it silently.
"""

from __future__ import annotations

import numpy as np

from archgen.model.accelerator import AMD, is_nvidia
from archgen.model.switches import StackSwitches
from archgen.perf.hw.hardware import Hardware

#: Why HybridEP runs on NVIDIA GPUs only, with the lines that say so.
HYBRIDEP_NVIDIA_ONLY = ("HybridEP (DeepEP's hybrid_ep branch) is 'specifically designed to leverage NVIDIA GPU "
                        "hardware capabilities': NVLink transfers by TMA (Tensor Memory Accelerator) instructions, "
                        "built for TORCH_CUDA_ARCH_LIST 9.0 and 10.0, its RDMA topology probing on libnvidia-ml "
                        "(deepseek-ai/DeepEP at 5fbafce, docs/README_Hybrid-EP.md)")


def hybridep_problem(hw: Hardware, training: StackSwitches, dispatcher: str, moe: bool) -> str | None:
    """Why a MoE training job's HybridEP dispatcher cannot run on `hw`'s part (no CUDA compute capability); else None.

    `training` as the estimate runs it (its vendor's profile where it states no stack, `stacks.on_vendor`), and
    `dispatcher` its resolved `moe_dispatcher`. A model without MoE layers dispatches no token (the switch is moot,
    `perf.train.moot`): nothing to refuse. `hw` may hold a sweep's points (`compute_capability` an array).
    """
    if dispatcher != "hybridep" or not moe or np.all(np.asarray(hw.compute_capability, dtype=float) > 0):
        return None
    if _by_default(training) and hw.vendor != AMD and not is_nvidia(hw.vendor):
        return (f"moe_dispatcher hybridep, taken by default from the {training.stack} profile (no stack stated), "
                f"runs on NVIDIA GPUs only, not on {hw.accelerator}; expected moe_dispatcher alltoall (the plain "
                "all-to-all exchange) stated in the job's training")
    origin = ("stated" if training.moe_dispatcher == "hybridep" else
              "following the stated permute_in_dispatch, HybridEP's alone" if training.permute_in_dispatch else
              f"the {training.stack} profile's")
    return (f"moe_dispatcher hybridep ({origin}) cannot run on {hw.accelerator}: {HYBRIDEP_NVIDIA_ONLY}, and "
            f"{hw.accelerator} states no CUDA compute capability{_state_it(hw)}; expected moe_dispatcher "
            f"{_instead(hw)}, with permute_in_dispatch false or left out")


def _by_default(training: StackSwitches) -> bool:
    """Whether a job's dispatcher is its default profile's alone: it states no stack, dispatcher or HybridEP switch.

    Such a job asked for nothing NVIDIA-only (newuser99, a part of its own vendor): its refusal is short, says where
    the dispatcher came from and the one key to state, without the history of where each dispatcher runs.
    """
    return ("stack" not in training.model_fields_set and training.moe_dispatcher is None
            and not training.permute_in_dispatch and training.ep_dedup is None)


def _instead(hw: Hardware) -> str:
    """The dispatchers a MoE job on a part without CUDA may state: DeepEP's ROCm port on AMD, else alltoall alone."""
    if hw.vendor == AMD or is_nvidia(hw.vendor):
        return "deepep (Primus-Turbo's DeepEP, the primus-2025 profile's) or alltoall"
    return f"alltoall (the plain all-to-all exchange; deepep does not run there either: {DEEPEP_GPU_ONLY})"


#: Where Primus-Turbo's ROCm port of DeepEP runs, with the lines that say so: gfx942 and gfx950 (MI355X included).
DEEPEP_ROCM = ("Primus-Turbo's ROCm port builds its DeepEP kernels for gfx942 (MI300X, MI325X) and gfx950 (MI350X, "
               "MI355X): AMD-AGI/Primus-Turbo at a6a16cdc, setup.py SUPPORTED_GPU_ARCHS, csrc/kernels/deep_ep/"
               "utils.cuh ('gfx942 / gfx950: no hardware sub-group barrier', emulated), and AMD ran its dispatch and "
               "combine on 8 nodes of 8 MI355X ('Primus-Turbo (JAX build, gfx950)', ROCm blog 'Dropless MoE Training "
               "in JAX with Primus-Turbo', 2026-06-10); its DeepEP README's 'only Supported MI300 (gfx942)' dates from "
               "2025-09-23 (PR 110) and was not revised, and its CI runs the unit tests on gfx942 runners only")
#: Why DeepEP runs on NVIDIA GPUs and, as Primus-Turbo's port, on AMD Instinct GPUs only, with the lines that say so.
DEEPEP_GPU_ONLY = ("DeepEP requires 'Hopper (SM90) GPUs, or other architectures with SM90 PTX ISA support', CUDA "
                   "12.3 and 'NVLink with full directed CUDA peer access' (deepseek-ai/DeepEP at 0297fc80, README.md, "
                   f"Requirements); for AMD GPUs, {DEEPEP_ROCM}")


def deepep_problem(hw: Hardware, training: StackSwitches, dispatcher: str, moe: bool) -> str | None:
    """Why a MoE training job's DeepEP dispatcher cannot run on `hw`'s part (neither CUDA nor ROCm); else None.

    DeepEP is CUDA's (NVIDIA GPUs) and, through Primus-Turbo, ROCm's (AMD, the `primus-2025` profile's); a part of
    another vendor that states no CUDA compute capability (a TPU, Trainium, Gaudi) runs neither, and the estimate
    would cost a dispatch no one can run there (DeepEP's deduplicated exchange, `ep_dedup`). The plain all-to-all is
    what such a part's own stack runs (XLA's all-to-all collective on a TPU). `training`, `dispatcher` and `moe` as
    `hybridep_problem` reads them; HybridEP is that function's.
    """
    if (dispatcher != "deepep" or not moe or hw.vendor == AMD or is_nvidia(hw.vendor)
            or np.all(np.asarray(hw.compute_capability, dtype=float) > 0)):
        return None
    origin = "stated" if training.moe_dispatcher == "deepep" else f"the {training.stack} profile's"
    return (f"moe_dispatcher deepep ({origin}) cannot run on {hw.accelerator}: {DEEPEP_GPU_ONLY}, and "
            f"{hw.accelerator} is neither an NVIDIA nor an AMD GPU; expected moe_dispatcher alltoall (the plain "
            "all-to-all exchange), with permute_in_dispatch false or left out")


def deepep_rocm_note(hw: Hardware, training: StackSwitches, dispatcher: str, exchanges: bool) -> list[str]:
    """The note of a MoE job on an AMD part whose tokens DeepEP dispatches: Primus-Turbo's port, costed as DeepEP's.

    `exchanges` is whether the layout sends tokens between ranks at all (ep x etp > 1, MoE layers). The dispatch is
    costed as NVIDIA's DeepEP runs it (its deduplicated exchange, `ep_dedup`, at the links' rates); no published
    measurement times the port's own dispatch and combine, so the note says so and where the port runs
    (`DEEPEP_ROCM`: gfx942 and gfx950, the MI355X included). Not a refusal: the primus-2025 profile runs it.
    """
    if dispatcher != "deepep" or not exchanges or hw.vendor != AMD:
        return []
    origin = "stated" if training.moe_dispatcher == "deepep" else f"the {training.stack} profile's"
    return [f"moe_dispatcher deepep ({origin}) on {hw.accelerator} is Primus-Turbo's ROCm port, costed as DeepEP's "
            "deduplicated dispatch and combine on NVIDIA GPUs: no published figure times the port's own calls (its "
            "benchmark README gives the commands, no results). "
            f"{DEEPEP_ROCM}"]


def dispatcher_problem(hw: Hardware, training: StackSwitches, dispatcher: str, moe: bool) -> str | None:
    """Why a MoE training job's resolved dispatcher cannot run on `hw`'s part (HybridEP, or DeepEP), else None."""
    return hybridep_problem(hw, training, dispatcher, moe) or deepep_problem(hw, training, dispatcher, moe)


def _state_it(hw: Hardware) -> str:
    """What an NVIDIA part that states no compute capability should state (`perf.hw.generation`, CAT008)."""
    if not is_nvidia(hw.vendor):
        return ""
    return " (an NVIDIA part: state its `compute_capability`, CAT008)"


#: ROCm's Transformer Engine comm-GEMM overlap, with the lines that describe it.
ROCM_TP_OVERLAP = ("ROCm's Transformer Engine runs its own comm-GEMM overlap, not NVIDIA's userbuffers kernels: "
                   "copy-engine transfers (hipMemcpyAsync, flags by hipStreamWriteValue64) on several rings over the "
                   "scale-up links, its all-gather overlap for tp 2, 4 and 8 only ('ROCm supports TP sizes of 2, 4, 8 "
                   "only.'; ROCm/TransformerEngine at 26b3b92f, transformer_engine/common/comm_gemm_overlap/"
                   "rocm_comm_gemm_overlap.cpp, rocm_split_overlap_ag and rocm_split_overlap_rs), and none before it "
                   "(at ac80527d, October 2024: transformer_engine/pytorch/csrc/extensions/pybind.cpp line 11, 'rocm "
                   "does not support comm gemm overlap yet', build_tools/pytorch.py building userbuffers only off "
                   "ROCm)")


def tp_overlap_note(hw: Hardware, training: StackSwitches, overlap: bool, tp: int) -> list[str]:
    """The note of a training job whose TP overlap is on, at `tp` > 1, on a part with no CUDA compute capability.

    `overlap` is the job's resolved `overlap_tp_comm` (stated, or its stack profile's: `nemo-2025` turns it on, AMD's
    `primus-2025` leaves it off). The model costs it as Transformer Engine's userbuffers on NVIDIA GPUs
    (`perf.train.tp_comm`); ROCm's runs another algorithm (`ROCM_TP_OVERLAP`) whose hidden share no published
    measurement gives, so the note says the overlap is costed as NVIDIA's, and names a tp ROCm's all-gather overlap
    does not take. Not a refusal: the switch exists on ROCm. Another vendor's part (a TPU) is told only that its
    own stack's equivalent is not modelled, as `defaults_note.cuda_switches_note` tells it of CUDA graphs. An NVIDIA
    part that states no compute capability runs NVIDIA's stack: `defaults_note.generation_note` names the overlap's
    single stream there, as the other notes of `defaults_note` leave such a part to it.
    """
    if (not overlap or tp <= 1 or np.all(np.asarray(hw.compute_capability, dtype=float) > 0)
            or is_nvidia(hw.vendor)):
        return []
    origin = "stated" if training.overlap_tp_comm else f"the {training.stack or 'default'} profile's"
    head = (f"overlap_tp_comm on ({origin}) at tp {tp}: costed as Transformer Engine's userbuffers overlap on NVIDIA "
            f"GPUs, and {hw.accelerator} states no CUDA compute capability")
    if hw.vendor != AMD:  # no ROCm: the part's own stack (XLA on a TPU) is not modelled
        return [f"{head}; its own stack's equivalent is not modelled"]
    other = "" if tp in (2, 4, 8) else f"; tp {tp} is not one of ROCm's 2, 4 and 8"
    return [f"{head}; {ROCM_TP_OVERLAP}{other}. How much of ROCm's overlap hides its collectives is not measured, "
            "so the TP communication time is NVIDIA's figure"]
