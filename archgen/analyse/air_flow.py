"""The air flow the systems that publish one move, against the air their own heat needs (COOL007).

A system's datasheet may state its rated air flow (`System.airflow`: DGX H100, 1,105 CFM at full load, DGX H100/H200
User Guide); many class parts state none. Their fans still move air, so the stated flows are compared with the heat
of the systems that state them, like with like: each such system's maximum draw less its liquid-cooled share
(`analyse.cdu_units.liquid_heat`'s rule), and the systems that state none are named as not judged. Switches, power
shelves and PDUs move their own air through their own fans and are not in either side (newuser29: 2 DGX H100 and 2
HGX H200 in one rack were reported as moving 2,210 CFM for the 40.8 kW of all four).
"""

from __future__ import annotations

from dataclasses import dataclass

from archgen.build import RackDesign
from archgen.model import System
from archgen.model.system import max_draw
from archgen.quantity_ops import added
from archgen.units import Q_, Q


@dataclass(frozen=True)
class RatedAir:
    """The systems stating an air flow: their flow, their air-side heat, and the air-cooled systems stating none."""

    flow: Q          # the stated flows summed
    heat: Q          # their maximum draw less the liquid-cooled share
    unstated: tuple[str, ...]   # 'id xN' of the systems with air-side heat and no stated flow


def rated_air(rack: RackDesign) -> RatedAir | None:
    """The rack's systems that state a rated air flow, with their heat; None where none states one."""
    stating: dict[str, int] = {}
    unstated: dict[str, int] = {}
    flow, heat = Q_(0, "m**3/s"), Q_(0, "W")
    for p in rack.items:
        part = p.part
        if not isinstance(part, System) or part.cooling.liquid_fraction >= 1:
            continue
        if part.airflow is None:
            unstated[part.id] = unstated.get(part.id, 0) + 1
            continue
        stating[part.id] = stating.get(part.id, 0) + 1
        flow = flow + part.airflow
        heat = added(heat, [max_draw(part) * (1 - part.cooling.liquid_fraction)])
    if not stating:
        return None
    return RatedAir(flow.to("ft**3/min"), heat.to("kW"), tuple(f"{k} x{n}" for k, n in sorted(unstated.items())))
