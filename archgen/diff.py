"""Compare two runs of the pipeline: changed metrics, new and resolved findings, requirements that changed status.

`compare(base, head)` is pure: two `Run`s in, a frozen `Diff` out; `markdown` and `to_json` turn a `Diff` into the
text of a pull-request comment or the JSON contract. `spec_source` gives the spec directory of a BASE or HEAD
argument: a directory as it is, or the specs of a git revision exported to a temporary directory.
"""

from __future__ import annotations

import io
import math
import os
import subprocess
import tarfile
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from archgen import __version__
from archgen.checks import Finding
from archgen.checks.requirements import measured
from archgen.errors import Location, SpecError, UsageError
from archgen.load import shown, shown_file
from archgen.pipeline import Run
from archgen.render.fmt import md, number, unit_label
from archgen.report import quantity
from archgen.units import Q, json_text, relative_change

Status = Literal["met", "not met", "unknown"]

#: Default threshold of relative change below which a metric counts as unchanged (float noise): 0.1 %.
THRESHOLD = 0.001

#: Display units for metrics whose analysis unit reads badly in a table (bytes, FLOP/s); pint converts.
_DISPLAY = {"B": "GB", "FLOPS": "TFLOP/s", "W": "kW"}


@dataclass(frozen=True)
class MetricChange:
    """A metric of one object in BASE and HEAD; either side is None where the metric is absent."""

    object: str
    metric: str
    base: Q | None
    head: Q | None

    @property
    def change(self) -> Q | None:
        """HEAD minus BASE, or None where a side is missing or the dimensions differ."""
        if self.base is None or self.head is None or not self.head.is_compatible_with(self.base):
            return None
        return self.head - self.base.to(self.head.units)

    @property
    def relative(self) -> float | None:
        """(HEAD - BASE) / |BASE|, or None where BASE is zero, missing or of another dimension."""
        return None if self.base is None or self.head is None else relative_change(self.base, self.head)


@dataclass(frozen=True)
class RequirementState:
    """Whether one requirement of one object is met, from the REQ001/PERF001 findings of a run."""

    object: str
    requirement: str
    statement: str
    metric: str
    target: str
    level: str
    status: Status
    value: Q | None = None
    waived: str = ""


@dataclass(frozen=True)
class RequirementChange:
    """A requirement whose status differs between BASE and HEAD (None: the requirement is absent there)."""

    base: RequirementState | None
    head: RequirementState | None

    @property
    def key(self) -> tuple[str, str]:
        """(object, requirement id)."""
        s = self.head or self.base
        return (s.object, s.requirement)

    @property
    def failing(self) -> bool:
        """HEAD does not meet the requirement (unwaived) and BASE did, or did not have it."""
        return (self.head is not None and self.head.status == "not met" and not self.head.waived
                and (self.base is None or self.base.status != "not met"))


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

    @property
    def failing(self) -> bool:
        """A requirement newly fails, or HEAD has unwaived error findings (exit code 1)."""
        return self.head_errors > 0 or any(r.failing for r in self.requirements)

    def summary(self) -> dict:
        """Counts for the summary line and the JSON `summary`."""
        new = self.new_findings
        return {
            "metrics_changed": len(self.metrics),
            "objects_changed": len({m.object for m in self.metrics}),
            "objects_added": len(self.objects_added),
            "objects_removed": len(self.objects_removed),
            "findings_new": len(new),
            "findings_new_errors": sum(f.severity == "error" for f in new),
            "findings_resolved": len(self.resolved_findings),
            "requirements_failing": sum(r.failing for r in self.requirements),
            "requirements_met": sum(r.head is not None and r.head.status == "met" for r in self.requirements),
            "head_errors": self.head_errors,
            "failing": self.failing,
        }


def compare(base: Run, head: Run, *, threshold: float = THRESHOLD, base_label: str = "BASE",
            head_label: str = "HEAD") -> Diff:
    """The differences between two runs; relative metric changes below `threshold` are ignored."""
    added = tuple(sorted(set(head.metrics) - set(base.metrics)))
    removed = tuple(sorted(set(base.metrics) - set(head.metrics)))
    changes = []
    for obj in sorted(set(base.metrics) & set(head.metrics)):
        old, new = base.metrics[obj], head.metrics[obj]
        for name in sorted(set(old) | set(new)):
            c = MetricChange(obj, name, old.get(name), new.get(name))
            if _changed(c, threshold):
                changes.append(c)
    new_findings, resolved = match_findings(base.findings, head.findings)
    before, after = requirement_states(base), requirement_states(head)
    reqs = tuple(RequirementChange(before.get(k), after.get(k)) for k in sorted(set(before) | set(after))
                 if _status(before.get(k)) != _status(after.get(k)))
    return Diff(base_label, head_label, tuple(changes), added, removed, new_findings, resolved, reqs,
                len(head.errors))


def _status(state: RequirementState | None) -> str:
    return "absent" if state is None else state.status


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


def finding_key(f: Finding) -> tuple[str, str, str]:
    """Findings are matched by (check id, object, requirement): line numbers move between revisions."""
    return (f.id, f.object, f.requirement)


def match_findings(base: list[Finding], head: list[Finding]) -> tuple[tuple[Finding, ...], tuple[Finding, ...]]:
    """(new in HEAD, resolved in HEAD) among unwaived findings.

    Findings with the same key pair up, those with the same message first; the unpaired ones are new or resolved.
    """
    groups: dict[tuple, tuple[list[Finding], list[Finding]]] = defaultdict(lambda: ([], []))
    for f in base:
        if not f.waived:
            groups[finding_key(f)][0].append(f)
    for f in head:
        if not f.waived:
            groups[finding_key(f)][1].append(f)
    new: list[Finding] = []
    resolved: list[Finding] = []
    for old, cur in groups.values():
        left = list(old)
        unpaired = []
        for f in cur:
            same = next((i for i, g in enumerate(left) if g.message == f.message), None)
            if same is None:
                unpaired.append(f)
            else:
                left.pop(same)
        paired = min(len(left), len(unpaired))
        new.extend(unpaired[paired:])
        resolved.extend(left[paired:])
    return tuple(sorted(new, key=_finding_order)), tuple(sorted(resolved, key=_finding_order))


_SEVERITY = {"error": 0, "warning": 1, "info": 2}


def _finding_order(f: Finding) -> tuple:
    return (_SEVERITY.get(f.severity, 3), f.id, f.object, f.requirement, f.message)


def requirement_states(run: Run) -> dict[tuple[str, str], RequirementState]:
    """Every requirement of a run by (object, id): not met where a REQ001/PERF001 finding names it."""
    failed = {(f.object, f.requirement): f for f in run.findings if f.id in ("REQ001", "PERF001") and f.requirement}
    states: dict[tuple[str, str], RequirementState] = {}
    for b in run.design.requirements:
        value = measured(b, run.metrics, run.design)
        obj = b.subject or b.pattern  # a glob that matches no object stands for itself, as in REQ002
        states[(obj, b.req.id)] = _state(obj, b.req, value, value is not None, failed)
    for path, w in sorted(run.workloads.items()):
        for o in w.estimate.requirements if w.estimate else ():
            states[(path, o.requirement.id)] = _state(path, o.requirement, o.value, o.met is not None, failed)
    return states


def _state(obj: str, req, value: Q | None, known: bool, failed: dict) -> RequirementState:
    finding = failed.get((obj, req.id))
    status: Status = "not met" if finding else ("met" if known else "unknown")
    return RequirementState(obj, req.id, req.statement, req.metric, str(req.target), req.level, status, value,
                            finding.waived if finding else "")


# --- display ----------------------------------------------------------------------------------------------------


def display_unit(*values: Q | None) -> str:
    """The unit a metric is shown in: the analysis's own unit, or a readable one for B, FLOP/s and W."""
    q = next((v for v in reversed(values) if v is not None), None)
    if q is None:
        return ""
    unit = f"{q.units:~}" if not q.dimensionless else ""
    unit = _DISPLAY.get(unit, unit)
    if unit == "s" and all(v is None or abs(_magnitude(v.to("s"))) < 1 for v in values):
        unit = "ms"
    return unit


def _digits(*values: float) -> int:
    """Decimals that show four significant digits of the largest value."""
    big = max((abs(v) for v in values if v and math.isfinite(v)), default=0.0)
    return 0 if big == 0 else min(max(3 - math.floor(math.log10(big)), 0), 6)


def _num(value: float, digits: int, sign: bool = False) -> str:
    if math.isfinite(value) and float(value).is_integer() and abs(value) < 1e15:
        text = number(int(value))
    else:
        text = number(value, digits)
        if "." in text:
            text = text.rstrip("0").rstrip(".")
    return ("+" if sign and value > 0 else "") + text


def _in(q: Q | None, unit: str) -> float | None:
    if q is None:
        return None
    return _magnitude(q.to(unit)) if unit else _magnitude(q.to("dimensionless"))


def metric_cells(c: MetricChange) -> tuple[str, str, str, str]:
    """(base, head, change, relative change) as display text, both sides in the same display unit."""
    unit = display_unit(c.base, c.head)
    compatible = c.change is not None
    old = _in(c.base, unit) if compatible or c.head is None else None
    new = _in(c.head, unit)
    label = unit_label(unit) if unit else ""
    if not compatible and c.base is not None and c.head is not None:  # dimension changed: each in its own unit
        return (_with(_magnitude(c.base), f"{c.base.units:~P}"), _with(new, label), "—", "—")
    delta = new - old if old is not None and new is not None else None
    digits = _digits(*(v for v in (old, new) if v is not None))
    if delta:  # enough decimals that the change itself shows two significant digits
        digits = max(digits, min(max(1 - math.floor(math.log10(abs(delta))), 0), 6))
    shown = [("—" if v is None else (_num(v, digits) + (f" {label}" if label else ""))) for v in (old, new)]
    change = "—" if delta is None else _num(delta, digits, sign=True) + (f" {label}" if label else "")
    rel = c.relative
    pct = "—" if rel is None else f"{rel * 100:+.{2 if abs(rel) < 0.01 else 1}f} %"
    return (shown[0], shown[1], change, pct)


def _with(value: float | None, label: str) -> str:
    if value is None:
        return "—"
    return _num(value, _digits(value)) + (f" {label}" if label else "")


def _value(state: RequirementState | None) -> str:
    if state is None or state.value is None:
        return "—"
    unit = display_unit(state.value)
    return _with(_in(state.value, unit), unit_label(unit) if unit else "")


def summary_line(d: Diff) -> str:
    """One line: what changed, what is new, and whether HEAD passes."""
    s = d.summary()
    parts = [f"{s['metrics_changed']} metric(s) changed in {s['objects_changed']} object(s)"]
    if s["objects_added"] or s["objects_removed"]:
        parts.append(f"{s['objects_added']} object(s) added, {s['objects_removed']} removed")
    parts.append(f"{s['findings_new']} new finding(s) ({s['findings_new_errors']} error(s)), "
                 f"{s['findings_resolved']} resolved")
    parts.append(f"{s['requirements_failing']} requirement(s) newly failing, {s['requirements_met']} newly met")
    verdict = f"HEAD has {s['head_errors']} error finding(s)" if s["head_errors"] else "HEAD has no error findings"
    return "; ".join(parts) + f". {verdict}."


def _where(f: Finding) -> str:
    return f"`{shown(f.location)}`" if f.location else ""


def markdown(d: Diff) -> str:
    """The diff as a Markdown pull-request comment: summary, requirements, findings, metrics, objects."""
    icon = "❌" if d.failing else "✅"
    lines = [f"## archgen diff: `{shown_file(d.base_label)}` → `{shown_file(d.head_label)}`", "",
             f"{icon} {summary_line(d)}", ""]
    if d.requirements:
        lines += ["### Requirements", "", "| requirement | object | statement | target | base | head | value "
                  "(base → head) |", "|---|---|---|---|---|---|---|"]
        for r in d.requirements:
            s = r.head or r.base
            lines.append(f"| {s.requirement} | `{s.object}` | {md(s.statement)} | {md(s.target)} | "
                         f"{_status_cell(r.base)} | {_status_cell(r.head)} | {_value(r.base)} → {_value(r.head)} |")
        lines.append("")
    for title, found in (("New findings", d.new_findings), ("Resolved findings", d.resolved_findings)):
        if found:
            lines += [f"### {title}", "", "| severity | check | object | where | message |", "|---|---|---|---|---|"]
            lines += [f"| {f.severity} | {f.id} | `{f.object}` | {_where(f)} | {md(f.message)} |" for f in found]
            lines.append("")
    money = power_and_cost(d)
    if money:
        lines += ["### Power and cost", "", "| object | metric | base | head | change | relative |",
                  "|---|---|--:|--:|--:|--:|"]
        lines += [f"| `{c.object}` | {md(c.metric)} | " + " | ".join(metric_cells(c)) + " |" for c in money]
        lines.append("")
    if d.metrics:
        lines += ["### Metrics", ""]
        body = ["| object | metric | base | head | change | relative |", "|---|---|--:|--:|--:|--:|"]
        for c in d.metrics:
            old, new, change, rel = metric_cells(c)
            body.append(f"| `{c.object}` | {md(c.metric)} | {old} | {new} | {change} | {rel} |")
        if len(d.metrics) > 25:
            body = ["<details><summary>" f"{len(d.metrics)} changed metrics</summary>", ""] + body + ["", "</details>"]
        lines += body + [""]
    for title, objs in (("Objects added", d.objects_added), ("Objects removed", d.objects_removed)):
        if objs:
            lines += [f"**{title}:** " + ", ".join(f"`{o}`" for o in objs), ""]
    if not (d.metrics or d.requirements or d.new_findings or d.resolved_findings or d.objects_added
            or d.objects_removed):
        lines += ["No differences.", ""]
    return "\n".join(lines)


#: Metrics a pull request's power and cost delta is read from, shown together before the other metrics.
POWER_AND_COST = ("it_power", "power_average", "capex", "tco_per_year", "tco_per_accelerator_hour",
                  "cost_per_million_tokens")


def power_and_cost(d: Diff) -> list[MetricChange]:
    """The changed power and cost metrics, by object, power first."""
    return sorted((c for c in d.metrics if c.metric in POWER_AND_COST),
                  key=lambda c: (c.object, POWER_AND_COST.index(c.metric)))


def _status_cell(state: RequirementState | None) -> str:
    if state is None:
        return "absent"
    mark = {"met": "✅ met", "not met": "❌ not met", "unknown": "unknown"}[state.status]
    return f"{mark} (waived)" if state.waived else mark


def _finding_json(f: Finding) -> dict:
    loc = shown(f.location)
    return {"id": f.id, "severity": f.severity, "object": f.object, "file": loc.file if loc else None,
            "line": loc.line if loc else None, "column": loc.column if loc else None, "message": f.message,
            "value": quantity(f.value), "limit": quantity(f.limit), "requirement": f.requirement or None}


def _state_json(state: RequirementState | None) -> dict | None:
    if state is None:
        return None
    return {"status": state.status, "value": quantity(state.value), "waived": state.waived or None}


def to_json(d: Diff) -> str:
    """The diff in the JSON quantity contract (quantities as {"value", "unit"} in SI units)."""
    doc = {
        "archgen": __version__,
        "base": shown_file(d.base_label),
        "head": shown_file(d.head_label),
        "summary": d.summary() | {"line": summary_line(d)},
        "metrics": [{"object": c.object, "metric": c.metric, "base": quantity(c.base), "head": quantity(c.head),
                     "change": quantity(c.change), "relative": c.relative} for c in d.metrics],
        "objects": {"added": list(d.objects_added), "removed": list(d.objects_removed)},
        "findings": {"new": [_finding_json(f) for f in d.new_findings],
                     "resolved": [_finding_json(f) for f in d.resolved_findings]},
        "requirements": [{"object": (r.head or r.base).object, "requirement": (r.head or r.base).requirement,
                          "statement": (r.head or r.base).statement, "target": (r.head or r.base).target,
                          "level": (r.head or r.base).level, "base": _state_json(r.base),
                          "head": _state_json(r.head), "failing": r.failing} for r in d.requirements],
    }
    return json_text(doc, indent=2, ensure_ascii=False) + "\n"


# --- BASE and HEAD arguments ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """Where one side's specs are: the directory to run on, a label for the report, and how to show its files."""

    directory: Path
    label: str
    root: Path | None = None  # export directory that stands for the repository's top level
    top: Path | None = None   # the repository's top level

    def relocate(self, location: Location | None) -> Location | None:
        """A location in an exported revision as the path of the same file in the checkout, relative to cwd."""
        if location is None or self.root is None or self.top is None:
            return location
        try:
            inside = Path(location.file).relative_to(self.root)
        except ValueError:
            return location
        return replace(location, file=os.path.relpath(self.top / inside))


def relocate_run(run: Run, source: Source) -> Run:
    """The run with its findings' locations shown as files of the checkout rather than of the export."""
    if source.root is None:
        return run
    return replace(run, findings=[replace(f, location=source.relocate(f.location)) for f in run.findings])


def relocate_error(err: SpecError, source: Source) -> SpecError:
    """A spec error of an exported revision with its locations shown as files of the checkout."""
    if source.root is None:
        return err
    return type(err)([replace(p, location=source.relocate(p.location)) for p in err.problems])


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise UsageError("git is not installed, so BASE and HEAD must be directories") from None


@contextmanager
def spec_source(arg: str, path: str = "specs", cwd: Path | None = None) -> Iterator[Source]:
    """The specs named by a BASE or HEAD argument: a directory, or `path` in a git revision.

    A revision's `path` is exported with `git archive` into a temporary directory that is removed on exit; an
    existing directory wins over a revision of the same name. An unknown revision, a `path` missing from the
    revision or one that is not a directory there is a `UsageError`.
    """
    cwd = Path.cwd() if cwd is None else cwd
    if (cwd / arg).is_dir():
        yield Source(Path(arg), arg)
        return
    if (cwd / arg).exists():
        raise UsageError(f"{arg}: not a directory (BASE and HEAD are spec directories or git revisions)")
    top = _git(["rev-parse", "--show-toplevel"], cwd)
    if top.returncode != 0:
        raise UsageError(f"{arg}: no such directory, and {cwd} is not in a git repository")
    top_dir = Path(top.stdout.decode().strip())
    sha = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{arg}^{{commit}}"], cwd)
    if arg.startswith("-") or sha.returncode != 0:
        raise UsageError(f"{arg}: neither a directory nor a git revision")
    commit = sha.stdout.decode().strip()
    inside = Path(os.path.relpath((cwd / path).resolve(), top_dir.resolve()))
    if inside.parts[:1] == ("..",):
        raise UsageError(f"--path {path}: outside the git repository {top_dir}")
    label = f"{arg} ({commit[:7]})" if not commit.startswith(arg) else commit[:7]
    with tempfile.TemporaryDirectory(prefix="archgen-diff-") as tmp:
        root = Path(tmp)
        tar = _git(["archive", "--format=tar", commit, "--", inside.as_posix()], top_dir)
        if tar.returncode != 0:
            raise UsageError(f"{path}: not in revision {arg}")
        with tarfile.open(fileobj=io.BytesIO(tar.stdout)) as archive:
            try:
                archive.extractall(root, filter="data")
            except tarfile.FilterError as err:  # a link out of the tree, an absolute path, a device file
                member = getattr(err, "tarinfo", None)
                name = member.name if member is not None else "a file"
                target = f" -> {member.linkname}" if member is not None and member.linkname else ""
                raise UsageError(f"revision {arg}: {name}{target} points outside the specs; archgen reads no file "
                                 "outside the exported tree") from None
        if not (root / inside).is_dir():
            raise UsageError(f"{path}: not a directory in revision {arg}")
        yield Source(root / inside, label, root, top_dir)
