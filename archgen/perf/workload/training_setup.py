"""A training workload's setup: the job, its switches, the layout fields it fixes and the stack's limits.

What the layout search takes (`training_setup`), read by the estimate (`training_estimate`), the plan search and
the vectorised sweep alike; a stated layout part that is invalid on its own, or an FP8 recipe the accelerator cannot
run (`recipe_problem`), is refused here. Split from `training_estimate` for its size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from archgen.errors import WorkloadError
from archgen.model.field_words import said
from archgen.model.stack_features import lacks, missing
from archgen.model.switch_allows import allowed
from archgen.model.training_rules import moe_tp_problem, sp_source
from archgen.model.workload import Workload
from archgen.open_item import Worded
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.memory import OFFLOAD_CODES
from archgen.perf.train.job import Job
from archgen.perf.train.layout_rules import LayoutProblem, layout_problems, mtp_problems
from archgen.perf.train.layouts import OFFLOADS, ZERO_STAGES
from archgen.perf.train.pipeline_split import PipelineOptions, layout_interleave
from archgen.perf.train.stacks import (
    Knobs,
    on_vendor,
    training_knobs,
    zero_stages,
)
from archgen.perf.train.training import RECOMPUTE_CODES
from archgen.perf.workload.nvidia_only import dispatcher_problem


def pipeline_options(p) -> PipelineOptions:
    """How a `Parallelism` (or a case's training) places the layers on the pipeline ranks."""
    return PipelineOptions(p.embedding_slot, p.loss_slot, p.first_stage_layers, p.last_stage_layers,
                           p.pipeline_layout)


@dataclass(frozen=True)
class TrainingSetup:
    """A training workload as the layout search takes it: the job, what the workload fixes, how it pipelines."""

    job: Job
    knobs: Knobs
    pipeline: PipelineOptions
    fixed: dict[str, int | str | None]  # tp, pp, dp, cp, ep, micro_batch, interleave, recompute, zero (None: searched)
    complete: bool                      # every field but zero given: nothing to search
    layout: dict[str, int | str]        # the layout when complete (zero defaults to the distributed optimizer's)
    zeros: tuple[int, ...] = ZERO_STAGES  # ZeRO stages searched where zero is left out: the stack's (`ALLOWS`)
    offloads: tuple[int, ...] = OFFLOADS  # offloads tried where none fits and offload is left out: the stack's
    search_etp: bool = False              # an MoE model's etp left out, searched: the stack folds (`etp_searched`)


def on_its_vendor(workload: Workload, vendor: str) -> Workload:
    """`workload` on an accelerator of `vendor`: a training job that states no stack takes the vendor's newest profile.

    `stacks.on_vendor` (`primus-2025` on AMD); the estimate, its notes, the roofline and the plan search read it.
    """
    t = workload.training
    if t is None or (moved := on_vendor(t, vendor)) is t:
        return workload
    return workload.model_copy(update={"training": moved})


def training_setup(workload: Workload, arch: Arch, hw: Hardware, gpus: int) -> TrainingSetup:
    """The search's inputs for a training workload.

    A given part of the layout that is invalid on its own is a `WorkloadError` (of the hardware, only
    `hw.scale_up_size` matters).
    """
    t = workload.training
    assert t is not None, "called for a training workload"
    p = t.parallelism
    knobs = training_knobs(t)
    if "stack" in t.model_fields_set and (gaps := [m for m in missing(t.stack, t, *arch.model_features)
                                                   if m.path[0] == "model"]):
        # the model states it (its training's own are refused where it is read, `StackSwitches`): PERF003 shows it
        # at the model's line of the first (`WorkloadResult.error_elsewhere`) and says each
        raise WorkloadError(workload.id, Worded("; ".join(m.message for m in gaps),
                                                "; ".join(m.said(said(m.path[-1])) for m in gaps)),
                            subject=(workload.model or "", gaps[0].path[1:]))
    job = Job.from_knobs(arch, t.seq_len, t.global_batch, t.precision, knobs, t.stack,
                         t.parallelism.hierarchical_context_parallel_sizes, hw.vendor)
    opts = pipeline_options(p)
    interleave = p.interleave
    if p.pipeline_layout is not None and p.pp is not None and interleave is None:
        interleave = layout_interleave(p.pipeline_layout, p.pp)
    # an MoE model's ep is searched where the workload leaves it out (`layouts.expert_layouts`) and the stack runs
    # expert parallelism (`switch_allows.ALLOWS`); a dense model's is 1
    searched_ep = arch.experts and "ep" not in p.model_fields_set and allowed(t.stack, "ep") == ("divisors",)
    ep = None if searched_ep else p.ep
    fixed: dict[str, int | str | None] = {
        "tp": p.tp, "pp": p.pp, "dp": p.dp, "cp": p.cp, "ep": ep, "micro_batch": p.micro_batch,
        "interleave": interleave, "recompute": t.recompute, "zero": p.zero, "offload": p.offload, "etp": p.etp}
    host = bool(np.any(hw.host_capacity > 0))
    complete = None not in (p.tp, p.pp, p.dp, p.micro_batch, interleave, t.recompute)
    # optimizer offload runs on the distributed optimizer (`refused.optimizer_offload_refused`): stated with neither
    # zero nor distributed_optimizer, the stage is one of those, whatever the profile's (stated against either:
    # `training_rules.offload_problem`)
    offload_do = bool(OFFLOAD_CODES[p.offload or "none"] & 2) and t.distributed_optimizer is None
    zero = p.zero if p.zero is not None else (1 if knobs.distributed_optimizer or offload_do else 0)
    # the given part of the layout must be valid on its own; the search only fills in what is missing
    if p.tp is not None and p.pp is not None and p.dp is not None:
        problems = layout_problems(arch, job, gpus, tp=p.tp, pp=p.pp, dp=p.dp, cp=p.cp, ep=p.ep,
                                   micro_batch=p.micro_batch or 1, interleave=interleave or 1,
                                   scale_up_size=hw.scale_up_size, pipeline=opts,
                                   check_batch=p.micro_batch is not None,
                                   offload=OFFLOAD_CODES[p.offload or "none"], host_memory=host, etp=p.etp,
                                   recompute=RECOMPUTE_CODES[t.recompute] if t.recompute else 0,
                                   zero=zero if p.zero is not None or complete else None)
    else:  # tp, cp and ep alone (dp = etp x ep keeps the expert rule to the experts)
        alone = layout_problems(arch, job, gpus, tp=p.tp or 1, pp=1, dp=p.ep * (p.etp or 1), cp=p.cp, ep=p.ep,
                                scale_up_size=hw.scale_up_size, offload=OFFLOAD_CODES[p.offload or "none"],
                                host_memory=host, etp=p.etp)
        problems = [x for x in alone if x.field in ("tp", "cp", "ep", "etp", "offload")]
        if opts.layout is not None:  # its MTP layers (m), whatever pp the search takes (`layout_problems` alike)
            problems += [LayoutProblem("pp", m) for m in mtp_problems(opts.layout, arch.mtp_layers)]
    if problem := moe_tp_problem(arch.experts, p.tp, knobs.sequence_parallel, sp_source(p.sequence_parallel, t.stack)):
        problems.append(LayoutProblem("tp", problem))  # a stated tp; the search keeps to it (`without_refused_tp`)
    if problems:   # with the customer's words (PERF003's `public`)
        raise WorkloadError(workload.id, Worded("; ".join(problems), "; ".join(p.public for p in problems)))
    if problem := recipe_problem(t.precision, knobs.fp8_recipe, hw) or dispatcher_problem(
            hw, t, knobs.moe_dispatcher, bool(arch.experts)):
        raise WorkloadError(workload.id, problem)
    stated = {"tp": p.tp, "pp": p.pp, "dp": p.dp, "cp": p.cp, "ep": p.ep, "micro_batch": p.micro_batch,
              "interleave": interleave, "recompute": t.recompute, "zero": zero}
    layout: dict[str, int | str] = {k: v for k, v in stated.items() if v is not None} if complete else {}
    if complete and p.offload is not None and p.offload != "none":
        layout["offload"] = p.offload
    if complete and p.etp is not None:
        layout["etp"] = p.etp
    zeros, offloads = stack_limits(t.stack)
    # a stated distributed optimizer holds the search to it, and so does a stated optimizer offload
    zeros = zero_stages(zeros, True if offload_do else t.distributed_optimizer)
    return TrainingSetup(job, knobs, opts, fixed, complete, layout, zeros, offloads,
                         etp_searched(t.stack) and bool(arch.experts) and p.etp is None)


def etp_searched(stack: str) -> bool:
    """Whether a layout search under `stack` varies an MoE model's etp where the workload leaves it out.

    Where the stack's code has MoE parallel folding (core_v0.10.0 on, `stack_features.FEATURES`): every size folding
    allows (`layouts.expert_tp_sizes`). Without it the experts run at tp, the only size that code has.
    """
    return lacks(stack, "etp", 1) is None


def stack_limits(stack: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The ZeRO stages and the offload codes (other than none) a layout search may take under `stack`.

    A stack that cannot run ZeRO-3 or an offload (`switch_allows.ALLOWS`: the 2021 Megatron-LM has no distributed
    optimizer, the 2024 recipe ZeRO-1 and no offload) does not get them from the search; the workload may still
    state them (PERF004).
    """
    offloads = tuple(OFFLOAD_CODES[str(o)] for o in allowed(stack, "offload") if o != "none")
    return tuple(int(z) for z in allowed(stack, "zero")), offloads


#: The lowest compute capability Transformer Engine runs each block-scaled FP8 recipe on, and the part it names
#: (NVIDIA/TransformerEngine at f031cf87, transformer_engine/pytorch/quantization.py: `check_mxfp8_support`, lines
#: 62-68, "Device compute capability 10.0 or higher required for MXFP8 execution"; `check_fp8_block_scaling_support`,
#: lines 80-87, "FP8 block scaled GEMM requires compute capability 9.0 or higher and CUDA >= 12.9").
RECIPE_MIN_CC = {"mxfp8": (10.0, "Blackwell"), "blockwise": (9.0, "Hopper")}


def recipe_problem(precision: str, fp8_recipe: str, hw: Hardware) -> str | None:
    """Why the FP8 recipe cannot run on the accelerator; else None.

    MXFP8 needs compute capability 10.0 or higher and FP8 block scaling 9.0 (`RECIPE_MIN_CC`): Transformer Engine
    refuses them below. A part with no compute capability (not NVIDIA) is not judged.
    """
    cc = np.asarray(hw.compute_capability, dtype=float)
    if precision != "fp8" or fp8_recipe not in RECIPE_MIN_CC:
        return None
    least, part = RECIPE_MIN_CC[fp8_recipe]
    if not np.any((cc > 0) & (cc < least)):
        return None
    low = float(np.min(cc[cc > 0]))
    instead = "delayed, tensorwise or blockwise" if low >= RECIPE_MIN_CC["blockwise"][0] else "delayed or tensorwise"
    return (f"fp8_recipe '{fp8_recipe}' needs compute capability {least:.1f} or higher ({part}; Transformer Engine "
            f"refuses it below); accelerator '{hw.accelerator}' is {low:g}: use {instead}")
