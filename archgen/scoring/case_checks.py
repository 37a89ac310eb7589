"""What refuses a validation case beyond its schema: a measured figure's unit or ceiling, a layout the stack refuses.

`check_case` gives a case's problems, located in its file (`scoring.cases.read_case_file` refuses the case with
any); `training_problems` the stack's refusals of a training layout, which `scoring.cases.predict` applies to a case
built otherwise (a flipped switch), and `dispatcher_case_problem` a MoE dispatcher the case's part cannot run, as a
workload's estimate refuses it (`perf.workload.nvidia_only`). Split from `scoring.cases` for its size.
"""

from __future__ import annotations

from dataclasses import replace

from archgen.errors import SpecProblem
from archgen.load import SourceDocument
from archgen.model.cases import METRIC_UNITS, PERCENTILES, Case, CaseTraining, Measurement
from archgen.model.stack_features import missing
from archgen.model.training_rules import (
    moe_tp_problem,
    mtp_overlap_problem,
    shared_overlap_problem,
    sp_source,
    tp_overlap_problem,
    tp_overlap_sp_problem,
)
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.memory import OFFLOAD_CODES
from archgen.perf.serve.parallel_problems import attention_dp_problem, expert_problem
from archgen.perf.train.job import Job
from archgen.perf.train.layout_rules import layout_problems
from archgen.perf.train.pipeline_split import layout_interleave
from archgen.perf.train.stacks import on_vendor, resolve, stated_knobs
from archgen.perf.train.training import RECOMPUTE_CODES
from archgen.perf.workload.nvidia_only import dispatcher_problem
from archgen.perf.workload.training_setup import pipeline_options
from archgen.units import Q_, Q, parse_quantity

#: The largest figure a measurement can show, by metric (issue 23: a tflops_per_gpu of 10^9 TFLOP/s was scored):
#: archgen/units.py's bounds on a time, a compute rate and a bandwidth; an MFU is a fraction of peak; 10^12 tokens/s
#: is beyond any cluster (10^5 accelerators at 10^6 tokens/s each make 10^11).
CEILINGS = {"step_time": Q_(3.2e9, "s"), "time": Q_(3.2e9, "s"), "ttft": Q_(3.2e9, "s"), "tpot": Q_(3.2e9, "s"),
            **{m: Q_(3.2e9, "s") for m in PERCENTILES},
            **dict.fromkeys(("tflops_per_gpu", "model_flops_per_gpu"), Q_(1e9, "TFLOPS")),
            "mfu": Q_(1, "dimensionless"), "tokens_per_second": Q_(1e12, "1/s"), "busbw": Q_(1e8, "Gbit/s")}


def measured_value(m: Measurement) -> Q:
    """A measured figure as a quantity; an empty unit is a plain number ('%' converts: 44 % is 0.44)."""
    return parse_quantity(f"{m.value} {m.unit}") if m.unit.strip() else Q_(m.value, "dimensionless")


def training_problems(case: Case) -> list[tuple[str, str]]:
    """(key of `training`, or "" for the whole layout; why) of a training case's layout the stack refuses.

    The layout's rules (`layout_rules.layout_problems`), an MoE model at tp > 1 without sequence parallelism
    (`training_rules.moe_tp_problem`, at the key that turned it off), and a stated overlap_tp_comm true under FP4 or
    without sequence parallelism (at tp 1 included) or the shared experts' overlap beside the EP overlap, as a
    workload's `Training` refuses them (the same functions), and a feature the stated stack's code lacks
    (`stack_features.missing`).
    `read_case_file` refuses a case with any, and `predict` a case built otherwise (a flipped switch). Empty for any
    other case.
    """
    t = case.training
    if t is None or case.model is None:
        return []
    arch = Arch.from_model(case.model, t.mtp_layers)
    knobs = resolve(t.stack, stated_knobs(t), t.precision)
    # its switches (the EP overlap's rule) and its stack's (tp above the KV heads)
    job = Job.from_knobs(arch, t.seq_len, t.global_batch, t.precision, knobs, t.stack)
    # not the stack's pipeline placements (`switch_allows.UNEVEN_SPLITS`): a measured run shows its split ran, as
    # BLOOM-176B's 70 layers on pp 12 did on Megatron-DeepSpeed's uniform partition, which megatron-lm-2021 stands for
    job = replace(job, split_stack=None)
    out = [("", str(m)) for m in layout_problems(
        arch, job, case.system.count, tp=t.tp, pp=t.pp, dp=t.dp, cp=t.cp, ep=t.ep, micro_batch=t.micro_batch,
        interleave=virtual_stages(t), pipeline=pipeline_options(t), offload=OFFLOAD_CODES[t.offload],
        host_memory=case.system.host_memory is not None, etp=t.etp, recompute=RECOMPUTE_CODES[t.recompute])]
    sp = t.sequence_parallel
    if problem := moe_tp_problem(arch.experts, t.tp, knobs.sequence_parallel, sp_source(sp, t.stack)):
        out.append(("sequence_parallel" if sp is not None else "tp", problem))
    overlap = (tp_overlap_problem(t.precision, t.overlap_tp_comm, t.fp8_recipe),
               tp_overlap_sp_problem(t.overlap_tp_comm, knobs.sequence_parallel, sp_source(sp, t.stack), t.tp))
    out += [("overlap_tp_comm", p) for p in overlap if p]
    if problem := shared_overlap_problem(knobs.overlap_ep_comm, knobs.moe_shared_expert_overlap):
        out.append(("moe_shared_expert_overlap", problem))
    if problem := mtp_overlap_problem(knobs.overlap_ep_comm, t.mtp_layers):
        out.append(("mtp_layers", problem))
    if "stack" in t.model_fields_set:   # a feature its stated stack's code lacks, as reading the case refuses it
        out += [("" if m.path[0] == "model" else m.path[-1], m.message)
                for m in missing(t.stack, t, *arch.model_features)]
    return out


def dispatcher_case_problem(case: Case, hw: Hardware) -> tuple[str, str] | None:
    """(key of `training`, why) where a MoE training case's dispatcher cannot run on its part (`hw`), else None.

    The refusal a workload's estimate makes (`nvidia_only.dispatcher_problem`: HybridEP off NVIDIA GPUs, DeepEP off
    NVIDIA and AMD GPUs), read as the estimate reads the case (its vendor's profile where it states no stack,
    `stacks.on_vendor`); located at `moe_dispatcher` where stated, else at `stack` where stated, else at `training`.
    """
    t = case.training
    if t is None or case.model is None:
        return None
    run = on_vendor(t, hw.vendor)
    knobs = resolve(run.stack, stated_knobs(run), run.precision)
    problem = dispatcher_problem(hw, run, str(knobs.moe_dispatcher), bool(Arch.from_model(case.model).experts))
    if problem is None:
        return None
    stated = t.model_fields_set
    return next((k for k in ("moe_dispatcher", "permute_in_dispatch", "stack") if k in stated), ""), problem


def check_case(case: Case, doc: SourceDocument, i: int) -> list[SpecProblem]:
    """The problems of case `i` of a case file beyond its schema: its figures' units and ceilings, its layouts."""
    out = []
    for j, m in enumerate(case.measured):
        try:
            ok = measured_value(m).is_compatible_with(METRIC_UNITS[m.metric])
        except Exception:
            ok = False
        if not ok:
            out.append(SpecProblem(doc.locate(("cases", i, "measured", j, "unit")), path=f"{case.id}.measured",
                                   value=m.unit, expected=f"a unit convertible to {METRIC_UNITS[m.metric]}"))
        elif measured_value(m) > CEILINGS[m.metric]:
            out.append(SpecProblem(doc.locate(("cases", i, "measured", j, "value")), path=f"{case.id}.measured",
                                   value=f"{m.value:.10g} {m.unit}".strip(),
                                   expected=f"{m.metric} of at most {CEILINGS[m.metric]:g~P} (beyond any hardware)"))
    for key, message in training_problems(case):
        path = ("cases", i, "training") + ((key,) if key else ())
        out.append(SpecProblem(doc.locate(path), path=".".join((case.id, "training", key)).rstrip("."),
                               message=message))
    inf = case.inference
    if inf is not None:
        where = doc.locate(("cases", i, "inference"))
        if inf.tp * inf.replicas > case.system.count:
            out.append(SpecProblem(where, path=f"{case.id}.inference",
                                   message=f"tp x replicas = {inf.tp * inf.replicas} exceeds system.count "
                                           f"{case.system.count}"))
        share = case.system.scale_up.job_domain or case.system.scale_up.domain
        if inf.tp > share:
            out.append(SpecProblem(where, path=f"{case.id}.inference",
                                   message=f"tp {inf.tp} exceeds the {share} accelerators of a scale-up domain the "
                                           "case holds: a replica lies inside one domain"))
        if case.model is not None and (problem := expert_problem(Arch.from_model(case.model), inf.ep,
                                                                inf.redundant_experts)):
            out.append(SpecProblem(doc.locate(("cases", i, "inference", "ep")), path=f"{case.id}.inference.ep",
                                   message=problem))
        if case.model is not None and (problem := attention_dp_problem(Arch.from_model(case.model), inf.attention_dp)):
            out.append(SpecProblem(doc.locate(("cases", i, "inference", "attention_dp")),
                                   path=f"{case.id}.inference.attention_dp", message=problem))
    return out


def virtual_stages(t: CaseTraining) -> int:
    """Virtual stages per rank of a training case: as stated, else what the layout string implies, else 1."""
    if t.interleave is not None:
        return t.interleave
    implied = layout_interleave(t.pipeline_layout, t.pp) if t.pipeline_layout else None
    return implied or 1
