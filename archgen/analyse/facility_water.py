"""The facility (primary) side of a rack's CDUs: the water flow a CDU group needs and the temperature it returns at.

A CDU moves its group's liquid heat (`CoolingSplit.cdu_load`, the heat COOL001 judges) from the secondary loop into
facility water. Where the CDU states its facility-side rise (`CoolingUnit.facility_delta_t`), the flow is the same
heat-flow formula the secondary loop uses, V̇ = Q̇ / (ρ c_p ΔT), with water's properties (`COOLANTS["water"]`), and
the return is the facility supply + ΔT. An approach and a supply alone do not fix the facility ΔT (the plant sets
its flow), so without `facility_delta_t` both are not provided.
"""

from __future__ import annotations

from dataclasses import dataclass

from archgen.analyse.rack import COOLANTS, RackAnalysis, volume_flow
from archgen.units import Q


@dataclass(frozen=True)
class GroupWater:
    """One CDU group's facility water: `flow` and `back` (return) where known, else None with `missing` saying why."""

    heat: Q
    delta_t: Q | None
    flow: Q | None
    supply: Q | None
    back: Q | None
    missing: str = ""


def facility_water(a: RackAnalysis, heat: Q | None = None) -> GroupWater | None:
    """The facility water of the rack's CDU group (or of `heat`, e.g. every rack of a type); None: no CDU."""
    cdu, hall = a.rack.cdu, a.rack.facility
    if cdu is None or a.rack.spec.cooling.liquid is None:
        return None
    heat = (a.cooling.cdu_load if heat is None else heat).to("kW")
    supply = hall.water.supply if hall is not None and hall.water is not None else None
    if cdu.facility_delta_t is None:
        return GroupWater(heat, None, None, supply, None, f"{cdu.id} states no facility-side ΔT (facility_delta_t)")
    rise = cdu.facility_delta_t.to("K")
    flow = volume_flow(heat, *COOLANTS["water"], rise)
    if supply is None:
        return GroupWater(heat, rise, flow, None, None, "the rack's hall states no facility water supply")
    back = (supply.to("K") + rise).to("degC")
    return GroupWater(heat, rise, flow, supply, back)
