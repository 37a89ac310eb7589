"""Waivers matched to the findings they waive (`waiver`): `check`'s one rule, which `estimate` reads as well.

Moved out of `checks.registry` (margin43) so that `archgen estimate`, which imports no check (tests/test_startup.py),
says of a workload's requirement what `check` says of its finding where a waiver covers it, "not met (waived: ...)"
(`requirement_waivers`); before, estimate read a waived requirement plainly "not met" and failed on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from archgen.as_of import AsOf, expired
from archgen.binding import BoundRequirement, matches
from archgen.model.requirements import Outcome, Status


def waiver_subject(doc: object, w: object) -> str:
    """The object path or glob a waiver covers: its `subject`, or else the document's own object path."""
    return getattr(w, "subject", "") or object_path(doc)


#: A document's waivers by (check, requirement), each with its index in `waivers`.
WaiverIndex = dict[tuple[str, str], list[tuple[int, Any]]]


def waiver_index(doc: object) -> WaiverIndex:
    """`doc`'s waivers by the (check, requirement) they name: those `waiver` tries for a finding, in their order.

    Trying every waiver of a document for every finding about it was quadratic: 3,000 requirements and 3,000
    waivers of other requirements in one file had `check` try 108 million pairs, 20 s (newuser39).
    """
    index: WaiverIndex = {}
    for i, w in enumerate(getattr(doc, "waivers", ())):
        index.setdefault((w.check, w.requirement), []).append((i, w))
    return index


def waiver(doc: object, ids: tuple[str, ...], subject: str, requirement: str = "",
           on: AsOf | None = None, index: WaiverIndex | None = None) -> tuple[int, str] | None:
    """The waiver in `doc` of a finding of a check (its id and aliases) about `subject`: (index, text), or None.

    The one place a waiver is matched (`check`, `render`, `diff` through the findings; `gap` for its rows). A
    waiver covers the findings of its check whose subject matches its `subject` (an object path or a glob, as
    requirement subjects are), by default only those about the document itself, and whose `requirement` (the id of
    the requirement a REQ or PERF001 finding is about; "" for other findings) is the waiver's own: a waiver of
    REQ001 written for a rack's power requirement covered its weight requirement too, so a pull request that made
    the rack too heavy passed (newuser32's trial). A waiver expired on `on` (`judging`) waives nothing. The first
    matching one wins; its text is its reason, with its owner and expiry (`waived_text`). `index`: `doc`'s
    `waiver_index`, where a caller keeps one.
    """
    index = waiver_index(doc) if index is None else index
    tried = sorted((c for check_id in dict.fromkeys(ids) for c in index.get((check_id, requirement), ())),
                   key=lambda c: c[0])
    for i, w in tried:
        if matches(waiver_subject(doc, w), subject) and not expired(w, on):
            return i, waived_text(w, on)
    return None


def waived_text(w: object, on: AsOf | None) -> str:
    """What a finding's `waived` says: the waiver's reason, with its owner and expiry (and the date judged on).

    The reason stripped: a folded YAML scalar (`reason: >`) ends in a newline, which put "(no expiry stated)" on a
    line of its own after `check`'s finding (margin43: `estimate`'s requirement line too).
    """
    owner, expires = getattr(w, "owner", ""), getattr(w, "expires", None)
    said = [f"owner {owner}"] if owner else []
    # a waiver that states no `expires` never expires: said, so that a reader does not take it for a dated one
    said.append(f"until {expires}, judged as of {on}" if expires is not None else "no expiry stated")
    return f"{str(getattr(w, 'reason', '')).strip()} ({'; '.join(said)})"


def object_path(doc: object) -> str:
    """Stable object path of a document: ``rack/<id>``, ``part/<id>``, ``facility/<id>``, ``cluster/<id>``."""
    from archgen.model import Part
    kind = "part" if isinstance(doc, Part) else type(doc).__name__.lower()
    return f"{kind}/{getattr(doc, 'id', '')}"


def status_check(o: Outcome, own: bool) -> str:
    """The check that reports a requirement judged `o` (`checks.judgement.Judgement.check`, which asks this).

    REQ002 not provided, REQ004 at risk, REQ005 met on assumed inputs, else the one that judges it met or not:
    REQ001, PERF001 for a workload's `own` requirement.
    """
    if o.status is Status.NOT_PROVIDED:
        return "REQ002"
    if o.status is Status.AT_RISK:
        return "REQ004"
    if o.assumed and o.status is Status.MET:   # not met on a borrowed rate set is REQ001's
        return "REQ005"
    return "PERF001" if own else "REQ001"


def requirement_waivers(docs: Any, bound: Iterable[BoundRequirement], outcomes: Sequence[Outcome], workload: str,
                        on: AsOf | None = None) -> tuple[str, ...]:
    """Per outcome of workload `workload`'s requirements, the waiver text `check` gives its finding ('' where none).

    `bound` are the requirements as bound (their owners: the workload's own, `Design.workload_requirements`, and
    other documents', `Design.elsewhere`), `docs` the documents by id (`Specs.get`). A finding is made of every
    status but met (on no assumed input) and not applicable, by the check `status_check` names, and waived as
    `check` waives it (`waiver`), on the date `on` (`as_of.judging`).
    """
    by_req = {id(b.req): b for b in bound}
    said = []
    for o in outcomes:
        b = by_req.get(id(o.requirement))
        passing = o.status is Status.NOT_APPLICABLE or (o.status is Status.MET and not o.assumed)
        found = None if b is None or passing else waiver(docs.get(b.owner), (status_check(o, b.owner == workload),),
                                                         b.subject, b.req.id, on)
        said.append(found[1] if found else "")
    return tuple(said)
