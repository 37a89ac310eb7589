"""Compare two runs of the pipeline: changed metrics, findings, requirement status, and part counts of the BOMs.

The BOM delta (parts whose count changed) is `archgen.compare.bom`; the requirements whose status, definition or
waiver changed, `archgen.compare.requirement_changes`.

`compare(base, head)` is pure: two `Run`s in, a frozen `Diff` out. `archgen.output.diff` turns a `Diff` into the
text of a pull-request comment or the JSON contract; `archgen.commands.diff` finds the two sides' specs.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, replace

from archgen import metrics
from archgen.analyse.facility import HEADROOMS
from archgen.analyse.hall_groups import deployed, fellows, halls_with
from archgen.analyse.hall_totals import HALL_TOTALS
from archgen.analyse.storage_cost import NO_POWER, NO_PRICE, not_costed
from archgen.checks import Finding
from archgen.compare.bom import PartChange, Swap, bom_changes, swaps
from archgen.compare.finding_changes import finding_key, finding_order, match_findings
from archgen.compare.measures import Ends, Measure, bands, no_parts, unlike, within
from archgen.compare.pairs import Pairs, renamer
from archgen.compare.price_changes import PriceChange, price_changes
from archgen.compare.requirement_changes import RequirementChange, requirement_changes
from archgen.compare.revisions import RevisionChange, prices_shown, revision_changes
from archgen.compare.waiver_changes import WaiverChange, renewed, waiver_changes
from archgen.pipeline import Run
from archgen.units import Q, relative_change

#: Default threshold of relative change below which a metric counts as unchanged (float noise): 0.1 %.
THRESHOLD = 0.001
#: The kinds of waiver change (`WaiverChange.kind`), in report order: the summary counts each.
WAIVER_CHANGES = ("added", "renewed", "shortened", "edited", "removed")
#: The kinds of stated price change (`PriceChange.kind`), in report order: the summary counts each.
PRICE_CHANGES = ("added", "changed", "removed")
#: The ways a metric of an object of both sides is on one side only (`MetricChange.presence`), in report order.
PRESENCE = ("not provided in HEAD", "only in BASE", "not provided in BASE", "only in HEAD")


@dataclass(frozen=True)
class MetricChange:
    """A metric of one object in BASE and HEAD; either side is None where the metric is absent."""

    object: str
    metric: str
    base: Q | None
    head: Q | None
    #: why the side without the metric does not provide it (`analyse.operations.Operations.withheld`); "" where that
    #: side's design has no such figure at all (no checkpoint storage, no front-end network) or both sides have it
    why: str = ""
    #: where a headroom of the object's hall moved because another cluster joined or left that hall (`hall_moves`)
    hall: str = ""
    #: the ends of the model's error band on each side's value, (BASE's, HEAD's), None where it has none
    #: (`compare.measures.bands`)
    bands: tuple[Ends | None, Ends | None] = (None, None)
    #: why the two sides' values measure different things (another scenario, job or accelerator count:
    #: `compare.measures.unlike`); then no change, relative change or direction is given
    unlike: str = ""
    #: why a side that lacks a part class's interruptions reads 0 (`compare.measures.no_parts`)
    zeroed: str = ""

    @property
    def presence(self) -> str:
        """Which sides have the metric: "both", "only in BASE", "only in HEAD", "not provided in BASE" or "... HEAD".

        Not provided: that side has the object and says why it gives no such figure (a goodput without checkpoint
        storage, REL006); only in one side: the other side's object has no such figure and no reason for it.
        """
        if self.base is not None and self.head is not None:
            return "both"
        missing = "HEAD" if self.head is None else "BASE"
        return f"not provided in {missing}" if self.why else \
            f"only in {'BASE' if missing == 'HEAD' else 'HEAD'}"

    @property
    def change(self) -> Q | None:
        """HEAD minus BASE, or None where a side is missing, the dimensions differ or they measure different things."""
        if self.unlike or self.base is None or self.head is None or not self.head.is_compatible_with(self.base):
            return None
        return self.head - self.base.to(self.head.units)

    @property
    def relative(self) -> float | None:
        """(HEAD - BASE) / |BASE|, or None where BASE is zero, missing, of another dimension or another measure."""
        return None if self.unlike or self.base is None or self.head is None else relative_change(self.base, self.head)

    @property
    def direction(self) -> str | None:
        """'better' or 'worse', by the way the metric registry says it is better (`Metric.better`: higher or lower).

        None where the metric has no better direction (a power, a count of parts), a side is missing, or the
        dimension changed.
        """
        declared = metrics.lookup(self.object, self.metric)
        change = self.change
        if declared is None or declared.better is None or change is None or not change.magnitude:
            return None
        return "better" if (change.magnitude > 0) == (declared.better == "higher") else "worse"

    @property
    def within_band(self) -> bool | None:
        """Whether each side's value lies in the other side's band: a move the model cannot tell from its error.

        None where a side has no band (or no value), or the two measure different things.
        """
        (old, new), (low, high) = self.bands, (self.base, self.head)
        if old is None or new is None or low is None or high is None or self.unlike:
            return None
        return within(high, old) and within(low, new)


@dataclass(frozen=True)
class Diff:
    """Everything that differs between two runs."""

    base_label: str
    head_label: str
    metrics: tuple[MetricChange, ...]
    objects_added: tuple[str, ...]
    objects_removed: tuple[str, ...]
    new_findings: tuple[Finding, ...]
    resolved_findings: tuple[Finding, ...]
    requirements: tuple[RequirementChange, ...]
    head_errors: int
    bom: tuple[PartChange, ...] = ()
    #: clusters whose checkpoint `storage:` changed, in words (`unpriced_storage`): costed at 0, powered at 0
    not_costed: tuple[str, ...] = ()
    #: the date both sides' waivers' `expires` was judged on, where a waiver states one (`as_of`); else ""
    as_of: str = ""
    #: waivers added, removed, renewed or edited (`compare.waiver_changes`)
    waivers: tuple[WaiverChange, ...] = ()
    #: HEAD's findings that a waiver newly covers where BASE's same finding counted: not resolved, accepted (`compare`)
    newly_waived: tuple[Finding, ...] = ()
    #: stated prices added, removed or changed on documents both sides hold (`compare.price_changes`)
    prices: tuple[PriceChange, ...] = ()
    #: (side, path) of each link leading out of the specs that a revision's export left out unread (`commands.diff`)
    refused: tuple[tuple[str, str], ...] = ()
    #: findings BASE counted, its waiver expired, that HEAD's renewal of that waiver covers again, each with it
    #: (`waiver_changes.renewed`): not newly waived, waived longer
    renewed: tuple[tuple[Finding, WaiverChange], ...] = ()
    #: (BASE id, HEAD id) of each `--pair`: HEAD's object compared as BASE's (`compare.pairs`)
    pairs: Pairs = ()
    #: documents whose stated revision moved, or that changed under BASE's revision (`compare.revisions`)
    revisions: tuple[RevisionChange, ...] = ()
    #: (BASE's, HEAD's) unwaived error or warning of one check, object and requirement whose message changed
    changed_findings: tuple[tuple[Finding, Finding], ...] = ()
    #: racks and clusters whose document shows prices in both runs (`compare.revisions.prices_shown`)
    prices_shown: tuple[str, ...] = ()
    #: (the `--threshold` as a fraction, the metrics that moved by at least `THRESHOLD` but less than it): a raised
    #: threshold left them out unsaid (newuser101: at 5 %, a cluster's IT power +4 % vanished from the comment)
    under_threshold: tuple[float, int] = (THRESHOLD, 0)

    @property
    def swaps(self) -> tuple[Swap, ...]:
        """The part swaps among the BOM's count changes (`compare.bom.swaps`): 'sn5610 → sn5600 (5)'."""
        return swaps(self.bom)

    @property
    def one_sided(self) -> tuple[MetricChange, ...]:
        """The metrics of an object of both sides that one side does not have (`MetricChange.presence`), in order."""
        return tuple(c for c in self.metrics if c.presence != "both")

    @property
    def both_sided(self) -> tuple[MetricChange, ...]:
        """The metrics that changed and that both sides have."""
        return tuple(c for c in self.metrics if c.presence == "both")

    def renewal(self, r: RequirementChange) -> str:
        """'renewed (expiry A → B)' where HEAD's waiver of the requirement's miss renews one BASE had let expire."""
        return next((w.renewal for f, w in self.renewed if f.id in ("REQ001", "PERF001") and f.requirement
                     and (f.object, f.requirement) == r.key), "")

    @property
    def failing(self) -> bool:
        """A requirement newly fails, or HEAD has unwaived error findings (exit code 1)."""
        return self.head_errors > 0 or any(r.failing for r in self.requirements)

    def summary(self) -> dict:
        """Counts for the summary line and the JSON `summary`.

        `requirements_<kind>` counts requirements (by id), `requirement_objects_<kind>` the objects they are judged
        on: one edit of a `rack/*` target is 1 requirement redefined on 12 racks, where it counted 12.
        """
        new = self.new_findings
        moves = {"failing": lambda r: r.failing, "met": lambda r: r.newly("met"),
                 "at_risk": lambda r: r.at_risk, "from_miss": lambda r: r.from_miss, "missed": lambda r: r.missed,
                 "redefined": lambda r: r.redefined,
                 "newly_waived": lambda r: r.newly_waived and not self.renewal(r),
                 "waiver_renewed": lambda r: r.newly_waived and bool(self.renewal(r)),
                 "removed": lambda r: r.head is None}
        rows = {k: [r for r in self.requirements if moved(r)] for k, moved in moves.items()}
        return {
            "metrics_changed": len(self.metrics),
            "metrics_better": sum(m.direction == "better" for m in self.metrics),
            "metrics_worse": sum(m.direction == "worse" for m in self.metrics),
            "metrics_one_sided": len(self.one_sided),
            "metrics_within_band": sum(bool(m.within_band) for m in self.metrics),
            "metrics_not_comparable": sum(bool(m.unlike) for m in self.metrics),
            "metrics_under_threshold": self.under_threshold[1],
            **{f"metrics_{k.replace(' ', '_').lower()}": sum(m.presence == k for m in self.metrics) for k in PRESENCE},
            "objects_changed": len({m.object for m in self.metrics}),
            "objects_added": len(self.objects_added),
            "objects_removed": len(self.objects_removed),
            "parts_changed": sum(c.change != 0 for c in self.bom),
            "parts_power_changed": sum(c.change == 0 for c in self.bom),
            "parts_swapped": len(self.swaps),
            "findings_new": len(new),
            "findings_new_errors": sum(f.severity == "error" for f in new),
            "findings_new_warnings": sum(f.severity == "warning" for f in new),
            "findings_resolved": len(self.resolved_findings),
            "findings_changed": len(self.changed_findings),
            "findings_newly_waived": len(self.newly_waived),
            "findings_waiver_renewed": len(self.renewed),
            **{f"waivers_{k}": sum(w.kind == k for w in self.waivers) for k in WAIVER_CHANGES},
            **{f"prices_{k}": sum(p.kind == k for p in self.prices) for k in PRICE_CHANGES},
            **{f"requirements_{k}": len({r.state.requirement for r in got}) for k, got in rows.items()},
            **{f"requirement_objects_{k}": len(got) for k, got in rows.items()},
            **{f"requirements_{k}": len({r.state.requirement for r in rows["redefined"] if r.tightened is way})
               for k, way in (("tightened", True), ("relaxed", False))},
            "head_errors": self.head_errors,
            "links_refused": len(self.refused),
            "failing": self.failing,
            **({"waivers_as_of": self.as_of} if self.as_of else {}),
            **({"revisions_changed": sum(r.changed for r in self.revisions),
                "revisions_kept": sum(not r.changed for r in self.revisions)} if self.revisions else {}),
        }


def compare(base: Run, head: Run, *, threshold: float = THRESHOLD, base_label: str = "BASE",
            head_label: str = "HEAD", pairs: Pairs = ()) -> Diff:
    """The differences between two runs; relative metric changes below `threshold` are ignored.

    `pairs`: (BASE id, HEAD id) of objects compared as one where HEAD names them otherwise (`compare.pairs`).
    """
    alias = renamer(pairs, base.metrics, head.metrics)
    named = {alias(o): o for o in head.metrics}    # HEAD's objects by the path BASE gives them
    added = tuple(sorted(set(named) - set(base.metrics)))
    removed = tuple(sorted(set(base.metrics) - set(named)))
    changes, halls, under = [], hall_moves(base, head), 0
    for obj in sorted(set(base.metrics) & set(named)):
        old, new = base.metrics[obj], head.metrics[named[obj]]
        ends = (bands(base, obj), bands(head, named[obj]))
        measures = (Measure.of(base, obj), Measure.of(head, named[obj]))
        for name in sorted(set(old) | set(new)):
            lacking = head if name not in new else base if name not in old else None
            why = _withheld(lacking, named[obj] if lacking is head else obj, name) if lacking is not None else ""
            values = [old.get(name), new.get(name)]
            zero = no_parts(lacking, named[obj] if lacking is head else obj, name) \
                if lacking is not None and not why else None
            if zero is not None:   # a class with no parts left: 0, so that the classes add up to the total
                values[lacking is head] = zero[0]
            c = MetricChange(obj, name, values[0], values[1], why,
                             halls.get(obj, "") if name in HEADROOMS or name in HALL_TOTALS else "",
                             (ends[0].get(name), ends[1].get(name)),
                             unlike(*measures, name) if None not in values else "",
                             zero[1] if zero is not None else "")
            if _changed(c, threshold):
                changes.append(c)
            elif threshold > THRESHOLD and _changed(c, THRESHOLD):
                under += 1
    theirs = [replace(f, object=alias(f.object)) for f in head.findings] if pairs else head.findings
    new_findings, resolved, changed = match_findings(base.findings, theirs)
    resolved, accepted = newly_waived(resolved, theirs)
    waivers = waiver_changes(base.specs, head.specs, base.as_of, head.as_of)
    accepted, again = renewed(accepted, waivers, head.specs, head.as_of)
    return Diff(base_label, head_label, tuple(changes), added, removed, new_findings, resolved,
                requirement_changes(base, head, alias),
                len(head.errors), bom_changes(base, head), unpriced_storage(base, head),
                str(head.as_of or base.as_of or ""), waivers, accepted,
                price_changes(base.specs, head.specs), renewed=again, pairs=pairs,
                revisions=revision_changes(base, head), changed_findings=changed,
                prices_shown=prices_shown(base, head), under_threshold=(threshold, under))


def newly_waived(resolved: tuple[Finding, ...], head: list[Finding]) -> tuple[tuple[Finding, ...], tuple[Finding, ...]]:
    """(resolved, newly waived): BASE's findings gone from HEAD's count, split by whether a waiver covers them there.

    A finding BASE counted that a waiver covers in HEAD (same check, object, requirement and severity) is accepted,
    not resolved: it was listed as resolved, so a pull request adding a waiver read as one that fixed the design
    (newuser65). The newly waived are HEAD's findings, each with the text of the waiver that covers it.
    """
    waived: dict[tuple, list[Finding]] = defaultdict(list)
    for f in head:
        if f.waived:
            waived[(*finding_key(f), f.severity)].append(f)
    accepted, fixed = [], []
    for f in resolved:
        same = waived.get((*finding_key(f), f.severity))
        if same:
            accepted.append(same.pop(0))
        else:
            fixed.append(f)
    return tuple(fixed), tuple(sorted(accepted, key=finding_order))


def hall_moves(base: Run, head: Run) -> dict[str, str]:
    """By cluster path of both sides: which other clusters joined or left those it is counted with in its hall.

    A headroom of a hall that several clusters name is the hall's capacity less all their loads
    (`analyse.facility.hall_headrooms`), and a hall total sums the clusters its `deployed` lists
    (`analyse.hall_totals`): each moves when another cluster joins the hall (or its `deployed`), the cluster itself
    unchanged (newuser51: h100-pod's it_capacity_headroom 1,187 kW -> 41 kW as a GB200 SU joined its hall). The
    clusters counted together are `hall_groups.fellows`. Only clusters naming the same hall on both sides whose
    fellow clusters differ are listed; a cluster that itself joined or left the hall's `deployed` says so, and where
    the hall began or stopped listing `deployed` that is said, not that clusters joined or left it (review25).
    """
    old, new = _halls(base), _halls(head)
    out = {}
    for path in set(old) & set(new):
        (hall, before), (there, after) = old[path], new[path]
        if hall != there or before == after:
            continue
        listed = getattr(head.clusters[path].cluster.facility, "deployed", None) is not None
        where = f"the clusters deployed in facility '{hall}'" if listed else f"facility '{hall}'"
        was, now = deployed(base.clusters[path]), deployed(head.clusters[path])
        if listed != (getattr(base.clusters[path].cluster.facility, "deployed", None) is not None):
            # the hall itself began or stopped listing `deployed`: no cluster joined or left it
            moves = [f"facility '{hall}' " + (f"now lists the clusters deployed in it, {path} "
                                               + ("among them" if now else "not: a candidate judged alone")
                                               if listed else "no longer lists `deployed`: every cluster naming it "
                                               "is counted together")]
        else:
            moves = [f"{path} {'joined' if now else 'left'} {where}"] if was != now else \
                [f"{', '.join(sorted(got))} {verb} {where}"
                 for got, verb in ((after - before, "joined"), (before - after, "left")) if got]
        out[path] = "; ".join(moves) + (" (the hall's headrooms and totals count every cluster deployed in it)"
                                        if listed else " (a hall's headroom is less every cluster's load)")
    return out


def _halls(run: Run) -> dict[str, tuple[str, frozenset[str]]]:
    """By cluster path: the id of the hall it names and the run's other occupants it is counted with there.

    Its fellow clusters and other clusters' halls naming the hall (`hall_groups.halls_with`, "cluster/c hall 'a'"),
    which its headrooms count too (review45).
    """
    return {path: (c.cluster.facility.id, frozenset(set(fellows(run.clusters, path)) - {path}) | {
        f"{o.cluster.path} hall '{o.cluster.spec.floor.halls[j].id}'" for o, j in halls_with(run.clusters, path)})
            for path, c in run.clusters.items() if c.cluster.facility is not None}


def unpriced_storage(base: Run, head: Run) -> tuple[str, ...]:
    """A sentence per cluster of both sides whose `storage:` differs and a side leaves out its price or its power.

    What changed, and what that side's cost and power figures leave out (`storage_cost.not_costed`: `NOT_COSTED`,
    `NO_PRICE` or `NO_POWER`). Where both sides price and power their storage, a change is costed like any other: its
    capex, IT power and cost per token are among the metrics, and no sentence is added.
    """
    out = []
    for path in sorted(set(base.clusters) & set(head.clusters)):
        old, new = base.clusters[path].cluster.spec.storage, head.clusters[path].cluster.spec.storage
        left = [not_costed(s, c is not None and c.storage_priced)
                for s, c in ((old, base.operations.cost.get(path)), (new, head.operations.cost.get(path)))]
        if old == new or not any(left):
            continue
        what = ("added" if old is None else "removed" if new is None else "; ".join(
            f"{k.replace('_', ' ')} {getattr(old, k):~P} → {getattr(new, k):~P}"
            for k in ("capacity", "write_bandwidth", "read_bandwidth") if getattr(old, k) != getattr(new, k))
            or "its price, power, basis or source")
        said = left[1] or (   # HEAD's words where it leaves something out; else BASE left out what HEAD costs
            "BASE's storage states no " + {NO_PRICE: "price", NO_POWER: "power"}.get(left[0], "price or power")
            + " and HEAD's does: the capex and power changes hold the storage's whole "
            + {NO_PRICE: "price", NO_POWER: "draw"}.get(left[0], "price and draw") + ", not only what the change costs")
        out.append(f"{path} checkpoint storage {'' if old is None or new is None else 'changed: '}{what}; {said}")
    return tuple(out)


def _withheld(run: Run, obj: str, name: str) -> str:
    """Why `run` does not provide metric `name` of `obj`, or "".

    A range's end (`goodput_low`) takes its metric's reason, a class's share (`interruptions_per_day.cable`) its
    total's, where only the total is withheld (a job not estimated: `operations_stage`).
    """
    withheld = run.operations.withheld.get(obj, {})
    metric = name.removesuffix("_low").removesuffix("_high")
    return withheld.get(name) or withheld.get(metric) or withheld.get(metric.partition(".")[0], "")


def _magnitude(q: Q) -> float:
    return float(q.magnitude)


def _changed(c: MetricChange, threshold: float) -> bool:
    if c.base is None or c.head is None:
        return True
    if not c.head.is_compatible_with(c.base):
        return True
    old, new = _magnitude(c.base.to(c.head.units)), _magnitude(c.head)
    if math.isnan(old) or math.isnan(new):
        return math.isnan(old) != math.isnan(new)
    rel = c.relative
    return new != old and (rel is None or abs(rel) >= threshold)  # rel is None where BASE is zero
