"""The error of an estimate that needs a peak its accelerator does not state, with why and what to state.

A part drafted from announcements (NVIDIA Rubin, AMD MI455X) may state FP8 and FP4 peaks and no BF16 one. An FP8 or
FP4 job still reads the BF16 peak (`BF16_UNDER_LOW_PRECISION`), and the model does not default it (from the FP8
peak, say): the message says why, and how to state a figure nobody has confirmed (docs/adding-a-part.md).
"""

from __future__ import annotations

from collections.abc import Iterable

from archgen.open_item import Worded

#: Why an FP8 or FP4 job reads the BF16 peak (`kernels.training_core_dtype`, `serve.inference.EMBEDDING_DTYPE`).
BF16_UNDER_LOW_PRECISION = (
    ": FP8 and FP4 jobs need it too, since only the transformer layers' linear GEMMs run in FP8 or FP4: the "
    "attention core and the output layer of a training job stay in BF16 (Transformer Engine's recipes quantise "
    "the linear GEMMs only), and a serving job computes its logits in BF16")


def missing_peak(accelerator: str, dtype: str, peaks: Iterable[str]) -> Worded:
    """The message of a job that needs `accelerator`'s `dtype` peak, which it does not state (it states `peaks`).

    A `Worded`: a customer's words (PERF003's `public`) leave out what to state and where.
    """
    have = sorted(peaks)
    why = BF16_UNDER_LOW_PRECISION if dtype == "bf16" and {"fp8", "fp4"} & set(have) else ""
    said = f"accelerator '{accelerator}' has no {dtype} peak (it has: {', '.join(have)}){why}"
    return Worded(f"{said}; state `peak.{dtype}`, the dense figure from the vendor's datasheet "
                  f"(docs/adding-a-part.md); where only announced or derived, state the figure you can stand behind "
                  f"and list `peak.{dtype}` under `unconfirmed:`, which estimates then name", said)
