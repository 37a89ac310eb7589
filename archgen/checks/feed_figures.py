"""PWR002's finding on a feed that states no power factor: judged at 1.00, and what 0.95 would give, per feed too.

PWR002 and PWR003 judge a group of feeds' pooled capacity at the feeds' `power_factor`. Left unstated it is 1.00
(kW = kVA, the least conservative reading), and the check says so: an info finding with the usable capacity,
headroom and per-feed current at `TYPICAL_POWER_FACTOR` (0.95) as well, and each feed's load and current normally
and with the spares of its redundancy lost against one feed's continuous rating (`analyse.feed_load`: the
arithmetic an electrician does by hand); a warning where the rack's input power fits its feeds only at 1.00.
Stating `power_factor` (from the PSUs' datasheet at the expected load) clears it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from archgen.analyse.feed_load import TYPICAL_POWER_FACTOR, FeedLoad, assumed_power_factor, feed_loads
from archgen.checks.registry import Violation
from archgen.display import kw


def _amps(q: Any) -> str:
    return f"{q.to('A').magnitude:.1f} A"


def per_feed_text(fl: FeedLoad, feeds: Any) -> str:
    """'each of 8 feeds 17.7 kW (24.7 A) normally, 20.3 kW (28.2 A) with 1 of 8 lost (N+1), of 48.0 A ...'."""
    g = fl.group
    text = f"each of {g.count} {g.kind} {kw(fl.per_feed)} ({_amps(fl.current)}) normally"
    if fl.per_feed_lost is not None and fl.current_lost is not None:
        text += (f", {kw(fl.per_feed_lost)} ({_amps(fl.current_lost)}) with {fl.lost} of {g.count} lost "
                 f"({g.redundancy})")
    elif g.redundancy == "N":
        text += " (N: no spare, a feed lost drops load)"
    used = float(((fl.current_lost if fl.current_lost is not None else fl.current) / fl.rating).to(""))
    return (f"{text}, of {_amps(fl.rating)} continuous ({feeds.current.to('A').magnitude:g} A breaker x "
            f"{feeds.derating:g}, {100 * used:.0f} % used)")


def feed_overloads(path: str, a: Any) -> Iterator[Violation]:
    """PWR002's error: a group of the rack's feeds whose input power exceeds its usable capacity after derating."""
    p, f = a.power, a.rack.spec.power.feeds
    split = len(p.feed_groups) > 1  # the feeds split between paths: each group named (' on the feeds of the PDUs')
    for g in p.feed_groups:
        if g.load > g.usable:
            yield Violation(path, a.rack.spec.id, ("power", "feeds"),
                            f"input power {kw(g.load)}{f' on the {g.kind}' if split else ''} exceeds usable feed "
                            f"capacity {kw(g.usable)} ({f.redundancy} of {g.count} feeds x {f.voltage:~P} x "
                            f"{f.current:~P} x {p.phase_factor:.3g} x {f.derating:g} derating = "
                            f"{kw(p.feed_capacity)} each)", g.load, g.usable)


def feed_findings(path: str, a: Any) -> Iterator[Violation]:
    """PWR002's finding for a rack whose feeds state no power factor: the figures at 1.00 and 0.95, per feed too.

    A rack whose feeds state `power_factor` gets none (nothing is assumed; the rack document gives its per-feed
    figures): a finding on every rack would leave PWR002 no clean pass.
    """
    feeds, p, rid = a.rack.spec.power.feeds, a.power, a.rack.spec.id
    loads = feed_loads(p, feeds)
    if not loads:
        return
    if not assumed_power_factor(feeds):
        return   # nothing assumed: the rack document gives the per-feed figures
    figures = "; ".join(per_feed_text(fl, feeds) for fl in loads)
    pf = TYPICAL_POWER_FACTOR
    at = "; ".join(f"{g.kind} usable {kw(g.usable * pf)} for {kw(fl.group.load)}, headroom "
                   f"{kw(g.usable * pf - fl.group.load)}, {_amps(fl.current_lost or fl.current)} a feed"
                   + (" with the spares lost" if fl.lost else "")
                   for g, fl in ((fl.group, fl) for fl in feed_loads(p, feeds, pf)))
    short = [g for g in (fl.group for fl in loads) if g.usable * pf < g.load <= g.usable]   # else an error at 1.00
    judged = (f": judged at 1.00 (kW = kVA, the least conservative reading); at {pf:.2f} (80 PLUS Platinum and "
              f"Titanium PSUs' minimum at 50 % load): {at}")
    head, said = f"power factor not stated (power.feeds.power_factor){judged}", f"power factor not stated{judged}"
    tail = f". Per feed at 1.00: {figures}"
    if short:
        fits = "the input power fits the feeds only at the assumed power factor 1.00: "
        yield Violation(path, rid, ("power", "feeds"), f"{fits}{head}; state `power_factor` from the PSUs' "
                        f"datasheet{tail}", short[0].load, short[0].usable * pf, severity="warning",
                        public=f"{fits}{said}; to be supplied: power factor from the PSUs' datasheet{tail}")
        return
    tight = min((fl.group for fl in loads), key=lambda g: g.usable - g.load)   # as judged, at 1.00
    yield Violation(path, rid, ("power", "feeds"), head + tail, tight.load, tight.usable, severity="info",
                    public=said + tail)
