"""PWR011's UPS battery recharge: the hall's load after a ride-through, counted once, or said to be left out.

After a ride-through on batteries every UPS module recharges its battery from its input, the generator sets or the
utility, on top of the IT and mechanical load they carry. Datasheets state the charger's limit, and it is a large
share of the rating: Eaton's 91PS/93PS 8-40 kW User's and Installation Guide (P-164000493 rev 006, Table 33: "The
maximum charge current is 25 A per one 20 kW UPM"; configurable 1-25 A, "at > 80% load limited to 15 A");
Vertiv's Liebert APM2 30-120 kVA User Manual (2023, Table 12.5: maximum charging current "35*4" A at 120 kVA);
Schneider Electric's Galaxy VL specifications for the 200 kW UPS at 400 V state a maximum input current of 359 A
against 299 A nominal, but not what the difference is made of (it covers the charger and a low input voltage alike),
so no charging power is read from it. No figure is defaulted: a hall states each module's charging power
(`feeds.ups_recharge`), which `analyse.facility.generator_power` adds once to the generator and utility load
(`recharge_excess` takes the copies back out of a sum over the hall's clusters); without it the finding here says it
is left out, with the margin the recharge would have to fit in.

The charging power is added in full on top of the full load: an upper bound, not the draw. A charger may hold back
at high load (the 93PS's 25 A falls to 15 A above 80 % load, Table 33) and its current decays as the battery fills;
the messages say "at most" (`recharge_words`), and a hall that passes with it passes with any less.
"""

from __future__ import annotations

from typing import Any

from archgen.checks.registry import Violation
from archgen.display import kw
from archgen.units import Q

#: A charging power a large UPS states, for a finding's words (Eaton 93PS, Table 33: the module docstring's source).
EXAMPLE = "Eaton's 93PS states up to 25 A of charge current per 20 kW module"


def recharge_words(hall: Any) -> str:
    """How a generator or utility load names the recharge it holds ("" where the hall states none)."""
    feeds = hall.feeds
    if feeds is None or feeds.ups_recharge is None or feeds.ups_units is None:
        return ""
    each = feeds.ups_recharge.to("kW")
    return (f" and the UPS battery recharge after a ride-through (at most {feeds.ups_units.count} x {kw(each)} = "
            f"{kw(feeds.ups_units.count * each)}, the chargers' full power, once for the hall)")


def recharge_left_out(path: str, c: Any, margins: list[tuple[str, Q, Q]]) -> Violation | None:
    """PWR011's info finding: the hall has UPS modules but states no charging power, so the recharge is left out.

    `margins` are (the units, their usable capacity, the load judged) of the generator sets and utility feeds PWR011
    judged; the finding gives each stage's margin for this cluster, what the recharge would have to fit in.
    None where the hall has no UPS modules, states their charging power, or has no such stage judged.
    """
    hall = c.cluster.facility
    feeds = hall.feeds
    if feeds.ups_units is None or feeds.ups_recharge is not None or not margins and feeds.shared_utility is None:
        return None
    stages = [f"{units} ({_margin(usable - load)})" for units, usable, load in margins] + \
        (["the utility connection it shares"] if feeds.shared_utility is not None else [])
    said = (f"not provided: facility '{hall.id}''s UPS battery recharge after a ride-through is left out of the load "
            f"on its {' and '.join(stages)}: no charging power is stated for its "
            f"{feeds.ups_units.count} UPS modules {{}}, so whether the margin holds it is not known ({EXAMPLE})")
    return Violation(path, c.cluster.spec.id, ("facility",), said.format("(`feeds.ups_recharge`, from the datasheet)"),
                     severity="info", public=said.format("(the datasheet's charging power)"))


def _margin(q: Q) -> str:
    kw = q.to("kW").magnitude
    return f"within by {kw:,.1f} kW" if kw >= 0 else f"already over by {-kw:,.1f} kW"
