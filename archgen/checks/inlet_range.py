"""Helper of COOL015 (`checks.cooling.inlet_range`): the hall's inlet air against each part's own allowed range.

Not a check module. A rack's ASHRAE air class (COOL005) bounds the inlet air the class allows; a datasheet may allow
less: the DGX H100/H200 User Guide gives 5-30 °C in operation, so a hall supplying 33 °C passes class A2 (allowable
10-35 °C, ASHRAE TC 9.9) and still overheats the DGX (newuser29 open 2). Each placed system or switch whose
`cooling` states `inlet_min` or `inlet_max` is compared with the air its rack's hall supplies (`air.supply`), as
the datasheet states the range: none of the shipped sources states an altitude derating for it.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.checks.registry import Context, Violation
from archgen.display import quantity
from archgen.model import Switch, System

#: What a finding adds where the part marks the figure unconfirmed (a class part standing in for OEM models).
UNCONFIRMED = ", an unconfirmed class figure: confirm it on the chosen model"


def outside_inlet(ctx: Context) -> Iterator[Violation]:
    """COOL015's findings: one per rack and part whose stated inlet range the hall's air supply lies outside."""
    for path, a in ctx.racks.items():
        hall = a.rack.facility
        if hall is None:
            continue
        t, seen = hall.air.supply.to("degC"), set()
        for item in a.rack.items:
            part = item.part
            if not isinstance(part, System | Switch) or part.id in seen:
                continue
            seen.add(part.id)
            low, high = part.cooling.inlet_min, part.cooling.inlet_max
            limit = high if high is not None and t > high else low if low is not None and t < low else None
            if limit is None:
                continue
            word, key = ("above", "inlet_max") if limit is high else ("below", "inlet_min")
            span = f"{low.to('degC').magnitude:g}-{high.to('degC').magnitude:g} °C" if low is not None and \
                high is not None else f"{'up to' if limit is high else 'from'} {quantity(limit.to('degC'))}"
            said = f"facility '{hall.id}' supplies inlet air at {hall.air.supply:~P}, {word} the {span} {part.id} " \
                "allows in operation"
            marked = UNCONFIRMED if part.is_unconfirmed(f"cooling.{key}") else ""
            yield Violation(path, a.rack.spec.id, ("slots", item.slot, "part"),
                            f"{said} (its `cooling.{key}`{marked})", t, limit.to("degC"),
                            public=f"{said} (its {'maximum' if limit is high else 'minimum'} inlet temperature"
                                   f"{marked})")
