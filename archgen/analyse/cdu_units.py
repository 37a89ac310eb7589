"""How many CDUs a cluster's racks buy outside their slots, and the heat each rack gives them.

CDUs named in a rack type's liquid path (not placed in its slots) are bought per group: `cdu_count` CDUs serve
`racks_per_cdu` racks of that type, so n racks take ⌊n / racks_per_cdu⌋ full groups; the last, partial group takes
the fewest of its `cdu_count` CDUs whose capacity, less the spares its `cdu_redundancy` holds back, carries that
group's liquid heat. The BOM (`analyse.bom`), the CDUs' draw (`analyse.cdu_power`) and a management fabric taking
their management ports (`endpoints.cooling`, `analyse.rack_ports`) count the same units from here.
"""

from __future__ import annotations

from archgen.build import RackDesign
from archgen.model import Switch, System
from archgen.model.base import spare_units
from archgen.model.system import max_draw
from archgen.quantity_ops import added
from archgen.units import Q_, Q


def liquid_heat(rack: RackDesign) -> Q:
    """Heat a rack rejects to liquid: each system's and switch's maximum draw x its liquid fraction."""
    return added(Q_(0, "W"), (max_draw(p.part) * p.part.cooling.liquid_fraction for p in rack.items
                              if isinstance(p.part, System | Switch))).to("kW")


def cdu_units(rack: RackDesign, racks: int) -> int:
    """CDUs that `racks` racks of this type need by the module docstring's rule; 0 without a CDU or with it placed."""
    path, unit = rack.spec.cooling.liquid, rack.cdu
    if path is None or unit is None or racks <= 0 or any(item.part.id == unit.id for item in rack.items):
        return 0
    full, rest = divmod(racks, path.racks_per_cdu)
    if not rest:
        return full * path.cdu_count
    load = liquid_heat(rack) * rest
    last = next((k for k in range(1, path.cdu_count)
                 if unit.capacity * (k - spare_units(path.cdu_redundancy, k)) >= load), path.cdu_count)
    return full * path.cdu_count + last
