"""The check registry: `@check("PWR001", ...)`, violations, findings, and the runner that stamps them.

A check yields `Violation`s (what and where in spec terms); the runner adds the ID, severity and summary from the
registry and the file:line from the source map, producing frozen `Finding`s. Checks never know about files.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from archgen.build import Design
from archgen.errors import Location
from archgen.units import Q

Severity = Literal["error", "warning", "info"]
ID_RE = re.compile(r"^[A-Z]{2,4}[0-9]{3}$")


@dataclass(frozen=True)
class Context:
    """What checks read: the design, the per-rack and per-cluster analyses, and the metrics by object path."""

    design: Design
    racks: dict
    metrics: dict[str, dict[str, Q]]
    clusters: dict = field(default_factory=dict)
    workloads: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Violation:
    """A check's raw result: the object, the spec document and field it is about, and the numbers."""

    subject: str
    owner: str
    path: tuple = ()
    message: str = ""
    measured: Q | None = None
    limit: Q | None = None
    requirement: str = ""
    severity: Severity | None = None


@dataclass(frozen=True)
class Finding:
    """A located, identified result of a check."""

    id: str
    severity: Severity
    object: str
    location: Location | None
    message: str
    summary: str
    hint: str
    value: Q | None = None
    limit: Q | None = None
    requirement: str = ""
    waived: str = ""


@dataclass(frozen=True)
class Check:
    """A registered check."""

    id: str
    name: str
    severity: Severity
    func: Callable[[Context], Iterator[Violation]]
    aliases: tuple[str, ...] = ()

    @property
    def summary(self) -> str:
        """First line of the docstring."""
        return (self.func.__doc__ or "").strip().splitlines()[0]

    @property
    def fix(self) -> str:
        """The `Fix:` paragraph of the docstring."""
        doc = (self.func.__doc__ or "").split("Fix:", 1)
        return " ".join(doc[1].split()) if len(doc) == 2 else ""


#: IDs that are not produced by a registered function (schema errors and registry hygiene), with their summaries.
RESERVED = {"SPC000": "Spec file cannot be read as YAML (syntax, encoding, size, alias expansion)",
            "SPC001": "Spec does not match the schema or has a unit error",
            "SPC002": "Unused waiver"}
#: Severity of each reserved ID's findings.
RESERVED_SEVERITY: dict[str, Severity] = {"SPC000": "error", "SPC001": "error", "SPC002": "warning"}

REGISTRY: dict[str, Check] = {}


def check(check_id: str, name: str, *, severity: Severity = "error", aliases: tuple[str, ...] = ()) -> Callable:
    """Register a check function under a stable ID; an ID can never be registered twice."""
    if not ID_RE.match(check_id):
        raise ValueError(f"check id {check_id!r} does not match {ID_RE.pattern}")

    def register(func: Callable[[Context], Iterator[Violation]]) -> Callable[[Context], Iterator[Violation]]:
        if check_id in REGISTRY:
            raise ValueError(f"check id {check_id} registered twice")
        REGISTRY[check_id] = Check(check_id, name, severity, func, aliases)
        return func

    return register


def selected(check_id: str, select: tuple[str, ...], ignore: tuple[str, ...]) -> bool:
    """flake8-style selection by ID or prefix."""
    if select and not any(check_id.startswith(s) for s in select):
        return False
    return not any(check_id.startswith(s) for s in ignore)


def run_checks(ctx: Context, select: tuple[str, ...] = (), ignore: tuple[str, ...] = ()) -> list[Finding]:
    """Run every selected check and return findings sorted by file, line and ID."""
    specs = ctx.design.specs
    findings: list[Finding] = []
    used_waivers: set[tuple[str, int]] = set()
    for chk in sorted(REGISTRY.values(), key=lambda c: c.id):
        if not selected(chk.id, select, ignore):
            continue
        for v in chk.func(ctx):
            owner = specs.get(v.owner)
            used = _waivers(owner, chk.id)
            used_waivers.update((v.owner, i) for i in used)
            reason = owner.waivers[used[-1]].reason if owner is not None and used else ""
            findings.append(Finding(chk.id, v.severity or chk.severity, v.subject, specs.locate(v.owner, v.path),
                                    v.message or chk.summary, chk.summary, chk.fix, v.measured, v.limit,
                                    v.requirement, reason))
    if selected("SPC002", select, ignore):
        for doc_id, doc in sorted(specs.items.items()):
            for i, w in enumerate(doc.waivers):
                if (doc_id, i) not in used_waivers and selected(w.check, select, ignore):
                    findings.append(Finding("SPC002", RESERVED_SEVERITY["SPC002"], object_path(doc),
                                            specs.locate(doc_id, ("waivers", i)),
                                            f"waiver of {w.check} matches no finding", RESERVED["SPC002"],
                                            "Remove the waiver."))
    return sorted(findings, key=lambda f: (f.location or Location(""), f.id, f.object))


def _waivers(doc: object, check_id: str) -> list[int]:
    """Positions of the waivers of `doc` that waive check `check_id` (by its ID or one of its aliases)."""
    chk = REGISTRY.get(check_id)
    names = {check_id, *(chk.aliases if chk else ())}
    return [i for i, w in enumerate(getattr(doc, "waivers", ())) if w.check in names]


def waiver(doc: object, check_id: str) -> str:
    """The reason `doc` gives for waiving check `check_id` (honouring its aliases), or "".

    The one rule of waivers: `run_checks` and `archgen gap` apply it.
    """
    used = _waivers(doc, check_id)
    return doc.waivers[used[-1]].reason if used else ""  # type: ignore[attr-defined]


def object_path(doc: object) -> str:
    """Stable object path of a document: ``rack/<id>``, ``part/<id>``, ``facility/<id>``, ``cluster/<id>``."""
    from archgen.model import Part
    kind = "part" if isinstance(doc, Part) else type(doc).__name__.lower()
    return f"{kind}/{getattr(doc, 'id', '')}"
