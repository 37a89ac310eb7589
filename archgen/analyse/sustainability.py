"""A cluster's carbon and water per year, and a training run's: the hall's energy times its stated intensities.

- `carbon_per_year` = the hall's energy per year (`facility_energy_per_year`: the average IT load for the
  utilisation's share of 8,766 h, the idle load for the rest, × the annual PUE) × the grid's
  `sustainability.carbon_intensity` (g CO2e/kWh, location-based: the grid's average, GHG Protocol Scope 2
  Guidance, 2015, chapter 4). `market_carbon_per_year` is the same energy × `sustainability.market_carbon_intensity`
  (the supplier's, contracts' or residual mix's factor, the market-based method): the Guidance's dual reporting
  asks for both where contractual instruments exist (newuser75: a lab with 100 % PPAs, as Meta's Llama 3 model
  card reports, 0 t market-based against 8,930 t location-based for the 405B run, could state only one).
  Scope 2 only: the embodied carbon of the hardware (scope 3) is `analyse.embodied`'s, never added here.
- `water_per_year` = the cluster's IT energy per year (that energy over the PUE) × the site's
  `sustainability.wue` (L/kWh of IT energy, The Green Grid White Paper #35, 2011). The site's water, not the
  power plants' (the water embedded in the electricity has no input).
- A training run's `job_carbon`, `job_market_carbon` and `job_water` are the same products over its `job_energy`
  (`analyse.job_energy`: the hall's energy for the run's token budget) instead of the year's (newuser75: a model
  card reports the run's emissions, and only the year's could be read).

Each is not provided where the hall states no intensity, or no energy (no `cost:`, or a load of unknown draw), and
the reason says which (docs/facility.md, Carbon and water).
"""

from __future__ import annotations

from archgen.model import Facility
from archgen.units import Q

#: A cluster's metrics of this module, in the registry's order, each with the hall's intensity it multiplies.
SITE_METRICS = ("carbon_per_year", "market_carbon_per_year", "water_per_year")
#: A training run's, in the same order.
JOB_SITE_METRICS = ("job_carbon", "job_market_carbon", "job_water")
#: The `sustainability:` key each of them multiplies the energy by.
_KEYS = ("carbon_intensity", "market_carbon_intensity", "wue")


def _figures(hall: Facility | None, site: dict[str, str], energy: Q | None, names: tuple[str, ...],
             no_energy: str) -> tuple[dict[str, Q], dict[str, str]]:
    """`names` (carbon, market carbon, water) over the hall's `energy`, and why each other one is not provided.

    `site`: why the halls' own facilities give no one `sustainability:` (`analyse.site_cost.cost_facility`).
    """
    figures: dict[str, Q] = {}
    why: dict[str, str] = {}
    stated = hall.sustainability if hall is not None else None
    for name, key in zip(names, _KEYS, strict=True):
        intensity = getattr(stated, key) if stated is not None else None
        if intensity is None:
            why[name] = site.get("sustainability") or (
                f"facility '{hall.id}' states no `sustainability.{key}`" if hall is not None
                else "the cluster names no facility")
        elif energy is None or hall is None or hall.cost is None:
            why[name] = no_energy
        elif key != "wue":
            figures[name] = (energy * intensity).to("t")
        else:   # WUE is per kWh of IT energy: the hall's energy over its PUE
            figures[name] = (energy / hall.cost.energy.pue * intensity).to("m**3")
    return figures, why


def site_figures(hall: Facility | None, site: dict[str, str],
                 facility_energy: Q | None) -> tuple[dict[str, Q], dict[str, str]]:
    """The cluster's carbon and water per year where its hall states them, and why each other one is not provided."""
    return _figures(hall, site, facility_energy, SITE_METRICS,
                    "the cluster has no facility energy per year (its hall's `cost:`: annual PUE, utilisation)")


def job_site_figures(hall: Facility | None, site: dict[str, str], job_energy: Q | None,
                     why_no_energy: str) -> tuple[dict[str, Q], dict[str, str]]:
    """A training run's carbon and water over its `job_energy`, and why each other one is not provided."""
    return _figures(hall, site, job_energy, JOB_SITE_METRICS, f"the run has no `job_energy` ({why_no_energy})")
