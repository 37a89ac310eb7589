"""The `flop_counting` convention of a training estimate, with the rate its causal mask leaves (newuser53).

The model FLOPs, and so `model_flops_per_gpu` and `mfu`, count the attention's full s² scores (NeMo's formula does,
and Megatron-LM's did before 20d66d5, core_v0.16.0, which halves them for the causal mask as the rate given here
does), while the step time is timed with the causal mask's half (`kernels.attention_forward`). At long context the
two part: Llama 3 8B at 1,048,576 tokens at cp 32 on GB200 reads 75.5 % MFU where the hardware runs 38.7 %
of its peak. The convention says so and gives the rate with the mask's half taken out.

A job that trains multi-token prediction layers (`Arch.mtp_layers`) has them in its model FLOPs as Megatron-LM counts
them (`perf.hw.arch`); the convention says so, with their share, since no published formula a validation case may
count by has them (`Arch.mtp_share`, `scoring.cases.flop_note`).
"""

from __future__ import annotations

from archgen.display import ESTIMATE_FIGURES, significant
from archgen.perf.hw.arch import Arch

FULL = "model FLOPs = 3 x forward (2 FLOP per MAC, full s^2 attention, logits included, no recomputation)"


def flop_counting(arch: Arch, seq_len: float, per_gpu: float, peak: float) -> str:
    """`FULL`, then the share of it the causal mask skips and the model FLOP rate without it (per GPU, of peak)."""
    share = arch.causal_share(seq_len)
    causal = per_gpu * (1.0 - share)
    d = arch.mtp_layers
    mtp = (f"; the {d} multi-token prediction layer{'s' if d > 1 else ''} trained counted as Megatron-LM counts "
           f"{'them' if d > 1 else 'it'} (a layer of the last layer's kind, its 2h x h projection and the logits "
           f"again), {100 * arch.mtp_share(seq_len):.3g} % of these FLOPs" if d else "")
    return (f"{FULL}{mtp}; the causal mask skips half the attention scores, {100 * share:.3g} % of these FLOPs at "
            f"{seq_len:,.0f} tokens, and the step time is timed without them: counted so, "
            f"{significant(causal / 1e12, ESTIMATE_FIGURES)} TFLOP/s per GPU, {100 * causal / peak:.3g} % of peak")
