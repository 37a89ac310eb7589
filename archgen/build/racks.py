"""A rack's slots bound to their parts and expanded into the items placed at each U, with its CDU and facility."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from archgen.build.refs import Unresolved, resolve
from archgen.model import Accessory, CoolingUnit, Facility, PowerShelf, Rack, Switch, System
from archgen.model.base import Part
from archgen.model.power import PDU
from archgen.validate import Specs

#: Part kinds that may be placed in a rack slot.
PLACEABLE = (System, Switch, PowerShelf, PDU, CoolingUnit)


@dataclass(frozen=True)
class Placed:
    """One physical item in a rack: the part, its lowest U, and the slot entry it came from."""

    part: Part
    u: int
    slot: int

    @functools.cached_property
    def height(self) -> int:
        """Height in whole rack units (0 for zero-U items); worked out once (`top` asks for it at every look)."""
        mech = getattr(self.part, "mechanical", None)
        return round(mech.height.m_as("U")) if mech else 0

    @property
    def top(self) -> int:
        """Highest U occupied."""
        return self.u + self.height - 1


@dataclass(frozen=True)
class RackDesign:
    """A rack with its items expanded and its references bound."""

    spec: Rack
    items: tuple[Placed, ...]
    cdu: CoolingUnit | None
    facility: Facility | None
    #: The Accessory parts it names, by field (`cooling.liquid`'s manifold, quick_disconnects, hoses;
    #: `power.shelves.cords` as cords), where they resolve.
    fittings: tuple[tuple[str, Accessory], ...] = ()
    #: The rear-door heat exchanger `cooling.air.rear_door` names, where it resolves to a unit of type rdhx.
    rear_door: CoolingUnit | None = None

    def fitting(self, field: str) -> Accessory | None:
        """The Accessory the rack's `field` names (a `FITTINGS` field or "cords"), or None (not stated or resolved)."""
        return next((part for name, part in self.fittings if name == field), None)

    @property
    def path(self) -> str:
        """Stable object path used in findings and metrics."""
        return f"rack/{self.spec.id}"


def bind_rack(specs: Specs, rack: Rack, unresolved: list[Unresolved]) -> RackDesign:
    """Bind a rack's slot parts (each `count` times, stacked from its `at`), its CDU, rear door and facility."""
    items: list[Placed] = []
    for i, slot in enumerate(rack.slots):
        part = resolve(specs, rack.id, slot.part, PLACEABLE, ("slots", i, "part"), unresolved, f"rack/{rack.id}")
        if isinstance(part, CoolingUnit) and part.type == "rdhx":  # a door takes no U: cooling.air.rear_door
            unresolved.append(Unresolved(f"rack/{rack.id}", rack.id, part.id, ("slots", i, "part"),
                                         "placeable part (a rear door is named in cooling.air.rear_door)",
                                         "CoolingUnit of type 'rdhx'"))
            continue
        if part is None:
            continue
        height = Placed(part, slot.at, i).height or 0
        items += [Placed(part, slot.at + n * height, i) for n in range(slot.count)]
    liquid = rack.cooling.liquid
    cdu = resolve(specs, rack.id, liquid.cdu if liquid else None, (CoolingUnit,), ("cooling", "liquid", "cdu"),
                  unresolved, f"rack/{rack.id}")
    if cdu is not None and cdu.type not in CDU_TYPES:  # a rear door or CRAH cools air, not the trays' loop: REF002
        unresolved.append(Unresolved(f"rack/{rack.id}", rack.id, cdu.id, ("cooling", "liquid", "cdu"),
                                     "CoolingUnit of type 'in-rack-cdu' or 'in-row-cdu'",
                                     f"CoolingUnit of type '{cdu.type}'"))
        cdu = None
    door = resolve(specs, rack.id, rack.cooling.air.rear_door, (CoolingUnit,), ("cooling", "air", "rear_door"),
                   unresolved, f"rack/{rack.id}")
    if door is not None and door.type != "rdhx":  # a CDU or CRAH is no rear door: REF002
        unresolved.append(Unresolved(f"rack/{rack.id}", rack.id, door.id, ("cooling", "air", "rear_door"),
                                     "CoolingUnit of type 'rdhx'", f"CoolingUnit of type '{door.type}'"))
        door = None
    facility = resolve(specs, rack.id, rack.facility, (Facility,), ("facility",), unresolved, f"rack/{rack.id}")
    shelves = rack.power.shelves
    stated = [(("cooling", "liquid", f), getattr(liquid, f) if liquid else None) for f in FITTINGS] + \
        [(("power", "shelves", "cords"), shelves.cords if shelves else None)]
    fittings = []
    for where, fitting in stated:
        part = resolve(specs, rack.id, fitting.part if fitting else None, (Accessory,), (*where, "part"), unresolved,
                       f"rack/{rack.id}")
        if part is not None and part.type != FITTING_TYPE[where[-1]]:   # a hose named as the manifold: REF002
            unresolved.append(Unresolved(f"rack/{rack.id}", rack.id, part.id, (*where, "part"),
                                         f"Accessory of type '{FITTING_TYPE[where[-1]]}'",
                                         f"Accessory of type '{part.type}'"))
        elif part is not None:
            fittings.append((where[-1], part))
    return RackDesign(rack, tuple(items), cdu, facility, tuple(fittings), door)


#: The `CoolingUnit.type`s a liquid path's `cdu` may name: a CDU exchanges the trays' loop heat into facility water.
#: A rear-door heat exchanger (`rdhx`) or a CRAH cools air; counted as the CDU, its capacity would pass COOL001 for
#: liquid heat it cannot take (newuser25).
CDU_TYPES = ("in-rack-cdu", "in-row-cdu")
#: The liquid path's fields that name Accessory parts, in BOM order.
FITTINGS = ("manifold", "quick_disconnects", "hoses")
#: The `Accessory.type` each field that names one takes.
FITTING_TYPE = {"manifold": "manifold", "quick_disconnects": "quick-disconnect", "hoses": "hose", "cords": "power-cord"}
