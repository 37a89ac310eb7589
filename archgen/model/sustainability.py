"""A hall's carbon and water intensities: what its electricity emits and what its cooling consumes per kWh.

`archgen.analyse.sustainability` turns them, with the hall's annual energy (`facility_energy_per_year`), into the
cluster's `carbon_per_year` and `water_per_year` (docs/facility.md, Carbon and water).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from archgen.model.spec import Spec
from archgen.units import CarbonIntensity, WaterIntensity


class Sustainability(Spec):
    """The grid's emission factor and the site's water usage effectiveness, each as its source states it."""

    carbon_intensity: CarbonIntensity | None = Field(None, description=(
        "Emission factor of the electricity the hall draws, grams of CO2-equivalent per kWh, e.g. '390 g/kWh': "
        "a grid's average (location-based) or the supplier's or contract's (market-based), as the GHG Protocol "
        "Scope 2 Guidance (2015) defines them; say which in `source`. The hall's annual energy (IT x PUE) times "
        "it is the cluster's `carbon_per_year`. Unstated: no carbon figure."))
    wue: WaterIntensity | None = Field(None, description=(
        "Water usage effectiveness: the site's annual water use over its IT energy (The Green Grid White Paper "
        "#35, 2011), e.g. '1.8 L/kWh' (US data centres' 2014 on-site average over every cooling design, "
        "LBNL-1005775) or near 0 for dry coolers; it is the site's "
        "figure, not the racks' (a closed liquid loop consumes no water, its heat rejection may). The cluster's "
        "annual IT energy times it is its `water_per_year`. Unstated: no water figure."))
    basis: Literal["sourced", "assumed"] = Field(description="Whether the intensities are sourced or assumed.")
    source: str = Field(min_length=3, description="Where they come from (the grid, the year, the site's meter).")
