"""PWR023: the UPS load rests on the distribution's efficiency below the UPS; unstated, it is taken as lossless.

Moved out of `checks/power_figures.py` (its size) when hall29fix made it name each hall's own facility
(`floor.halls[].facility`) rather than the cluster's, which holds none of those halls.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from archgen.checks.registry import Violation


def lossless_distribution(path: str, c: Any) -> Iterator[Violation]:
    """PWR023's info finding where the hall states UPS modules but not the distribution's efficiency below them.

    The UPS output feeds the racks through PDU transformers, busway and panels that lose power (a three-phase
    300 kVA low-voltage dry-type transformer may lose 0.98 % at 35 % load, 10 CFR 431.196(a)(2)); unstated, the UPS
    load is the rack feeds' load, the distribution taken as lossless, and the finding says so: not a default. On a
    floor whose halls name their own facilities, each such facility holding racks (once, at its first hall's key),
    never the cluster's, which holds none of them (hall29fix: the cluster's was named).
    """
    own = c.cluster.hall_facilities
    if any(own):
        halls, seen = c.cluster.spec.floor.halls, set()
        held = [(k, f) for k, f in enumerate(own) if f is not None and f"hall_power.{halls[k].id}" in c.metrics]
        for k, fac in held:
            if fac.id not in seen:
                seen.add(fac.id)
                yield from _lossless(path, c, fac, ("floor", "halls", k, "facility"))
    elif c.cluster.facility is not None:
        yield from _lossless(path, c, c.cluster.facility, ("facility",))


def _lossless(path: str, c: Any, hall: Any, at: tuple) -> Iterator[Violation]:
    """`lossless_distribution`'s finding for one facility `hall`, at `at`: none where it is not due."""
    if hall.feeds is None or hall.feeds.ups_units is None or hall.feeds.distribution_efficiency is not None:
        return
    said = (f"facility '{hall.id}''s UPS modules are judged on the rack feeds' load with the distribution between "
            "them (PDU transformers, busway, panels) taken as lossless: {} is not stated, so the UPS load is a lower "
            "bound (a three-phase 300 kVA dry-type transformer alone may lose 0.98 % at 35 % load, "
            "10 CFR 431.196(a)(2))")
    yield Violation(path, c.cluster.spec.id, at, said.format("`feeds.distribution_efficiency`") +
                    "; state it from the datasheets", severity="info",
                    public=said.format("the distribution's efficiency"))
