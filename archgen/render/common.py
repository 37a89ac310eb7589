"""Sections every document has: control, conventions, components, validation, open items, appendices.

The builders read a `Scope` (the run, the target's object path, the parts it uses) and return `Section`s. They do
no physics: numbers come from the analyses and checks; here they are only selected, ordered and labelled. The
requirements section and its compliance matrix are `render.compliance`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from archgen import __version__, metrics
from archgen.analyse.optics import unconfirmed_optics_power
from archgen.analyse.unconfirmed_share import CONFIRMED, rack_shares
from archgen.checks import REGISTRY, Finding, tally
from archgen.checks.judgement import Judgement
from archgen.checks.scope import RACK_FIGURE_SHARES, applies, rack_figures
from archgen.load import shown_file
from archgen.model import Part, field_words
from archgen.model.base import MarkedFigures
from archgen.model.deliverable import DocumentInfo
from archgen.open_item import OpenItem, Worded
from archgen.render import fmt
from archgen.render.blocks import Bullets, Cite, Column, Para, Section, Table
from archgen.render.tables import Mark, marked, plain

STATUS = {"error": "fail", "warning": "warn", "info": "info"}


@dataclass
class Scope:
    """What one document is about: the run, the target's object path, and the spec documents it draws on."""

    run: Any
    subject: str
    owner: Any
    parts: list[Part]
    subjects: set[str] = field(default_factory=set)
    revision: str = ""
    digest: str = ""
    date: str | None = None

    @property
    def metrics(self) -> dict[str, Any]:
        """Metrics of the subject."""
        return self.run.metrics.get(self.subject, {})

    def findings(self) -> list[Finding]:
        """Findings about the subject and the parts it uses, in report order."""
        return [f for f in self.run.findings if f.object in self.subjects]

    def requirements(self) -> list[Judgement]:
        """The requirements of the document, as the pipeline judged them (`Run.requirements`), in its order.

        Those on the subject or an object under it (a cluster's fabrics), on a rack it places, and on a workload
        that runs on it (a cluster's subjects include them: the workload's own and those of Requirements
        documents), inline or from documents.
        """
        return [j for j in self.run.requirements
                if j.bound.subject in self.subjects or j.bound.subject.startswith(f"{self.subject}/")]


def where(location: Any) -> str:
    """Where a finding is, for a document: `spec_files.shown_file` (catalog files as catalog/..., the rest relative)."""
    if location is None:
        return ""
    text = shown_file(location.file)
    return f"{text}:{location.line}" if location.line else text


def _also(t: dict[str, int]) -> str:
    """The info and waived findings the status line does not judge by, as `check`'s summary counts them."""
    parts = [f"{t['info']} info"] if t["info"] else []
    parts += [f"{t['waived']} waived"] if t["waived"] else []
    return f" ({' and '.join(parts)} finding(s))" if parts else ""


def document_control(scope: Scope, doc_id: str, title: str, audience: str) -> list[tuple[str, str]]:
    """Rows of the document-control table from the spec's `document:` (`model.deliverable.DocumentInfo`).

    The revision is the design's: the spec's own, else the last commit of its spec files (`provenance`), which is
    then also printed as the source commit. `doc_id` and `audience` stand in for a number and readers not given.
    No wall-clock time unless a date was asked for. The status counts the document's unwaived findings
    (`Scope.findings`, a cluster's workloads' included) and names their checks.
    """
    info: DocumentInfo = getattr(scope.owner, "document", None) or DocumentInfo.model_validate({})
    found = scope.findings()
    live = [f for f in found if not f.waived]
    errors, warnings = ([f.id for f in live if f.severity == s] for s in ("error", "warning"))
    status = (f"Draft — has failing checks: {', '.join(sorted(set(errors)))}" if errors else
              f"Draft — no failing check, {len(warnings)} warning(s): {', '.join(sorted(set(warnings)))}" if warnings
              else "Draft — all checks pass") + _also(tally(found))
    commit = scope.revision or "not under version control"
    rows = [("Title", title), ("Document number", info.number or doc_id), ("Revision", info.revision or commit)]
    if info.answers:   # the release of our requirements a partner's design answers (`compare.answers`)
        rows.append(("Answers", "; ".join(f"{doc} revision {rev}" for doc, rev in sorted(info.answers.items()))))
    if info.revision:
        rows.append(("Source commit", commit))
    rows += approval_rows(info)
    if scope.date:
        rows.append(("Date", scope.date))
    if info.customer:
        rows.append(("Customer", info.customer))
    if info.authors:
        rows.append(("Authors", ", ".join(info.authors)))
    rows += [("Audience", info.audience or audience), ("Edition", "internal"),
             ("Confidentiality", info.confidentiality or "not stated"),
             ("Input digest", f"sha256:{scope.digest}"),
             ("Status", status),
             ("Generated by", f"archgen {__version__} from {scope.subject}")]
    return rows


def approval_rows(info: DocumentInfo) -> list[tuple[str, str]]:
    """Who signed this revision off, and when, in the spec's order; the approvals of other revisions apart.

    An approval is this revision's where it names the document's stated `revision`; one naming another revision, or
    none ("approval names no revision", SPC006), is not, so a revision B copied from A with A's approval reads "not
    approved: no approval names revision B" (newuser87, diffpolish). Without a stated revision nothing is judged.
    """
    if not info.approvals:
        return []
    other = info.approvals_of()[1]
    return [("Approved by", info.approval_text())] + (
        [("Approvals of other revisions", "; ".join(a.text(info.revision) for a in other))] if other else [])


def conventions() -> Section:
    """SHALL/SHOULD/MAY, sourced/assumed, units and numbering."""
    return Section("conventions", "Conventions").add(
        Para("The key words SHALL, SHOULD and MAY state a requirement, a recommendation and an allowed option. A "
             "SHALL requirement that is not met fails validation; a SHOULD requirement that is not met is a "
             "warning."),
        Para("Each requirement and each catalog figure is tagged sourced (it cites a public document) or assumed "
             "(an engineering estimate to be confirmed). Assumed figures are listed under Open items."),
        Para("Quantities are SI with the unit in each column heading; power is the maximum (nameplate) draw "
             "unless stated; rack positions count rack units (U, 44.45 mm) upward from the bottom, 1-based."),
    )


def components_section(scope: Scope, counts: dict[str, int]) -> Section:
    """Key components with provenance: every part used, its count, sources and unconfirmed fields."""
    rows = []
    for part in scope.parts:
        unconfirmed = part.unconfirmed_fields()
        rows.append((part.id, part.name or part.id, part.kind, part.vendor or "—", counts.get(part.id),
                     "assumed" if unconfirmed else "sourced",
                     fields_said(unconfirmed) if unconfirmed else "—", Cite.of(part.source)))
    cols = (Column("Part"), Column("Name"), Column("Kind"), Column("Vendor"), Column("Qty", digits=0, align="right"),
            Column("Basis"), Column("Unconfirmed"), Column("Refs"))
    return Section("components", "Key components").add(
        Para("Every part comes from the catalog with its public sources, numbered as in the References. Parts "
             "with unconfirmed figures are tagged assumed; the fields concerned are listed."),
        Table("components", "Key components and provenance", cols, tuple(rows)))


def validation_section(scope: Scope) -> Section:
    """Every registered check with its result for this target, computed value against limit, and unconfirmed inputs."""
    findings = scope.findings()
    by_id: dict[str, list[Finding]] = {}
    for f in findings:
        by_id.setdefault(f.id, []).append(f)
    rows: list[tuple] = []
    anchors: list[str | None] = []
    skipped: list[str] = []
    racks = scope_racks(scope)
    clusters = scope_clusters(scope)
    halls = [h for c in clusters for h in (c.facility, *c.hall_facilities)] if clusters else None   # rack: its own
    single = scope.run.racks.get(scope.subject)
    shares = rack_shares(single, scope.run.design.specs, unconfirmed_optics_power(scope.run.clusters)) \
        if single is not None else None   # how much of a passed check's value is unconfirmed (`tables.marked`)
    judged_on = {(j.bound.req.id, j.bound.subject): j.bound.req.metric for j in scope.requirements()}
    for cid, chk in sorted(REGISTRY.items()):
        hits = by_id.pop(cid, [])
        if not hits and not applies(cid, scope.subjects, racks, halls):
            skipped.append(cid)
            continue
        if not hits:
            figures = rack_figures(cid, single) if single is not None else None
            value, limit = figures if figures else (None, None)
            share = getattr(shares, RACK_FIGURE_SHARES.get(cid, ""), CONFIRMED) if shares else CONFIRMED
            rows.append((cid, chk.summary, scope.subject if figures else "—", "pass",
                         _value(value, limit, marked(share)), _value(limit, limit), "—", ""))
            anchors.append(fmt.slug(f"check-{cid}"))
        for i, f in enumerate(hits):
            status = "waived" if f.waived else STATUS[f.severity]
            rows.append((cid, said(f), f.object, status, _found(f, judged_on),
                         _found(f, judged_on, limit=True), where(f.location), f.waived))
            anchors.append(fmt.slug(f"check-{cid}") if i == 0 else None)
    for cid, hits in sorted(by_id.items()):  # SPC002 and other findings without a registered function
        for f in hits:
            rows.append((cid, said(f), f.object,
                         "waived" if f.waived else STATUS[f.severity], "—", "—", where(f.location), f.waived))
            anchors.append(None)
    cols = (Column("Check"), Column("Result"), Column("Subject"), Column("Status"), Column("Computed"),
            Column("Limit"), Column("Location"), Column("Waiver"))
    n_pass, t = sum(1 for r in rows if r[3] == "pass"), tally(findings)
    section = Section("validation", "Validation report").add(
        Para(f"{len(REGISTRY) - len(skipped)} of the {len(REGISTRY)} checks apply to this target and the parts it "
             f"uses: {n_pass} passed with no finding; findings: {t['errors']} failing, {t['warnings']} warning, "
             f"{t['info']} info and {t['waived']} waived. A passed rack check shows the value it compared and its "
             f"limit."
             + (f" Not applicable, so not listed: {', '.join(skipped)} (they judge objects this target does not "
                f"have, such as fabrics, workloads, a liquid loop or a facility, or compare figures its specs do not "
                f"state, such as a liquid loop's pressure drop or the parts' airflow direction)." if skipped else "")),
        Table("validation", "Checks: computed value against limit", cols, tuple(rows), tuple(anchors),
              status_column=3))
    unconfirmed = [(p.id, p.kind, fields_said(p.unconfirmed_fields()), p.notes or "—")
                   for p in scope.parts if p.unconfirmed_fields()]
    unconfirmed += [(rack.id, "Rack", loop_said(at, group, named), group.notes or "—")
                    for rack, at, group, named in assumed_loops(racks)]
    if unconfirmed:
        section.sub("unconfirmed-inputs", "Unconfirmed inputs",
                    Para("These catalog figures could not be confirmed from a public source. Results that depend "
                         "on them are estimates."),
                    Table("unconfirmed", "Unconfirmed inputs", (Column("Part"), Column("Kind"), Column("Fields"),
                                                                 Column("Notes")), tuple(unconfirmed)))
    return section


def scope_racks(scope: Scope) -> list[Any]:
    """The `RackDesign`s a document covers: a rack document's rack, or the rack types a cluster document places."""
    racks = [r.rack for path, r in scope.run.racks.items() if path in scope.subjects]
    if racks:
        return racks
    return [r for c in scope_clusters(scope) for r in c.rack_types.values()]


def scope_clusters(scope: Scope) -> list[Any]:
    """The cluster a cluster document covers (none for a rack document)."""
    return [c for c in getattr(scope.run.design, "clusters", ()) if c.path == scope.subject]


def assumed_loops(racks: list[Any]) -> list[tuple[Any, str, MarkedFigures, tuple[str, ...]]]:
    """Each rack's figure groups that mark figures unconfirmed, with where they sit and those figures, by rack id.

    The liquid loop, air path and enclosure (COOL016, COOL017, MECH005), once per rack id.
    """
    specs = {r.spec.id: r.spec for r in racks}
    return [(spec, at, group, named) for _, spec in sorted(specs.items())
            for at, group, named in spec.assumed_figures()]


def said(f: Finding, lead: str = "") -> Worded:
    """A finding's message after `lead`, with the customer's words the check gave it (`Finding.public_message`)."""
    return Worded(lead + fmt.grouped_numbers(f.message), lead + fmt.grouped_numbers(f.public_message))


def fields_said(fields: list[str]) -> Worded:
    """A part's unconfirmed fields, by key for the team and in words for a customer (`field_words.said`)."""
    if fields == ["*"]:
        return Worded("all figures", "all figures")
    return Worded(", ".join(fields), ", ".join(map(field_words.said, fields)))


def loop_said(at: str, group: MarkedFigures, named: tuple[str, ...], form: str = ": {}") -> Worded:
    """A rack's assumed figure group ("cooling.air: class A2, delta_t 20 K"), and in a customer's words."""
    return Worded(at + form.format(fmt.grouped_numbers(group.stated(named))),
                  field_words.said(at) + form.format(fmt.grouped_numbers(group.stated(named, said=True))))


def _found(f: Finding, judged_on: dict[tuple[str, str], str], limit: bool = False) -> str:
    """A finding's value: a requirement's as its message and the compliance matrix show it, else `_value`.

    Its `limit` where asked: as `_value` writes it, but a cost per hour's as its value is, with its hour ('USD/h').
    """
    metric = judged_on.get((f.requirement, f.object)) if f.requirement else None
    m = metrics.lookup(f.object, metric) if metric else None
    q = f.limit if limit else f.value
    if m is not None and q is not None and m.accepts(q) and (m.money_rate or not limit):
        return fmt.metric_value(m, q)
    return _value(q, f.limit)


def _value(value: Any, like: Any, mark: Mark = plain) -> str:
    """A check's value or limit in the limit's unit; a mass or floor load whole, as the rack's tables show them.

    `mark`: how much of it is unconfirmed (`tables.marked`), after it in the same unit.
    """
    if value is None:
        return "—"
    if like is not None and not like.dimensionless and value.is_compatible_with(like):
        value = value.to(like.units)
    whole = not value.dimensionless and any(value.is_compatible_with(u) for u in ("kg", "kg/m**2"))
    text = fmt.q(value, digits=0 if whole else fmt.digits_for(value))
    noted = mark(value)
    return f"{text} ({noted.said(lambda v: _value(v, like))})" if isinstance(noted, fmt.Noted) else text


def open_items_section(scope: Scope, missing: list[str]) -> Section:
    """Open items and gaps: failing and warning findings, unconfirmed parts, unknown requirements, missing data."""
    items: list[str] = []
    for f in scope.findings():
        if f.severity in ("error", "warning") and not f.waived:
            items.append(said(f, f"{f.id} ({STATUS[f.severity]}): "))
    for part in scope.parts:
        power = getattr(part, "power", None)
        basis = getattr(power, "max_basis", "stated")
        if power is not None and basis != "stated":
            what = {"psu-rating": "a power-supply rating, not a draw: no published maximum draw was found, so the "
                                  "budgets that rest on it are upper bounds",
                    "psu-active": "the output of its active PSUs (the redundant ones left out), not a draw: no "
                                  "published maximum draw was found, so the budgets that rest on it are upper bounds",
                    }.get(basis, "a placeholder, not a published figure, so the budgets that rest on it are estimates")
            figure = f"{fmt.q(power.max, 'kW', 2)} is {what}."
            items.append(Worded(f"{part.id}: power.max {figure}", f"{part.id}: maximum power {figure}"))
        if part.unconfirmed_fields():
            items.append(OpenItem("confirm", part.id, fields_said(part.unconfirmed_fields()), "Confirm"))
    items += [OpenItem("confirm", rack.id, loop_said(at, group, named, " ({}), assumed"), "Confirm")
              for rack, at, group, named in assumed_loops(scope_racks(scope))]
    items += missing
    section = Section("open-items", "Open items and gaps")
    return section.add(Bullets(tuple(items)) if items else Para("None."))


def references_section() -> Section:
    """The numbered references: every source a table of the document cites (filled by `DocumentModel.number`)."""
    return Section("references", "References").add(
        Para("Sources cited in the tables by number ([n]), in the order of first citation."))
