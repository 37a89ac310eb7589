"""The facility (primary) side of a rack's CDUs: the water flow a CDU group needs and the temperature it returns at.

A CDU moves its group's liquid heat (`CoolingSplit.cdu_load`, the heat COOL001 judges) from the secondary loop into
facility water. The flow is the same heat-flow formula the secondary loop uses, V̇ = Q̇ / (ρ c_p ΔT), with water's
properties (`COOLANTS["water"]`), at the facility-side rise the design states, first found of:

1. the CDU's `facility_delta_t` (its datasheet's rise at rated capacity); the return is the hall's supply + ΔT;
   where the hall's design return gives another rise, the basis says so (review35: it was dropped unsaid);
2. the hall's design return less its supply (`Facility.water.return`, the plant's design FWS/FWR).

An approach and a supply alone do not fix the facility ΔT (the plant sets its flow). Where neither is stated the
flow is not a figure but a range over `ASSUMED_RISES`, marked assumed, and the return is not provided.
"""

from __future__ import annotations

from dataclasses import dataclass

from archgen.analyse.rack import COOLANTS, RackAnalysis, volume_flow
from archgen.open_item import Worded
from archgen.units import Q_, Q

#: Facility-side rises the flow is shown over where neither the CDU nor the hall states one: an assumption, not a
#: design figure. No CDU datasheet we could read states a primary ΔT, and ASHRAE TC 9.9's W classes bound the supply
#: temperature only. The range is chilled-water plant practice: a conventional ΔT of about 5 °C and a high-ΔT
#: system's 9-10 °C (R. V. Simha, "Focus on the role of cooling coils and control valves in high-ΔT chilled water
#: systems", 2005, section 1); the US GSA's P100 facilities standard, section 5.12, asks 10 °C at the central plant
#: and 6 °C at the terminals (http://www.gsa.gov/portal/content/101239). 10 K is also the rise of the 1.5 L/min/kW
#: flow rule the class CDUs' secondary flow follows (OCP OAI liquid cooling guideline v1.0, section 3.2).
ASSUMED_RISES: tuple[Q, Q] = (Q_(5, "K"), Q_(10, "K"))


@dataclass(frozen=True)
class GroupWater:
    """One CDU group's facility water: `flow` and `back` (return) where known, else None with `missing` saying why.

    `basis` names where the rise `delta_t` comes from ('' where none is stated). `span`: where none is, the flows
    at the `ASSUMED_RISES` (the higher flow, at the smaller rise, first).
    """

    heat: Q
    delta_t: Q | None
    flow: Q | None
    supply: Q | None
    back: Q | None
    missing: str = ""
    basis: str = ""
    span: tuple[Q, Q] | None = None


def facility_water(a: RackAnalysis, heat: Q | None = None) -> GroupWater | None:
    """The facility water of the rack's CDU group (or of `heat`, e.g. every rack of a type); None: no CDU."""
    cdu, hall = a.rack.cdu, a.rack.facility
    if cdu is None or a.rack.spec.cooling.liquid is None:
        return None
    heat = (a.cooling.cdu_load if heat is None else heat).to("kW")
    water = hall.water if hall is not None else None
    supply = water.supply if water is not None else None
    rho, cp = COOLANTS["water"]
    basis: str
    if cdu.facility_delta_t is not None:
        rise = cdu.facility_delta_t.to("K")
        stated = Worded(f"{cdu.id}'s facility_delta_t", f"{cdu.id}'s stated facility-side ΔT")
        if water is not None and water.return_ is not None and hall is not None:
            design = (water.return_.to("K") - water.supply.to("K")).to("K")
            if abs((design - rise).m_as("K")) >= 0.05:   # a second stated rise that disagrees: said, not dropped
                more = (f", not {hall.id}'s design return {water.return_.to('degC'):.1f~P} less supply "
                        f"({design:.1f~P}): the two disagree, and the return given is the CDU's")
                stated = Worded(stated + more, stated.public + more)
        basis = stated
    elif water is not None and water.return_ is not None:
        rise = (water.return_.to("K") - water.supply.to("K")).to("K")
        basis = f"{hall.id}'s design return less supply" if hall is not None else ""
    else:
        hall_said = water is not None and hall is not None
        where = f"the hall '{hall.id}' no design return" if hall_said and hall is not None else \
            "the rack's hall no facility water"
        span = tuple(volume_flow(heat, rho, cp, r) for r in ASSUMED_RISES)
        missing = Worded(f"{cdu.id} states no facility_delta_t and {where}" + (" (water.return)" if hall_said else ""),
                         f"{cdu.id} states no facility-side ΔT and {where}" + (" temperature" if hall_said else ""))
        return GroupWater(heat, None, None, supply, None, missing, span=(span[0], span[1]))
    flow = volume_flow(heat, rho, cp, rise)
    if supply is None:
        return GroupWater(heat, rise, flow, None, None, "the rack's hall states no facility water supply", basis)
    back = (supply.to("K") + rise).to("degC")
    return GroupWater(heat, rise, flow, supply, back, basis=basis)
