"""The `Facility` kind: the data hall a rack or cluster is installed in, and the ASHRAE classes."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from archgen.model.base import Redundancy
from archgen.model.cost import FacilityCost
from archgen.model.reliability import SiteEvent
from archgen.model.spec import Count, Document, Spec
from archgen.units import AreaLoad, Duration, Power, Temperature, Voltage

AirClass = Literal["A1", "A2", "A3", "A4"]
LiquidClass = Literal["W17", "W27", "W32", "W40", "W45", "W+"]

#: ASHRAE TC 9.9 (Thermal Guidelines, 5th ed., 2021) allowable inlet air dry-bulb range per class, degC.
AIR_CLASS_RANGE: dict[str, tuple[float, float]] = {"A1": (15, 32), "A2": (10, 35), "A3": (5, 40), "A4": (5, 45)}
#: ASHRAE TC 9.9 (Liquid Cooling Guidelines, 2021) maximum facility water supply temperature per class, degC.
LIQUID_CLASS_MAX: dict[str, float] = {"W17": 17, "W27": 27, "W32": 32, "W40": 40, "W45": 45, "W+": 60}


class FacilityWater(Spec):
    """Facility water (FWS) delivered to CDUs."""

    supply: Temperature = Field(description="Facility water supply temperature, e.g. '30 degC'.")


class FacilityAir(Spec):
    """Air delivered to rack inlets."""

    supply: Temperature = Field(description="Design inlet air temperature, e.g. '25 degC'.")


class SiteTier(Spec):
    """The hall's availability rating under one of the data-centre standards."""

    standard: Literal["Uptime Institute", "TIA-942", "EN 50600"] = Field(description=(
        "The standard: Uptime Institute Tier (I-IV), ANSI/TIA-942 Rated (1-4) or EN 50600 Availability Class (1-4)."))
    level: int = Field(ge=1, le=4, description="Tier, rating or class, 1 to 4 (Uptime Tier III is 3).")
    certified: bool = Field(False, description="Whether the site is certified at that level, not only designed to it.")


class UpstreamFeeds(Spec):
    """Power and cooling upstream of the racks: utility feeds, UPS, generators and the cooling plant."""

    utility_feeds: Count | None = Field(None, description="Independent utility feeds to the site, e.g. 2.")
    utility_voltage: Voltage | None = Field(None, description="Utility (medium) voltage, e.g. '13.8 kV'.")
    ups: Redundancy | None = Field(None, description="UPS redundancy: N, N+1 or N+N (2N).")
    ups_autonomy: Duration | None = Field(None, description="UPS ride-through at full load, e.g. '5 min'.")
    generators: Redundancy | None = Field(None, description="Standby generator redundancy: N, N+1 or N+N (2N).")
    cooling: Redundancy | None = Field(None, description="Cooling plant (chillers, CDUs, pumps) redundancy.")


class Facility(Document):
    """A data hall: floor rating, facility water and air conditions."""

    kind: Literal["Facility"] = "Facility"
    floor_rating: AreaLoad = Field(description="Allowed distributed floor load, e.g. '1200 kg/m**2'.")
    water: FacilityWater | None = Field(None, description="Facility water, when liquid cooling is available.")
    air: FacilityAir = Field(description="Inlet air conditions.")
    voltage: Voltage | None = Field(None, description="Distribution voltage to the racks.")
    critical_it_power: Power | None = Field(None, description=(
        "Critical IT power the hall delivers (UPS-backed, to the IT load), e.g. '1.5 MW'; a cluster's IT power is "
        "measured against it (metric `it_capacity_headroom`)."))
    cooling_capacity: Power | None = Field(None, description=(
        "IT heat the hall's cooling plant can reject (liquid and air together), e.g. '1.5 MW'; a cluster's IT power,"
        " all of which becomes heat, is measured against it (metric `cooling_headroom`)."))
    source: str = Field("", description="Where the facility figures come from.")
    site_events: list[SiteEvent] = Field(default_factory=list, description=(
        "Events that stop every job in the hall (power, cooling), with their rate per year."))
    cost: FacilityCost | None = Field(None, description="Electricity price, PUE, space cost and depreciation.")
    tier: SiteTier | None = Field(None, description=(
        "Availability rating of the hall, e.g. `{standard: Uptime Institute, level: 3}`; a reference architecture "
        "may require one (NVIDIA's DGX SuperPOD GB200 asks for Tier 3, Rated 3 or Class 3)."))
    concurrently_maintainable: bool | None = Field(None, description=(
        "Whether every power and cooling component upstream of the racks can be taken out for maintenance without "
        "stopping the IT load (the Tier III property)."))
    feeds: UpstreamFeeds | None = Field(None, description="Utility, UPS, generator and cooling-plant redundancy.")
