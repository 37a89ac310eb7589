"""REQ: requirements with targets on computed metrics.

`outcome` judges one bound requirement against the metrics and the error bands of estimated ones
(`model.requirements.judge`, with `unjudged` saying why nothing could be judged); `archgen diff` and `archgen gap`
read the same function, so every command judges a requirement alike. The pipeline judges every requirement of the
design once (`judge_all`: the bound ones here, a workload's own as `perf.workload.results.judge_workloads` did);
REQ001, REQ002, REQ004 and REQ005 report those `Judgement`s and documents list them (the compliance matrix).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from archgen.analyse.cost import JOB_COST_METRICS
from archgen.analyse.goodput_notes import beyond_rates
from archgen.analyse.goodput_range import spanned
from archgen.analyse.job_cost import spare_span
from archgen.binding import BoundRequirement
from archgen.build import Design, Unresolved
from archgen.checks.absent import absent, suggest
from archgen.checks.registry import Context, Severity, Violation, check
from archgen.display import metric_value, target_text
from archgen.metrics import lookup
from archgen.model.requirements import (
    Outcome,
    Requirement,
    Status,
    judge,
    miss_severity,
    on_assumed,
    spread,
    thin,
    unbanded,
    unsettled_note,
)
from archgen.perf.workload.bands import Band
from archgen.units import Q

#: Metrics not provided, with the reason, by object path and metric name (`analyse.operations.Operations.withheld`).
Withheld = Mapping[str, Mapping[str, str]]
#: Figures resting on an input nobody gave, by object path and metric: the other end and why (`Operations.unsettled`).
Unsettled = Mapping[str, Mapping[str, tuple[Q, str]]]
#: The assumed inputs each figure rests on, by object path and metric (`Operations.assumed`).
Assumed = Mapping[str, Mapping[str, tuple[str, ...]]]


@dataclass(frozen=True)
class Judgement:
    """A requirement as bound to its subject and where it is written, with the pipeline's one judgement of it.

    `workload` is true for a workload's own requirement (judged on its estimate, reported by PERF001 when not met).
    """

    bound: BoundRequirement
    outcome: Outcome
    workload: bool = False

    @property
    def check(self) -> str:
        """The check that reports this status.

        REQ002 not provided, REQ004 at risk, REQ005 met on assumed inputs, else the one that judges it met or not:
        REQ001, PERF001 for a workload's own requirement.
        """
        status = self.outcome.status
        if status is Status.NOT_PROVIDED:
            return "REQ002"
        if status is Status.AT_RISK:
            return "REQ004"
        if self.outcome.assumed:
            return "REQ005"
        return "PERF001" if self.workload else "REQ001"


def judge_all(design: Design, metrics: Mapping[str, Mapping[str, Q]], withheld: Withheld,
              workloads: Mapping[str, Any], unsettled: Unsettled | None = None,
              assumed: Assumed | None = None) -> tuple[Judgement, ...]:
    """Every requirement of the design judged once: the bound ones (`outcome`), then each estimated workload's own.

    A workload's own are its estimate's outcomes (`perf.workload.results.judge_workloads`); those of a workload that
    could not be estimated (PERF003) are not provided, with its reason. A workload that names no cluster, or one
    that does not resolve, is not estimated by `check` (`archgen estimate` judges it; REF001 reports the other).
    """
    bands = workload_bands(workloads)
    out = [Judgement(b, outcome(b, metrics, design, withheld, bands, unsettled, assumed))
           for b in design.requirements]
    for b in design.workload_requirements:
        r = workloads.get(b.subject)
        if r is None:
            continue
        o = r.estimate.requirements[b.path[1]] if r.estimate is not None else \
            judge(b.req, None, f"{r.workload.id} cannot be estimated: {r.error}")
        out.append(Judgement(b, o, workload=True))
    return tuple(out)


@check("REQ001", "requirements.met")
def requirement_met(ctx: Context) -> Iterator[Violation]:
    """A requirement's target is met by the computed metric.

    Fix: change the design until the metric meets the target, or revise the requirement with its owner.
    """
    for j in ctx.requirements:
        if not j.workload and j.outcome.status is Status.NOT_MET and j.outcome.value is not None:
            yield not_met(j)


def not_met(j: Judgement) -> Violation:
    """The finding of a requirement judged not met (REQ001; PERF001 for a workload's own): value against target."""
    b, value = j.bound, j.outcome.value
    assert value is not None  # not met: judged on a value
    why = f"; {j.outcome.note}" if j.outcome.note else ""  # what sets a value no design change moves
    return Violation(b.subject, b.owner, b.path + ("target",),
                     f"{b.req.id} ({b.req.statement}): {b.req.metric} = {shown(b.req, value, b.subject)}, "
                     f"target {b.req.target}{why}", value, b.req.target.limit, b.req.id, miss_severity(b.req.level))


@check("REQ002", "requirements.metric")
def requirement_metric(ctx: Context) -> Iterator[Violation]:
    """A requirement names a subject and a metric that exist, with a target of the metric's dimension.

    A subject may be a glob over object paths (`rack/*`, `cluster/*/fabric/*`); one that matches no object is
    reported here.

    A metric the subject has, but whose inputs are incomplete (a cost figure of a cluster with unpriced parts), is
    not provided either: never judged on a figure that counts a missing input as zero. So is a workload's own
    requirement on a metric its estimate does not give (its cost on such a cluster, its speed when it does not fit
    in memory or cannot be estimated).

    A metric not provided is as severe as a miss at the requirement's level: an error for SHALL, a warning for
    SHOULD and MAY. A mistake in the requirement itself (no such subject or metric, a target of another dimension)
    is an error at any level.

    Fix: use a metric listed for the subject (`archgen check --format json` shows them), and a target in its units;
    for a withheld metric, supply what the message names (prices: a `Prices` document or `price:` on the parts).
    """
    unsettled = ctx.operations.unsettled
    for b in ctx.design.requirements:
        problem = unjudged(b, ctx.metrics, ctx.design, ctx.operations.withheld, unsettled)
        if problem is None:
            continue
        key, reason = problem
        if key == "metric" and b.req.metric not in ctx.operations.withheld.get(b.subject, {}) \
                and b.req.metric not in unsettled.get(b.subject, {}):
            reason += f" (known: {', '.join(sorted(ctx.metrics[b.subject]))})"
        yield Violation(b.subject or b.pattern or b.owner, b.owner, b.path + (key,), f"{b.req.id}: {reason}",
                        requirement=b.req.id, severity=_not_provided_severity(b, ctx.operations.withheld, unsettled))
    for j in ctx.requirements:   # a workload's own, judged on its estimate
        b, o = j.bound, j.outcome
        if j.workload and o.status is Status.NOT_PROVIDED:
            yield Violation(b.subject, b.owner, b.path + ("metric",),
                            f"{b.req.id}: {b.subject}'s {b.req.metric} is not provided: {o.note}",
                            requirement=b.req.id, severity=miss_severity(b.req.level))


def _not_provided_severity(b: BoundRequirement, withheld: Withheld, unsettled: Unsettled) -> Severity | None:
    """A requirement whose metric is not provided is as severe as a miss would be (`miss_severity`).

    Not provided: the subject's metric is withheld (a cost with unpriced parts) or rests on an unknown input. None
    (the check's own, an error) for a mistake in the requirement itself, at any level: no such subject or metric, a
    target of another dimension.
    """
    if b.req.metric not in withheld.get(b.subject, {}) and b.req.metric not in unsettled.get(b.subject, {}):
        return None
    return miss_severity(b.req.level)


def outcome(b: BoundRequirement, metrics: Mapping[str, Mapping[str, Q]], design: Design | None = None,
            withheld: Withheld | None = None, bands: Mapping[str, Mapping[str, Band]] | None = None,
            unsettled: Unsettled | None = None, assumed: Assumed | None = None) -> Outcome:
    """The requirement judged on its subject's metric; not provided (with the reason) where it cannot be.

    `withheld` gives, by object path and metric, why a metric is not provided
    (`analyse.operations.Operations.withheld`).
    `bands` holds, by object path, each metric's measured error band (`workload_bands`): a value met there but not
    at one end of its band is at risk. `unsettled` gives, by object path and metric, the other end of a figure that
    rests on an input nobody gave (`analyse.operations.Operations.unsettled`): met at one end only is not provided.
    `assumed` gives, the same way, the assumed inputs a figure rests on: a requirement met on it names them.
    """
    problem = unjudged(b, metrics, design, withheld, unsettled)
    if problem:
        return judge(b.req, None, problem[1])
    value = measured(b, metrics, design)
    band = (bands or {}).get(b.subject, {}).get(b.req.metric)
    ends = band.values(value) if band is not None and value is not None else None
    if ends is None and value is not None:   # a reliability figure: its range over the failure-rate sets
        ends = spread(metrics.get(b.subject, {}), b.req.metric)
    o = judge(b.req, value, band=ends)
    if band is not None:   # no published run bounds it, or too few to likely hold a further one: at risk (REQ004)
        o = unbanded(o, band.describe()) if not band.measured else thin(o, band.coverage_note())
    return on_assumed(o, (assumed or {}).get(b.subject))


def workload_bands(workloads: Mapping[str, Any]) -> dict[str, dict[str, Band]]:
    """Each estimated workload's error bands by metric, by object path (`Run.workloads`, `Context.workloads`)."""
    return {path: w.estimate.bands for path, w in workloads.items() if w.estimate is not None}


@check("REQ004", "requirements.at_risk", severity="warning")
def requirement_at_risk(ctx: Context) -> Iterator[Violation]:
    """A requirement on a performance estimate holds across the model's measured error band, not only at the estimate.

    The band of an estimated metric is the model's lowest to highest error on comparable published runs
    (docs/perf-model.md, Error bands); a target the estimate meets but one end of the band misses is at risk. A
    reliability figure (MTTI, interruptions per day, goodput) is judged across its range over the published
    failure-rate sets and their 95 % Poisson intervals, or the named set's interval (docs/reliability.md); a
    goodput whose checkpoint blocking time is assumed (REL008) across that time as well, from the whole write to
    none. The finding says which the range spans, and its value is that end. Both a workload's own requirements
    and those of Requirements documents on it are judged.

    A requirement met on an estimated figure whose band no published run measured (none of its family, load bin or
    context was scored: `Band.measured`) is at risk too, with that reason, as is one met across a band of too few runs
    to likely hold a further one (expected coverage (n - 1) / (n + 1) under 66 %: `Band.likely`): nothing bounds the
    model's error there, so the estimate meeting the target is not a pass (issue 20 part 7; nu45fix).

    Fix: leave more margin (faster hardware, another layout), have the figure measured on the system, or revise the
    target with its owner knowing the model's error; for a figure with no band, add a published measurement of the
    family at that load and context to the scored cases (docs/perf-model.md, Error bands).
    """
    bands = workload_bands(ctx.workloads)
    for j in ctx.requirements:
        b, o = j.bound, j.outcome
        end = o.pessimistic
        if o.status is Status.AT_RISK and o.value is not None and o.note and not o.end_misses:
            yield Violation(b.subject, b.owner, b.path + ("target",),   # `unbanded`, or `thin`: met at both ends
                            f"{b.req.id} ({b.req.statement}): {b.req.metric} = {shown(b.req, o.value, b.subject)} "
                            f"meets {target_text(b.req.target, lookup(b.subject, b.req.metric))} at the estimate"
                            f"{'' if end is None else ' and its band'}, but it is at risk: {o.note}", o.value,
                            b.req.target.limit, b.req.id)
        elif o.status is Status.AT_RISK:
            band = bands.get(b.subject, {}).get(b.req.metric)
            own = f"{b.req.metric}_low" in ctx.metrics.get(b.subject, {})   # a range of its own (a run's cost)
            yield _at_risk(o, b.subject, b.owner, b.path + ("target",), band,
                           None if band is not None and not own else _range_spans(ctx, b.subject, b.req.metric))


def _range_spans(ctx: Context, subject: str, metric: str) -> str:
    """What a reliability figure's range spans, in words (REQ004).

    The rate sets or the named set's interval, for goodput where the checkpoint's blocking time is assumed (REL008)
    that time from the whole write to none, and for a job with no hot spare the wait for a repair to none; for a
    training job's cost, the hot spares its high end charges and goodput's ends (`analyse.job_cost.spare_span`).
    """
    ops = ctx.operations
    cluster = _cluster_of(ctx, subject) or subject
    rel = ops.reliability.get(cluster)
    g, cost = ops.goodput.get(subject), ops.cost.get(cluster)
    if metric in JOB_COST_METRICS and g is not None and cost is not None and rel is not None:
        return spare_span(cost, metric, g.accelerators, g.spares_charged * rel.per_node,
                          int(ctx.metrics[cluster]["accelerators"].m))
    sets = spanned(rel) if rel is not None else "the failure-rate sets and their 95 % Poisson intervals"
    why = ops.unsettled.get(subject, {}).get("goodput", (None, ""))[1] if metric == "goodput" else ""
    *first, last = [sets] + beyond_rates(why, g, metric)
    return f"range over {', over '.join(first)}{', and over ' if first else ''}{last}; docs/reliability.md"


def _cluster_of(ctx: Context, path: str) -> str | None:
    """The path of the cluster a workload runs on (None without an estimate)."""
    w = ctx.workloads.get(path)
    return f"cluster/{w.estimate.cluster}" if w is not None and w.estimate is not None else None


def _at_risk(o: Outcome, subject: str, owner: str, path: tuple, band: Band | None, spans: str | None) -> Violation:
    """REQ004's finding; without a performance band, the range is a reliability figure's (`spans` says over what).

    With both (a run's whole cost: the model's error and its spares' range), the band is taken at each end of the range.
    """
    req, end = o.requirement, o.pessimistic
    assert o.value is not None and end is not None  # at risk: judged on a value with a band
    what = spans if band is None else band.describe() if spans is None else \
        f"{band.describe()}; taken at each end of its {spans}"
    inputs = f"; and it rests on assumed inputs: {', '.join(o.assumed)}" if o.assumed else ""
    return Violation(subject, owner, path,
                     f"{req.id} ({req.statement}): {req.metric} = {shown(req, o.value, subject)} meets "
                     f"{target_text(req.target, lookup(subject, req.metric))}, "
                     f"but the pessimistic end of its {'band' if band is not None else 'range'}, "
                     f"{shown(req, end, subject)}, does not "
                     f"({what}){inputs}", end, req.target.limit, req.id)


@check("REQ005", "requirements.assumed", severity="info")
def requirement_on_assumed_inputs(ctx: Context) -> Iterator[Violation]:
    """A requirement is met on figures that rest on sourced inputs, not on assumed ones.

    A price, a facility's energy price, PUE, rent or depreciation, a failure rate, site events or checkpoint storage
    given with `basis: assumed` is an engineering estimate to be confirmed, and so is an accelerator's figure listed
    under `unconfirmed:` that a workload's estimate reads (an announced peak: `analyse.assumed`), and a part's power
    figure so listed that a rack's power, heat and flows are computed from (a system's `power.max`, the `tdp` of the
    accelerator fitted in it, a shelf's `efficiency`: `analyse.rack_power_inputs`); a requirement met on a figure
    that rests on one is met only as far as the estimate holds. The finding names those inputs (the
    compliance matrix shows the requirement as "met (on assumed inputs: ...)"); it is information and changes no
    exit code. A requirement at risk on such a figure is REQ004's and names them there too.

    Fix: replace the assumed inputs with sourced ones (a quote, a measured rate: `basis: sourced` with its
    `source:`; a part's datasheet figure, taken off its `unconfirmed:` list), or accept the estimate knowingly
    (waive this finding with the reason).
    """
    for j in ctx.requirements:
        b, o = j.bound, j.outcome
        if o.assumed and o.status is Status.MET and o.value is not None:
            yield Violation(b.subject, b.owner, b.path + ("target",),
                            f"{b.req.id} ({b.req.statement}): {b.req.metric} = {shown(b.req, o.value, b.subject)} "
                            f"meets {target_text(b.req.target, lookup(b.subject, b.req.metric))} on assumed inputs: "
                            f"{', '.join(o.assumed)}", o.value,
                            b.req.target.limit, b.req.id)


def shown(req: Requirement, value: Q, subject: str) -> str:
    """A requirement's value in a message as the compliance matrix and `archgen estimate` show it.

    `display.metric_value` in the metric's display unit (a TTFT p99 of 249.9 ms, not 0.2499 s, under '<= 0.45 s');
    a metric the registry does not declare for `subject` in the target's unit at four significant figures.
    Where that rounding would read as the limit itself (a goodput of 0.9999 as "1.000" beside ">= 0.99984"), the
    value is shown at six significant figures in the target's unit, so that the message does not contradict itself.
    """
    m = lookup(subject, req.metric)
    if m is not None and m.accepts(value):
        text = metric_value(m, value)
        limit = req.target.limit
        if value == limit or not m.accepts(limit) or text != metric_value(m, limit):
            return text
        return f"{req.target.in_units(value):.6g~P}"
    return f"{req.target.in_units(value):.4g~P}"


def measured(b: BoundRequirement, metrics: Mapping[str, Mapping[str, Q]], design: Design | None = None) -> Q | None:
    """The subject's value of the requirement's metric; None where it cannot be judged (`unjudged` says why)."""
    if design is not None and resting_on(b, design):
        return None
    value = metrics.get(b.subject, {}).get(b.req.metric)
    return value if value is not None and value.is_compatible_with(b.req.target.limit) else None


def resting_on(b: BoundRequirement, design: Design) -> list[Unresolved]:
    """The unresolved references a requirement's subject rests on (`Design.resting_on`: a workload through its cluster).

    Its figures would be computed without the part. A bandwidth computed without the NIC is 0, which is no
    measurement: the requirement is not provided, never "0 Gb/s, not met". The error cascade folds the subject's
    findings under the same references.
    """
    return design.resting_on(b.subject)


def unjudged(b: BoundRequirement, metrics: Mapping[str, Mapping[str, Q]],
             design: Design | None = None, withheld: Withheld | None = None,
             unsettled: Unsettled | None = None) -> tuple[str, str] | None:
    """Why a requirement cannot be judged: (the field at fault, the reason), or None where it can."""
    if b.pattern and not b.subject:
        return "subject", f"no object matches '{b.pattern}'"
    rests = design.rests_note(b.subject) if design is not None else ""
    if rests:
        return "subject", f"{b.subject} {rests}: its {b.req.metric} is not known"
    known = metrics.get(b.subject)
    if known is None:
        if not b.subject and not b.pattern:  # only a Requirements document leaves it out (racks imply their own)
            return "subject", ("no subject: name the object it applies to, e.g. 'rack/gb200-nvl72', or a glob such "
                               "as 'rack/*'")
        if b.pattern:
            return "subject", f"{b.subject} (matched by '{b.pattern}') has no metrics"
        return "subject", f"unknown subject '{b.subject}'{suggest(b.subject, metrics)}"
    why = (withheld or {}).get(b.subject, {}).get(b.req.metric)
    if why:
        return "metric", f"{b.subject}'s {b.req.metric} is not provided: {why}"
    if b.req.metric not in known:
        return "metric", absent(b.subject, b.req.metric, known)
    if not known[b.req.metric].is_compatible_with(b.req.target.limit):
        return "target", (f"target {b.req.target} does not have the dimension of {b.req.metric} "
                          f"({known[b.req.metric].dimensionality})")
    note = unsettled_note(b.req, known[b.req.metric], (unsettled or {}).get(b.subject))
    return ("metric", f"{b.subject}'s {b.req.metric} is not provided: {note}") if note else None


@check("REQ003", "requirements.id")
def requirement_id_means_one_requirement(ctx: Context) -> Iterator[Violation]:
    """A requirement id names one requirement: the same statement, metric, target and level wherever it is stated.

    The id is how `archgen diff` and `archgen gap` pair requirements, and how a compliance matrix is read, so two
    different requirements under one id are reported as each other. Applying one requirement to several objects
    (the same text in several racks, or a glob subject) is fine.

    Fix: give one of them a new id, or make the two statements agree.
    """
    first: dict[str, tuple] = {}
    # each place a requirement is written, once (a glob is bound once per object it matches)
    stated = {(b.owner, b.path): (b.req, b.pattern or b.subject or b.owner) for b in ctx.design.requirements}
    stated |= {(b.owner, b.path): (b.req, b.subject) for b in ctx.design.workload_requirements}
    for (owner, path), (req, subject) in stated.items():
        key = (req.statement, req.metric, str(req.target), req.level)
        if req.id not in first:
            first[req.id] = (key, owner, path)
            continue
        seen, where_owner, where_path = first[req.id]
        if key != seen:
            at = ctx.design.specs.locate(where_owner, where_path)
            yield Violation(subject, owner, path + ("id",),
                            f"{req.id} is also the id of a different requirement (at {at}: {seen[0]!r}, {seen[1]} "
                            f"{seen[2]}, {seen[3].upper()}); here: {req.statement!r}, {req.metric} {req.target}, "
                            f"{req.level.upper()}", requirement=req.id)
