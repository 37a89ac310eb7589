"""Score the model against the validation cases' measurements: predicted against measured, case by case.

`scoring.cases` reads the cases and predicts them; this module turns a case file into `Scores` (each case's results,
or why the model cannot run it) and summarises the errors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from archgen.errors import AnalyseError, ArchgenError, Location, SpecProblem, ValidateError
from archgen.load import SourceDocument
from archgen.model.accelerator import Accelerator
from archgen.model.cases import METRIC_UNITS, Case
from archgen.model.workload import job_kind
from archgen.perf.comm.collectives import IN_NETWORK, require
from archgen.perf.workload.training_setup import recipe_problem
from archgen.scoring.case_checks import measured_value
from archgen.scoring.cases import (
    CaseFile,
    Refused,
    case_hardware,
    predicted,
    read_case_file,
    training_estimate,
    training_metrics,
)
from archgen.scoring.catalog import load_accelerators
from archgen.scoring.prediction import Prediction


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
    load: float | None = None  # a simulated serving run's load (perf.serve.run.ServingRun.load): its band's bin

    @property
    def error(self) -> float:
        """(predicted - measured) / measured."""
        return (self.predicted - self.measured) / self.measured


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
            est = training_estimate(case, hw, mb)
            pred = training_metrics(case, hw, float(est.step_time))
            out.append(Sensitivity(case.id, mb, bool(est.fits), tuple(_results(case, pred))))
    return out


def _results(case: Case, pred: dict[str, float]) -> list[CaseResult]:
    """One result per measured metric of `case`, against the prediction `pred` (SI)."""
    results = []
    for m in case.measured:
        if m.metric not in pred:  # a percentile where the run was not simulated (no sequence fits)
            raise AnalyseError(f"no simulated run to take {m.metric} from (no sequence fits in the KV cache)")
        if not math.isfinite(pred[m.metric]):  # unbounded: an open loop outrunning the replica (serve.run.overrun)
            continue
        unit = METRIC_UNITS[m.metric]
        measured = float(measured_value(m).to(unit).magnitude)
        results.append(CaseResult(case.id, m.metric, unit, measured, pred[m.metric], case.status, case.source,
                                  pred.get("load")))
    return results


def _refusal(case: Case, i: int, accs: dict[str, Accelerator], doc: SourceDocument | None) -> list[SpecProblem]:
    """Why the model cannot run `case` (the `i`-th of its file) on the known accelerators, or nothing."""
    def at(*path: str) -> Location | None:
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
    acc = accs[case.system.accelerator]
    if case.system.power is not None and abs(case.system.power.m_as("W") - acc.tdp.m_as("W")) > 0.5:
        tdp = f"{acc.tdp.m_as('W'):,.0f} W"
        return [SpecProblem(at("system", "power"), path=f"{case.id}.system.power",
                            message=f"system.power {case.system.power.m_as('W'):,.0f} W is not "
                                    f"{case.system.accelerator}'s catalog TDP ({tdp}): the model has no "
                                    "power-to-clock mechanism, its GEMM rates are measured at the catalog part's "
                                    "power (docs/perf-model.md, Limitations, power-limited clocks)",
                            expected=f"{tdp} (the catalog part's TDP)")]
    job, kind = (case.training, "training") if case.training else (case.inference, "inference")
    have = acc.peak
    if job is not None and job.precision not in have:
        return [SpecProblem(at(kind, "precision"), path=f"{case.id}.{kind}.precision",
                            message=f"{case.system.accelerator} has no {job.precision} peak",
                            expected=f"one of: {', '.join(sorted(have))}")]
    if case.training is not None and (problem := recipe_problem(case.training.precision,
                                                                case.training.fp8_recipe or "",
                                                                case_hardware(case, accs))):
        return [SpecProblem(at("training", "fp8_recipe"), path=f"{case.id}.training.fp8_recipe", message=problem)]
    return []


@dataclass(frozen=True)
class Scored:
    """A case the model ran: its results, one per measured metric, and the prediction they were scored against."""

    case: Case
    results: list[CaseResult]
    prediction: Prediction


@dataclass(frozen=True)
class Scores:
    """Every case of a file in order: a `Scored` when the model ran it, a `Refused` when it cannot."""

    entries: tuple[Scored | Refused, ...]

    @property
    def scored(self) -> list[Scored]:
        """The scored cases."""
        return [e for e in self.entries if isinstance(e, Scored)]

    @property
    def results(self) -> list[CaseResult]:
        """The (case, metric) results of the scored cases."""
        return [r for e in self.scored for r in e.results]

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
    out: list[Scored | Refused] = []
    for i, case in cf.entries:
        if isinstance(case, Refused):
            out.append(case)
            continue
        if problems := _refusal(case, i, accs, cf.doc):
            out.append(Refused(case.id, tuple(problems)))
            continue
        try:
            p = predicted(case, accs)
            out.append(Scored(case, _results(case, p.values), p))
        except ArchgenError as err:
            job = job_kind(case, "case")
            out.append(Refused(case.id, (SpecProblem(cf.doc.locate(("cases", i, job)), path=f"{case.id}.{job}",
                                                     message=f"the model cannot run this case: {err}"),)))
    return Scores(tuple(out))


def score(cases: list[Case], accelerators: dict[str, Accelerator] | None = None,
          doc: SourceDocument | None = None) -> list[CaseResult]:
    """Predicted against measured for every (case, metric); unknown accelerator ids are reported together."""
    return [r for s in score_strictly(cases, accelerators, doc) for r in s.results]


def score_strictly(cases: list[Case], accelerators: dict[str, Accelerator] | None = None,
                   doc: SourceDocument | None = None) -> list[Scored]:
    """`score`'s cases, each `Scored` with the prediction its results were scored against (read, not made again).

    Any case the model cannot run on the known accelerators raises `ValidateError`, every one reported together.
    """
    accs = accelerators if accelerators is not None else load_accelerators()
    problems = [p for i, c in enumerate(cases) for p in _refusal(c, i, accs, doc)]
    if problems:
        raise ValidateError(problems)
    return [Scored(c, _results(c, p.values), p) for c in cases for p in (predicted(c, accs),)]


def score_case_file(path: str | Path, accelerators: dict[str, Accelerator] | None = None) -> Scores:
    """Read and score a case file case by case (see `read_case_file` and `score_cases`)."""
    return score_cases(read_case_file(path), accelerators)


def score_file(path: str | Path, accelerators: dict[str, Accelerator] | None = None) -> list[CaseResult]:
    """Read and score a case file strictly: any refused case raises `ValidateError` with every problem located."""
    scores = score_case_file(path, accelerators)
    if scores.refused:
        raise ValidateError([p for r in scores.refused for p in r.problems])
    return scores.results


def summary(results: list[CaseResult]) -> dict[str, float]:
    """Median and worst absolute relative error, and the count."""
    errs = sorted(abs(r.error) for r in results)
    if not errs:
        return {"count": 0, "median": math.nan, "worst": math.nan}
    mid = len(errs) // 2
    median = errs[mid] if len(errs) % 2 else (errs[mid - 1] + errs[mid]) / 2
    return {"count": len(errs), "median": median, "worst": errs[-1]}
