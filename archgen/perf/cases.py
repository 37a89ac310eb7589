"""Read validation cases (schema `archgen-validation/1`) and score the model against their measurements.

Defaults for what a case leaves out (the format's own defaults are in its header):

* training: `micro_batch` 1; `interleave` 1; `cp`, `ep` 1; `sequence_parallel` false (all cases in the shipped file
  predate it); `attention` materialized (Megatron's fused softmax, the kernel every published run in the file
  used, before FlashAttention); the DP gradient all-reduce runs after the backward pass (no overlap, no
  distributed optimizer), as in Megatron-LM and DeepSpeed of 2021-22. A case may override any of these in its
  `training` mapping (`attention`, `overlap_grad_reduce`, `distributed_optimizer`, `sequence_parallel`).
* system: NVLink SHARP (NVLS) is off unless a collective case asks for `algorithm: nvls` or `nvls_tree` (it needs the
  fabric manager's multicast support, which a measurement does not state), and then only on an accelerator that has
  it; SHARP on the scale-out switches only where `scale_out.in_network_reduction` says so; scale-out efficiency 0.9.
* inference: the KV cache in the weights' precision (FP8 under FP4 weights, `kernels.serving_kv_dtype`); `batch`
  sequences per replica, or `max` for as many as the KV cache holds (a maximum-throughput benchmark).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from archgen.errors import ArchgenError, SpecError, SpecProblem
from archgen.load import Document, load_file
from archgen.model.accelerator import Accelerator
from archgen.model.base import FieldError, Spec
from archgen.model.workload import (
    Fp8Recipe,
    GatherDtype,
    GradDtype,
    KvReserve,
    MoE,
    Offload,
    Precision,
    Recompute,
    Scenario,
    Stack,
    job_kind,
    serving_problem,
)
from archgen.perf.arch import Arch, megatron_flops
from archgen.perf.catalog import load_accelerators
from archgen.perf.collectives import IN_NETWORK, bus_bandwidth, collective_time, require
from archgen.perf.estimate import expert_problem, pipeline_options
from archgen.perf.hardware import DEFAULT_SCALE_OUT_LATENCY, Hardware, HostShare, hardware_for
from archgen.perf.inference import ServeJob, estimate_inference
from archgen.perf.memory import OFFLOAD_CODES
from archgen.perf.pipeline import layout_interleave
from archgen.perf.search import layout_problems
from archgen.perf.stacks import resolve, stated_knobs, variants
from archgen.perf.training import RECOMPUTE_CODES, Job, Layout, TrainingEstimate, estimate_training
from archgen.units import Q_, Bandwidth, DurationOrZero, Information, Q, parse_quantity
from archgen.validate import problems_from

SCHEMA = "archgen-validation/1"
METRIC_UNITS = {"step_time": "s", "tflops_per_gpu": "FLOPS", "mfu": "dimensionless", "tokens_per_second": "1/s",
                "busbw": "B/s", "time": "s", "ttft": "s", "tpot": "s"}


class CaseScaleUp(Spec):
    """Scale-up domain of a case's system."""

    domain: int = Field(gt=0, description="Accelerators per scale-up domain.")
    bandwidth: Bandwidth = Field(description="Per accelerator per direction.")


class CaseScaleOut(Spec):
    """Scale-out fabric of a case's system."""

    bandwidth: Bandwidth = Field(description="Per accelerator per direction.")
    oversubscription: float = Field(1.0, ge=1, description="Taper above `pod` accelerators.")
    pod: int = Field(0, ge=0, description="Accelerators below the oversubscribed tier.")
    in_network_reduction: bool = Field(False, description="The scale-out switches reduce in the network (SHARP).")
    latency: DurationOrZero = Field(
        Q_(0.0, "us"), description="Latency the network adds to each step across it, as its NCCL plugin declares it "
                                   "(0 for InfiniBand; 35 us on AWS P5en/P6 EFA, aws-ofi-nccl src/platform-aws.cpp).")


class CaseHostMemory(Spec):
    """Host memory of the measured system, per accelerator (where training may offload)."""

    capacity: Information = Field(description="Host memory per accelerator.")
    link: Bandwidth = Field(description="The accelerator's host link per direction (PCIe, NVLink-C2C).")
    bandwidth: Bandwidth = Field(description="CPU memory bandwidth per accelerator (a CPU optimizer step).")
    efficiency: float = Field(0.8, gt=0, le=1, description="Achieved fraction of `link` (System.host_memory).")


class CaseSystem(Spec):
    """The measured system."""

    accelerator: str = Field(description="Catalog id of the accelerator.")
    count: int = Field(gt=0, description="Accelerators in the job.")
    scale_up: CaseScaleUp = Field(description="Scale-up domain.")
    scale_out: CaseScaleOut | None = Field(None, description="Scale-out fabric.")
    host_memory: CaseHostMemory | None = Field(None, description="Host memory per accelerator; none: no offload.")


class CaseModel(Spec):
    """Decoder-only transformer of a case."""

    layers: int = Field(gt=0)
    hidden: int = Field(gt=0)
    heads: int = Field(gt=0)
    kv_heads: int | None = Field(None, gt=0)
    head_dim: int | None = Field(None, gt=0, description="Dimension per head (default hidden / heads).")
    ffn: int = Field(gt=0)
    vocab: int = Field(gt=0)
    gated_ffn: bool = False
    moe: MoE | None = None

    @model_validator(mode="after")
    def _divides(self) -> CaseModel:
        if self.head_dim is None and self.hidden % self.heads:
            raise FieldError(("heads",), f"hidden ({self.hidden}) is not divisible by heads ({self.heads})")
        if self.heads % (self.kv_heads or self.heads):
            raise FieldError(("kv_heads",), f"heads ({self.heads}) is not a multiple of kv_heads ({self.kv_heads})")
        return self

    def arch(self) -> Arch:
        """The model's shape."""
        m = self.moe
        return Arch(self.layers, self.hidden, self.heads, self.kv_heads or self.heads,
                    self.head_dim or self.hidden // self.heads,
                    self.ffn, self.vocab, self.gated_ffn, m.experts if m else 0, m.top_k if m else 0,
                    m.expert_ffn if m else 0, m.shared_experts if m else 0, m.dense_layers if m else 0)


class CaseTraining(Spec):
    """Training job of a case."""

    seq_len: int = Field(gt=0)
    global_batch: int = Field(gt=0)
    micro_batch: int = Field(1, gt=0)
    precision: Precision
    tp: int = Field(gt=0)
    pp: int = Field(gt=0)
    dp: int = Field(gt=0)
    cp: int = Field(1, gt=0)
    ep: int = Field(1, gt=0)
    interleave: int | None = Field(None, gt=0, description="Virtual stages per rank (1, or what pipeline_layout "
                                                           "implies).")
    recompute: Recompute = "none"
    stack: Stack = Field("megatron-lm-2021", description="Training stack whose profile fills the switches left out.")
    sequence_parallel: bool | None = None
    attention: Literal["flash", "materialized"] | None = None
    overlap_grad_reduce: bool | None = None
    overlap_param_gather: bool | None = None
    distributed_optimizer: bool | None = None
    grad_reduce_dtype: GradDtype | None = None
    param_gather_dtype: GatherDtype | None = None
    overlap_tp_comm: bool | None = None
    overlap_p2p_comm: bool | None = None
    ep_dedup: bool | None = None
    overlap_ep_comm: bool | None = None
    dropout: bool | None = None
    fp8_recipe: Fp8Recipe | None = None
    zero: Literal[0, 1, 2, 3] | None = None
    offload: Offload = "none"
    embedding_slot: bool | None = None
    loss_slot: bool | None = None
    first_stage_layers: int | None = Field(None, gt=0)
    last_stage_layers: int | None = Field(None, gt=0)
    pipeline_layout: str | None = None

    @property
    def virtual_stages(self) -> int:
        """Virtual stages per rank: as stated, else what the layout string implies, else 1."""
        if self.interleave is not None:
            return self.interleave
        implied = layout_interleave(self.pipeline_layout, self.pp) if self.pipeline_layout else None
        return implied or 1


class CaseInference(Spec):
    """Inference job of a case."""

    precision: Precision
    tp: int = Field(gt=0)
    replicas: int = Field(1, gt=0)
    batch: int | Literal["max"] = Field(description="Sequences in flight per replica, or 'max' (as many as the KV "
                                                    "cache holds).")
    input_len: int = Field(gt=0)
    output_len: int = Field(gt=0)
    scenario: Scenario = Field("offline", description="offline or server (throughput at `batch`), or concurrency "
                                                      "(`batch` requests kept in flight, as a serving benchmark runs)")
    kv_precision: Precision | None = None
    kv_reserve: KvReserve = "full"
    ep: int = Field(1, gt=0, description="Expert-parallel ways of the MoE layers (divides tp).")
    attention_dp: bool = Field(False, description="Attention data parallelism over the replica's tp ranks.")

    @field_validator("batch", mode="before")
    @classmethod
    def _batch(cls, value):
        if value == "max" or (isinstance(value, int) and not isinstance(value, bool) and value > 0):
            return value
        raise ValueError(f"expected a whole number of sequences above 0, or 'max', got {value!r}")


class CaseCollective(Spec):
    """A collective benchmark."""

    op: Literal["all_reduce", "all_gather", "reduce_scatter", "all_to_all"]
    size: Information
    algorithm: Literal["auto", "ring", "tree", "hierarchical", "nvls", "nvls_tree", "sharp", "pat"] = "auto"


class Measurement(Spec):
    """One measured figure."""

    metric: Literal["step_time", "tflops_per_gpu", "mfu", "tokens_per_second", "busbw", "time", "ttft", "tpot"]
    value: float = Field(gt=0)
    unit: str = Field(description="Unit of the value; empty for a plain number (mfu 0.45, or give \"%\": 45 %).")


class Case(Spec):
    """One published measurement with its full description."""

    id: str
    source: str
    status: Literal["confirmed", "secondary", "unconfirmed"]
    system: CaseSystem
    model: CaseModel | None = None
    training: CaseTraining | None = None
    inference: CaseInference | None = None
    collective: CaseCollective | None = None
    flop_counting: Literal["megatron_96", "model_72"] | None = None
    measured: list[Measurement] = Field(min_length=1)
    notes: str = ""

    @model_validator(mode="after")
    def _one_kind(self) -> Case:
        if job_kind(self, "case") == "collective" and self.system.count < 2:
            raise FieldError(("system", "count"), "a collective needs at least 2 accelerators, got "
                                                  f"{self.system.count}")
        needs_flops = {m.metric for m in self.measured} & {"tflops_per_gpu", "mfu"}
        if needs_flops and self.flop_counting is None:
            raise FieldError(("measured",), f"measured {sorted(needs_flops)[0]} needs flop_counting (megatron_96 or "
                                            "model_72)")
        return self


@dataclass(frozen=True)
class CaseResult:
    """Predicted against measured for one metric of one case."""

    id: str
    metric: str
    unit: str
    measured: float
    predicted: float
    status: str
    source: str

    @property
    def error(self) -> float:
        """(predicted - measured) / measured."""
        return (self.predicted - self.measured) / self.measured


@dataclass(frozen=True)
class Refused:
    """A case that cannot be scored: its id (or `cases[i]` when unreadable) and the located problems."""

    id: str
    problems: tuple[SpecProblem, ...]

    @property
    def location(self):
        """Where the first problem is."""
        return self.problems[0].location


@dataclass(frozen=True)
class CaseFile:
    """A case file read case by case: the cases that validate, and those refused, in file order."""

    doc: Document
    entries: tuple[tuple[int, Case | Refused], ...]

    @property
    def cases(self) -> list[Case]:
        """The valid cases."""
        return [c for _, c in self.entries if isinstance(c, Case)]

    @property
    def refused(self) -> list[Refused]:
        """The refused cases."""
        return [c for _, c in self.entries if isinstance(c, Refused)]


def read_case_file(path: str | Path) -> CaseFile:
    """Parse a case file; a problem of one case refuses that case only, a problem of the file raises `SpecError`.

    The file must be one YAML document with `schema: archgen-validation/1` and a non-empty `cases` list; each case
    is then validated on its own, so one bad case (an unknown field, a layout that does not divide, a duplicate id)
    leaves the others readable.
    """
    docs = load_file(Path(path), keys="'schema' and 'cases'")
    doc = docs[0]
    problems: list[SpecProblem] = []
    if len(docs) != 1:
        problems.append(SpecProblem(doc.locate(()), message="a case file holds one YAML document",
                                    expected="one mapping with 'schema' and 'cases'"))
    data = doc.data
    if data.get("schema") != SCHEMA:
        problems.append(SpecProblem(doc.locate(("schema",)), path="schema", value=data.get("schema"),
                                    expected=f"'{SCHEMA}'"))
    raw = data.get("cases")
    if not isinstance(raw, list) or not raw:
        problems.append(SpecProblem(doc.locate(("cases",)), path="cases", value=None if raw is None else raw,
                                    expected="a list of at least one case"))
        raise SpecError(problems)
    for k in sorted(set(data) - {"schema", "cases"}):
        problems.append(SpecProblem(doc.locate((k,)), path=k, message="unknown key", expected="schema, cases"))
    if problems:
        raise SpecError(problems)
    entries: list[tuple[int, Case | Refused]] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        name = item.get("id") if isinstance(item, dict) and isinstance(item.get("id"), str) else f"cases[{i}]"
        try:
            case = Case.model_validate(item)
        except ValidationError as err:
            entries.append((i, Refused(name, tuple(problems_from(err, doc, Case, ("cases", i))))))
            continue
        found = _check_case(case, doc, i)
        if case.id in seen:
            found.insert(0, SpecProblem(doc.locate(("cases", i, "id")), path=f"cases.{i}.id",
                                        message=f"duplicate case id '{case.id}'"))
        seen.add(case.id)
        entries.append((i, Refused(case.id, tuple(found)) if found else case))
    return CaseFile(doc, tuple(entries))


def read_cases(path: str | Path) -> tuple[list[Case], Document]:
    """Parse and validate a case file, strictly: every problem of every case is raised at once, located."""
    cf = read_case_file(path)
    if cf.refused:
        raise SpecError([p for r in cf.refused for p in r.problems])
    return cf.cases, cf.doc


def _measured(m: Measurement) -> Q:
    """A measured figure as a quantity; an empty unit is a plain number ('%' converts: 44 % is 0.44)."""
    return parse_quantity(f"{m.value} {m.unit}") if m.unit.strip() else Q_(m.value, "dimensionless")


def _check_case(case: Case, doc: Document, i: int) -> list[SpecProblem]:
    out = []
    for j, m in enumerate(case.measured):
        try:
            ok = _measured(m).is_compatible_with(METRIC_UNITS[m.metric])
        except Exception:
            ok = False
        if not ok:
            out.append(SpecProblem(doc.locate(("cases", i, "measured", j, "unit")), path=f"{case.id}.measured",
                                   value=m.unit, expected=f"a unit convertible to {METRIC_UNITS[m.metric]}"))
    t = case.training
    if t is not None and case.model is not None:
        where = doc.locate(("cases", i, "training"))
        job = Job(case.model.arch(), t.seq_len, t.global_batch, t.precision)
        problems = layout_problems(case.model.arch(), job, case.system.count, tp=t.tp, pp=t.pp, dp=t.dp, cp=t.cp,
                                   ep=t.ep, micro_batch=t.micro_batch, interleave=t.virtual_stages,
                                   pipeline=pipeline_options(t), offload=OFFLOAD_CODES[t.offload],
                                   host_memory=case.system.host_memory is not None)
        out += [SpecProblem(where, path=f"{case.id}.training", message=m) for m in problems]
    inf = case.inference
    if inf is not None:
        where = doc.locate(("cases", i, "inference"))
        if inf.tp * inf.replicas > case.system.count:
            out.append(SpecProblem(where, path=f"{case.id}.inference",
                                   message=f"tp x replicas = {inf.tp * inf.replicas} exceeds system.count "
                                           f"{case.system.count}"))
        if problem := serving_problem(inf.scenario, inf.batch, inf.tp, inf.ep):
            out.append(SpecProblem(doc.locate(("cases", i, "inference", problem[0])),
                                   path=f"{case.id}.inference.{problem[0]}", message=problem[1]))
        if case.model is not None and (problem := expert_problem(case.model.arch(), inf.ep)):
            out.append(SpecProblem(doc.locate(("cases", i, "inference", "ep")), path=f"{case.id}.inference.ep",
                                   message=problem))
    return out


def case_hardware(case: Case, accelerators: dict[str, Accelerator], *, nvls: bool = False) -> Hardware:
    """The `Hardware` of a case's system; `nvls` turns NVLink SHARP on where the accelerator has it."""
    s = case.system
    so = s.scale_out
    su = accelerators[s.accelerator].scale_up
    nvls = nvls and bool(su and su.in_network_reduction)
    return hardware_for(accelerators[s.accelerator], scale_up_size=s.scale_up.domain,
                        scale_up_bandwidth=s.scale_up.bandwidth, scale_out_bandwidth=so.bandwidth if so else None,
                        oversubscription=so.oversubscription if so else 1.0, pod=so.pod if so else 0,
                        in_network_reduction=nvls, scale_out_reduction=bool(so and so.in_network_reduction),
                        scale_out_latency=so.latency if so else DEFAULT_SCALE_OUT_LATENCY,
                        host=HostShare(h.capacity, h.link, h.bandwidth, h.efficiency) if (h := s.host_memory) else None)


def predict(case: Case, accelerators: dict[str, Accelerator]) -> dict[str, float]:
    """The model's value (SI) for every metric the case measured."""
    if case.collective is not None:
        c = case.collective
        hw = case_hardware(case, accelerators, nvls=c.algorithm in ("nvls", "nvls_tree"))
        size = float(c.size.to("B").magnitude)
        n = case.system.count
        t = float(collective_time(hw, c.op, size, n, algorithm=c.algorithm))
        return {"time": t, "busbw": float(bus_bandwidth(c.op, size, t, n))}
    hw = case_hardware(case, accelerators)
    if case.training is not None:
        return _training_metrics(case, hw, float(_training_estimate(case, hw).step_time))
    inf = case.inference
    job = ServeJob(case.model.arch(), inf.input_len, inf.output_len, inf.precision, inf.kv_precision, inf.kv_reserve,
                   inf.ep, inf.attention_dp, inf.scenario)
    est = estimate_inference(hw, job, inf.tp, None if inf.batch == "max" else inf.batch)
    return {"tokens_per_second": float(est.tokens_per_second_replica) * inf.replicas,
            "time": float(est.ttft), "ttft": float(est.ttft), "tpot": float(est.tpot)}


def _training_estimate(case: Case, hw: Hardware, micro_batch: int | None = None, stack: str | None = None
                       ) -> TrainingEstimate:
    """The model's estimate for a training case, at its own micro-batch and stack unless others are given."""
    t = case.training
    knobs = resolve(stack or t.stack, stated_knobs(t), t.precision)
    job = Job.from_knobs(case.model.arch(), t.seq_len, t.global_batch, t.precision, knobs)
    zero = t.zero if t.zero is not None else (1 if knobs.distributed_optimizer else 0)
    lay = Layout(t.tp, t.pp, t.dp, micro_batch or t.micro_batch, t.cp, t.ep, t.virtual_stages,
                 RECOMPUTE_CODES[t.recompute], knobs.sequence_parallel, zero, pipeline_options(t),
                 OFFLOAD_CODES[t.offload])
    return estimate_training(hw, job, lay)


def stack_range(case: Case, accelerators: dict[str, Accelerator] | None = None) -> dict[str, tuple[float, float]]:
    """Each measured metric's lowest and highest prediction over the stack profiles.

    Only for a training case that states no stack (its stated switches kept); empty otherwise.
    """
    t = case.training
    if t is None or "stack" in t.model_fields_set:
        return {}
    accs = accelerators if accelerators is not None else load_accelerators()
    hw = case_hardware(case, accs)
    preds = [_training_metrics(case, hw, float(_training_estimate(case, hw, stack=name).step_time))
             for name, _ in variants(stated_knobs(t), t.precision, False, t.stack)]
    return {m.metric: (min(p[m.metric] for p in preds), max(p[m.metric] for p in preds)) for m in case.measured}


def training_fits(case: Case, accelerators: dict[str, Accelerator] | None = None) -> bool | None:
    """Whether a training case's stated layout fits in HBM by the model (None for other cases)."""
    if case.training is None:
        return None
    accs = accelerators if accelerators is not None else load_accelerators()
    return bool(_training_estimate(case, case_hardware(case, accs)).fits)


def _training_metrics(case: Case, hw: Hardware, step: float) -> dict[str, float]:
    """Every training metric a case may measure, from the predicted step time (SI)."""
    t = case.training
    out = {"step_time": step, "tokens_per_second": t.global_batch * t.seq_len / step}
    if case.flop_counting is not None:
        flops = megatron_flops(case.model.arch(), t.global_batch, t.seq_len, case.flop_counting)
        out["tflops_per_gpu"] = flops / step / case.system.count
        out["mfu"] = out["tflops_per_gpu"] / hw.peak_for(t.precision)
    return out


@dataclass(frozen=True)
class Sensitivity:
    """A training case re-predicted at a micro-batch its source does not state (not scored)."""

    id: str
    micro_batch: int
    fits: bool
    results: tuple[CaseResult, ...]


def micro_batch_sensitivity(cases: list[Case], ids: set[str], accelerators: dict[str, Accelerator] | None = None,
                            sizes: tuple[int, ...] = (1, 2, 4, 8)) -> list[Sensitivity]:
    """Each listed training case that leaves `micro_batch` out, at every size in `sizes` that divides its batch.

    Shows how much of a case's error an unstated choice could account for; the scored prediction keeps the
    documented default (1).
    """
    accs = accelerators if accelerators is not None else load_accelerators()
    out = []
    for case in cases:
        t = case.training
        if case.id not in ids or t is None or "micro_batch" in t.model_fields_set:
            continue
        hw = case_hardware(case, accs)
        for mb in sizes:
            if t.global_batch % (t.dp * mb):
                continue
            est = _training_estimate(case, hw, mb)
            pred = _training_metrics(case, hw, float(est.step_time))
            out.append(Sensitivity(case.id, mb, bool(est.fits), tuple(_results(case, pred))))
    return out


def _results(case: Case, pred: dict[str, float]) -> list[CaseResult]:
    """One result per measured metric of `case`, against the prediction `pred` (SI)."""
    results = []
    for m in case.measured:
        unit = METRIC_UNITS[m.metric]
        measured = float(_measured(m).to(unit).magnitude)
        results.append(CaseResult(case.id, m.metric, unit, measured, pred[m.metric], case.status, case.source))
    return results


def _refusal(case: Case, i: int, accs: dict[str, Accelerator], doc: Document | None) -> list[SpecProblem]:
    """Why the model cannot run `case` (the `i`-th of its file) on the known accelerators, or nothing."""
    def at(*path) -> object:
        return doc.locate(("cases", i, *path)) if doc else None

    if case.system.accelerator not in accs:
        return [SpecProblem(at("system", "accelerator"), path=f"{case.id}.system.accelerator",
                            message=f"unknown accelerator '{case.system.accelerator}'",
                            expected=f"one of: {', '.join(sorted(accs))}")]
    if case.collective is not None and case.collective.algorithm in IN_NETWORK:
        hw = case_hardware(case, accs, nvls=case.collective.algorithm in ("nvls", "nvls_tree"))
        if problem := require(hw, case.collective.algorithm, case.system.count,
                              min(case.system.count, hw.scale_up_size)):
            return [SpecProblem(at("collective", "algorithm"), path=f"{case.id}.collective.algorithm",
                                message=problem)]
    job, kind = (case.training, "training") if case.training else (case.inference, "inference")
    have = accs[case.system.accelerator].peak
    if job is not None and job.precision not in have:
        return [SpecProblem(at(kind, "precision"), path=f"{case.id}.{kind}.precision",
                            message=f"{case.system.accelerator} has no {job.precision} peak",
                            expected=f"one of: {', '.join(sorted(have))}")]
    return []


@dataclass(frozen=True)
class Scores:
    """Every case of a file in order: its results when scored, a `Refused` when the model cannot run it."""

    entries: tuple[list[CaseResult] | Refused, ...]

    @property
    def results(self) -> list[CaseResult]:
        """The (case, metric) results of the scored cases."""
        return [r for e in self.entries if not isinstance(e, Refused) for r in e]

    @property
    def refused(self) -> list[Refused]:
        """The refused cases."""
        return [e for e in self.entries if isinstance(e, Refused)]


def score_cases(cf: CaseFile, accelerators: dict[str, Accelerator] | None = None) -> Scores:
    """Score every valid case of `cf`, refusing the ones the model cannot run and scoring the others.

    A case on an unknown accelerator or dtype, or one whose prediction raises an `ArchgenError` (a layout the model
    refuses), becomes a `Refused` located at its job.
    """
    accs = accelerators if accelerators is not None else load_accelerators()
    out: list[list[CaseResult] | Refused] = []
    for i, case in cf.entries:
        if isinstance(case, Refused):
            out.append(case)
            continue
        if problems := _refusal(case, i, accs, cf.doc):
            out.append(Refused(case.id, tuple(problems)))
            continue
        try:
            out.append(_results(case, predict(case, accs)))
        except ArchgenError as err:
            job = job_kind(case, "case")
            out.append(Refused(case.id, (SpecProblem(cf.doc.locate(("cases", i, job)), path=f"{case.id}.{job}",
                                                     message=f"the model cannot run this case: {err}"),)))
    return Scores(tuple(out))


def score(cases: list[Case], accelerators: dict[str, Accelerator] | None = None,
          doc: Document | None = None) -> list[CaseResult]:
    """Predicted against measured for every (case, metric); unknown accelerator ids are reported together."""
    accs = accelerators if accelerators is not None else load_accelerators()
    problems = [p for i, c in enumerate(cases) for p in _refusal(c, i, accs, doc)]
    if problems:
        raise SpecError(problems)
    return [r for c in cases for r in _results(c, predict(c, accs))]


def score_case_file(path: str | Path, accelerators: dict[str, Accelerator] | None = None) -> Scores:
    """Read and score a case file case by case (see `read_case_file` and `score_cases`)."""
    return score_cases(read_case_file(path), accelerators)


def score_file(path: str | Path, accelerators: dict[str, Accelerator] | None = None) -> list[CaseResult]:
    """Read and score a case file strictly: any refused case raises `SpecError` with every problem located."""
    scores = score_case_file(path, accelerators)
    if scores.refused:
        raise SpecError([p for r in scores.refused for p in r.problems])
    return scores.results


def summary(results: list[CaseResult]) -> dict[str, float]:
    """Median and worst absolute relative error, and the count."""
    errs = sorted(abs(r.error) for r in results)
    if not errs:
        return {"count": 0, "median": math.nan, "worst": math.nan}
    mid = len(errs) // 2
    median = errs[mid] if len(errs) % 2 else (errs[mid - 1] + errs[mid]) / 2
    return {"count": len(errs), "median": median, "worst": errs[-1]}
