"""The note of an MoE training estimate whose all-to-all its stack, not the job, left unoverlapped.

newuser89 (DeepSeek-V3 on 2,048 H800 as its report states the job, layout searched): 869 tokens/s per GPU against the
published 1,543 (-43.7 %), 18.24 s of the 35.34 s step the exposed MoE all-to-all, under `overlap_ep_comm false`,
nemo-2025's default (`model.switches`: Megatron-Bridge's overlap_moe_expert_parallel_comm stays off unless asked), which
"defaults taken" listed among 15 other switches and nothing tied to the figure. The band then spans the model's error on
its measurements at the switches taken, not the switch itself: the published figure lay outside it. This note says how
much of the step the exposed all-to-all is, that it rests on the profile's default, and what the overlap gives: the step
re-timed with it on where Megatron-core runs it on this layout, else what Megatron-core needs first (an interleaved
pipeline, no full recomputation: `layout_rules.ep_overlap_problems`, the same words a stated overlap meets). A schedule
that hides the all-to-all otherwise (DeepSeek-V3's DualPipe) is not modelled (docs/perf-model.md, Limitations).
"""

from __future__ import annotations

from dataclasses import replace

from archgen.model.workload import Training
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.layout_rules import ep_overlap_problems
from archgen.perf.train.training import TrainingEstimate, estimate_training


def ep_exposed_note(training: Training, stack: str, arch: Arch, hw: Hardware, job: Job, lay: Layout,
                    est: TrainingEstimate) -> list[str]:
    """What the exposed MoE all-to-all of a job that leaves `overlap_ep_comm` to its stack (`stack`) costs its step.

    Nothing where the job states the switch, the profile turns the overlap on, or no all-to-all is exposed.
    """
    if (not arch.moe_layers or job.overlap_ep_comm or "overlap_ep_comm" in training.model_fields_set
            or int(lay.ep) * int(lay.tp if lay.etp is None else lay.etp) <= 1):
        return []
    exposed, step = float(est.ep_comm), float(est.step_time)
    if exposed <= 0.0 or step <= 0.0:
        return []
    head = (f"MoE all-to-all exposed: {exposed:.4g} s of the {step:.4g} s step ({exposed / step:.1%}), with "
            f"overlap_ep_comm false, stack {stack}'s default, not stated; the band spans the model's error at the "
            "switches taken, not this one")
    on = replace(job, overlap_ep_comm=True)
    problems = ep_overlap_problems(on, int(lay.ep), int(lay.pp), int(lay.interleave), int(lay.recompute))
    if problems:
        why = "; ".join(f"{field}: {text}" for field, text in problems)
        return [f"{head}. Stated true, Megatron-core's overlap refuses this layout ({why})"]
    with_overlap = float(estimate_training(hw, on, lay).step_time)
    return [f"{head}. Stated true on this layout (Megatron-core's overlap, its memory not counted), the step takes "
            f"{with_overlap:.4g} s ({step / with_overlap - 1.0:+.1%} tokens/s); a schedule that hides the all-to-all "
            "otherwise (DeepSeek-V3's DualPipe) is not modelled"]
