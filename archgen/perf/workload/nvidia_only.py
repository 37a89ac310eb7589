"""What a training job cannot run on a part that is not an NVIDIA GPU: refused, not costed as if it could.

`perf.workload.defaults_note` names what an estimate on such a part (one that states no CUDA compute capability)
costs as it runs on NVIDIA GPUs and the part may run otherwise (CUDA graphs, Transformer Engine's FP8 recipe, NVFP4):
the part has an equivalent, whose cost is not modelled. HybridEP has none: NVIDIA's MoE dispatch kernels are written
for NVIDIA GPUs alone (`HYBRIDEP_NVIDIA_ONLY`), so a MoE job whose dispatcher resolves to it on such a part (stated,
following a stated `permute_in_dispatch`, or the `nemo-2025` profile's) is refused with what it may state instead:
the estimate would time a job no one can run, as `model.training_rules` refuses NVFP4 with the TP overlap.
"""

from __future__ import annotations

import numpy as np

from archgen.model.accelerator import is_nvidia
from archgen.model.workload import Training
from archgen.perf.hw.hardware import Hardware

#: Why HybridEP runs on NVIDIA GPUs only, with the lines that say so.
HYBRIDEP_NVIDIA_ONLY = ("HybridEP (DeepEP's hybrid_ep branch) is 'specifically designed to leverage NVIDIA GPU "
                        "hardware capabilities': NVLink transfers by TMA (Tensor Memory Accelerator) instructions, "
                        "built for TORCH_CUDA_ARCH_LIST 9.0 and 10.0, its RDMA topology probing on libnvidia-ml "
                        "(deepseek-ai/DeepEP at 5fbafce, docs/README_Hybrid-EP.md)")


def hybridep_problem(hw: Hardware, training: Training, dispatcher: str, moe: bool) -> str | None:
    """Why a MoE training job's HybridEP dispatcher cannot run on `hw`'s part (no CUDA compute capability); else None.

    `training` as the estimate runs it (its vendor's profile where it states no stack, `stacks.on_vendor`), and
    `dispatcher` its resolved `moe_dispatcher`. A model without MoE layers dispatches no token (the switch is moot,
    `stacks.moot`): nothing to refuse. `hw` may hold a sweep's points (`compute_capability` an array).
    """
    if dispatcher != "hybridep" or not moe or np.all(np.asarray(hw.compute_capability, dtype=float) > 0):
        return None
    origin = ("stated" if training.moe_dispatcher == "hybridep" else
              "following the stated permute_in_dispatch, HybridEP's alone" if training.permute_in_dispatch else
              f"the {training.stack} profile's")
    return (f"moe_dispatcher hybridep ({origin}) cannot run on {hw.accelerator}: {HYBRIDEP_NVIDIA_ONLY}, and "
            f"{hw.accelerator} states no CUDA compute capability{_state_it(hw)}; expected moe_dispatcher deepep "
            "(Primus-Turbo's DeepEP, the primus-2025 profile's) or alltoall, with permute_in_dispatch false or left "
            "out")


def _state_it(hw: Hardware) -> str:
    """What an NVIDIA part that states no compute capability should state (`perf.hw.generation`, CAT008)."""
    if not is_nvidia(hw.vendor):
        return ""
    return " (an NVIDIA part: state its `compute_capability`, CAT008)"
