"""Each rack feed's own load and current, in normal operation and with the spare feeds of its redundancy lost.

PWR002 and PWR003 compare a group of feeds' pooled capacity with its load; an electrician sizes a whip by what one
feed carries: the group's load divided among the feeds in service, and its current per phase,
I = P / (phase factor × V × power factor), against the feed's continuous rating (breaker × `derating`). The load
is taken to divide equally among the feeds in service (a shared busbar, load-sharing PSUs); an uneven split (a
PDU's outlets, a lone partner of an A/B pair) is not modelled, which is why the loss case drops every spare the
redundancy holds back: N+1 one feed, N+N a whole side, so an A/B pair's partner is covered.

The power factor is the spec's (`Feeds.power_factor`); where it is left to the default 1.00 (kW = kVA, the least
current and the most capacity any load can give) `TYPICAL_POWER_FACTOR` gives the figures a typical server PSU
would (PWR002's info finding, the rack document).
"""

from __future__ import annotations

from dataclasses import dataclass

from archgen.analyse.power_chain import Power, Stage
from archgen.model.rack import Feeds
from archgen.units import Q

#: A server PSU's power factor at load, for a feed that states none: 0.95, the 80 PLUS Platinum and Titanium
#: minimum at 50 % load (80 PLUS program requirements, as tabulated at https://en.wikipedia.org/wiki/80_Plus,
#: "Efficiency level certifications", and https://www.maketecheasier.com/80-plus-power-supply-ratings/: Platinum
#: "power factor of 0.95 @ 50% load"). A certified supply may do better; none is required to at other loads.
TYPICAL_POWER_FACTOR = 0.95


@dataclass(frozen=True)
class FeedLoad:
    """One group of feeds: each feed's load and current in normal operation and with `lost` feeds out of service.

    `lost` is the group's spares (0 at N: no loss case); `rating` the continuous current of one feed (breaker ×
    derating); `power_factor` the one the currents use.
    """

    group: Stage
    per_feed: Q
    current: Q
    lost: int
    per_feed_lost: Q | None
    current_lost: Q | None
    rating: Q
    power_factor: float


def assumed_power_factor(feeds: Feeds) -> bool:
    """Whether the spec leaves the feeds' power factor to the default 1.00 (`Feeds.power_factor`)."""
    return "power_factor" not in feeds.model_fields_set


def low_end(feeds: Feeds) -> float | None:
    """A feed's capacity at `TYPICAL_POWER_FACTOR` over its capacity at the assumed 1.00.

    None where the spec states its power factor, then the only figure; PWR002 judges both ends where it does not.
    """
    return TYPICAL_POWER_FACTOR / feeds.power_factor if assumed_power_factor(feeds) else None


def feed_loads(power: Power, feeds: Feeds, power_factor: float | None = None) -> list[FeedLoad]:
    """Each feed group's per-feed load and current (`FeedLoad`), at `power_factor` (default: the feeds')."""
    pf = feeds.power_factor if power_factor is None else power_factor
    volts = feeds.voltage * power.phase_factor * pf   # I = P / (phase factor × V × PF)
    rating = (feeds.current * feeds.derating).to("A")
    out = []
    for g in power.feed_groups:
        if not g.count or g.load is None:
            continue
        each = (g.load / g.count).to("kW")
        left = g.count - g.spare
        lost = (g.load / left).to("kW") if g.spare and left > 0 else None
        out.append(FeedLoad(g, each, (each / volts).to("A"), g.spare if lost is not None else 0, lost,
                            (lost / volts).to("A") if lost is not None else None, rating, pf))
    return out
