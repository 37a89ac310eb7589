"""The waivers that differ between BASE and HEAD (`compare.diff.compare`'s waiver rows): added, removed, renewed.

A waiver is a decision a reviewer signs off on: who accepts a finding, why, and until when. `diff` showed one only
through the findings it hid, so a pull request that renewed an expiring waiver showed nothing while both sides were
judged before the old expiry, and after it only the finding as "resolved" (newuser65's trial; ci3's open item). Each
waiver is matched by what it names, the document's object, its check, subject and requirement (a second waiver
naming the same by its order among them), never by its line or its index in `waivers`.
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from archgen.as_of import AsOf, expired
from archgen.checks.registry import REGISTRY, Finding
from archgen.errors import Location
from archgen.validate import Specs
from archgen.waivers import object_path, waiver, waiver_subject


@dataclass(frozen=True)
class WaiverState:
    """One waiver as a side states it."""

    object: str        # the object path of the document that holds it
    check: str
    subject: str       # its `subject`, or the document's own object path
    requirement: str
    owner: str
    expires: datetime.date | None
    reason: str
    location: Location | None
    expired: bool = False   # expired on the date the run judged waivers on (`Run.as_of`)
    index: int = -1         # its index in its document's `waivers`

    @property
    def names(self) -> str:
        """What it waives, in words: 'REQ004 for workload/w about REQ-PERF-041'."""
        return f"{self.check} for {self.subject}" + (f" about {self.requirement}" if self.requirement else "")


@dataclass(frozen=True)
class WaiverChange:
    """A waiver one side lacks, or whose owner, expiry or reason differs (None: absent there)."""

    base: WaiverState | None
    head: WaiverState | None

    @property
    def state(self) -> WaiverState:
        """HEAD's waiver, or BASE's where HEAD removed it."""
        s = self.head or self.base
        assert s is not None, "a waiver change has at least one side"
        return s

    @property
    def kind(self) -> str:
        """'added', 'removed', 'renewed' (waives longer: a later `expires`, or none), 'shortened' or 'edited'."""
        if self.base is None or self.head is None:
            return "added" if self.base is None else "removed"
        old, new = self.base.expires, self.head.expires
        if old != new:
            longer = new is None or (old is not None and new > old)
            return "renewed" if longer else "shortened"
        return "edited"

    @property
    def changes(self) -> tuple[str, ...]:
        """What changed, each in words: 'expires 2026-12-31 → 2027-06-30', 'owner a → b', 'reason edited'."""
        if self.base is None or self.head is None:
            s = self.state
            return tuple(x for x in (f"owner {s.owner}" if s.owner else "no owner stated",
                                     f"expires {s.expires}" if s.expires else "no expiry stated") if x)
        old, new = self.base, self.head
        said = []
        if old.expires != new.expires:
            said.append(f"expires {old.expires or 'never'} → {new.expires or 'never'}")
        if old.owner != new.owner:
            said.append(f"owner {old.owner or '(none)'} → {new.owner or '(none)'}")
        if old.reason != new.reason:
            said.append("reason edited")
        return tuple(said)

    @property
    def renewal(self) -> str:
        """'renewed (expiry 2027-03-31 → 2027-09-30)' where HEAD renews a waiver BASE had let expire; else ""."""
        if self.kind != "renewed" or self.base is None or self.head is None or not self.base.expired:
            return ""
        return f"renewed (expiry {self.base.expires} → {self.head.expires or 'never'})"

    @property
    def review(self) -> bool:
        """A reviewer must read it: it waives something new, longer or on another's word (not a removal alone)."""
        return self.kind != "removed"


def waiver_states(specs: Specs, on: AsOf | None) -> dict[tuple[str, str, str, str, int], WaiverState]:
    """Every waiver of `specs` by (object, check, subject, requirement, its order among waivers naming the same)."""
    out: dict[tuple[str, str, str, str, int], WaiverState] = {}
    for doc_id, doc in sorted(specs.items.items()):
        seen: Counter[tuple[str, str, str, str]] = Counter()
        for i, w in enumerate(getattr(doc, "waivers", ())):
            key = (object_path(doc), w.check, waiver_subject(doc, w), w.requirement)
            out[(*key, seen[key])] = WaiverState(*key, w.owner, w.expires, " ".join(w.reason.split()),
                                                 specs.locate(doc_id, ("waivers", i)), expired(w, on), i)
            seen[key] += 1
    return out


def waiver_changes(base: Specs, head: Specs, base_on: AsOf | None = None,
                   head_on: AsOf | None = None) -> tuple[WaiverChange, ...]:
    """The waivers added, removed or changed (owner, expiry, reason) from `base` to `head`, by object and check."""
    before, after = waiver_states(base, base_on), waiver_states(head, head_on)
    changed = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key), after.get(key)
        if old is None or new is None or (old.owner, old.expires, old.reason) != (new.owner, new.expires, new.reason):
            changed.append(WaiverChange(old, new))
    return tuple(changed)


def renewed(waived: tuple[Finding, ...], changes: tuple[WaiverChange, ...], head: Specs,
            on: AsOf | None) -> tuple[tuple[Finding, ...], tuple[tuple[Finding, WaiverChange], ...]]:
    """(newly waived, renewed): HEAD's newly waived findings split by whether a renewal covers them (`renewal`).

    A finding BASE counted because its waiver had expired, which HEAD's later `expires` on the same waiver covers
    again, is not a new acceptance: it was listed as "newly waived", as if someone had accepted it for the first
    time. Which of HEAD's waivers covers a finding is `waivers.waiver`'s answer, the one place waivers match.
    """
    by_object = {s.head.object: s for s in changes if s.renewal and s.head is not None}
    docs = {object_path(doc): doc for doc in head.items.values() if object_path(doc) in by_object}
    fresh, again = [], []
    for f in waived:
        change = next((c for c in changes if c.renewal and c.head is not None and _covers(c.head, f, docs, on)), None)
        if change is None:
            fresh.append(f)
        else:
            again.append((f, change))
    return tuple(fresh), tuple(again)


def _covers(state: WaiverState, f: Finding, docs: Mapping[str, object], on: AsOf | None) -> bool:
    """Whether HEAD's waiver `state` is the one that covers `f` (`waivers.waiver`)."""
    doc = docs.get(state.object)
    check = REGISTRY.get(f.id)
    found = waiver(doc, (f.id, *(check.aliases if check else ())), f.object, f.requirement, on) if doc else None
    return found is not None and found[0] == state.index
