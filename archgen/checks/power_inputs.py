"""Helpers of the PWR checks: a placed part's power input (PWR013), a rack's feeds against its hall's voltage (PWR015).

And the PDUs' outlets (PWR016) and the PSUs each part keeps with a PDU or side lost (PWR024). Moved out of
`checks/power_figures.py` (its size, split30), which keeps the hall's
UPS and generators (PWR011, PWR022) and the unconfirmed figures (PWR012); `checks/power.py` keeps each check's
`@check` and docstring.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from archgen.analyse.distribution import distribution
from archgen.analyse.rack import busbar_flags, external_flags
from archgen.checks.registry import Context, Violation
from archgen.model import PowerShelf, Switch, System
from archgen.model.power import PDU
from archgen.units import Q_


def input_span(given: Any) -> str:
    """' (40–60 V)' from a stated input range, '' without one."""
    low, high = given.voltage_min, given.voltage_max
    if low is None and high is None:
        return ""
    return f" ({low:~P} to {high:~P})" if low is not None and high is not None else \
        f" ({'from ' + format(low, '~P') if low is not None else 'up to ' + format(high, '~P')})"


def within_input(volts: Any, given: Any) -> bool:
    """Whether `volts` lies in a stated input range (an end not stated does not bound it)."""
    return (given.voltage_min is None or volts >= given.voltage_min) and \
        (given.voltage_max is None or volts <= given.voltage_max)


#: How far a rack's feed voltage (on the line-to-line basis) may sit from its hall's: rounding only, V(L-N) x √3 (230 V
#: x √3 = 398 V in a 400 V hall, 277 V x √3 = 479.8 V in a 480 V one). Nominal systems differ by more (IEC 60038: 400
#: V and 415 V, 3.6 %; 480 V, 16 % above 415 V), and the feed capacity is V x A x phase factor at the stated voltage.
HALL_VOLTAGE_TOLERANCE = 0.01


def feeds_off_hall(ctx: Context) -> Iterator[Violation]:
    """PWR015: each rack whose feeds, restated line-to-line (V x √3 on a line-to-neutral basis), are not its hall's."""
    for path, a in ctx.racks.items():
        hall, f = a.rack.facility, a.rack.spec.power.feeds
        if hall is None or hall.voltage is None:
            continue
        line = f.voltage * math.sqrt(3) if f.basis == "line-to-neutral" else f.voltage
        if abs(float((line / hall.voltage).to("dimensionless")) - 1) > HALL_VOLTAGE_TOLERANCE:
            shown = f" ({line.to('V'):.0f~P} line-to-line)" if f.basis == "line-to-neutral" else ""
            yield Violation(path, a.rack.spec.id, ("power", "feeds", "voltage"),
                            f"feeds at {f.voltage:~P} {f.basis}{shown} in facility '{hall.id}', which distributes "
                            f"{hall.voltage:~P}: the feed capacity (PWR002) and the inputs' ratings (PWR006) were "
                            f"judged at {f.voltage:~P}", line.to("V"), hall.voltage.to("V"))


def outlet_counts(ctx: Context) -> Iterator[Violation]:
    """PWR016: PSU cords per PDU in the outlet map against each PDU's stated `outlets`."""
    for path, a in ctx.racks.items():
        power = a.power
        if power.conversion is None or power.conversion_kind != "PDUs":
            continue
        placed = [item for item in a.rack.items if isinstance(item.part, PDU)]
        pdus = [item.part for item in placed]
        if not any(p.outlets for p in pdus):
            continue
        d = distribution(a.rack, power.conversion.unit_capacity, power.optics)
        if d is None:
            continue
        cords = [sum(1 for o in d.outlets if o.pdu == i + 1) for i in range(len(pdus))]
        over = [(i, n, p) for i, (n, p) in enumerate(zip(cords, pdus, strict=True)) if p.outlets and n > p.outlets]
        if over:
            words = "; ".join(f"PDU {i + 1} ({p.id}) {n} cords for {p.outlets} outlets" for i, n, p in over)
            yield Violation(path, a.rack.spec.id, ("slots", placed[over[0][0]].slot, "part"),
                            f"the outlet map puts more PSU cords on a PDU than it has outlets: {words} "
                            f"({sum(cords)} cords over {len(pdus)} PDUs)",
                            Q_(max(n for _, n, _ in over), ""), Q_(min(p.outlets for _, _, p in over), ""))
        elif d.unmapped:
            slot = next(item.slot for item in a.rack.items if item.part.id == d.unmapped[0])
            yield Violation(path, a.rack.spec.id, ("slots", slot, "part"),
                            f"not judged for {', '.join(d.unmapped)}: the catalog gives no PSUs, so their cords "
                            f"are not in the outlet map; the {sum(cords)} counted fit the PDUs' "
                            f"{sum(p.outlets for p in pdus)} outlets", severity="info")


def part_inputs(ctx: Context) -> Iterator[Violation]:
    """PWR013: each placed part's stated power input against what feeds it (busbar DC, PDUs or feeds AC)."""
    for path, a in ctx.racks.items():
        rack, owner = a.rack, a.rack.spec.id
        bus, ext, seen = busbar_flags(rack), external_flags(rack), set()
        volts = a.power.busbar_voltage
        for i, item in enumerate(rack.items):
            part = item.part
            given = part.power.input if isinstance(part, System | Switch) else None
            if given is None or item.slot in seen:
                continue
            seen.add(item.slot)
            key, span = ("slots", item.slot, "part"), input_span(given)
            if bus[i] and given.type == "ac":
                sits = (f"{part.id} takes AC{span} but sits on the power shelves' {volts:~P} DC busbar, whose budget "
                        "carries it")
                yield Violation(path, owner, key, f"{sits}; no PDU (power.pdus.serves) or outside feed "
                                "(power.external) is stated for it", public=f"{sits}; no PDU or outside feed is "
                                                                            "stated for it")
            elif bus[i] and not within_input(volts, given):
                yield Violation(path, owner, key, f"{part.id} takes DC{span}; the shelves' busbar is {volts:~P}",
                                volts, given.voltage_max if given.voltage_max and volts > given.voltage_max
                                else given.voltage_min)
            elif not bus[i] and not ext[i] and given.type == "dc":
                yield Violation(path, owner, key, f"{part.id} takes DC{span} but is fed AC from the rack's "
                                f"{'PDUs' if any(isinstance(p.part, PDU) for p in rack.items) else 'feeds'}")
        placed = {p.part.id: p.part for p in rack.items}
        serves = set(rack.spec.power.pdus.serves) if rack.spec.power.pdus else set()
        for j, ref in enumerate(rack.spec.power.external):
            part = placed.get(ref)
            why = ("is not placed in this rack" if part is None else "is a power shelf or PDU, not a load"
                   if isinstance(part, PowerShelf | PDU) else "is also in power.pdus.serves" if ref in serves else "")
            if why:
                yield Violation(path, owner, ("power", "external", j), f"power.external names '{ref}', which {why}",
                                public=f"the parts fed from outside the rack include '{ref}', which "
                                       + why.replace("in power.pdus.serves", "among the parts the PDUs serve"))


def psus_kept(ctx: Context) -> Iterator[Violation]:
    """PWR024: each rack whose PDU redundancy leaves a part fewer PSUs than full power needs with a PDU or side lost.

    The cases are the rack document's PDU failure cases (`analyse.distribution`): under N+N a side lost, under N+1 each
    PDU in turn; a part short of PSUs runs below full power (its PSU redundancy's N, `needed_psus`), one with none
    left goes dark. The PDUs' capacity with the unit lost is PWR004's.
    """
    for path, a in ctx.racks.items():
        power = a.power
        if power.conversion is None or power.conversion_kind != "PDUs" or a.rack.spec.power.pdus is None:
            continue
        if a.rack.spec.power.pdus.redundancy == "N":
            continue
        d = distribution(a.rack, power.conversion.unit_capacity, power.optics)
        hit = [c for c in d.cases if c.short or c.dark] if d is not None else []
        if d is None or not hit:
            continue
        first = hit[0]
        groups: dict[tuple[str, str], list[str]] = {}   # (part, what it keeps) -> its U positions
        kept = [(n, "no PSU left") for n in first.dark] + \
            [(n, f"{left} PSUs left, {need} needed for full power") for n, left, need in first.short]
        for name, keeps in kept:
            part, _, at = name.partition(" at ")
            groups.setdefault((part, keeps), []).append(at)
        parts = "; ".join(f"{part} at {', '.join(ats)}: {keeps}" for (part, keeps), ats in groups.items())
        also = f" ({', '.join(c.lost for c in hit[1:])} alike)" if hit[1:] else ""
        effect = "goes dark or runs below full power" if first.dark else "runs below full power"
        left, need = (0, 1) if first.dark else first.short[0][1:]
        yield Violation(path, a.rack.spec.id, ("power", "pdus", "redundancy"),
                        f"PDU redundancy {d.redundancy}, but with {first.lost} lost{also} parts keep too few PSUs: "
                        f"{parts}; each part named {effect} until it is back (the other PDUs' capacity: PWR004)",
                        Q_(left, ""), Q_(need, ""))
