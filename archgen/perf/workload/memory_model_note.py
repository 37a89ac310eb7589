"""What a training estimate says of its memory on a part whose own stack is not modelled: the model is Megatron's.

The training memory model (`perf.hw.memory`) is Megatron's: Korthikanti et al.'s activations per layer (34·s·b·h
without recomputation, less with flash attention or selective recomputation), ZeRO's sharding of the weights,
gradients and optimizer state, the runtime's reserve. A TPU runs XLA (MaxText, JAX), a Trainium the Neuron compiler,
a Gaudi Habana's graph compiler: their rematerialisation policies (MaxText's `remat_policy`: `full`, `minimal`,
`save_dot_except_mlpwi`, ...), fusion and buffer reuse are not modelled. Google's own MaxText layout of Llama 2 70B
on v5p (FSDP over every chip, tp 1, 4 sequences of 4,096 a chip, `remat_policy: save_dot_except_mlpwi`;
AI-Hypercomputer/maxtext benchmarks/maxtext_v5p_model_configs.py, docs/reference/models/tiering.md at 20a91e12:
about 692 tokens/s per chip measured) reads 371 GB per chip by this model, on a 95 GiB part: the verdict is
Megatron's recomputation policy, not XLA's, and does not hold there.

So on such a part (`defaults_note.unprofiled`) a stated layout the model reads as not fitting is estimated, not
refused (`fit_judged`), and every training estimate says whose memory model the fit is judged by
(`memory_model_note`); a searched layout is still chosen among those Megatron's model fits, which the note says.
"""

from __future__ import annotations

from archgen.perf.hw.hardware import Hardware
from archgen.perf.workload.defaults_note import unprofiled

#: The stack each unprofiled vendor's parts run, as the note names it (the module's docstring); a vendor not listed
#: (a start-up's own part) is named by its own, unmodelled stack, not by another vendor's (newuser99: a Nexa Silicon
#: part read "XLA on a TPU").
OWN_STACKS = {"google": "XLA on a TPU", "aws": "the Neuron compiler on a Trainium",
              "intel": "Habana's graph compiler on a Gaudi"}


def own_stack(vendor: str) -> str:
    """The stack a part of `vendor` runs, in the note's words: a known vendor's by name, else its vendor's own."""
    return OWN_STACKS.get(vendor.strip().casefold(), f"{vendor.strip()}'s own compiler and runtime")


def fit_judged(hw: Hardware, stated: bool) -> bool:
    """Whether the model's fit verdict refuses a layout: everywhere except a stated layout on an unprofiled part."""
    return not (stated and unprofiled(hw))


def memory_model_note(hw: Hardware, stated: bool, total: float, model_fits: bool) -> list[str]:
    """The note of a training estimate on an unprofiled part (`unprofiled`): the memory model is Megatron's; else []."""
    if not unprofiled(hw):
        return []
    head = (f"memory: the model's memory is Megatron's (Korthikanti et al.'s activations, ZeRO sharding), not that of "
            f"{hw.accelerator}'s own stack ({own_stack(hw.vendor)}: its rematerialisation policies, fusion and "
            "buffer reuse are not modelled), so its fit verdict may not hold there")
    if model_fits:
        return [f"{head}; this layout fits by it ({total / 1e9:.1f} GB per accelerator, "
                f"{hw.hbm_capacity / 1e9:.1f} GB available)"
                + ("" if stated else ", and the search kept only layouts that fit by it")]
    if stated:
        return [f"{head}: by it this stated layout needs {total / 1e9:.1f} GB per accelerator, "
                f"{hw.hbm_capacity / 1e9:.1f} GB available, and is estimated, not refused: whether it fits is not "
                "provided (Google's own MaxText Llama 2 70B layout on 512 v5p reads so by it, and runs)"]
    return [f"{head}; the search kept only layouts that fit by it"]
