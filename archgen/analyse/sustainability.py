"""A cluster's carbon and water per year: the hall's annual energy times its stated intensities.

- `carbon_per_year` = the hall's energy per year (`facility_energy_per_year`: the average IT load for the
  utilisation's share of 8,766 h, the idle load for the rest, × the annual PUE) × the grid's
  `sustainability.carbon_intensity` (g CO2e/kWh; location- or market-based as its source says, GHG Protocol Scope 2
  Guidance, 2015). Scope 2 only: the embodied carbon of the hardware (scope 3) has no input.
- `water_per_year` = the cluster's IT energy per year (that energy over the PUE) × the site's
  `sustainability.wue` (L/kWh of IT energy, The Green Grid White Paper #35, 2011). The site's water, not the
  power plants' (the water embedded in the electricity has no input).

Each is not provided where the hall states no intensity, or no energy per year (no `cost:`, or a load of unknown
draw), and the reason says which (docs/facility.md, Carbon and water).
"""

from __future__ import annotations

from archgen.model import Facility
from archgen.units import Q

#: The metrics of this module, in the registry's order.
SITE_METRICS = ("carbon_per_year", "water_per_year")


def site_figures(hall: Facility | None, facility_energy: Q | None) -> tuple[dict[str, Q], dict[str, str]]:
    """The cluster's carbon and water per year where its hall states them, and why each other one is not provided."""
    figures: dict[str, Q] = {}
    why: dict[str, str] = {}
    stated = hall.sustainability if hall is not None else None
    for name, key in zip(SITE_METRICS, ("carbon_intensity", "wue"), strict=True):
        intensity = getattr(stated, key) if stated is not None else None
        if intensity is None:
            why[name] = (f"facility '{hall.id}' states no `sustainability.{key}`" if hall is not None
                         else "the cluster names no facility")
        elif facility_energy is None or hall is None or hall.cost is None:
            why[name] = "the cluster has no facility energy per year (its hall's `cost:`: annual PUE, utilisation)"
        elif name == "carbon_per_year":
            figures[name] = (facility_energy * intensity).to("t")
        else:   # WUE is per kWh of IT energy: the hall's energy over its PUE
            figures[name] = (facility_energy / hall.cost.energy.pue * intensity).to("m**3")
    return figures, why
