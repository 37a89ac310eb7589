"""A rack's rear-door heat exchanger: how much of the rack's heat to air it takes into its water.

A rear door (`cooling.air.rear_door`, a CoolingUnit of type rdhx) cools the air the equipment exhausts: up to its
capacity at the hall's conditions (`unit_capacity`, as a CDU's) of the rack's heat to air leaves in the door's
water, and the hall's air takes the rest. The equipment's air flow is not changed by it.
"""

from __future__ import annotations

from dataclasses import dataclass

from archgen.build import RackDesign
from archgen.model import CoolingUnit
from archgen.model.cooling import rated_capacity
from archgen.units import Q_, Q


@dataclass(frozen=True)
class RearDoor:
    """The door on a rack: its `capacity` at the hall's conditions, the rack's `air_heat` before it, what it takes."""

    unit: CoolingUnit
    capacity: Q
    air_heat: Q

    @property
    def taken(self) -> Q:
        """Heat the door moves into its water: the rack's air heat, up to the door's capacity."""
        return min(self.air_heat, self.capacity).to("kW")

    @property
    def excess(self) -> Q:
        """Air heat beyond the door's capacity, which the hall's air takes (COOL014); 0 kW where it fits."""
        return max(self.air_heat - self.capacity, Q_(0, "kW")).to("kW")


def rear_door(rack: RackDesign, air_heat: Q) -> RearDoor | None:
    """The rack's rear door against its heat to air (`air_heat`, before the door); None where it has none."""
    if rack.rear_door is None:
        return None
    return RearDoor(rack.rear_door, unit_capacity(rack, rack.rear_door).to("kW"), air_heat.to("kW"))


def unit_capacity(rack: RackDesign, unit: CoolingUnit) -> Q:
    """One cooling unit's (a CDU's, a rear door's) capacity at its rack's hall's conditions (`rated_capacity`).

    Its `capacity` where the hall meets the conditions it is stated at (or it states none), the covering derating
    row's where one covers them; where none does, the stated capacity, and COOL010 reports that the design cannot
    count on it.
    """
    hall = rack.facility
    if hall is None:
        return unit.capacity
    rated = rated_capacity(unit.capacity, unit.rated_at, unit.derating, hall.indoor())
    return rated.capacity if rated.capacity is not None else unit.capacity
