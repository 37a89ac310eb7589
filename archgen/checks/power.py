"""PWR: power shelves or PDUs and feeds carry the rack's load, with the redundancy claimed; feeds suit the PDUs."""

from __future__ import annotations

import math
from collections.abc import Iterator

from archgen.checks.registry import Context, Violation, check
from archgen.model import PowerShelf
from archgen.model.power import PDU
from archgen.units import Q_


def _kw(q) -> str:
    return f"{q.to('kW').magnitude:.1f} kW"


@check("PWR001", "power.conversion_capacity")
def conversion_capacity(ctx: Context) -> Iterator[Violation]:
    """The rack load fits the usable capacity of its power shelves or PDUs, with their redundancy.

    Fix: add shelves/PDUs, use higher-capacity ones, or reduce the load.
    """
    for path, a in ctx.racks.items():
        p, st = a.power, a.power.conversion
        if st is None:
            continue
        key = "shelves" if p.conversion_kind == "power shelves" else "pdus"
        if p.load > st.usable:
            yield Violation(path, a.rack.spec.id, ("power", key),
                            f"load {_kw(p.load)} exceeds usable {p.conversion_kind} capacity {_kw(st.usable)} "
                            f"({st.redundancy} of {st.count} x {_kw(st.unit_capacity)})", p.load, st.usable)


@check("PWR002", "power.feed_capacity")
def feed_capacity(ctx: Context) -> Iterator[Violation]:
    """The rack's input power fits its feeds after derating, with the feed redundancy.

    Fix: add feeds, raise the feed current or voltage, or reduce the load. Check `basis` (line-to-line or
    line-to-neutral): it changes a 3-phase feed's capacity by √3.
    """
    for path, a in ctx.racks.items():
        p, f = a.power, a.rack.spec.power.feeds
        if p.input_power > p.feeds.usable:
            yield Violation(path, a.rack.spec.id, ("power", "feeds"),
                            f"input power {_kw(p.input_power)} exceeds usable feed capacity {_kw(p.feeds.usable)} "
                            f"({f.redundancy} of {f.count} feeds x {f.voltage:~P} x {f.current:~P} x "
                            f"{p.phase_factor:.3g} x {f.derating:g} derating = {_kw(p.feed_capacity)} each)",
                            p.input_power, p.feeds.usable)


@check("PWR003", "power.feed_loss")
def feed_loss(ctx: Context) -> Iterator[Violation]:
    """With feed redundancy claimed, the rack still carries its full load with any one feed lost.

    Fix: add a feed or raise the feed rating; or declare `redundancy: N` if none is intended.
    """
    for path, a in ctx.racks.items():
        p = a.power
        if p.feeds.redundancy != "N" and p.input_power > p.feeds.after_one_loss:
            yield Violation(path, a.rack.spec.id, ("power", "feeds", "redundancy"),
                            f"with one of {p.feeds.count} feeds lost, {_kw(p.feeds.after_one_loss)} remain for "
                            f"{_kw(p.input_power)}", p.input_power, p.feeds.after_one_loss)


@check("PWR004", "power.conversion_loss")
def conversion_loss(ctx: Context) -> Iterator[Violation]:
    """With shelf or PDU redundancy claimed, the rack still carries its full load with any one unit lost.

    Fix: add a shelf/PDU; or declare `redundancy: N` if none is intended.
    """
    for path, a in ctx.racks.items():
        p, st = a.power, a.power.conversion
        if st is not None and st.redundancy != "N" and p.load > st.after_one_loss:
            key = "shelves" if p.conversion_kind == "power shelves" else "pdus"
            yield Violation(path, a.rack.spec.id, ("power", key),
                            f"with one of {st.count} {p.conversion_kind} lost, {_kw(st.after_one_loss)} remain for "
                            f"{_kw(p.load)}", p.load, st.after_one_loss)


@check("PWR005", "power.redundancy_pairs", severity="warning")
def redundancy_pairs(ctx: Context) -> Iterator[Violation]:
    """An N+N (2N) group has an even number of units, one half per side.

    Fix: make the count even, or state N+1.
    """
    for path, a in ctx.racks.items():
        feeds = a.rack.spec.power.feeds
        if feeds.redundancy == "N+N" and feeds.count % 2:
            yield Violation(path, a.rack.spec.id, ("power", "feeds", "count"),
                            f"N+N with an odd number of feeds ({feeds.count})")
        st = a.power.conversion
        if st is not None and st.redundancy == "N+N" and st.count % 2:
            yield Violation(path, a.rack.spec.id, ("power",),
                            f"N+N with an odd number of {a.power.conversion_kind} ({st.count})")


#: How far a feed's voltage may sit from a PDU's rated input voltage: IEC 60038 (standard voltages) allows supply
#: voltages within ±10 % of nominal.
VOLTAGE_TOLERANCE = 0.10


@check("PWR006", "power.feed_matches_pdu")
def feed_matches_pdu(ctx: Context) -> Iterator[Violation]:
    """The feeds suit the PDUs' input rating: same phases, voltage within ±10 % (IEC 60038), current at most the PDU's.

    A 208 V feed into a 415 V PDU under-delivers (and is not what the PDU is built for); a 100 A breaker ahead of a
    60 A PDU does not protect its inlet and cord. Voltages are compared on the PDU's basis (line-to-line = √3 ×
    line-to-neutral on three phases).

    Fix: choose PDUs rated for the feed (voltage, phases, current), or change the feeds.
    """
    for path, a in ctx.racks.items():
        f = a.rack.spec.power.feeds
        for pdu in sorted({p.part.id: p.part for p in a.rack.items if isinstance(p.part, PDU)}.values(),
                          key=lambda p: p.id):
            if f.phases != pdu.phases:
                yield Violation(path, a.rack.spec.id, ("power", "feeds", "phases"),
                                f"{f.phases}-phase feeds into {pdu.phases}-phase PDU {pdu.id}")
                continue
            volts = _on_basis(f.voltage, f.basis, pdu.basis, f.phases)
            if abs(float((volts / pdu.voltage).to("").magnitude) - 1) > VOLTAGE_TOLERANCE:
                restated = "" if f.basis == pdu.basis else f" ({volts.to('V'):.0f~P} {pdu.basis})"
                yield Violation(path, a.rack.spec.id, ("power", "feeds", "voltage"),
                                f"feed voltage {f.voltage:~P} {f.basis}{restated} is more than "
                                f"{VOLTAGE_TOLERANCE:.0%} from PDU {pdu.id}'s rated {pdu.voltage:~P} {pdu.basis}",
                                volts.to("V"), pdu.voltage)
            if f.current > pdu.current:
                yield Violation(path, a.rack.spec.id, ("power", "feeds", "current"),
                                f"feed breaker {f.current:~P} is above PDU {pdu.id}'s input rating "
                                f"{pdu.current:~P}", f.current, pdu.current)


def _on_basis(voltage, basis: str, target: str, phases: int):
    """A three-phase voltage restated on another basis: V(L-L) = √3 × V(L-N)."""
    if phases == 1 or basis == target:
        return voltage
    return voltage * math.sqrt(3) if target == "line-to-line" else voltage / math.sqrt(3)


@check("PWR007", "power.feeds_per_pdu")
def feeds_per_pdu(ctx: Context) -> Iterator[Violation]:
    """A rack with PDUs has one feed per PDU (a rack PDU has one input).

    With more feeds than PDUs, the feed capacity counted is not connected to anything; with fewer, some PDUs are
    not fed.

    Fix: make `power.feeds.count` the number of PDUs placed, or place one PDU per feed.
    """
    for path, a in ctx.racks.items():
        pdus = sum(1 for p in a.rack.items if isinstance(p.part, PDU))
        feeds = a.rack.spec.power.feeds.count
        if pdus and feeds != pdus:
            yield Violation(path, a.rack.spec.id, ("power", "feeds", "count"),
                            f"{feeds} feed(s) for {pdus} PDU(s)", Q_(feeds, ""), Q_(pdus, ""))


@check("PWR008", "power.redundancy_placed")
def redundancy_placed(ctx: Context) -> Iterator[Violation]:
    """Shelf or PDU redundancy is claimed only over units actually placed in the rack.

    Fix: place the power shelves or PDUs in `slots`, or remove the `power.shelves` / `power.pdus` entry.
    """
    for path, a in ctx.racks.items():
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
