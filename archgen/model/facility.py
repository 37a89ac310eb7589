"""The `Facility` kind: the data hall a rack or cluster is installed in, and the ASHRAE classes."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from archgen.model.base import Document, Spec
from archgen.model.cost import FacilityCost
from archgen.model.reliability import SiteEvent
from archgen.units import AreaLoad, Power, Temperature, Voltage

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
