"""Evaluate the points of a `Sweep`: each a workload estimate on hardware changed along the sweep's axes.

A `SweepProblem` holds what every point needs (the workload, its model, and each cluster as the model sees it) and
is small and picklable, so chunks of points can be evaluated in other processes or on a Dask cluster: a worker
gets the problem and an index range and generates its points itself (point i is the mixed-radix decoding of i
over the axes, the last axis fastest). Metrics travel as floats in SI units (`quantity_json.json_magnitude`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from archgen import metrics as registry
from archgen.display import kw
from archgen.errors import ArchgenError, WorkloadError
from archgen.metric import CAPEX_BOUNDED
from archgen.metrics_bands import BANDED
from archgen.model.requirements import PASSING, Requirement, Status, fails
from archgen.model.sweep import COST_OBJECTIVES, RUN_METRICS, STORAGE_METRICS, SWEEP_METRICS, Sweep
from archgen.model.unsettled import met_above, unsettled_note
from archgen.model.workload import Workload
from archgen.perf.explore.batch_path import of_workload
from archgen.perf.explore.front import best, pareto
from archgen.perf.explore.hardware_scope import scopes, unpowered_base
from archgen.perf.explore.point_axes import point_base, point_hardware, point_job
from archgen.perf.explore.problem import PointRow, SweepProblem
from archgen.perf.explore.sweep_notes import model_defaults, unmeasured_efficiencies  # noqa: F401 (re-exported)
from archgen.perf.hw.launch import HOST_OPS, TENSORRT_LAUNCH
from archgen.perf.train.point_goodput import BLOCKING_WORDS, freed_of, goodput_of, replicas_of, unblocked_of
from archgen.perf.workload.band_verdict import point_ends
from archgen.perf.workload.cluster import estimate_on_cluster
from archgen.perf.workload.derived import (
    POWER_METRICS,
    host_corners,
    judge_points,
    judge_requirements,
    judged,
    other_end_metrics,
    point_metrics,
    restore_ends,
    unmeasured_figure,
)
from archgen.perf.workload.estimate import precision
from archgen.perf.workload.machine import Machine
from archgen.perf.workload.run_figures import run_bands, serving_cost_bands, serving_cost_ends
from archgen.perf.workload.upper_bounds import BOUNDED, SHARE_BOUNDED, TCO_SHARED, UPPER_BOUNDS, unsettled_at
from archgen.quantity_json import json_magnitude
from archgen.units import Q_


def requirements(problem: SweepProblem) -> list[Requirement]:
    """The targets every point is judged on: the workload's (`of_workload`), then the sweep's."""
    return [*of_workload(problem), *problem.sweep.requirements]


def stated_in(problem: SweepProblem) -> dict[str, tuple[str, str]]:
    """Where each requirement of `requirements` is written, by id: (kind, id) of its document."""
    return {**{r.id: ("Workload", problem.workload.id) for r in problem.workload.requirements},
            **{s.requirement.id: (s.kind, s.owner) for s in problem.documents},
            **{r.id: ("Sweep", problem.sweep.id) for r in problem.sweep.requirements}}


#: The workload's metrics a point derives (`derived.point_metrics`) and its estimate does not have: goodput, what is
#: made from it and the checkpoint times (`model.sweep.STORAGE_METRICS`, cost per token among them), a training run's
#: figures from its token budget (`model.sweep.RUN_METRICS`: time to train, accelerator-hours, IT energy) and cost per
#: million tokens, cost per token x 10^6. Before newuser68 the last was judged on the estimate, which has no cost: a
#: serving workload's `cost_per_million_tokens` SHALL read "not provided: target <= 5 USD does not have the dimension
#: of cost_per_million_tokens" at every point of its sweep, and no point was feasible; before nu68fix so did a SHALL
#: on `time_to_train`, `accelerator_hours` or `job_it_energy` ("target <= 2000 d does not have the dimension of
#: time_to_train", tests/test_sweep_point_derived.py).
POINT_DERIVED = STORAGE_METRICS | RUN_METRICS | {"cost_per_million_tokens"}


def on_point(problem: SweepProblem) -> list[Requirement]:
    """The requirements judged on a point's own metrics (`derived.judge_points`, with the range and "at risk").

    The sweep's, and the workload's on a figure the point derives and its estimate does not have (`POINT_DERIVED`);
    the workload's others are judged on the estimate, with the model's error band, as `check` judges them.
    """
    return [*(r for r in of_workload(problem) if r.metric in POINT_DERIVED), *problem.sweep.requirements]


def on_estimate(problem: SweepProblem) -> list[Requirement]:
    """The workload's requirements judged on a point's estimate (the others are `on_point`)."""
    return [r for r in of_workload(problem) if r.metric not in POINT_DERIVED]


#: Why a requirement on goodput, or a figure made from it, is not judged where the checkpoint's blocking time or a
#: repair wait is not known (`upper_bounds.unsettled_at`): met at one end only of what the point does not know.
UNSETTLED = "{metric} meets the target at one end only of {freed}"


#: Why a requirement on goodput, or a figure made from it, is not judged where which load a restore runs is not
#: settled (`perf.train.point_goodput.replicas_of`, `loose_at`): met at one of its two reads only.
RESTORED = ("{metric} meets the target at one end only of what a restore reads: the checkpoint once (a fully "
            "parallel load) or each data-parallel replica's weights (Megatron's default load); the job states no "
            "checkpoint.parallel_load and its stack's default is not settled (docs/reliability.md, What a restore "
            "reads)")
#: What `RESTORED` adds where only the corner of that read and the host's other end judges a requirement otherwise.
AND_HOST = ", at the high end of the host's time per operation too (docs/perf-model.md, Host time)"


def host_words(workload: Workload) -> str:
    """Why a requirement is not judged where it is met at one end only of the host's time per operation or launch.

    The estimate takes the low end of that time and holds its figures at the high end (`Estimate.unsettled`: a
    training job's eager operations, `training_estimate.host_ends`; a TensorRT engine's launches,
    `estimate.launch_ends`); a point's figures made from its rate move with them (`derived.host_corners`). A template
    of `{metric}`, as `UNSETTLED` (sweepends41: such a point read "the unknown checkpoint blocking time", and one on
    the estimate "target <= 10 ms does not have the dimension of tpot").
    """
    training = workload.training is not None
    low, high = (f"{t * 1e6:g}" for t in (HOST_OPS if training else TENSORRT_LAUNCH))
    what = "eager operation" if training else "kernel launch of its TensorRT engine"
    return (f"{{metric}} meets the target at one end only of the host's time per {what}, which no source times "
            f"({low} to {high} us; docs/perf-model.md, Host time)")


def loose_at(reqs: Sequence[Requirement], metrics: dict[str, float], other: dict[str, float] | None,
             corners: Sequence[dict[str, float]], share: float, why: str,
             restored: Sequence[dict[str, float]] = ()) -> dict[str, str]:
    """The requirements a point's unknown inputs leave unjudged (`unsettled_at`), by id, each with why.

    "" for the rule by metric (`unprovided`: the blocking time, an energy at maximum draw and its share of a cost);
    `why` (`host_words`) where only the host's other end, or a corner of it and those (`derived.host_corners`),
    judges the requirement otherwise, each corner also at its own energy's ends; `RESTORED` where the point at the
    replicas' read does, or its corner with the host's other end (`restored`: `derived.restore_ends`), as `check`
    judges the restore's end and its corner with the host's (`model.unsettled.joined`).
    """
    loose = dict.fromkeys(sorted(unsettled_at(reqs, metrics, other, SWEEP_METRICS, share)), "")
    for corner in corners:
        for rid in sorted(unsettled_at(reqs, metrics, corner, SWEEP_METRICS)
                          | unsettled_at(reqs, corner, None, SWEEP_METRICS, share)):
            loose.setdefault(rid, why)
    for n, end in enumerate(restored):   # the read's end, then its corner with the host's other end
        for rid in sorted(unsettled_at(reqs, metrics, end, SWEEP_METRICS)
                          | unsettled_at(reqs, end, None, SWEEP_METRICS, share)):
            loose.setdefault(rid, RESTORED + (AND_HOST if n else ""))
    return loose


def unpriced(problem: SweepProblem, base: Machine) -> str:
    """Why a point on `base` has no cost per token where its chip is not the cluster's own, in words; else ""."""
    own = problem.bases.get((base.cluster, None))
    if base.cost_per_accelerator_hour is not None or own is None or own.cost_per_accelerator_hour is None:
        return ""
    return (f"cluster '{base.cluster}' prices its own '{own.hardware.accelerator}' systems, not "
            f"'{base.hardware.accelerator}' ones")


def point_scopes(problem: SweepProblem, base: Machine, points: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
    """Why each point on `base` at its `points` values has no power, and no cost per token, in words; "" where it has.

    No power: scaled hardware (`hardware_scope.unpowered`); no price: scaled hardware where the cluster is priced
    (`hardware_scope.unpriced_scaled`), or another chip (`unpriced`). One rule for a point and a batch of them
    (`hardware_scope.scopes`).
    """
    other = unpriced(problem, base)
    return [(power, price or other) for power, price in scopes(points, problem,
                                                               base.cost_per_accelerator_hour is not None)]


#: Why a training point has no goodput (a NaN, `perf.train.point_goodput.goodput_of`) and nothing made from it.
NO_GOODPUT = "its checkpoints have nowhere to go on its cluster (REL006 in `archgen check`)"


#: The estimate's metrics a sweep's points do not carry: those the registry declares `sweep=False` (the first-order
#: disaggregated pools among them; a requirement on one is refused as SWP001's "a sweep does not compute it").
UNSWEPT = frozenset(m.name for m in registry.declared("workload") if not m.sweep)


def provides(metrics: dict[str, float], metric: str) -> bool:
    """Whether a point's `metric` is a value to judge: present and a number (a goodput is NaN without storage)."""
    value = metrics.get(metric)
    return value is not None and value == value


def unprovided(requirement: Requirement, metrics: dict[str, float], loose: Mapping[str, str],
               priced: str = "", powerless: str = "", share: float = 0.0, freed: str = "") -> str:
    """Why a point that fits provides no value to judge `requirement` on, in words (`feasibility`'s reason).

    `loose`'s words by id: a `{metric}` template (`loose_at`), or the estimate's why a figure it shows takes no target
    (`Estimate.unjudged`: an offline TTFT, newuser107: it read "target <= 100 ms does not have the dimension of ttft").
    `priced` is `unpriced`'s reason for the point's machine, given to a requirement on an amount of money;
    `powerless` is `hardware_scope.unpowered`'s for the point, given to one on its power or energy. `share` is the
    part of the TCO that is an energy cost at maximum draw (`Machine.energy_share`): a cost met at one end is loose;
    `freed` what the point's other end frees it of (`point_goodput.freed_of`), which `UNSETTLED` names.
    """
    metric = requirement.metric
    if loose.get(requirement.id):   # the host's other end (`loose_at`), or why the estimate judges none (`unjudged`)
        return loose[requirement.id].replace("{metric}", metric)
    if requirement.id in loose:
        if share > 0 and metric in TCO_SHARED:
            return SHARE_BOUNDED.format(metric=metric, share=share * 100)
        return BOUNDED.format(metric=metric) if metric in UPPER_BOUNDS else \
            UNSETTLED.format(metric=metric, freed=freed or BLOCKING_WORDS)
    if not provides(metrics, metric):
        if priced and metric in COST_OBJECTIVES:
            return f"the point has no {metric}: {priced}"
        if powerless and metric in POWER_METRICS:
            return f"the point has no {metric}: {powerless}"
        if metric in STORAGE_METRICS and "goodput" in metrics and not provides(metrics, "goodput"):
            return f"the point has no {metric}: {NO_GOODPUT}"
        return (f"the point has no {metric}" if metric in SWEEP_METRICS else
                f"a sweep does not compute {metric} (archgen check of the workload does)")
    return f"target {requirement.target} does not have the dimension of {metric}"


OVERRUN = ("arrivals outrun the replicas: the queue grows for the whole run and TTFT has no upper bound (MLPerf "
           "judges such a Server run INVALID)")   # why an open-loop serving point is not feasible (`feasibility`)


def over_hall(machine: Machine) -> str:
    """Why a point's machine does not fit its cluster's hall (`Machine.hall_limit`, `analyse.hall_room`), in words.

    "" where its IT power is within what the hall takes for the cluster, or not provided (NaN: scaled hardware, whose
    point says it has no power).
    """
    power, limit = machine.it_power, machine.hall_limit
    if not power > limit:
        return ""
    return (f"cluster '{machine.cluster}' does not fit {machine.hall_room}: its IT power at this point, "
            f"{kw(Q_(power, 'W'))}, exceeds the {kw(Q_(limit, 'W'))} the hall takes for it by "
            f"{kw(Q_(power - limit, 'W'))}")


def feasibility(problem: SweepProblem, fits: bool, metrics: dict[str, float], met: dict[str, bool | None],
                loose: Mapping[str, str], priced: str = "", cluster: str = "",
                powerless: str = "", share: float = 0.0, hall: str = "", freed: str = "") -> tuple[bool, str]:
    """Whether a point is feasible, and why not: `check`'s rule.

    Feasible: it fits, no requirement fails at its level (`model.requirements.fails`, as check's REQ001/REQ002, diff
    and gap apply it: a SHALL not met or not provided is a miss; a SHOULD or MAY one is reported, not enforced), and
    an open-loop serving point's arrivals do not outrun its replicas (`OVERRUN`), and its `cluster` passes `archgen
    check` (not in `SweepProblem.failing`: a design the checks reject is no option to rank). The reason names the
    overrun, each SHALL not provided and why (`unprovided`), each SHALL not met and the cluster's error findings; ""
    where the point does not fit (its reason is the misfit). `loose`: requirements met at one end only of an
    unknown input, by id, each with why (`loose_at`: "" for the rule by metric, `unprovided`). `powerless`: why the
    point has no power (`hardware_scope.unpowered`). `share`: of the TCO, an energy cost at maximum draw
    (`Machine.energy_share`), named where it leaves a cost loose.
    `hall`: why the point's cluster does not fit its hall (`over_hall`; sites31: before, no point was held to it).
    `freed`: what the point's other end frees it of (`point_goodput.freed_of`), named where it leaves one loose.
    """
    if not fits:
        return False, ""
    reqs = requirements(problem)
    status = {r.id: Status.NOT_PROVIDED if met.get(r.id) is None else Status.MET if met[r.id] else Status.NOT_MET
              for r in reqs}
    missed = [r for r in reqs if fails(r.level, status[r.id])]
    overrun = math.isinf(metrics.get("ttft", 0.0))
    failing = problem.failing.get(cluster, "")
    why = [OVERRUN] * overrun + [f"{r.id} ({r.level.upper()}) " + (
        f"not provided: {unprovided(r, metrics, loose, priced, powerless, share, freed)}"
        if status[r.id] is Status.NOT_PROVIDED else "not met") for r in missed]
    why += [f"cluster '{cluster}' fails `archgen check`: {failing}"] * bool(failing) + [hall] * bool(hall)
    return not missed and not overrun and not failing and not hall, "; ".join(why)


def on_lower_bound(req: Requirement, status: Status | None, base: Machine) -> Status | None:
    """`status`, met on a cost whose capex leaves parts out (`Machine.capex_left_out`), at risk, as `check` has it.

    The figure is a lower bound with no known upper end: a target it meets that infinity would not is at risk
    (REQ004), a `>=` one stays met, by `check`'s one rule (`model.unsettled.met_above`, which `at_lower_bound` asks;
    a sweep holds statuses judged at band ends, not outcomes, so it takes the rule and not the note). newuser99: a
    sweep read REQ-NX-T3, cost per token <= 2 uUSD, met at every point where `check` read it at risk on the same design.
    """
    if status is not Status.MET or not base.capex_left_out or not req.metric.startswith(CAPEX_BOUNDED) \
            or met_above(req):
        return status
    return Status.AT_RISK


def evaluate_point(problem: SweepProblem, index: int) -> PointRow:
    """Estimate one point: its workload on its cluster's hardware, with power and every requirement judged."""
    values = problem.point(index)
    base = point_base(problem, values)
    try:
        workload = point_job(problem.workload, values)
        hw = point_hardware(base.hardware, values, precision(workload) or "bf16", base.mesh_limit, base.switch)
        est = estimate_on_cluster(workload, problem.model, base, hw, with_sensitivity=False,
                                  with_stack_range=False,  # a row shows no notes but the last when it does not fit
                                  elsewhere=tuple(s.requirement for s in problem.documents))
    except ArchgenError as err:
        reason = err.reason if isinstance(err, WorkloadError) else str(err)
        return PointRow(index, values, base.cluster, "invalid", reason)
    gpus = est.accelerators
    goodput = None
    if base.failures is not None and workload.training is not None and problem.model is not None:
        goodput = cache(lambda f=base.failures, w=workload, m=problem.model: goodput_of(  # once: two corners
            f, w, m, gpus, base.failure_ends, est.layout))
    plain = {k: json_magnitude(v) for k, v in est.metrics.items() if k not in UNSWEPT}
    run = workload.checkpoint.tokens if workload.training is not None else None   # its token budget: time to train
    # scaled hardware: the catalogued parts' power is not its power, nor their price its price
    (powerless, priced), = point_scopes(problem, base, [values])
    machine = unpowered_base(base, powerless, priced)
    metrics = point_metrics(plain, machine, gpus, bool(est.fits), goodput, run)
    free, replicas, freed = math.nan, math.nan, ""   # no blocking nor repair wait (REL008); each replica's read
    if goodput is not None and base.failures is not None and problem.model is not None:
        free = unblocked_of(base.failures, workload, problem.model, gpus, est.layout)
        replicas = replicas_of(base.failures, workload, problem.model, gpus, est.layout)
        freed = freed_of(base.failures, workload, problem.model, gpus, est.layout)
    other = other_end_metrics(plain, machine, gpus, bool(est.fits), free, run)   # REL008 too
    # the host's time per launch or operation at its other end, and what is made from the rate with it
    host = {k: json_magnitude(q) for k, (q, _) in est.unsettled.items()}
    corners = host_corners(metrics, other, host)
    for name in BANDED if est.fits else ():   # the band's ends, where a published run measured the figure
        if name in metrics and (b := est.bands.get(name)) is not None and (got := b.values(metrics[name])):
            metrics[f"{name}_low"], metrics[f"{name}_high"] = got
    # the workload's on the estimate with its error band, as `check` judges them: met, at risk (REQ004) or not
    statuses: dict[str, Status | None] = {o.requirement.id: o.status for o in judge_requirements(on_estimate(problem),
                                                                                                  est)}
    why_host = host_words(workload)
    judged_here = on_point(problem)
    restored = restore_ends(plain, machine, gpus, bool(est.fits), replicas, host, run) if judged_here else ()
    loose = loose_at(judged_here, metrics, other, corners, machine.energy_share, why_host, restored)
    loose |= {r.id: why_host for r in on_estimate(problem)   # not provided there at one end only (`Estimate.unsettled`)
              if r.metric in est.metrics and unsettled_note(r, est.metrics[r.metric], est.unsettled)}
    loose |= {r.id: est.unjudged[r.metric] for r in requirements(problem) if est.fits and r.metric in est.unjudged}
    for r in judged_here:   # on this point's metrics (one of a batch), with the estimate's band where it has one
        statuses[r.id] = None
        if judged(r.metric, bool(est.fits)) and r.id not in loose and provides(metrics, r.metric) \
                and r.metric not in est.unjudged:
            band = est.bands.get(r.metric) or serving_cost_bands(est, metrics).get(r.metric) \
                or run_bands(est, metrics).get(r.metric)   # as `check` adds them
            unknown = (math.nan, math.nan)   # no band nor range of its own (a serving job's memory): met at risk
            status = judge_points(r, [metrics], SWEEP_METRICS.get(r.metric, ""),
                                  [(unknown if unmeasured_figure(r.metric, metrics) else None) if band is None
                                   else point_ends(band, metrics[r.metric]) or unknown])
            # none, or too few, measured it, or it has no band (its memory): met is at risk, unless met at the worst
            # errors measured at its light load (`band_verdict.point_ends`: `verdict`'s rule)
            statuses[r.id] = on_lower_bound(r, status[0], machine) if status else None
    order = [r.id for r in requirements(problem)]
    met = {k: None if statuses[k] in (None, Status.NOT_PROVIDED) else statuses[k] in PASSING for k in order}
    feasible, why = feasibility(problem, bool(est.fits), metrics, met, loose, priced, base.cluster, powerless,
                                machine.energy_share, over_hall(machine), freed)
    metrics |= serving_cost_ends(est, metrics) if est.fits else {}   # shown, after the judgement (cost31)
    return PointRow(index, values, base.cluster, "ok" if est.fits else "does not fit",
                    why if est.fits else "; ".join(est.notes[-1:]), sweep_layout(est.layout), metrics, met, feasible,
                    tuple(k for k in order if statuses[k] is Status.AT_RISK), est.batch_bound if est.fits else "")


def sweep_layout(layout: Mapping[str, Any]) -> dict[str, Any]:
    """An estimate's layout as a sweep point holds it, without `pipeline_layout` (`render.point_table` gives it)."""
    return {k: v for k, v in layout.items() if k != "pipeline_layout"}


def evaluate(problem: SweepProblem, start: int, stop: int) -> list[PointRow]:
    """Evaluate points `start` to `stop` - 1 (one chunk; what a worker runs)."""
    return [evaluate_point(problem, i) for i in range(start, stop)]


def objectives(sweep: Sweep) -> list[tuple[str, bool]]:
    """(metric, maximise) of each objective of `sweep`."""
    return [(o.metric, o.maximise) for o in sweep.objectives]


@dataclass(frozen=True)
class Result:
    """A sweep's evaluated points, its Pareto front and the best point per objective.

    `rows` is a list, or the rows of the chunks a sweep was evaluated in (`explore.tally.Rows`), which carry their
    tally (`explore.tally.tally`: what the reports read of every row).
    """

    problem: SweepProblem
    rows: Sequence[PointRow]
    front: list[int]                      # positions in `rows`
    best: dict[str, int | None]           # objective metric -> position in `rows`

    @property
    def objectives(self) -> list[tuple[str, bool]]:
        """(metric, maximise) of each objective."""
        return objectives(self.problem.sweep)

    def counts(self) -> dict[str, int]:
        """Points by outcome: evaluated, invalid, fitting, feasible and on the front.

        `fitting` fit at the model's figure; of them, `fitting_with_range` have a memory range and `fitting_high_end`
        fit at its high end too (`PointRow.fits_high_end`).
        """
        t = getattr(self.rows, "tally", None)  # the chunks' tally (`explore.tally.Rows`), counted as they ran
        if t is not None:
            return {"points": t.points, "invalid": t.invalid, "fitting": t.fitting, "feasible": t.feasible,
                    "front": len(self.front), "fitting_with_range": t.ranged, "fitting_high_end": t.fitting_high}
        high = [r.fits_high_end for r in self.rows]
        return {"points": len(self.rows), "invalid": sum(r.status == "invalid" for r in self.rows),
                "fitting": sum(r.status == "ok" for r in self.rows), "feasible": sum(r.feasible for r in self.rows),
                "front": len(self.front), "fitting_with_range": sum(h is not None for h in high),
                "fitting_high_end": sum(h is True for h in high)}


def summarise(problem: SweepProblem, rows: list[PointRow]) -> Result:
    """The result of a sweep from its rows (in point order)."""
    goals = objectives(problem.sweep)
    return Result(problem, rows, pareto(rows, goals), {m: best(rows, m, up) for m, up in goals})
