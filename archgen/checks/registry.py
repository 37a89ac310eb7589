"""The check registry: `@check("PWR001", ...)`, violations, findings, and the runner that stamps them.

A check yields `Violation`s (what and where in spec terms); the runner adds the ID, severity and summary from the
registry and the file:line from the source map, producing frozen `Finding`s. Checks never know about files.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from archgen import __version__
from archgen.analyse.operations import Operations
from archgen.as_of import AsOf, expired, judging
from archgen.binding import is_pattern, matches
from archgen.build import Design
from archgen.cache import Memo
from archgen.errors import InternalError, Location
from archgen.model.deliverable import DocumentInfo
from archgen.model.moved import moved_since
from archgen.units import Q
from archgen.validate import Specs
from archgen.waivers import WaiverIndex, object_path, waiver, waiver_index, waiver_subject

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
    operations: Operations = field(default_factory=Operations)  # reliability and cost (analyse.operations_stage)
    requirements: tuple = ()  # every requirement judged once (`checks.judgement.judge_all`)
    as_of: AsOf | None = None  # `--as-of`: the date waivers' `expires` is judged on (`as_of.resolve`)


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
    #: The same fact in the customer's words where `message` quotes a spec key or tells the team what to state or run
    #: ("power factor not stated" for "... (power.feeds.power_factor) ...; state `power_factor` ..."); "" where the
    #: message already is what a customer reads (`Finding.public_message`).
    public: str = ""
    #: The object path of the fabric whose infeasible topology this finding follows from, where that is its cause
    #: and not only one of its causes (CAB007 on a fabric its switches cannot build); "" otherwise (`checks.cascade`).
    follows: str = ""


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
    #: The finding this one most likely follows from (`checks.cascade`): a REF finding, "REF001 rack/r: 'q340'", or an
    #: infeasible fabric's error, "NET018 cluster/c/fabric/f"; "" if none.
    caused_by: str = ""
    #: The field of its document the finding is about, as a key path (`core.rack`, `waivers.REQ001.rack/r`): what
    #: tells two findings of one check on one object apart, unlike the line, which moves with unrelated edits (the
    #: SARIF fingerprint, `output.findings.fingerprints`). "" for the document as a whole.
    key: str = ""
    #: The customer edition's words for `message`, as the check wrote them (`Violation.public`); "" where they are the
    #: message's own. Read through `public_message`.
    public: str = ""
    #: `Violation.follows`: the fabric whose infeasibility the check said this follows from, or "".
    follows: str = ""
    #: A requirement's finding: where its subject is stated (`Specs.place`; SARIF's second place, README).
    judged: Location | None = None

    @property
    def public_message(self) -> str:
        """The message as a customer reads it: no spec key, path or instruction to the design team."""
        return self.public or self.message


def tally(findings: Iterable[Finding]) -> dict[str, int]:
    """Findings by what they count as: unwaived errors, warnings and info, and waived ones of any severity.

    The one count that `check`'s text and JSON summaries and the documents' status line and validation report
    read, so that they agree.
    """
    out = {"errors": 0, "warnings": 0, "info": 0, "waived": 0}
    for f in findings:
        out["waived" if f.waived else {"error": "errors", "warning": "warnings", "info": "info"}[f.severity]] += 1
    return out


@dataclass(frozen=True)
class Check:
    """A registered check."""

    id: str
    name: str
    severity: Severity
    func: Callable[[Context], Iterator[Violation]]
    aliases: tuple[str, ...] = ()

    @functools.cached_property   # a finding asks twice, and the docstring is the function's: read once (as `fix`)
    def summary(self) -> str:
        """First line of the docstring."""
        return (self.func.__doc__ or "").strip().splitlines()[0]

    @property
    def severity_note(self) -> str:
        """The `Severity:` paragraph of the docstring (where a finding's severity is not always the check's), or ""."""
        doc = (self.func.__doc__ or "").split("Severity:", 1)
        return " ".join(doc[1].split("\n\n", 1)[0].split()) if len(doc) == 2 else ""

    @functools.cached_property
    def fix(self) -> str:
        """The `Fix:` paragraph of the docstring."""
        doc = (self.func.__doc__ or "").split("Fix:", 1)
        return " ".join(doc[1].split()) if len(doc) == 2 else ""


#: IDs that are not produced by a registered function (schema errors and registry hygiene), with their summaries.
RESERVED = {"SPC000": "Spec file cannot be read as YAML (syntax, encoding, size, alias expansion)",
            "SPC001": "Spec does not match the schema or has a unit error",
            "SPC002": "Unused waiver",
            "SPC003": "Spec key or metric under a name since renamed (the old name still works, for now)",
            "SPC004": "Expired waiver (its findings count again)",
            "SPC005": "Defaults moved since the archgen a spec states it was written for (requires_archgen)",
            "SPC006": "An approval names no revision while its document states one (it approves none)"}
#: Severity of each reserved ID's findings.
RESERVED_SEVERITY: dict[str, Severity] = {"SPC000": "error", "SPC001": "error", "SPC002": "warning", "SPC003":
                                          "warning", "SPC004": "warning", "SPC005": "info", "SPC006": "warning"}

REGISTRY: dict[str, Check] = {}


def check(check_id: str, name: str, *, severity: Severity = "error", aliases: tuple[str, ...] = ()) -> Callable:
    """Register a check function under a stable ID; an ID can never be registered twice."""
    if not ID_RE.match(check_id):
        raise InternalError(f"check id {check_id!r} does not match {ID_RE.pattern}")

    def register(func: Callable[[Context], Iterator[Violation]]) -> Callable[[Context], Iterator[Violation]]:
        if check_id in REGISTRY:
            raise InternalError(f"check id {check_id} registered twice")
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
    unwaived: dict[tuple[str, str], dict[str, set[str]]] = {}  # (owner, check) -> subject -> requirements unwaived
    indexes: dict[str, WaiverIndex] = {}  # owner -> its waivers by (check, requirement) (`waiver_index`)
    on = judging(specs.items.values(), ctx.as_of)
    for chk in _chosen(select, ignore):
        for v in chk.func(ctx):
            if v.owner not in indexes:
                indexes[v.owner] = waiver_index(specs.get(v.owner))
            found = waiver(specs.get(v.owner), (chk.id, *chk.aliases), v.subject, v.requirement, on, indexes[v.owner])
            if found is not None:
                used_waivers.add((v.owner, found[0]))
            else:
                unwaived.setdefault((v.owner, chk.id), {}).setdefault(v.subject, set()).add(v.requirement)
            findings.append(Finding(chk.id, v.severity or chk.severity, v.subject, specs.locate(v.owner, v.path),
                                    v.message or chk.summary, chk.summary, chk.fix, v.measured, v.limit,
                                    v.requirement, found[1] if found else "", key=specs.key(v.owner, v.path),
                                    public=v.public, follows=v.follows,
                                    judged=specs.place(v.subject) if v.requirement else None))
    if selected("SPC002", select, ignore):
        for doc_id, doc in sorted(specs.items.items()):
            for i, w in enumerate(doc.waivers):
                if (doc_id, i) not in used_waivers and selected(w.check, select, ignore) and not expired(w, on):
                    unused = (f"waiver of {w.check} for {waiver_subject(doc, w)} matches no finding"
                              f"{f' about {w.requirement}' if w.requirement else ''}")
                    findings.append(Finding("SPC002", RESERVED_SEVERITY["SPC002"], object_path(doc),
                                            specs.locate(doc_id, ("waivers", i)),
                                            unused + _unused_hint(doc, w, unwaived.get((doc_id, w.check), {})),
                                            RESERVED["SPC002"], "Remove the waiver, or set its `subject` to the "
                                            "object path of the finding and its `requirement` to the id of the "
                                            "requirement the finding is about.",
                                            key=_waiver_key(doc, w), public=unused))
    if on is not None and selected("SPC004", select, ignore):
        findings.extend(_expired(specs, on, select, ignore))
    if selected("SPC005", select, ignore):
        findings.extend(_moved_defaults(specs, {path: getattr(r, "vendor", "") for path, r in ctx.workloads.items()}))
    if selected("SPC006", select, ignore):
        findings.extend(_unnamed_approvals(specs))
    if selected("SPC003", select, ignore):
        for moved in specs.renamed:
            owner = specs.get(moved.owner)
            findings.append(Finding("SPC003", RESERVED_SEVERITY["SPC003"], object_path(owner) if owner else moved.owner,
                                    moved.location, moved.text, RESERVED["SPC003"], moved.hint, key=moved.old))
    return sorted(findings, key=lambda f: (f.location or Location(""), f.id, f.object))


def _chosen(select: tuple[str, ...], ignore: tuple[str, ...]) -> tuple[Check, ...]:
    """The registered checks `selected` by `select` and `ignore`, by id.

    Sorted and selected once while the registry holds the same checks (each run sorted all ~150 again, fuzzpipe37).
    """
    known = _CHOSEN.get((select, ignore))
    if known is not None and known[0] == REGISTRY:
        return known[1]
    return _CHOSEN.put((select, ignore), (dict(REGISTRY), tuple(
        c for c in sorted(REGISTRY.values(), key=lambda c: c.id) if selected(c.id, select, ignore))))[1]


#: `_chosen`'s answers by selection, each with the registry it was chosen from.
_CHOSEN = Memo[tuple[dict[str, Check], tuple[Check, ...]]](64)


def _moved_defaults(specs: Specs, vendors: dict[str, str], version: str = __version__) -> Iterator[Finding]:
    """SPC005 at each `requires_archgen` older than `version`: the defaults moved since that the document leaves out.

    One finding per document, listing every move of its kind made after the release it states (`model.moved`) whose
    key it does not state: a team upgrading sees which of its unstated knobs now mean something else. A move for
    one maker's parts (`Moved.vendor`) is left out for a workload estimated on another's (`vendors`, by path).
    """
    for stated in specs.versions:
        doc = specs.get(stated.owner)
        path = object_path(doc)
        moves = [m for m in moved_since(type(doc).__name__, stated.version, version) if _unstated(doc, m.key)
                 and m.vendor in ("", vendors.get(path, m.vendor))]
        if not moves:
            continue
        yield Finding("SPC005", RESERVED_SEVERITY["SPC005"], path, stated.location,
                      f"written for archgen {stated.version} (requires_archgen), read by {version}: "
                      f"{len(moves)} default(s) moved since that this document leaves unstated, so they now mean "
                      "something else: " + "; ".join(m.text for m in moves), RESERVED["SPC005"],
                      "state each key named with the value the spec was written for (docs/upgrading.md, Defaults "
                      f"that moved), then raise requires_archgen to '>={version}'", key="requires_archgen")


def _unnamed_approvals(specs: Specs) -> Iterator[Finding]:
    """SPC006 at each approval naming no revision in a document that states one: it approves no revision (diffpolish).

    Approvals written before they could name a revision name none; a revision B copied from A would otherwise read as
    approved by A's sign-off. A document stating no revision has nothing to judge an approval by: no finding.
    """
    for doc_id, doc in sorted(specs.items.items()):
        # only clusters and racks have one: asking every part for it raised and caught an AttributeError in pydantic
        info = getattr(doc, "document", None) if "document" in type(doc).model_fields else None
        if not isinstance(info, DocumentInfo) or not info.revision:
            continue
        for i, a in enumerate(info.approvals):
            if not a.revision:
                yield Finding("SPC006", RESERVED_SEVERITY["SPC006"], object_path(doc),
                              specs.locate(doc_id, ("document", "approvals", i)),
                              f"approval by {a.text()} names no revision; the document states revision "
                              f"{info.revision}, so it is not printed as this revision's approval",
                              RESERVED["SPC006"], f"add `revision: {info.revision}` to the approval if it signs off "
                              f"revision {info.revision}, else the revision it signed off", key="document.approvals")


def _unstated(doc: object, key: str) -> bool:
    """Whether `doc` leaves the dotted `key` out where its parent is given (`training.stack` of a training job).

    A key under a part the document does not have (no `training:`) is no knob of it: False.
    """
    *parents, last = key.split(".")
    node: Any = doc
    for name in parents:
        node = getattr(node, name, None)
        if node is None:
            return False
    return last not in getattr(node, "model_fields_set", {last})


def _expired(specs: Specs, on: AsOf, select: tuple[str, ...], ignore: tuple[str, ...]) -> Iterator[Finding]:
    """SPC004 for each waiver whose `expires` is before `on`: its findings are back, and this names the waiver."""
    for doc_id, doc in sorted(specs.items.items()):
        for i, w in enumerate(doc.waivers):
            if expired(w, on) and selected(w.check, select, ignore):
                owner = f" (owner {w.owner})" if w.owner else ""
                about = f" about {w.requirement}" if w.requirement else ""
                yield Finding("SPC004", RESERVED_SEVERITY["SPC004"], object_path(doc),
                              specs.locate(doc_id, ("waivers", i, "expires")),
                              f"waiver of {w.check} for {waiver_subject(doc, w)}{about}{owner} expired on "
                              f"{w.expires} (waivers judged as of {on}): it no longer waives, so its findings "
                              "count again", RESERVED["SPC004"],
                              "Fix what the waiver accepted, or, if it is still accepted, renew it: a later "
                              "`expires` (and the `owner` who accepts it again).", key=_waiver_key(doc, w))


def _unused_hint(doc: object, w: object, unwaived: dict[str, set[str]]) -> str:
    """What an unused waiver would have to name to cover the findings of its check in its document; "" if none.

    `unwaived`: the requirements of those findings by subject. Where some are about the waiver's subject, they
    differ in their requirement (a waiver covers one requirement's findings: `waiver`); else in their subject. Each
    subject is matched once, not once per finding: 3,000 requirements on `rack/*` and 3,000 unused waivers in one
    file (600 kB) had `check` match 70 million pairs, four minutes (newuser39).
    """
    subject = waiver_subject(doc, w)
    found = [unwaived.get(subject, set())] if not is_pattern(subject) else \
        [reqs for s, reqs in unwaived.items() if matches(subject, s)]
    near = sorted(set().union(*found))
    check = getattr(w, "check", "")
    if near:
        return (f"; its {check} findings about {subject} in this document are about requirement(s) "
                f"{', '.join(near)}: a waiver covers the findings of the one requirement it names as `requirement`")
    others = sorted(unwaived)
    return (f"; its {check} findings in this document are about {', '.join(others)}: name one as `subject` (a "
            "glob such as 'rack/*' covers several)" if others else "")


def _waiver_key(doc: object, w: object) -> str:
    """An unused waiver's key path, by what it names rather than its index: ``waivers[REQ001 rack/r REQ-1]``."""
    named = (getattr(w, "check", ""), waiver_subject(doc, w), getattr(w, "requirement", ""))
    return f"waivers[{' '.join(n for n in named if n)}]"
