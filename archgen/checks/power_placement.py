"""A rack's placed power shelves and PDUs against what its `power` says (the bodies of PWR007, PWR008 and PWR009).

`checks.power` holds each check, its docstring and its registration; these give one rack's findings. Split from it
for its size.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.rack import RackAnalysis
from archgen.checks.registry import Violation
from archgen.model import PowerShelf
from archgen.model.power import PDU
from archgen.units import Q_


def feed_counts(path: str, a: RackAnalysis) -> Iterator[Violation]:
    """PWR007: one feed per PDU; with PDUs beside power shelves, more feeds than PDUs (one each, the rest theirs)."""
    pdus = sum(1 for p in a.rack.items if isinstance(p.part, PDU))
    feeds = a.rack.spec.power.feeds.count
    beside = a.power.arrangement == "side-by-side"
    if pdus and (feeds <= pdus if beside else feeds != pdus):
        need = f"more than {pdus}: one per PDU and the rest for the power shelves" if beside else f"{pdus}"
        yield Violation(path, a.rack.spec.id, ("power", "feeds", "count"),
                        f"{feeds} feed(s) for {pdus} PDU(s) (expected {need})", Q_(feeds, ""), Q_(pdus, ""))


def unplaced_claims(path: str, a: RackAnalysis) -> Iterator[Violation]:
    """PWR008: a shelf or PDU redundancy the rack claims over units it does not place."""
    spec = a.rack.spec.power
    placed = {"shelves": sum(1 for p in a.rack.items if isinstance(p.part, PowerShelf)),
              "pdus": sum(1 for p in a.rack.items if isinstance(p.part, PDU))}
    names = {"shelves": "power shelf", "pdus": "PDU"}
    for key in ("shelves", "pdus"):
        claim = getattr(spec, key)
        if claim is not None and not placed[key]:
            other = "pdus" if key == "shelves" else "shelves"
            also = f" (the rack holds {placed[other]} {names[other]} unit(s))" if placed[other] else ""
            yield Violation(path, a.rack.spec.id, ("power", key),
                            f"{claim.redundancy} redundancy is claimed for {names[key]} units but none is "
                            f"placed{also}")


def chain_problems(path: str, a: RackAnalysis) -> Iterator[Violation]:
    """PWR009: shelves fed from PDUs not placed, shelves and PDUs placed but unconnected, a `serves` not a load."""
    spec = a.rack.spec
    placed = {p.part.id: p.part for p in a.rack.items if p.part is not None}
    shelves = any(isinstance(p, PowerShelf) for p in placed.values())
    pdus = any(isinstance(p, PDU) for p in placed.values())
    fed_from = spec.power.shelves.fed_from if spec.power.shelves else "feeds"
    serves = spec.power.pdus.serves if spec.power.pdus else []
    if fed_from == "pdus" and not pdus:
        yield Violation(path, spec.id, ("power", "shelves", "fed_from"),
                        "the shelves are fed from PDUs but the rack places none")
    if shelves and pdus and fed_from == "feeds" and not serves:
        yield Violation(path, spec.id, ("power",),
                        "the rack places power shelves and PDUs but says neither that the shelves plug into "
                        "the PDUs (power.shelves.fed_from: pdus) nor which parts the PDUs power beside them "
                        "(power.pdus.serves: [ids]); the PDUs would carry nothing",
                        public="the rack places power shelves and PDUs but says neither that the shelves plug into "
                               "the PDUs nor which parts the PDUs power beside them; the PDUs would carry nothing")
    for i, ref in enumerate(serves):
        part = placed.get(ref)
        if part is None or isinstance(part, PowerShelf | PDU):
            why = "is not placed in this rack" if part is None else "is a power shelf or PDU, not a load"
            yield Violation(path, spec.id, ("power", "pdus", "serves", i), f"power.pdus.serves names '{ref}', "
                            f"which {why}", public=f"the parts the PDUs serve include '{ref}', which {why}")
