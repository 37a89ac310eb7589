"""The one judgement of every requirement: `outcome` for one bound requirement, `judge_all` for a design's.

A requirement is judged on its subject's metric and the error band of an estimated one (`model.requirements.judge`),
or not provided with the reason (`unjudged`). `archgen check`, `diff`, `gap` and the documents all read these
`Judgement`s, so every command judges a requirement alike; the REQ checks that report them are
`archgen.checks.requirements`'s (split from it for its size).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from archgen.applicable import not_applicable
from archgen.binding import BoundRequirement
from archgen.build import Design, Unresolved
from archgen.checks.absent import absent, suggest
from archgen.metrics import lookup
from archgen.model.at_risk import thin
from archgen.model.requirements import Outcome, Status, judge, on_assumed
from archgen.model.unsettled import at_lower_bound, unsettled_note
from archgen.money import currency
from archgen.open_item import worded
from archgen.perf.workload.band_verdict import verdict
from archgen.perf.workload.bands import Band
from archgen.perf.workload.derived import band_ends
from archgen.units import Q
from archgen.waivers import status_check

#: Metrics not provided, with the reason, by object path and metric name (`analyse.operations.Operations.withheld`).
Withheld = Mapping[str, Mapping[str, str]]
#: Figures resting on an input nobody gave, by object path and metric: the other end and why (`Operations.unsettled`).
Unsettled = Mapping[str, Mapping[str, tuple[Q | None, str]]]
#: The assumed inputs each figure rests on, by object path and metric (`Operations.assumed`).
Assumed = Mapping[str, Mapping[str, tuple[str, ...]]]
#: A rail fabric's bisection metrics cut over the even share (NET034): why a requirement they meet is at risk.
EVEN_SHARE_METRICS = ("bisection_bandwidth", "bisection_per_accelerator", "failure.spine.bisection_per_accelerator",
                      "failure.core.bisection_per_accelerator", "failure.plane.bisection_per_accelerator")


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
        """The check that reports this status (`waivers.status_check`: the rule `estimate` waives by too)."""
        return status_check(self.outcome, self.workload)


def judge_all(design: Design, metrics: Mapping[str, Mapping[str, Q]], withheld: Withheld,
              workloads: Mapping[str, Any], unsettled: Unsettled | None = None,
              assumed: Assumed | None = None, risks: Withheld | None = None) -> tuple[Judgement, ...]:
    """Every requirement of the design judged once: the bound ones (`outcome`), then each estimated workload's own.

    A workload's own are its estimate's outcomes (`perf.workload.results.judge_workloads`); those of a workload that
    could not be estimated (PERF003) are not provided, with its reason. A workload that names no cluster, or one
    that does not resolve, is not estimated by `check` (`archgen estimate` judges it; REF001 reports the other).
    """
    bands = workload_bands(workloads)
    out = [Judgement(b, outcome(b, metrics, design, withheld, bands, unsettled, assumed, risks))
           for b in design.requirements]
    for b in design.workload_requirements:
        r = workloads.get(b.subject)
        if r is None:
            continue
        o = r.estimate.requirements[b.path[1]] if r.estimate is not None else \
            judge(b.req, None, r.not_estimated)
        out.append(Judgement(b, o, workload=True))
    return tuple(out)


def outcome(b: BoundRequirement, metrics: Mapping[str, Mapping[str, Q]], design: Design | None = None,
            withheld: Withheld | None = None, bands: Mapping[str, Mapping[str, Band]] | None = None,
            unsettled: Unsettled | None = None, assumed: Assumed | None = None,
            risks: Withheld | None = None) -> Outcome:
    """The requirement judged on its subject's metric; not provided (with the reason) where it cannot be.

    `withheld` gives, by object path and metric, why a metric is not provided
    (`analyse.operations.Operations.withheld`).
    `bands` holds, by object path, each metric's measured error band (`workload_bands`): a value met there but not
    at one end of its band is at risk; one with a range of its own too (a training job's whole cost) takes the band
    at each end of the range (`derived.band_ends`), and the band's verdict is `band_verdict.verdict`'s, as an
    estimate's own requirements' (`derived.judge_requirements`). `unsettled` gives, by object path and metric, the
    other end of a figure that rests on an input nobody gave (`analyse.operations.Operations.unsettled`): met at one
    end only is not provided.
    `assumed` gives, the same way, the assumed inputs a figure rests on: a requirement met on it names them.
    A figure the model estimates with no band at all (`Metric.unmeasured`: a serving job's memory, its exposed
    communication share) met is at risk (REQ004) too, saying why (`model.at_risk.unmeasured`), unless it has a
    range of its own (`spread`: a training job's memory over the allocator's waste), which judges it.
    `risks` gives, the same way, why a figure may lie above what it stands for (`even_share_risks`): a requirement it
    meets is at risk (REQ004), with that reason.
    A glob that matched a workload whose job cannot have the metric is not applicable there (`not_applicable`).
    """
    inapplicable = not_applicable(b, design)
    if inapplicable:
        return Outcome(b.req, None, Status.NOT_APPLICABLE, inapplicable)
    problem = unjudged(b, metrics, design, withheld, unsettled)
    if problem:
        return judge(b.req, None, problem[1])
    value = measured(b, metrics, design)
    band = (bands or {}).get(b.subject, {}).get(b.req.metric)
    # its band's ends, or its own range (a reliability figure's over the failure-rate sets), or the band at each end
    ends = band_ends(band, value, metrics.get(b.subject, {}), b.req.metric) if value is not None else None
    # no published run bounds it, too few to likely hold a further one, or no band nor range: met is at risk (REQ004)
    o = verdict(judge(b.req, value, band=ends), band, lookup(b.subject, b.req.metric))
    o = at_lower_bound(o, (unsettled or {}).get(b.subject))   # a cost on a capex leaving parts out (cost31)
    o = thin(o, (risks or {}).get(b.subject, {}).get(b.req.metric, ""))   # a bisection cut over the even share
    return on_assumed(o, (assumed or {}).get(b.subject))


def workload_bands(workloads: Mapping[str, Any]) -> dict[str, dict[str, Band]]:
    """Each estimated workload's error bands by metric, by object path (`Run.workloads`, `Context.workloads`)."""
    return {path: w.estimate.bands for path, w in workloads.items() if w.estimate is not None}


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
    if why:   # a `Worded` reason keeps its customer words (`open_item.worded`)
        return "metric", worded("{}'s {} is not provided: {}", b.subject, b.req.metric, why)
    if b.req.metric not in known:
        return "metric", absent(b.subject, b.req.metric, known)
    if not known[b.req.metric].is_compatible_with(b.req.target.limit):
        if (ours := currency(known[b.req.metric])) and (theirs := currency(b.req.target.limit)):
            # a EUR quote judged against a USD budget: say so, not "the dimension ([currency_eur])" (newuser90)
            return "target", (f"target {b.req.target} is in {theirs}, and {b.subject}'s {b.req.metric} is in {ours}, "
                              f"the currency of its prices; archgen does not convert currencies: state the target "
                              f"in {ours}")
        return "target", (f"target {b.req.target} does not have the dimension of {b.req.metric} "
                          f"({known[b.req.metric].dimensionality})")
    note = unsettled_note(b.req, known[b.req.metric], (unsettled or {}).get(b.subject))
    return ("metric", f"{b.subject}'s {b.req.metric} is not provided: {note}") if note else None


def even_share_risks(clusters: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """Why each rail fabric's bisection figures cut over the even share may lie above the least cut (NET034).

    By fabric path and metric (`EVEN_SHARE_METRICS`), for `judge_all`'s `risks`; `clusters` are the analysed ones.
    """
    return {fa.fabric.path: dict.fromkeys(EVEN_SHARE_METRICS, f"the bisection is cut over the access ports shared "
                                          f"evenly over the used leaves, not over the leaves as wired ("
                                          f"{fa.even_share}), and may lie above their least cut (NET034)")
            for c in clusters.values() for fa in c.fabrics if fa.even_share}
