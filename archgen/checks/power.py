"""PWR: power shelves or PDUs and feeds carry the rack's load, with the redundancy claimed."""

from __future__ import annotations

from collections.abc import Iterator

from archgen.checks.registry import Context, Violation, check


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
