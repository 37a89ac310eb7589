"""Gap reports: a vendor's proposal judged against our requirements, one row per requirement and object.

`gap(proposal, against)` runs the pipeline once (`pipeline.run`) on the proposal's specs and our `Requirements`
documents together. Our requirements bind to the proposal's objects as in `archgen check` (a glob subject such as
``rack/*`` once per object it matches), and `judge` turns each bound requirement into a `Row`: met, not met, or not
provided (no object matches, the object lacks the metric, or the metric has another dimension), with the proposal's
value and its margin to the limit. The proposal's own findings (its power not closing, a dangling reference) are
gaps too and come with the report. `markdown` and `to_json` render a `Gap`; nothing here prints.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from archgen import __version__
from archgen.checks import Finding
from archgen.checks.registry import object_path, waiver
from archgen.checks.requirements import measured, unjudged
from archgen.errors import Location, UsageError
from archgen.load import find_files, load_paths, shown_file
from archgen.load import shown as shown_location
from archgen.model.requirements import Requirement
from archgen.pipeline import Run, run
from archgen.render import fmt
from archgen.report import finding_json, quantity
from archgen.units import Q, json_text

Status = Literal["met", "not met", "not provided"]
STATUSES: tuple[Status, ...] = ("met", "not met", "not provided")
LEVELS = ("shall", "should", "may")

#: The checks whose findings about our requirements are the rows themselves, so not listed again as findings.
_ROW_CHECKS = ("REQ001", "REQ002")


@dataclass(frozen=True)
class Row:
    """One requirement judged on one object of the proposal."""

    requirement: Requirement
    subject: str                 # the object judged; the glob itself where it matches no object
    status: Status
    value: Q | None = None       # the proposal's value of the metric (None: not provided)
    pattern: str = ""            # the glob the subject matched, "" for an exact subject
    location: Location | None = None  # where the requirement is written
    note: str = ""               # why the value is not provided
    waived: str = ""             # our requirements document waives the check that judges this row

    @property
    def headroom(self) -> Q | None:
        """Signed distance to the limit in the limit's unit, positive inside the target (`Target.headroom`)."""
        return None if self.value is None else self.requirement.target.headroom(self.value)

    @property
    def margin(self) -> float | None:
        """Headroom relative to the limit (`Target.margin`); None where not provided or not defined."""
        return None if self.value is None else self.requirement.target.margin(self.value)

    @property
    def failing(self) -> bool:
        """A SHALL requirement not met or not provided, and not waived: the report fails (exit code 1)."""
        return self.requirement.level == "shall" and self.status != "met" and not self.waived


@dataclass(frozen=True)
class Gap:
    """The proposal against our requirements: the rows, the proposal's own findings and the objects it holds."""

    proposal: tuple[str, ...]
    against: tuple[str, ...]
    rows: tuple[Row, ...]
    findings: tuple[Finding, ...]
    objects: tuple[str, ...]

    @property
    def errors(self) -> list[Finding]:
        """The proposal's unwaived error findings."""
        return [f for f in self.findings if f.severity == "error" and not f.waived]

    @property
    def failing(self) -> bool:
        """A SHALL requirement is not met or not provided, or the proposal has error findings (exit code 1)."""
        return bool(self.errors) or any(r.failing for r in self.rows)

    def summary(self) -> dict:
        """Counts for the summary line and the JSON `summary`."""
        live = [f for f in self.findings if not f.waived]
        by_level = {level: {_key(s): sum(r.status == s for r in rows) for s in STATUSES}
                    for level in LEVELS if (rows := [r for r in self.rows if r.requirement.level == level])}
        return {
            "requirements": len({(r.requirement.id, r.location) for r in self.rows}),
            "rows": len(self.rows),
            **{_key(s): sum(r.status == s for r in self.rows) for s in STATUSES},
            "by_level": by_level,
            "waived": sum(bool(r.waived) for r in self.rows),
            "failing_rows": sum(r.failing for r in self.rows),
            "errors": sum(f.severity == "error" for f in live),
            "warnings": sum(f.severity == "warning" for f in live),
            "objects": len(self.objects),
            "failing": self.failing,
        }


def _key(status: str) -> str:
    return status.replace(" ", "_")


# --- running ----------------------------------------------------------------------------------------------------


def gap(proposal: Sequence[str | Path], against: Sequence[str | Path]) -> Gap:
    """Run the proposal with our requirements and judge every requirement on the proposal's objects.

    `against` holds only `Requirements` documents (a facility or parts we prescribe go into `proposal`); a file
    under both belongs to `against`. A missing path, no Requirements document, another kind among them, or a
    proposal without spec files is a `UsageError`; unreadable YAML raises `UnreadableError`, and schema errors in
    either side `SpecError`, as in `archgen check`.
    """
    ours = find_files(against)
    if not ours:
        raise UsageError(f"--against {_names(against)}: no .yaml/.yml files")
    docs = load_paths(ours)
    others = [d for d in docs if d.kind != "Requirements"]
    if others:
        d = others[0]
        raise UsageError(f"--against takes only Requirements documents, found kind '{d.kind}' (id '{d.id}'); give "
                         "racks, clusters, parts and facilities as PROPOSAL", d.locate(("kind",)))
    if not docs:
        raise UsageError(f"--against {_names(against)}: no Requirements document")
    mine = {f.resolve() for f in ours}
    given = find_files(proposal)
    theirs = [f for f in given if f.resolve() not in mine]
    if not theirs:
        raise UsageError(f"{_names(proposal)}: " + (
            "no .yaml/.yml files in the proposal" if not given else
            f"every spec file of the proposal is also under --against {_names(against)}, which holds our "
            "requirements; give the vendor's racks, clusters and parts as PROPOSAL"))
    result = run([*theirs, *ours])
    return judge(result, {d.id for d in docs}, {f.resolve() for f in theirs},
                 tuple(str(p) for p in proposal), tuple(str(p) for p in against))


def _names(paths: Sequence[str | Path]) -> str:
    return " ".join(str(p) for p in paths)


def judge(result: Run, owners: Collection[str], proposal_files: Collection[Path], proposal: tuple[str, ...] = (),
          against: tuple[str, ...] = ()) -> Gap:
    """The gap report of a run: a row for each requirement of the `owners` documents on each object it binds to.

    The findings are the run's, less those of REQ001/REQ002 about the owners' requirements (they are the rows);
    the objects are those of the documents in `proposal_files` with the fabrics of its clusters.
    """
    specs = result.specs
    rows = []
    for b in result.design.requirements:
        if b.owner not in owners:
            continue
        problem = unjudged(b, result.metrics, result.design)
        value = measured(b, result.metrics, result.design)
        status: Status = ("not provided" if problem or value is None
                          else "met" if b.req.target.met_by(value) else "not met")
        check = "REQ002" if status == "not provided" else "REQ001"
        found = waiver(specs.get(b.owner), (check,), b.subject or b.pattern or b.owner)
        waived = found[1] if found else ""
        rows.append(Row(b.req, b.subject or b.pattern, status, value, b.pattern, specs.locate(b.owner, b.path),
                        problem[1] if problem else "", waived if status != "met" else ""))
    rows.sort(key=lambda r: (r.requirement.id, r.subject, r.location or Location("")))
    files = {p.resolve() for p in proposal_files}
    own = {str(specs.locate(doc_id).file) for doc_id in owners if specs.locate(doc_id)}
    findings = tuple(f for f in result.findings
                     if not (f.id in _ROW_CHECKS and f.location is not None and f.location.file in own))
    objects = {object_path(doc) for doc_id, doc in specs.items.items()
               if Path(specs.sources[doc_id].file).resolve() in files}
    objects |= {fab.path for c in result.design.clusters if c.path in objects for fab in c.fabrics}
    return Gap(proposal, against, tuple(rows), tuple(sorted(findings, key=_finding_order)), tuple(sorted(objects)))


_SEVERITY = {"error": 0, "warning": 1, "info": 2}


def _finding_order(f: Finding) -> tuple:
    return (_SEVERITY.get(f.severity, 3), f.id, f.object, f.location or Location(""), f.message)


# --- display ----------------------------------------------------------------------------------------------------


def _digits(row: Row, q: Q) -> int:
    """Decimals for the value and the headroom of a row.

    The table's usual ones, or more so that a small headroom shows two significant digits (0.9961 against
    ``<= 1``, not 1.00).
    """
    digits = fmt.digits_for(q)
    mag = abs(float(_tidy(row.headroom).magnitude)) if row.headroom is not None else 0.0
    if not mag or not math.isfinite(mag) or mag.is_integer():
        return digits
    return max(digits, min(max(1 - math.floor(math.log10(mag)), 0), 6))


def _tidy(q: Q) -> Q:
    """The quantity with its magnitude at 12 significant digits, so that 18.000000000000004 U shows as 18 U."""
    return q.__class__(float(f"{float(q.magnitude):.12g}"), q.units)


def shown(row: Row) -> str:
    """The proposal's value in the target's unit (as the compliance matrix shows it), or '—'."""
    if row.value is None:
        return "—"
    limit = row.requirement.target.limit
    value = _tidy(row.value if limit.dimensionless else row.value.to(limit.units))
    return fmt.q(value, digits=_digits(row, value))


def margin_text(row: Row) -> str:
    """``+6.7 % (+3 kW)``: the relative margin and the headroom; only the headroom where no ratio is defined."""
    if row.headroom is None:
        return "—"
    head = _tidy(row.headroom)
    absolute = ("+" if float(head.magnitude) > 0 else "") + fmt.q(head, digits=_digits(row, head))
    m = row.margin
    if m is None:
        return absolute
    rel = "0 %" if m == 0 else f"{m * 100:+.{2 if abs(m) < 0.01 else 1}f} %"
    return f"{rel} ({absolute})"


def summary_line(g: Gap) -> str:
    """One line: the rows by status and level, and the proposal's own findings."""
    s = g.summary()
    counts = ", ".join(f"{s[_key(st)]} {st}" for st in STATUSES)
    levels = "; ".join(f"{level.upper()}: " + ", ".join(f"{n} {st.replace('_', ' ')}" for st, n in c.items() if n)
                       for level, c in s["by_level"].items())
    text = f"{s['rows']} result(s) of {s['requirements']} requirement(s): {counts}"
    text += f" ({levels})" if levels else ""
    text += f". The proposal has {s['errors']} error and {s['warnings']} warning finding(s)"
    if s["waived"]:
        text += f"; {s['waived']} result(s) waived"
    return text + "."


def markdown(g: Gap) -> str:
    """The report as Markdown for a partner: summary, requirements, what is not provided, findings, objects."""
    icon = "❌" if g.failing else "✅"
    title = (f"## archgen gap: `{' '.join(map(shown_file, g.proposal)) or 'proposal'}` against "
             f"`{' '.join(map(shown_file, g.against)) or 'requirements'}`")
    lines = [title, "", f"{icon} {summary_line(g)}", ""]
    if g.rows:
        lines += ["### Requirements", "",
                  "| requirement | level | subject | statement | target | proposal | status | margin |",
                  "|---|---|---|---|---|--:|---|--:|"]
        for r in g.rows:
            req = r.requirement
            subject = f"`{r.subject}`" if r.subject else "—"
            lines.append(f"| {req.id} | {req.level.upper()} | {subject} | {fmt.md(req.statement)} | "
                         f"{fmt.md(req.target)} | {shown(r)} | {_status_cell(r)} | {margin_text(r)} |")
        lines.append("")
        missing = [r for r in g.rows if r.status == "not provided"]
        if missing:
            lines += ["**Not provided:**", ""]
            lines += [f"- {r.requirement.id}" + (f" on `{r.subject}`" if r.subject else "") + f": {fmt.md(r.note)}"
                      for r in missing]
            lines.append("")
    else:
        lines += ["No requirements.", ""]
    live = [f for f in g.findings if not f.waived]
    if live:
        lines += ["### Findings of the proposal", "", "| severity | check | object | where | message |",
                  "|---|---|---|---|---|"]
        lines += [f"| {f.severity} | {f.id} | `{f.object}` | "
                  f"{f'`{shown_location(f.location)}`' if f.location else ''} | {fmt.md(f.message)} |" for f in live]
        lines.append("")
    if g.objects:
        lines += [f"### Objects in the proposal ({len(g.objects)})", ""]
        groups: dict[str, list[str]] = {}
        for o in g.objects:
            groups.setdefault("fabric" if "/fabric/" in o else o.split("/", 1)[0], []).append(o)
        lines += [f"- {kind} ({len(objs)}): " + ", ".join(f"`{o}`" for o in objs)
                  for kind, objs in sorted(groups.items())]
        lines.append("")
    return "\n".join(lines)


_MARK = {"met": "✅ met", "not met": "❌ not met", "not provided": "❓ not provided"}


def _status_cell(r: Row) -> str:
    return f"{_MARK[r.status]} (waived: {fmt.md(r.waived.strip())})" if r.waived else _MARK[r.status]


def _row_json(r: Row) -> dict:
    req, loc = r.requirement, shown_location(r.location)
    return {"requirement": req.id, "statement": req.statement, "level": req.level, "basis": req.basis,
            "source": req.source or None, "subject": r.subject, "pattern": r.pattern or None, "metric": req.metric,
            "target": str(req.target), "op": req.target.op, "limit": quantity(req.target.limit),
            "value": quantity(r.value), "status": r.status, "margin": r.margin, "headroom": quantity(r.headroom),
            "note": r.note or None, "waived": r.waived.strip() or None, "failing": r.failing,
            "file": loc.file if loc else None, "line": loc.line if loc else None,
            "column": loc.column if loc else None}


def to_json(g: Gap) -> str:
    """The report in the JSON quantity contract (quantities as {"value", "unit"} in SI units)."""
    doc = {
        "archgen": __version__,
        "proposal": [shown_file(p) for p in g.proposal],
        "against": [shown_file(p) for p in g.against],
        "summary": g.summary() | {"line": summary_line(g)},
        "rows": [_row_json(r) for r in g.rows],
        "findings": [finding_json(f) for f in g.findings],
        "objects": list(g.objects),
    }
    return json_text(doc, indent=2, ensure_ascii=False) + "\n"
