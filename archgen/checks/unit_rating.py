"""A hall's units rated in kVA (`Units.capacity`): the words PWR011, PWR017 and the documents give their rating in.

Transformers, utility services, UPS modules and generator sets are rated in kVA or MVA as often as in kW. Real power
is kVA x power factor (power factor: active over apparent power, IEEE Std 1459, "Definitions for the Measurement of
Electric Power Quantities"); a set's alternator is rated at 0.8, its kW 80 % of its kVA (ISO 8528-1 nameplates state
kVA, kW and rated power factor: SDMO R44C3 manual, 2.2, item 7). `Units.real` takes the lower of the unit's rated and
the load's stated power factor; where a kVA rating has neither, its real power is not provided.
"""

from __future__ import annotations

from typing import Any

from archgen.checks.registry import Violation
from archgen.display import kva, kw
from archgen.units import apparent_power


def load_pf(hall: Any) -> float | None:
    """The load's power factor the hall states (`feeds.power_factor`), or None."""
    feeds = hall.feeds if hall is not None else None
    return None if feeds is None or feeds.power_factor is None else float(feeds.power_factor)


def rating_words(units: Any, hall: Any, words: bool = False) -> str:
    """'2,000.0 kW', or '2,500 kVA (2,000.0 kW at power factor 0.8, the units' rated)' where it is in volt-amperes.

    A kW rating a lower load power factor limits reads '2,000.0 kW (1,750.0 kW at the load's power factor 0.7)'.
    `words`: as a customer reads it, without the power factor's key.
    """
    cap, real, load = units.capacity, units.real(load_pf(hall)), load_pf(hall)
    if not apparent_power(cap):
        if real is None or abs(real.m_as("kW") - cap.m_as("kW")) < 1e-9:
            return kw(cap)
        return f"{kw(cap)} ({kw(real)} at the load's power factor {load:g}" + ("" if words else
                                                                                ", `feeds.power_factor`") + ")"
    written = kva(cap)
    if real is None:
        return f"{written} (real power not provided: no power factor stated)"
    rated = units.power_factor
    which = ("the units' rated" + ("" if words else ", `power_factor`") if load is None or
             (rated is not None and float(rated) <= load) else "the load's" + ("" if words else
                                                                             ", `feeds.power_factor`"))
    return f"{written} ({kw(real)} at power factor {min(x for x in (rated, load) if x is not None):g}, {which})"


def kva_not_provided(path: str, c: Any, key: str, label: str, kind: str, units: Any) -> Violation:
    """PWR011's warning where the hall's utility feeds are rated in kVA and no power factor makes that real power.

    Utility feeds only: UPS modules and generator sets rated in kVA are refused without their own rated power factor
    (`model.upstream_feeds._KVA_RATED`, review39), so `Units.real` gives them a real power whatever the load's.
    """
    hall = c.cluster.facility
    field = f"{key}_units"
    head = (f"not provided: facility '{hall.id}''s {label} {kind} are rated {units.count} x "
            f"{kva(units.capacity)}")
    tail = "is stated: the real power they carry is not known, so the load is not judged against them"
    return Violation(path, c.cluster.spec.id, ("facility",), f"{head} (`feeds.{field}`), an apparent power, and "
                     f"neither their rated power factor (`feeds.{field}.power_factor`) nor the load's "
                     f"(`feeds.power_factor`) {tail}", units.capacity.to("kVA"), severity="warning",
                     public=f"{head}, an apparent power, and neither their rated power factor nor the load's {tail}")
