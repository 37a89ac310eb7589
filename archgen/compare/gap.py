"""Gap reports: a vendor's proposal judged against our requirements, one row per requirement and object.

`archgen.commands.gap` runs the pipeline once on the proposal's specs and our `Requirements` documents together.
Our requirements bind to the proposal's objects as in `archgen check` (a glob subject such as ``rack/*`` once per
object it matches), and `judge_proposal` turns each bound requirement into a `GapRow`: met, not met, or not provided
(no object matches, the object lacks the metric, or the metric has another dimension), with the proposal's value and
its margin to the limit. The proposal's own findings (its power not closing, a dangling reference) are gaps too and
come with the report. `archgen.output.gap` renders a `Gap`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from archgen.checks import REGISTRY, Finding
from archgen.checks.judgement import even_share_risks, outcome, workload_bands
from archgen.compare.answers import Answer, answers, merged
from archgen.errors import Location
from archgen.load import shown as shown_location
from archgen.model.fabrics import FatTree
from archgen.model.requirements import LEVELS, PASSING, Judged, Requirement, Status, fails, status_counts
from archgen.model.target import offset
from archgen.model.tiers import TIER_NAMES
from archgen.pipeline import Run
from archgen.units import Q, relative_change
from archgen.validate import Specs
from archgen.waivers import object_path, waiver, waiver_subject

#: The checks whose findings about our requirements are the rows themselves, so not listed again as findings.
_ROW_CHECKS = ("REQ001", "REQ002", "REQ005")


@dataclass(frozen=True)
class GapRow(Judged):
    """One requirement judged on one object of the proposal."""

    requirement: Requirement
    subject: str                 # the object judged; the glob itself where it matches no object
    status: Status
    value: Q | None = None       # the proposal's value of the metric (None: not provided)
    pattern: str = ""            # the glob the subject matched, "" for an exact subject
    location: Location | None = None  # where the requirement is written
    note: str = ""               # why the value is not provided
    waived: str = ""             # our requirements document waives the check that judges this row
    assumed: tuple[str, ...] = ()  # met on a figure that rests on these assumed inputs (REQ005)
    #: The clusters of the design(s) whose run gave the row, where the report merges several (`merge`); () for one
    designs: tuple[str, ...] = ()
    #: The reference design's value for the same requirement and object (`gap --reference`); None: none given/found
    reference: Q | None = None
    #: The scope by which the row's waiver binds it, as the report says it: "design (stated)", "both (by default: its
    #: subject names ids)" (`waiver_scope`); "" where not waived
    waiver_scope: str = ""
    tolerated: bool = False      # met only by the requirement's `tolerance`: the value is past the limit itself
    #: Which figure the value is, where a metric has several readings: "as used" for a tier's oversubscription, with
    #: the ratio the proposal states for that tier ("as used; 2:1 as stated"; `ratio_basis`); "" for the others
    basis: str = ""
    #: Where the value may lie by the model's measured error (`Outcome.band`), shown beside it (newuser97: an at-risk
    #: TTFT p99 read 0.93 s against 6 s with no band, and the customer edition gave no reason)
    band: tuple[Q, Q] | None = None

    @property
    def deviation(self) -> Q | None:
        """The proposal's value less the reference's, in the target's unit (K for a limit in °C); None without both.

        Whether it is better or worse is `better`'s: the sign alone says only higher or lower.
        """
        if self.value is None or self.reference is None or not _finite(self.value, self.reference):
            return None
        target = self.requirement.target
        d = self.value - self.reference   # pint: of two °C, a temperature difference
        return d.to("K") if offset(target.limit) else target.in_units(d)

    @property
    def deviation_ratio(self) -> float | None:
        """The deviation relative to the reference's value; None where that is 0, on an offset scale, or absent.

        None too where the two lie on either side of zero (`units.relative_change`, as `diff`: newuser102).
        """
        d, ref = self.deviation, self.reference
        if d is None or ref is None or self.value is None or offset(self.requirement.target.limit):
            return None
        return relative_change(ref, self.value)

    @property
    def better(self) -> str:
        """'better', 'worse' or 'same': whether the proposal's value is further inside the target than the reference's.

        By the target's headroom (`Target.headroom`): more headroom is better, so lower is better under '<=', higher
        under '>=', nearer the limit under '=='. '' without both values.
        """
        if self.deviation is None or self.value is None or self.reference is None:
            return ""
        t = self.requirement.target
        mine, ours = (float(t.headroom(q).magnitude) for q in (self.value, self.reference))
        return "same" if math.isclose(mine, ours, rel_tol=1e-9, abs_tol=1e-12) else "better" if mine > ours else "worse"

    @property
    def to_verify(self) -> bool:
        """Judged by analysis only: its `verification` (test, inspection, demonstration) is still to decide it."""
        return bool(self.requirement.pending) and self.value is not None

    @property
    def failing(self) -> bool:
        """A SHALL requirement not met or not provided, and not waived: the report fails (exit code 1)."""
        return fails(self.requirement.level, self.status) and not self.waived


@dataclass(frozen=True)
class Gap:
    """The proposal against our requirements: the rows, the proposal's own findings and the objects it holds."""

    proposal: tuple[str, ...]
    against: tuple[str, ...]
    rows: tuple[GapRow, ...]
    findings: tuple[Finding, ...]
    objects: tuple[str, ...]
    as_of: str = ""   # the date waivers' `expires` was judged on, where one states it (`as_of`); else ""
    #: Warnings about the run itself: a proposal's own Requirements whose glob subjects reach another proposal's
    #: objects (`commands.render.foreign_requirements`), shown in the internal edition.
    notes: tuple[str, ...] = ()
    #: The files of our Requirements documents (`--against`): a finding located there (an expired waiver of ours,
    #: SPC004; a duplicate id, REQ003) is ours, not the proposal's (`ours_findings`).
    ours: frozenset[str] = frozenset()
    #: The reference design's paths (`--reference`), whose values the rows give beside the proposal's; () for none
    reference: tuple[str, ...] = ()
    #: Our Requirements documents that state a revision, and the revision the proposal says it answers of each
    answers: tuple[Answer, ...] = ()
    #: The library racks the proposal's clusters place (`rack/<id>` of the shipped catalog): none of the proposal's
    #: documents holds them, yet they are judged with it (their findings and rows are the proposal's); newuser107's
    #: objects list left out the catalog DGX B200 rack it judged.
    library: tuple[str, ...] = ()

    def is_ours(self, f: Finding) -> bool:
        """Whether a finding is located in one of our Requirements documents rather than in the proposal."""
        return f.location is not None and str(f.location.file) in self.ours

    @property
    def proposal_findings(self) -> tuple[Finding, ...]:
        """The findings of the proposal: the run's, less ours (`is_ours`)."""
        return tuple(f for f in self.findings if not self.is_ours(f))

    @property
    def ours_findings(self) -> tuple[Finding, ...]:
        """The findings located in our Requirements documents: they count against neither the proposal nor its rows."""
        return tuple(f for f in self.findings if self.is_ours(f))

    @property
    def errors(self) -> list[Finding]:
        """The proposal's unwaived error findings."""
        return [f for f in self.findings if f.severity == "error" and not f.waived]

    @property
    def failing(self) -> bool:
        """A SHALL requirement is not met or not provided, the proposal errs, or it answers an old revision: exit 1.

        An old revision: another revision of our requirements than the one judged (`Answer.current`).
        """
        return bool(self.errors) or any(r.failing for r in self.rows) or any(a.current is False for a in self.answers)

    def summary(self) -> dict:
        """Counts for the summary line and the JSON `summary`."""
        live = [f for f in self.proposal_findings if not f.waived]
        ours = [f for f in self.ours_findings if not f.waived]
        by_level = {level: counted(rows) for level in LEVELS
                    if (rows := [r for r in self.rows if r.requirement.level == level])}
        return {
            "requirements": len({(r.requirement.id, r.location) for r in self.rows}),
            "rows": len(self.rows),
            **counted(self.rows),
            "by_level": by_level,
            "waived": sum(bool(r.waived) for r in self.rows),
            "to_verify": sum(r.to_verify for r in self.rows),
            "failing_rows": sum(r.failing for r in self.rows),
            "errors": sum(f.severity == "error" for f in live),
            "warnings": sum(f.severity == "warning" for f in live),
            "our_errors": sum(f.severity == "error" for f in ours),
            "our_warnings": sum(f.severity == "warning" for f in ours),
            "objects": len(self.objects),
            "failing": self.failing,
            **({"waivers_as_of": self.as_of} if self.as_of else {}),
            **({"revisions_superseded": sum(a.current is False for a in self.answers),
                "revisions_unstated": sum(a.current is None for a in self.answers)} if self.answers else {}),
        }


def _finite(*values: Q) -> bool:
    """Whether every value has a finite magnitude (a job's cost where goodput's low end is 0 has none)."""
    return all(math.isfinite(float(v.magnitude)) for v in values)


def counted(rows: Iterable[GapRow]) -> dict[str, int]:
    """How many `rows` have each status, those met on assumed inputs apart, as JSON keys (`status_counts`)."""
    return {key(s): n for s, n in status_counts((r.status, bool(r.assumed)) for r in rows).items()}


def key(status: str) -> str:
    """A status as a JSON key: `not met` is `not_met`."""
    return status.replace(" ", "_")


def judge_proposal(result: Run, owners: Collection[str], proposal_files: Collection[Path],
                   proposal: tuple[str, ...] = (), against: tuple[str, ...] = (),
                   written_for: Collection[Path] = ()) -> Gap:
    """The gap report of a run: a row for each requirement of the `owners` documents on each object it binds to.

    The findings are the run's, less those of REQ001/REQ002 about the owners' requirements (they are the rows);
    the objects are those of the documents in `proposal_files` with the fabrics of its clusters, and the library racks
    its clusters place are named apart (`Gap.library`). `written_for`: the
    files of our documents that lie under a PROPOSAL path (our own design judged against its own requirements): a
    waiver binds the rows of the side its `scope` names (`waiver_scope`).
    """
    specs = result.specs
    rows: list[GapRow] = []
    unbound: dict[tuple[str, int], tuple[str, str, str, list[str]]] = {}
    bands, risks = workload_bands(result.workloads), even_share_risks(result.clusters)
    fabrics = {fab.path: fab.spec for c in result.design.clusters for fab in c.fabrics}
    for b in result.design.requirements:
        if b.owner not in owners:
            continue
        o = outcome(b, result.metrics, result.design, result.operations.withheld, bands,
                    result.operations.unsettled, result.operations.assumed, risks)
        check = REGISTRY["REQ002" if o.status is Status.NOT_PROVIDED else "REQ001"]
        doc, subject = specs.get(b.owner), b.subject or b.pattern or b.owner
        found = waiver(doc, (check.id, *check.aliases), subject, b.req.id, result.as_of)
        waived = found[1] if found and o.status not in PASSING | {Status.NOT_APPLICABLE} else ""
        at = specs.locate(b.owner, b.path)
        scope = waiver_scope(doc, found[0], at, written_for) if waived and found else ""
        if waived and found and not scope.startswith("binds"):
            unbound.setdefault((b.owner, found[0]), (check.id, b.req.id, scope, []))[3].append(subject)
            waived = ""
        rows.append(GapRow(b.req, b.subject or b.pattern, o.status, o.value, b.pattern, at, o.note, waived,
                           o.assumed, waiver_scope=scope.removeprefix("binds ") if waived else "",
                           tolerated=o.tolerated, basis=ratio_basis(b.req.metric, fabrics.get(b.subject or "")),
                           band=o.band if o.value is not None else None))
    rows.sort(key=lambda r: (r.requirement.id, r.subject, r.location or Location("")))
    files = {p.resolve() for p in proposal_files}
    own = {str(at.file) for doc_id in owners if (at := specs.locate(doc_id)) is not None}
    unbinding = _design_waivers(specs, owners, written_for)
    findings = tuple(f for f in result.findings
                     if not (f.id in _ROW_CHECKS and f.location is not None and f.location.file in own)
                     and not (f.id == "SPC002" and f.location in unbinding))
    objects = {object_path(doc) for doc_id, doc in specs.items.items()
               if Path(specs.sources[doc_id].file).resolve() in files}
    clusters = [c for c in result.design.clusters if c.path in objects]
    objects |= {fab.path for c in clusters for fab in c.fabrics}
    library = {rack.path for c in clusters for rack in c.rack_types.values()} - objects
    notes = tuple(_unbound_note(specs, owner, i, *said) for (owner, i), said in unbound.items())
    return Gap(proposal, against, tuple(rows), tuple(sorted(findings, key=_finding_order)), tuple(sorted(objects)),
               str(result.as_of or ""), notes, ours=frozenset(own), answers=answers(specs, owners, files),
               library=tuple(sorted(library)))


def ratio_basis(metric: str, fabric: object) -> str:
    """Which oversubscription a `<tier>.oversubscription` row gives, in words; "" for another metric.

    The metric is the ratio as used (the down ports in use over the up ports; `metrics_fabric`), which reads below
    the ratio the proposal states where down ports stay free: a leaf stated 3:1 whose rail groups fill 64 of its 96
    down ports is 2 as used (newuser96). Where the proposal's fat tree states a ratio for the tier
    (`FatTree.stated_ratio`), the words give it beside ("as used; 3:1 as stated"), as NET033 and the documents name
    theirs (oversub37), so that the two do not read as one figure that contradicts itself.
    """
    tier, _, name = metric.partition(".")
    if name != "oversubscription" or tier not in TIER_NAMES:
        return ""
    stated = fabric.stated_ratio(tier) if isinstance(fabric, FatTree) else None
    return "as used" + (f"; {stated[0]:g}:1 as stated" if stated else "")


def waiver_scope(doc: object, index: int, at: Location | None, written_for: Collection[Path]) -> str:
    """Whether our document's waiver `index` binds the row at `at`, and by which scope, as the report says it.

    "binds <scope> (<how>)" where it waives the row, "<scope> (<how>)" where it does not; <how> is "stated" for a
    waiver's own `scope:`, else the default's reason. A row is our design's where our document lies under a PROPOSAL
    path (`written_for`: our own design judged against its requirements), else a vendor's proposal's. Unstated, the
    scope is `design` where the subject's id is `*` (`rack/*`, `cluster/*/fabric/compute`): our requirements are
    written before a vendor picks ids, so such a waiver was written for our design's open item (newuser84: our rack
    weight, a lower bound); a waiver naming ids (`rack/acme-r4`, `rack/acme-*`) is `both`, binding what it names.
    """
    w = getattr(doc, "waivers", ())[index]
    parts = waiver_subject(doc, w).split("/")
    if w.scope:
        scope, how = w.scope, "stated"
    elif len(parts) > 1 and parts[1] == "*":
        scope, how = "design", "by default: its subject's id is `*`"
    else:
        scope, how = "both", "by default: its subject names ids"
    ours = at is not None and Path(at.file).resolve() in {Path(f).resolve() for f in written_for}
    binds = scope == "both" or scope == ("design" if ours else "proposal")
    return f"{'binds ' if binds else ''}{scope} ({how})"


def _design_waivers(specs: Specs, owners: Collection[str], written_for: Collection[Path]) -> set[Location]:
    """Where our documents' waivers stand whose scope binds only our design, in a run that judges a vendor's proposal.

    Such a waiver matches none of the proposal's findings by its scope, so SPC002's "matches no finding ... name
    one as `subject`" is no news and bad advice: a waiver of `scope: design` naming the vendor's rack still waives
    none of its rows (newuser101: our GB200 rack's input-power waiver, in a gap run of a vendor's rack).
    """
    out = set()
    for owner in owners:
        for i, _ in enumerate(getattr(specs.get(owner), "waivers", ())):
            at = specs.locate(owner, ("waivers", i))
            if at is not None and waiver_scope(specs.get(owner), i, at, written_for).startswith("design"):
                out.add(at)
    return out


def _unbound_note(specs: Specs, owner: str, index: int, check: str, requirement: str, scope: str,
                  subjects: list[str]) -> str:
    """The note, once per waiver, that a waiver's scope left the rows of the other side unwaived."""
    w = getattr(specs.get(owner), "waivers", ())[index]
    at = specs.locate(owner, ("waivers", index))
    where = f" ({shown_location(at)})" if at is not None else ""
    rows = ", ".join(f"`{s}`" for s in subjects)
    if scope.startswith("design"):
        return (f"Our waiver of {check} on `{w.subject}` for {requirement}{where} has scope {scope}: it was written "
                f"for our own design's open item and waives none of the proposal's rows ({rows}, which count as they "
                "are); name the proposal's object as its `subject` (a glob such as `rack/acme-*` covers several) or "
                "state `scope: both` to waive one.")
    return (f"Our waiver of {check} on `{w.subject}` for {requirement}{where} has scope {scope}: it waives a vendor's "
            f"proposal only, none of our own design's rows ({rows}, which count as they are); state `scope: both` to "
            "waive ours too.")


def merge(parts: Sequence[tuple[Gap, Collection[str]]]) -> Gap:
    """One report of several designs, each judged in its own run: (its `Gap`, the object paths its run knows).

    Each PROPOSAL path that holds a cluster is a design of its own (`commands.gap.designs`). A row whose subject is
    no object of its design's run (a glob that matches nothing there, an id another design holds) is kept only where
    no design's run knows it; a row or finding two runs give alike (our site's hall, a library rack both use) is
    given once, and one whose value differs between them is given for each. Each row names the design(s) it belongs
    to by their clusters (`GapRow.designs`: a design's clusters are those its run holds, `Gap.objects`' clusters of
    its paths), so that a rack's or workload's row says whose it is (newuser41).
    """
    if len(parts) == 1:
        return parts[0][0]
    judged = {(r.requirement.id, r.location) for g, known in parts for r in g.rows if r.subject in known}
    rows: dict[tuple, GapRow] = {}
    for g, known in parts:
        clusters = tuple(o for o in g.objects if o.startswith("cluster/") and "/fabric/" not in o)
        for r in g.rows:
            if r.subject in known or (r.requirement.id, r.location) not in judged:
                at = (r.requirement.id, r.location or Location(""), r.subject, r.status, str(r.value))
                seen = rows.get(at, r)
                rows[at] = replace(seen, designs=tuple(dict.fromkeys((*seen.designs, *clusters))))
    findings = {(f.id, f.object, f.location or Location(""), f.message): f for g, _ in reversed(parts)
                for f in g.findings}
    first = parts[0][0]
    ordered = sorted(rows.values(), key=lambda r: (r.requirement.id, r.subject, r.location or Location("")))
    return Gap(first.proposal, first.against, tuple(ordered), tuple(sorted(findings.values(), key=_finding_order)),
               tuple(sorted({o for g, _ in parts for o in g.objects})), first.as_of,
               tuple(dict.fromkeys(n for g, _ in parts for n in g.notes)),
               frozenset().union(*(g.ours for g, _ in parts)), answers=merged(g.answers for g, _ in parts),
               library=tuple(sorted({o for g, _ in parts for o in g.library})))


_SEVERITY = {"error": 0, "warning": 1, "info": 2}


def _finding_order(f: Finding) -> tuple:
    return (_SEVERITY.get(f.severity, 3), f.id, f.object, f.location or Location(""), f.message)
