"""A hall's carbon and water intensities: what its electricity emits and what its cooling consumes per kWh.

`archgen.analyse.sustainability` turns them, with the hall's annual energy (`facility_energy_per_year`), into the
cluster's `carbon_per_year`, `market_carbon_per_year` and `water_per_year`, and with a training run's `job_energy`
into its `job_carbon`, `job_market_carbon` and `job_water` (docs/facility.md, Carbon and water).
"""

from typing import Literal

from pydantic import Field

from archgen.model.spec import Spec
from archgen.units import CarbonIntensity, WaterIntensity


class Sustainability(Spec):
    """The grid's emission factor and the site's water usage effectiveness, each as its source states it."""

    carbon_intensity: CarbonIntensity | None = Field(None, description=(
        "Location-based emission factor of the electricity the hall draws: the average of the grid it is on, "
        "grams of CO2-equivalent per kWh, e.g. '390 g/kWh' (GHG Protocol Scope 2 Guidance, 2015, chapter 4); say "
        "which grid and year in `source`. The hall's annual energy (IT x PUE) times it is the cluster's "
        "`carbon_per_year`, a training run's energy times it its `job_carbon`. Unstated: no location-based "
        "carbon figure."))
    market_carbon_intensity: CarbonIntensity | None = Field(None, description=(
        "Market-based emission factor of the same electricity: that of the contractual instruments the hall's "
        "user holds (PPAs, RECs / GOs, a supplier's specific rate), else the residual mix, e.g. '0 g/kWh' where "
        "PPAs and certificates cover every kWh (GHG Protocol Scope 2 Guidance, 2015: chapter 6, Calculating "
        "Emissions, for the factor; chapter 7, Accounting and Reporting Requirements, for the Scope 2 Quality Criteria "
        "the instruments must meet); say which instruments in `source`. The Guidance asks for both methods where such "
        "instruments exist (dual reporting). The hall's annual energy times it is the cluster's "
        "`market_carbon_per_year`, a run's energy times it its `job_market_carbon`. Unstated: no market-based "
        "figure (never the location-based one in its place)."))
    wue: WaterIntensity | None = Field(None, description=(
        "Water usage effectiveness: the site's annual water use over its IT energy (The Green Grid White Paper "
        "#35, 2011), e.g. '1.8 L/kWh' (US data centres' 2014 on-site average over every cooling design, "
        "LBNL-1005775) or near 0 for dry coolers; it is the site's "
        "figure, not the racks' (a closed liquid loop consumes no water, its heat rejection may). The cluster's "
        "annual IT energy times it is its `water_per_year`. Unstated: no water figure."))
    basis: Literal["sourced", "assumed"] = Field(description="Whether the intensities are sourced or assumed.")
    source: str = Field(min_length=3, description="Where they come from (the grid, the year, the site's meter).")
