"""Helpers of COOL010 and COOL011 (`checks.cooling`): a unit's stated capacity against the conditions it meets.

Not a check module. A CDU or rear door (COOL010) is rated at conditions its datasheet states (`rated_at`), a hall's
heat-rejection plant (COOL011) at outdoor conditions (`cooling_rated_at`); where the hall or the site is harder, the
capacity counts only where a derating row covers it (`model.cooling.rated_capacity`, no interpolation), and a rating
condition the hall or site does not state is not compared (an info finding says so).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from archgen.checks.registry import Context, Violation
from archgen.model import CoolingUnit
from archgen.model.cooling import counted, describe, rated_capacity, stated_only, unstated
from archgen.model.facility import INDOOR_KEYS, OUTDOOR_KEYS, Facility


def cdu_ratings(ctx: Context) -> Iterator[Violation]:
    """COOL010's findings: each rack's CDU and rear door against its hall's water, air and altitude."""
    for path, a in ctx.racks.items():
        hall = a.rack.facility
        if hall is None:
            continue
        for unit, where, kind, judge in _rated_units(a):
            if unit.rated_at is None:
                water = f" (facility water {hall.water.supply.to('degC'):.0f~P})" if hall.water is not None else ""
                rest = (f": its {unit.capacity.to('kW'):.0f~P} is counted as stated ({judge}), not known to hold at "
                        f"facility '{hall.id}'{water}")
                yield Violation(path, a.rack.spec.id, where, f"{kind} {unit.id} states no rated_at{rest}",
                                severity="info", public=f"{kind} {unit.id} states no rated conditions{rest}")
                continue
            rated = rated_capacity(unit.capacity, unit.rated_at, unit.derating, hall.indoor())
            if rated.capacity is None:
                _, limit, value = rated.unmet[0]
                unmet = f"({describe(rated.unmet, 'hall air')}){_rows(unit.derating)}"
                yield Violation(path, a.rack.spec.id, where,
                                f"{kind} {unit.id} is rated {unit.capacity.to('kW'):.0f~P} at conditions facility "
                                f"'{hall.id}' does not meet {unmet}", value, limit)
            elif missing := unstated(unit.rated_at, hall.indoor()):
                head, tail = f"not judged: {kind} {unit.id} is rated at ", \
                    f": {counted(rated.capacity, unit.capacity)} ({judge}), not known to hold there"
                yield Violation(path, a.rack.spec.id, where,
                                head + stated_only(missing, 'hall air', INDOOR_KEYS, f'facility {hall.id!r}') + tail,
                                severity="info", public=head + stated_only(
                                    missing, 'hall air', INDOOR_KEYS, f'facility {hall.id!r}', words=True) + tail)


def _rated_units(a: Any) -> list[tuple[CoolingUnit, tuple[str, ...], str, str]]:
    """The rack's CDU (with a liquid path) and rear door: (unit, its field, what it is, the check counting it)."""
    rack = a.rack
    out: list[tuple[CoolingUnit, tuple[str, ...], str, str]] = []
    if rack.cdu is not None and rack.spec.cooling.liquid is not None:
        out.append((rack.cdu, ("cooling", "liquid", "cdu"), "CDU", "COOL001"))
    if rack.rear_door is not None:
        out.append((rack.rear_door, ("cooling", "air", "rear_door"), "rear door", "COOL014"))
    return out


def _rows(derating: list) -> str:
    """'; its 2 derating row(s) do not cover them', or '' without a derating table."""
    return f"; its {len(derating)} derating row(s) do not cover them" if derating else ""


def plant_ratings(ctx: Context) -> Iterator[Violation]:
    """COOL011's findings: each facility's `cooling_capacity` against its site's outdoor design and altitude."""
    for fac in ctx.design.specs.of(Facility):
        if fac.cooling_capacity is None:
            continue
        rated = rated_capacity(fac.cooling_capacity, fac.cooling_rated_at, fac.cooling_derating, fac.outdoor())
        if rated.capacity is None:
            _, limit, value = rated.unmet[0]
            yield Violation(f"facility/{fac.id}", fac.id, ("cooling_rated_at",),
                            f"cooling capacity {fac.cooling_capacity.to('kW'):.0f~P} is rated at conditions the site "
                            f"does not meet ({describe(rated.unmet, 'outdoor air')}){_rows(fac.cooling_derating)}",
                            value, limit)
        elif missing := unstated(fac.cooling_rated_at, fac.outdoor()):
            head = f"not judged: cooling capacity {fac.cooling_capacity.to('kW'):.0f~P} is rated at "
            tail = f"{counted(rated.capacity, fac.cooling_capacity)} (COOL009, {{}}), not known to hold at the site"
            yield Violation(f"facility/{fac.id}", fac.id, ("cooling_rated_at",),
                            f"{head}{stated_only(missing, 'outdoor air', OUTDOOR_KEYS, 'the hall')}: "
                            + tail.format("`cooling_headroom`"), severity="info",
                            public=f"{head}{stated_only(missing, 'outdoor air', OUTDOOR_KEYS, 'the hall', True)}: "
                            + tail.format("cooling headroom"))
