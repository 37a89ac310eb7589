"""Read validation cases (schema `archgen-validation/1`) and score the model against their measurements.

Defaults for what a case leaves out (the format's own defaults are in its header):

* training: `micro_batch` 1; `interleave` 1; `cp`, `ep` 1; `sequence_parallel` false (all cases in the shipped file
  predate it); `attention` materialized (Megatron's fused softmax, the kernel every published run in the file
  used, before FlashAttention); the DP gradient all-reduce runs after the backward pass (no overlap, no
  distributed optimizer), as in Megatron-LM and DeepSpeed of 2021-22. A case may override any of these in its
  `training` mapping (`attention`, `overlap_grad_reduce`, `distributed_optimizer`, `sequence_parallel`).
* system: NVLink SHARP (NVLS) is off unless a collective case asks for `algorithm: nvls` (it needs the fabric
  manager's multicast support, which a measurement does not state); scale-out efficiency 0.9.
* inference: the KV cache in the weights' precision (FP8 under FP4 weights, `kernels.serving_kv_dtype`); `batch`
  sequences per replica, or `max` for as many as the KV cache holds (a maximum-throughput benchmark).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from archgen.errors import SpecError, SpecProblem
from archgen.load import Document, load_file
from archgen.model.accelerator import Accelerator
from archgen.model.cases import METRIC_UNITS, SCHEMA, Case, CaseTraining, Measurement
from archgen.perf import kernels as K
from archgen.perf.arch import Arch, megatron_flops
from archgen.perf.catalog import load_accelerators
from archgen.perf.collectives import bus_bandwidth, collective_time
from archgen.perf.estimate import pipeline_options
from archgen.perf.hardware import Hardware, hardware_for
from archgen.perf.inference import ServeJob, estimate_inference
from archgen.perf.pipeline import layout_interleave
from archgen.perf.search import layout_problems
from archgen.perf.stacks import resolve, stated_knobs, variants
from archgen.perf.training import RECOMPUTE_CODES, Job, Layout, TrainingEstimate, estimate_training
from archgen.units import Q_, Q, parse_quantity
from archgen.validate import problems_from


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


def read_cases(path: str | Path) -> tuple[list[Case], Document]:
    """Parse and validate a case file; every problem is reported at once with its file:line:col."""
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
    extra = sorted(set(data) - {"schema", "cases"})
    for k in extra:
        problems.append(SpecProblem(doc.locate((k,)), path=k, message="unknown key", expected="schema, cases"))
    cases, seen = [], set()
    for i, item in enumerate(raw):
        try:
            case = Case.model_validate(item)
        except ValidationError as err:
            problems.extend(problems_from(err, doc, Case, ("cases", i)))
            continue
        if case.id in seen:
            problems.append(SpecProblem(doc.locate(("cases", i, "id")), path=f"cases.{i}.id",
                                        message=f"duplicate case id '{case.id}'"))
        seen.add(case.id)
        problems.extend(_check_case(case, doc, i))
        cases.append(case)
    if problems:
        raise SpecError(problems)
    return cases, doc


def training_cases(path: str | Path) -> list[Case]:
    """The training cases of a case file, each validated with located errors.

    The file's other cases are skipped (their own models read them), so a serving field this reader does not know
    leaves the training cases scored.
    """
    doc = load_file(Path(path), keys="'schema' and 'cases'")[0]
    problems: list[SpecProblem] = []
    out = []
    for i, item in enumerate(doc.data.get("cases") or []):
        if not isinstance(item, dict) or "training" not in item:
            continue
        try:
            case = Case.model_validate(item)
        except ValidationError as err:
            problems.extend(problems_from(err, doc, Case, ("cases", i)))
            continue
        problems.extend(_check_case(case, doc, i))
        out.append(case)
    if problems:
        raise SpecError(problems)
    return out


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
        arch = Arch.from_model(case.model)
        job = Job(arch, t.seq_len, t.global_batch, t.precision)
        problems = layout_problems(arch, job, case.system.count, tp=t.tp, pp=t.pp, dp=t.dp, cp=t.cp, ep=t.ep,
                                   micro_batch=t.micro_batch, interleave=virtual_stages(t),
                                   pipeline=pipeline_options(t))
        out += [SpecProblem(where, path=f"{case.id}.training", message=m) for m in problems]
    inf = case.inference
    if inf is not None and inf.tp * inf.replicas > case.system.count:
        out.append(SpecProblem(doc.locate(("cases", i, "inference")), path=f"{case.id}.inference",
                               message=f"tp x replicas = {inf.tp * inf.replicas} exceeds system.count "
                                       f"{case.system.count}"))
    return out


def case_hardware(case: Case, accelerators: dict[str, Accelerator], *, nvls: bool = False) -> Hardware:
    """The `Hardware` of a case's system."""
    s = case.system
    so = s.scale_out
    return hardware_for(accelerators[s.accelerator], scale_up_size=s.scale_up.domain,
                        scale_up_bandwidth=s.scale_up.bandwidth, scale_out_bandwidth=so.bandwidth if so else None,
                        oversubscription=so.oversubscription if so else 1.0, pod=so.pod if so else 0,
                        in_network_reduction=nvls)


def predict(case: Case, accelerators: dict[str, Accelerator]) -> dict[str, float]:
    """The model's value (SI) for every metric the case measured."""
    if case.collective is not None:
        c = case.collective
        hw = case_hardware(case, accelerators, nvls=c.algorithm == "nvls")
        size = float(c.size.to("B").magnitude)
        n = case.system.count
        t = float(collective_time(hw, c.op, size, n, algorithm=c.algorithm))
        return {"time": t, "busbw": float(bus_bandwidth(c.op, size, t, n))}
    hw = case_hardware(case, accelerators)
    if case.training is not None:
        return _training_metrics(case, hw, float(_training_estimate(case, hw).step_time))
    inf = case.inference
    job = ServeJob(Arch.from_model(case.model), inf.input_len, inf.output_len, inf.precision, inf.kv_precision,
                   inf.kv_reserve)
    est = estimate_inference(hw, job, inf.tp, None if inf.batch == "max" else inf.batch)
    return {"tokens_per_second": float(est.tokens_per_second_replica) * inf.replicas,
            "time": float(est.ttft)}


def _training_estimate(case: Case, hw: Hardware, micro_batch: int | None = None, stack: str | None = None
                       ) -> TrainingEstimate:
    """The model's estimate for a training case, at its own micro-batch and stack unless others are given."""
    t = case.training
    knobs = resolve(stack or t.stack, stated_knobs(t), t.precision)
    job = Job.from_knobs(Arch.from_model(case.model), t.seq_len, t.global_batch, t.precision, knobs)
    zero = t.zero if t.zero is not None else (1 if knobs.distributed_optimizer else 0)
    lay = Layout(t.tp, t.pp, t.dp, micro_batch or t.micro_batch, t.cp, t.ep, virtual_stages(t),
                 RECOMPUTE_CODES[t.recompute], knobs.sequence_parallel, zero, pipeline_options(t))
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
        flops = megatron_flops(Arch.from_model(case.model), t.global_batch, t.seq_len, case.flop_counting)
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


def score(cases: list[Case], accelerators: dict[str, Accelerator] | None = None,
          doc: Document | None = None) -> list[CaseResult]:
    """Predicted against measured for every (case, metric); unknown accelerator ids are reported together."""
    accs = accelerators if accelerators is not None else load_accelerators()
    problems = []
    for i, c in enumerate(cases):
        if c.system.accelerator not in accs:
            where = doc.locate(("cases", i, "system", "accelerator")) if doc else None
            problems.append(SpecProblem(where, path=f"{c.id}.system.accelerator",
                                        message=f"unknown accelerator '{c.system.accelerator}'",
                                        expected=f"one of: {', '.join(sorted(accs))}"))
            continue
        job, kind = (c.training, "training") if c.training else (c.inference, "inference")
        have = accs[c.system.accelerator].peak
        if job is not None and job.precision not in have:
            where = doc.locate(("cases", i, kind, "precision")) if doc else None
            problems.append(SpecProblem(where, path=f"{c.id}.{kind}.precision",
                                        message=f"{c.system.accelerator} has no {job.precision} peak",
                                        expected=f"one of: {', '.join(sorted(have))}"))
    if problems:
        raise SpecError(problems)
    return [r for c in cases for r in _results(c, predict(c, accs))]


def score_file(path: str | Path, accelerators: dict[str, Accelerator] | None = None) -> list[CaseResult]:
    """Read and score a case file."""
    cases, doc = read_cases(path)
    return score(cases, accelerators, doc)


def summary(results: list[CaseResult]) -> dict[str, float]:
    """Median and worst absolute relative error, and the count."""
    errs = sorted(abs(r.error) for r in results)
    if not errs:
        return {"count": 0, "median": math.nan, "worst": math.nan}
    mid = len(errs) // 2
    median = errs[mid] if len(errs) % 2 else (errs[mid - 1] + errs[mid]) / 2
    return {"count": len(errs), "median": median, "worst": errs[-1]}


def virtual_stages(t: CaseTraining) -> int:
    """Virtual stages per rank of a training case: as stated, else what the layout string implies, else 1."""
    if t.interleave is not None:
        return t.interleave
    implied = layout_interleave(t.pipeline_layout, t.pp) if t.pipeline_layout else None
    return implied or 1

def flash_attention_check(path: str | Path) -> list[tuple[dict, float]]:
    """Each row of a flash-attention forward measurement file (no causal mask) with the model's TFLOP/s for it.

    The file names its accelerator and gives batch, heads, seq_len, head_dim and the measured `tflops` per row
    (4 · batch · heads · seq_len² · head_dim FLOP over the kernel time, as FlashAttention's benchmarks count).
    """
    (doc,) = load_file(Path(path))
    hw = hardware_for(load_accelerators()[doc.data["accelerator"]], scale_up_size=1)  # one device
    out = []
    for row in doc.data["rows"]:
        b, h, s, d = row["batch"], row["heads"], row["seq_len"], row["head_dim"]
        t = K.attention_forward(hw, "bf16", batch=b, q_len=s, kv_len=s, heads=h, head_dim=d, kernel="flash",
                                causal=False)
        out.append((row, float(4.0 * b * h * s * s * d / t / 1e12)))
    return out
