"""REQ: requirements with targets on computed metrics.

The pipeline judges every requirement of the design once (`checks.judgement.judge_all`, over `outcome`, which
`archgen diff` and `archgen gap` read too, so every command judges a requirement alike); REQ001, REQ002, REQ004,
REQ005 and REQ006 report those `Judgement`s, REQ003 that one id names one requirement, and documents list them (the
compliance matrix). `shown` is how a requirement's value reads in their messages.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from archgen.analyse.cost import JOB_COST_METRICS
from archgen.analyse.failure_model import rests_on_few
from archgen.analyse.goodput_notes import beyond_rates
from archgen.analyse.goodput_range import few_why, spanned
from archgen.analyse.job_cost import spare_span
from archgen.applicable import not_applicable
from archgen.binding import BoundRequirement
from archgen.checks import money_targets  # noqa: F401 (registers REQ007: a money target written per the other time)
from archgen.checks.absent import absent
from archgen.checks.judgement import Judgement, Unsettled, Withheld, unjudged, workload_bands
from archgen.checks.registry import Context, Severity, Violation, check
from archgen.display import CLASS_BASIS, MEMORY_BASIS, MEMORY_RANGED, figure, metric_value, target_text
from archgen.metrics import lookup
from archgen.model import field_words
from archgen.model.requirements import Outcome, Requirement, Status, judge, miss_severity
from archgen.open_item import Worded, customer_text, worded
from archgen.perf.workload.bands import BEYOND_DOC, Band
from archgen.units import Q


@check("REQ001", "requirements.met")
def requirement_met(ctx: Context) -> Iterator[Violation]:
    """A requirement's target is met by the computed metric.

    One not met on a figure that rests on a rate set measured on another accelerator (REL007) names that set: the
    verdict stands, but on another fleet's rates (`model.requirements.on_assumed`).

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
    target = target_text(b.req.target, lookup(b.subject, b.req.metric))
    judged = f" = {shown(b.req, value, b.subject)}, target {target}{why}"
    inputs, said = ((f"; judged on assumed inputs: {field_words.grouped_inputs(items)}" if items else "")  # borrowed
                    for items in (j.outcome.assumed, tuple(map(field_words.assumed_said, j.outcome.assumed))))
    return Violation(b.subject, b.owner, b.path + ("target",),
                     f"{b.req.id} ({b.req.statement}): {b.req.metric}{judged}{inputs}", value, b.req.target.limit,
                     b.req.id, miss_severity(b.req.level),
                     public=f"{b.req.id} ({b.req.statement}): {titled(b.req.metric, b.subject)}{judged}{said}")


def titled(metric: str, subject: str) -> str:
    """A requirement's metric as a customer reads it: its title in the metric registry ("IT power at the equipment")."""
    m = lookup(subject, metric)
    return m.title if m is not None else metric


@check("REQ002", "requirements.metric")
def requirement_metric(ctx: Context) -> Iterator[Violation]:
    """A requirement names a subject and a metric that exist, with a target of the metric's dimension.

    A subject may be a glob over object paths (`rack/*`, `cluster/*/fabric/*`); one that matches no object is
    reported here. A glob that matches a workload whose job cannot have the metric (`workload/*` with a cost per
    million tokens on a collective job) is not applicable there, not a finding (the compliance matrix says so).

    A metric the subject has, but whose inputs are incomplete (a cost figure of a cluster with unpriced parts), is
    not provided either: never judged on a figure that counts a missing input as zero. So is a workload's own
    requirement on a metric its estimate does not give (its cost on such a cluster, its speed when it does not fit
    in memory or cannot be estimated). So is a target that an upper bound misses: an energy at maximum draw
    (`job_it_energy`, or an average-load energy where a part states no `power.typical`, `analyse.job_energy`) may
    meet it as drawn, so it is neither met nor not met there. So is a target that a lower bound meets: a rack's
    weight or floor load that leaves something installed out (a part stating no weight, the cables and transceivers
    in its ports, a liquid loop's coolant: `analyse.rack.weight_bounds`) may miss it with what it leaves out, and
    the message says how much that may add for the target to hold (1,400 kg at a 1,355 kg bound: under 45.18 kg); a
    lower bound above the limit is not met (REQ001).

    A metric not provided is as severe as a miss at the requirement's level: an error for SHALL, a warning for
    SHOULD and MAY. A mistake in the requirement itself (no such subject or metric, a target of another dimension)
    is an error at any level.

    Fix: use a metric listed for the subject (`archgen check --format json` shows them), and a target in its units;
    for a withheld metric, supply what the message names (prices: a `Prices` document or `price:` on the parts; a
    rack's weight: the weights of what it leaves out).
    """
    unsettled = ctx.operations.unsettled
    for b in ctx.design.requirements:
        if not_applicable(b, ctx.design):   # a glob matched a job that cannot have the metric: not applicable
            continue
        problem = unjudged(b, ctx.metrics, ctx.design, ctx.operations.withheld, unsettled)
        if problem is None:
            continue
        key, reason = problem
        said = ""   # the customer's words, where the reason names the metric by key (`absent`)
        if key == "metric" and b.req.metric not in ctx.operations.withheld.get(b.subject, {}) \
                and b.req.metric not in unsettled.get(b.subject, {}):
            reason += f" (known: {', '.join(sorted(ctx.metrics[b.subject]))})"
            if lookup(b.subject, b.req.metric) is not None:
                said = f"{b.req.id}: {absent(b.subject, b.req.metric, ctx.metrics[b.subject], words=True)}"
        elif key == "metric":   # withheld or unsettled: the reason names the metric by key (review39)
            said = _said(worded("{}: {}", b.req.id, reason), b.req.metric, b.subject)
        yield Violation(b.subject or b.pattern or b.owner, b.owner, b.path + (key,), f"{b.req.id}: {reason}",
                        requirement=b.req.id, severity=_not_provided_severity(b, ctx.operations.withheld, unsettled),
                        public=said)
    for j in ctx.requirements:   # a workload's own, judged on its estimate
        b, o = j.bound, j.outcome
        if j.workload and o.status is Status.NOT_PROVIDED:
            text = worded("{}: {}'s {} is not provided: {}", b.req.id, b.subject, b.req.metric, o.note)
            yield Violation(b.subject, b.owner, b.path + ("metric",), text, requirement=b.req.id,
                            severity=miss_severity(b.req.level), public=_said(text, b.req.metric, b.subject))


def _said(text: str, metric: str, subject: str) -> str:
    """`text` in the customer's words, its metric's key as its title in a sentence; "" where that changes nothing.

    A `Worded` text gives its own customer words first (`customer_text`: a withheld figure's reason, REL006's).
    """
    m, said = lookup(subject, metric), customer_text(text)
    said = said if m is None else re.sub(rf"(?<![\w.`]){re.escape(metric)}(?![\w`])", m.said, said)
    return "" if said == text else said


def _not_provided_severity(b: BoundRequirement, withheld: Withheld, unsettled: Unsettled) -> Severity | None:
    """A requirement whose metric is not provided is as severe as a miss would be (`miss_severity`).

    Not provided: the subject's metric is withheld (a cost with unpriced parts) or rests on an unknown input. None
    (the check's own, an error) for a mistake in the requirement itself, at any level: no such subject or metric, a
    target of another dimension.
    """
    if b.req.metric not in withheld.get(b.subject, {}) and b.req.metric not in unsettled.get(b.subject, {}):
        return None
    return miss_severity(b.req.level)


@check("REQ004", "requirements.at_risk", severity="warning")
def requirement_at_risk(ctx: Context) -> Iterator[Violation]:
    """A requirement on a performance estimate holds across the model's measured error band, not only at the estimate.

    The band of an estimated metric is the model's lowest to highest error on comparable published runs
    (docs/perf-model.md, Error bands); a target the estimate meets but one end of the band misses is at risk. A
    reliability figure (MTTI, interruptions per day, goodput) is judged across its range over the published
    failure-rate sets and their 95 % Poisson intervals, or the named set's interval (docs/reliability.md); a
    goodput whose checkpoint blocking time is assumed (REL008) across that time as well, from the whole write to
    none. The finding says which the range spans, and its value is that end; for MTTI and interruptions per day it
    also gives the 95 % confidence interval from the point set's own counts and whether its pessimistic end misses
    the target too (`mtti_ci_low`/`_ci_high`), and a part class's interruptions (`interruptions_per_day.<class>`)
    are judged across that class's own count's interval. Both a workload's own requirements and those of
    Requirements documents on it are judged.

    A cost requirement met on a figure whose capex leaves out parts the bill of materials counts (rule-counted lines
    no price list prices, "not provided" fittings) is at risk too: the figure is a lower bound, and the finding says
    what is left out and the margin it must stay under (`analyse.capex_bounds`; cost31).

    A requirement met on an estimated figure whose band no published run measured (none of its family, load bin or
    context was scored: `Band.measured`) is at risk too, with that reason, as is one met across a band of too few runs
    to likely hold a further one (expected coverage (n - 1) / (n + 1) under 66 %: `Band.likely`): nothing bounds the
    model's error there, so the estimate meeting the target is not a pass (issue 20 part 7; nu45fix). So is one met
    on a figure of the model that carries no band at all (a serving job's memory and memory headroom, for which
    nothing is reserved for the allocator, CUDA graphs or workspaces; its exposed communication share;
    `Metric.unmeasured` says which and why), never a figure that is arithmetic on stated inputs (docs/perf-model.md,
    Figures no run measures). A training job's memory (on a part with a GPU runtime) is judged across its range over
    the caching allocator's waste, from none to the most measured (docs/perf-model.md, Memory band): met at its
    pessimistic end, it is met.

    Fix: leave more margin (faster hardware, another layout), have the figure measured on the system, or revise the
    target with its owner knowing the model's error; for a figure with no band, add a published measurement of the
    family at that load and context to the scored cases; for a job's memory, leave room for the allocator's waste
    (a layout that fits at the range's high end) or measure the peak on the system (docs/perf-model.md, Memory band).
    """
    bands = workload_bands(ctx.workloads)
    for j in ctx.requirements:
        b, o = j.bound, j.outcome
        end = o.pessimistic
        if o.status is Status.AT_RISK and o.value is not None and o.note and not o.end_misses:
            meets = (f" = {shown(b.req, o.value, b.subject)} meets "
                     f"{target_text(b.req.target, lookup(b.subject, b.req.metric))} at the estimate"
                     f"{'' if end is None else ' and its band'}, but it is at risk: {o.note}")
            yield Violation(b.subject, b.owner, b.path + ("target",),   # `unbanded`, or `thin`: met at both ends
                            f"{b.req.id} ({b.req.statement}): {b.req.metric}{meets}", o.value,
                            b.req.target.limit, b.req.id,
                            public=f"{b.req.id} ({b.req.statement}): {titled(b.req.metric, b.subject)}{meets}")
        elif o.status is Status.AT_RISK:
            band = bands.get(b.subject, {}).get(b.req.metric)
            own = f"{b.req.metric}_low" in ctx.metrics.get(b.subject, {})   # a range of its own (a run's cost)
            spans = None if band is not None and not own else _range_spans(ctx, b.subject, b.req.metric)
            conf = _confidence(ctx, b.subject, b.req) if spans is not None else ""
            yield _at_risk(o, b.subject, b.owner, b.path + ("target",), band,
                           None if spans is None else Worded(spans + conf, customer_text(spans) + conf))


def _range_spans(ctx: Context, subject: str, metric: str) -> str:
    """What a reliability figure's range spans, in words (REQ004); or a training job's memory's (`MEMORY_BASIS`).

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
    if metric in MEMORY_RANGED:   # a training job's memory, over the caching allocator's waste (`reserve.memory_ends`)
        return f"the {MEMORY_BASIS}"
    if metric.startswith("interruptions_per_day."):   # one part class: its own count's interval, not the sets
        n = rel.class_events(metric.partition(".")[2]) if rel is not None else None
        return f"the {CLASS_BASIS}" + (f" (few events: {n:.2g}, {few_why('class')})" if rests_on_few(n) else "")
    sets = spanned(rel) if rel is not None else "the failure-rate sets and their 95 % Poisson intervals"
    why = ops.unsettled.get(subject, {}).get("goodput", (None, ""))[1] if metric == "goodput" else ""
    *first, last = [sets] + beyond_rates(why, g, metric)
    said = [customer_text(s) for s in (*first, last)]   # the blocking time and repair wait in the customer's words
    return Worded(f"range over {', over '.join(first)}{', and over ' if first else ''}{last}; docs/reliability.md",
                  f"range over {', over '.join(said[:-1])}{', and over ' if first else ''}{said[-1]}")


def _confidence(ctx: Context, subject: str, req: Requirement) -> str:
    """An MTTI's or interruptions' 95 % confidence interval from the point set's own counts, and whether it holds.

    The range over the rate sets is the spread between operators' fleets; this interval is the point figure's own
    sampling uncertainty (`analyse.reliability.job_breakdown`), so the finding tells a risk from the fleets apart from
    one the point set's own counts carry (issue 22 part 3). Empty for other metrics and where no class states a count.
    """
    m = ctx.metrics.get(subject, {})
    if req.metric not in ("mtti", "interruptions_per_day") or f"{req.metric}_ci_low" not in m:
        return ""
    ends = [m[f"{req.metric}_ci_{end}"] for end in ("low", "high")]
    rel = ctx.operations.reliability.get(_cluster_of(ctx, subject) or subject)
    missed = [e for e in ends if not judge(req, e).met]
    return (f"; its 95 % confidence interval from the '{rel.rates_id if rel else ''}' set's own counts is "
            f"{shown(req, ends[0], subject)} to {shown(req, ends[1], subject)}, "
            + (f"whose pessimistic end, {shown(req, missed[0], subject)}, misses it too" if missed else
               "which meets it at both ends: the risk is the spread between the rate sets"))


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
    what, what_said = ((over if band is None else band.describe() if over is None else
                        f"{band.describe()}; taken at each end of its {over}")
                       for over in (spans, None if spans is None else customer_text(spans)))
    inputs, said = ((f"; and it rests on assumed inputs: {field_words.grouped_inputs(items)}" if o.assumed else "")
                    for items in (o.assumed, map(field_words.assumed_said, o.assumed)))
    meets = (f" = {shown(req, o.value, subject)} meets {target_text(req.target, lookup(subject, req.metric))}, but "
             f"the pessimistic end of its {'band' if band is not None else 'range'}, {shown(req, end, subject)}, "
             "does not ({})")
    return Violation(subject, owner, path, f"{req.id} ({req.statement}): {req.metric}{meets.format(what)}{inputs}",
                     end, req.target.limit, req.id, public=f"{req.id} ({req.statement}): "
                     f"{titled(req.metric, subject)}{meets.format(what_said)}{said}")


@check("REQ005", "requirements.assumed", severity="info")
def requirement_on_assumed_inputs(ctx: Context) -> Iterator[Violation]:
    """A requirement is met on figures that rest on sourced inputs, not on assumed ones.

    A price, a facility's energy price, PUE, rent or depreciation, a failure rate, site events or checkpoint storage
    given with `basis: assumed` is an engineering estimate to be confirmed, and so is an accelerator's figure listed
    under `unconfirmed:` that a workload's estimate reads (an announced peak: `analyse.assumed`), and a part's power
    figure so listed that a rack's power, heat and flows are computed from (a system's `power.max`, the `tdp` of the
    accelerator fitted in it, a shelf's `efficiency`, a liquid-cooled part's `cooling.liquid_fraction` for the heat
    split: `analyse.rack_power_inputs`); a requirement met on a figure
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
            meets = (f" = {shown(b.req, o.value, b.subject)} meets "
                     f"{target_text(b.req.target, lookup(b.subject, b.req.metric))} on assumed inputs: ")
            inputs, said = (field_words.grouped_inputs(items)
                            for items in (o.assumed, map(field_words.assumed_said, o.assumed)))
            yield Violation(b.subject, b.owner, b.path + ("target",),
                            f"{b.req.id} ({b.req.statement}): {b.req.metric}{meets}{inputs}", o.value,
                            b.req.target.limit, b.req.id,
                            public=f"{b.req.id} ({b.req.statement}): {titled(b.req.metric, b.subject)}{meets}{said}")


@check("REQ006", "requirements.beyond", severity="info")
def requirement_met_beyond_light_load(ctx: Context) -> Iterator[Violation]:
    """A requirement met on a light-load latency no band holds says it is met beyond every error measured there.

    No published run of the job's family and arrival measured the model's error at its light load, so the figure has
    no band; it is met, not at risk (REQ004), only where the target holds at the figure taken at the worst errors
    measured at light load on every serving family and arrival (`perf.workload.bands.Band.beyond`,
    `model.at_risk.unbanded`; docs/perf-model.md, Error bands, Light load). That pass rests on other families'
    and arrivals' runs, not on a band of its own: the finding says so, with the figure at those errors, as `archgen
    estimate`, its JSON and the compliance matrix do. Information: it changes no exit code.

    Fix: nothing needs mending; to judge the figure on a band of its own, have it measured on the system at its load,
    or add a published light-load run of the job's family and arrival to the scored cases.
    """
    for j in ctx.requirements:
        b, o = j.bound, j.outcome
        if o.status is Status.MET and o.beyond is not None and o.value is not None:
            ends = " to ".join(shown(b.req, v, b.subject) for v in sorted(o.beyond))
            meets = (f" = {shown(b.req, o.value, b.subject)} meets "
                     f"{target_text(b.req.target, lookup(b.subject, b.req.metric))}, and so does its figure at "
                     f"every error measured at light load ({ends}): ")
            yield Violation(b.subject, b.owner, b.path + ("target",), f"{b.req.id} ({b.req.statement}): "
                            f"{b.req.metric}{meets}{o.note}", o.value, b.req.target.limit, b.req.id,
                            public=f"{b.req.id} ({b.req.statement}): {titled(b.req.metric, b.subject)}{meets}"
                                   f"{o.note.removesuffix(BEYOND_DOC)}")


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
        return figure(req.target.in_units(value), 6)
    return figure(req.target.in_units(value))


@check("REQ003", "requirements.id")
def requirement_id_means_one_requirement(ctx: Context) -> Iterator[Violation]:
    """A requirement id names one requirement: the same statement, metric, target and level wherever it is stated.

    The id is how `archgen diff` and `archgen gap` pair requirements, and how a compliance matrix is read, so two
    different requirements under one id are reported as each other. Applying one requirement to several objects
    (the same text in several racks, or a glob subject) is fine. A target is compared by the limit it is read as
    (`Target.key`): ``<= 400 EUR/month`` on a cost per year is ``<= 4800 EUR`` (cost41 found them told apart by text).

    Fix: give one of them a new id, or make the two statements agree.
    """
    first: dict[str, tuple] = {}
    # each place a requirement is written, once (a glob is bound once per object it matches)
    stated = {(b.owner, b.path): (b.req, b.pattern or b.subject or b.owner) for b in ctx.design.requirements}
    stated |= {(b.owner, b.path): (b.req, b.subject) for b in ctx.design.workload_requirements}
    for (owner, path), (req, subject) in stated.items():
        key = (req.statement, req.metric, req.target.key, req.level)   # the limit as read, not as written
        if req.id not in first:
            first[req.id] = (key, owner, path, req.target)
            continue
        seen, where_owner, where_path, first_target = first[req.id]
        if key != seen:
            at = ctx.design.specs.locate(where_owner, where_path)
            here = f"{req.target}, {req.level.upper()}"
            yield Violation(subject, owner, path + ("id",),
                            f"{req.id} is also the id of a different requirement (at {at}: {seen[0]!r}, {seen[1]} "
                            f"{first_target}, {seen[3].upper()}); here: {req.statement!r}, {req.metric} {here}",
                            requirement=req.id, public=f"{req.id} is also the id of a different requirement "
                            f"({seen[0]!r}, {titled(seen[1], subject)} {first_target}, {seen[3].upper()}); here: "
                            f"{req.statement!r}, {titled(req.metric, subject)} {here}")
