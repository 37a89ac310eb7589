"""PWR006's side: what feeds a PDU or power shelf against its input rating (phases, voltage, breaker current)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from archgen.checks.registry import Context, Violation
from archgen.model import PowerShelf
from archgen.model.power import PDU, VOLTAGE_TOLERANCE


def feeds_into_inputs(ctx: Context) -> Iterator[Violation]:
    """PWR006: the feeds into each PDU and feed-fed power shelf, and each PDU into the shelves behind it."""
    for path, a in ctx.racks.items():
        spec = a.rack.spec
        f = spec.power.feeds
        pdus = _unique(a, PDU)
        behind = spec.power.shelves is not None and spec.power.shelves.fed_from == "pdus" and pdus
        units = pdus + ([] if behind else [(s, s.input) for s, _ in _unique(a, PowerShelf)])
        supply = ("feed", f.voltage, f.basis, f.phases, f.current)  # a feed's breaker; a PDU's outlets: None
        for unit, rating in units:
            yield from _suits(path, spec.id, ("power", "feeds"), supply, unit, rating)
        if behind:
            for shelf, _ in _unique(a, PowerShelf):
                for pdu, _ in pdus:
                    yield from _suits(path, spec.id, ("power", "shelves", "fed_from"),
                                      (f"PDU {pdu.id}", pdu.voltage, pdu.basis, pdu.phases, None), shelf, shelf.input)



def _unique(a, kind: type[Any]) -> list:
    """The distinct parts of `kind` placed in the rack with their input rating (a PDU is its own rating)."""
    by_id = {p.part.id: p.part for p in a.rack.items if isinstance(p.part, kind)}
    parts = [by_id[k] for k in sorted(by_id)]
    return [(p, p) for p in parts]


def _suits(path: str, owner: str, key: tuple, supply: tuple, unit, rating) -> Iterator[Violation]:
    """Violations of one supply (what, voltage, basis, phases, breaker current or None) into one unit's input."""
    what, volts, basis, phases, current = supply
    name = f"{'PDU' if isinstance(unit, PDU) else 'power shelf'} {unit.id}"
    outlets = current is None  # a PDU's outlets: a 1-phase input takes a 3-phase PDU's line-to-neutral voltage
    if phases < rating.phases or (phases != rating.phases and not outlets):
        yield Violation(path, owner, key + ("phases",), f"{phases}-phase {what} into {rating.phases}-phase {name}")
        return
    target = rating.basis if phases == rating.phases else "line-to-neutral"  # 1-phase input on a 3-phase supply
    restated = _on_basis(volts, basis, target, phases)
    low, high = _range(rating)
    if not low <= restated <= high:
        shown = "" if (basis, phases) == (target, rating.phases) else f" ({restated.to('V'):.0f~P} {target})"
        allowed = (f"{VOLTAGE_TOLERANCE:.0%} from {name}'s rated {rating.voltage:~P} {rating.basis}"
                   if getattr(rating, "voltage_min", None) is None and getattr(rating, "voltage_max", None) is None
                   else f"outside {name}'s rated {low.to('V'):.0f~P} to {high.to('V'):.0f~P} {rating.basis}")
        lead = "more than " if allowed[0].isdigit() else ""
        yield Violation(path, owner, key + ("voltage",), f"{what} voltage {volts:~P} {basis}{shown} is {lead}{allowed}",
                        restated.to("V"), rating.voltage)
    if current is not None and rating.current is not None and current > rating.current:
        yield Violation(path, owner, key + ("current",), f"{what} breaker {current:~P} is above {name}'s input "
                                                          f"rating {rating.current:~P}", current, rating.current)


def _range(rating) -> tuple:
    """A rating's allowed voltage range: a shelf's rated range (or ±10 %), a PDU's nominal ±10 % (IEC 60038)."""
    if isinstance(rating, PDU):
        return rating.voltage * (1 - VOLTAGE_TOLERANCE), rating.voltage * (1 + VOLTAGE_TOLERANCE)
    return rating.voltage_range()


def _on_basis(voltage, basis: str, target: str, phases: int):
    """A three-phase voltage restated on another basis: V(L-L) = √3 × V(L-N)."""
    if phases == 1 or basis == target:
        return voltage
    return voltage * math.sqrt(3) if target == "line-to-line" else voltage / math.sqrt(3)
