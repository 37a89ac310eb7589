"""The note of an MoE training estimate: the fixed cost per MoE layer pass that published runs show and the model lacks.

Every NVIDIA Megatron-core MoE training run the project holds (Megatron-Bridge/NeMo 25.11 to 26.04.01 tables and
the Qwen3-30B-A3B verification card, H100 to GB300; issue 20) took longer per MoE layer and micro-batch than the model
times it, by an amount that does not grow with the micro-batch's tokens nor shrink on a faster GPU or host
(tests/perf/test_stack_2604.py): a fixed cost per MoE layer pass. No public source sizes it or names its kernels
(docs/perf-model.md, Limitations, "A fixed cost per MoE layer pass"), so the model charges nothing for it; this note
says what the runs show, in the estimate, and what it would make of this step. It weighs most where a layer pass is
short: small experts (Qwen3-30B-A3B: h 2,048, expert FFN 768) at a small micro-batch, whose rows are 17-165 % fast.

The runs fall in three groups by what their stacks ran (tests/perf/test_moe_pass_note.py recomputes each figure from
the case files; a change that moves an MoE training prediction updates them):

* 16-bit, without whole-iteration CUDA graphs: nemo-gb300/gb200-qwen3-235b-bf16 (tests/perf/data/
  nemo-25.11-moe.yaml) and the card's three H100 BF16 rows (bridge-26.04.yaml, bridge-card-qwen3-30b.yaml);
* 8-bit (FP8 current scaling on Hopper, MXFP8 and FP8 on Blackwell), without whole-iteration graphs: the shared
  modern file's nemo2604-h100-qwen3-30b-a3b-fp8-ep16 and the FP8 MoE rows of nemo-25.11-moe.yaml,
  bridge-26.04-qwen3-30b.yaml, bridge-26.04.01.yaml and bridge-26.04.yaml;
* 8-bit with whole-iteration graphs (Megatron-core's sync-free MoE, the fused grouped MLP): the card's GB200 and
  GB300 MXFP8 rows (bridge-card-qwen3-30b.yaml).

No AMD MoE training run is in the project's data, so an estimate on another vendor's part gets no note.
"""

from __future__ import annotations

from typing import NamedTuple

from archgen.model.accelerator import is_nvidia
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.train.job import Job, Layout


class PassMiss(NamedTuple):
    """Measured less modelled time per MoE layer and micro-batch over a group of published runs, in seconds."""

    runs: int
    median: float
    low: float
    high: float
    span: str  # the containers and parts the group's runs ran on, as the note says them


#: (8-bit precision, whole-iteration CUDA graphs) -> the group's miss (module docstring; the model of 2026-12-07, since
#: the router's GEMM runs in 16 bit: 3.41, 0.92, 18.94 and 0.52, 0.32, 0.72 ms before).
#: review30: each group names its own containers and parts (the note said "25.11 to 26.04.01, H100 to GB300" for
#: every group, while the card's rows ran NeMo 26.06 and the graphed group is two GB200/GB300 runs of one model).
PUBLISHED = {
    (False, False): PassMiss(5, 1.03e-3, -0.61e-3, 1.30e-3, "NeMo 25.11 to 26.06; H100, GB200 and GB300"),
    (True, False): PassMiss(16, 2.98e-3, 0.72e-3, 18.69e-3,
                            "NeMo 25.11 to 26.04.01; H100, B200, B300, GB200 and GB300"),
    (True, True): PassMiss(2, 0.23e-3, -0.06e-3, 0.53e-3,
                           "Megatron-Bridge's Qwen3-30B-A3B verification card, NeMo 26.06; GB200 and GB300"),
}

#: Precisions of the 16-bit group (its runs trained in BF16).
SIXTEEN_BIT = frozenset({"bf16", "fp16"})
#: The precisions the published runs trained in.
RUN_PRECISIONS = frozenset({"bf16", "fp8"})


def moe_pass_note(arch: Arch, hw: Hardware, job: Job, lay: Layout, step: float) -> list[str]:
    """The note of an MoE training estimate on an NVIDIA part: the published runs' fixed cost per MoE layer pass.

    `step` is the estimate's step time in seconds. A rank runs global_batch / (dp x micro_batch) micro-batches through
    its stage's moe_layers / pp MoE layers a step; the note adds the group's median, low and high per pass to the step
    and gives the step and the tokens/s change each makes. Empty for a dense model or another vendor's part.
    """
    if not arch.moe_layers or not is_nvidia(hw.vendor):
        return []
    eight = job.precision not in SIXTEEN_BIT
    graphs = job.cuda_graphs == "full_iteration"
    group, scope = PUBLISHED.get((eight, graphs)), ""
    if job.precision not in RUN_PRECISIONS:  # FP4, FP16: the runs of the same width stand in
        scope = f" (none published in {job.precision.upper()}: the {'8' if eight else '16'}-bit runs)"
    if group is None:  # no 16-bit run with whole-iteration graphs is published: the 8-bit ones stand in
        group, scope, eight = PUBLISHED[(True, graphs)], " (none published in 16 bits: the 8-bit runs)", True
    passes = job.global_batch / (int(lay.dp) * int(lay.micro_batch)) * arch.moe_layers / int(lay.pp)
    at = {name: step + getattr(group, name) * passes for name in ("median", "low", "high")}
    kind = "8-bit" if eight else "16-bit"
    how = "with" if graphs else "without"
    return [f"MoE layers: the {group.runs} published Megatron-core MoE training runs in {kind} {how} whole-iteration "
            f"CUDA graphs{scope} ({group.span}) took {group.median * 1e3:.2f} "
            f"ms more per MoE layer and micro-batch than this model times them (from {group.low * 1e3:.2f} to "
            f"{group.high * 1e3:.2f} ms; each run's whole-step miss over its MoE layer passes, not a time measured "
            f"per layer), a fixed cost no public source sizes, which the model does not charge "
            f"(docs/perf-model.md, Limitations, \"A fixed cost per MoE layer pass\"); the figures are read from "
            f"those runs, not a prediction checked on other runs (a job that is one of them is in its own median); "
            f"at that median this job's "
            f"{passes:.4g} MoE layer passes a step would take {at['median']:.4g} s, not {step:.4g} s "
            f"({step / at['median'] - 1:+.1%} tokens/s), and {at['low']:.4g} to {at['high']:.4g} s over the range"]
