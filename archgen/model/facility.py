"""The `Facility` kind: the data hall a rack or cluster is installed in, and the ASHRAE classes."""

from collections import Counter
from typing import Literal, Self

from pydantic import Field, model_validator

from archgen.model.cooling import Conditions, Rating, derating_needs_rating, rated_capacity
from archgen.model.cost import FacilityCost
from archgen.model.dc_feeds import AcSupply
from archgen.model.reliability import SiteEvent
from archgen.model.spec import Document, FieldError, Ref, Spec, raise_each
from archgen.model.sustainability import Sustainability
from archgen.model.upstream_feeds import UpstreamFeeds, no_water
from archgen.units import Q_, AreaLoad, LengthOrZero, Power, PowerOrZero, Q, Temperature, Voltage

AirClass = Literal["A1", "A2", "A3", "A4"]
LiquidClass = Literal["W17", "W27", "W32", "W40", "W45", "W+"]

#: ASHRAE TC 9.9 (Thermal Guidelines, 5th ed., 2021) allowable inlet air dry-bulb range per class, degC.
AIR_CLASS_RANGE: dict[str, tuple[float, float]] = {"A1": (15, 32), "A2": (10, 35), "A3": (5, 40), "A4": (5, 45)}
#: ASHRAE TC 9.9 (Liquid Cooling Guidelines, 2021) maximum facility water supply temperature per class, degC.
LIQUID_CLASS_MAX: dict[str, float] = {"W17": 17, "W27": 27, "W32": 32, "W40": 40, "W45": 45, "W+": 60}
#: ASHRAE TC 9.9 (Thermal Guidelines, 4th ed. 2015 and 5th ed. 2021, notes to the table of air classes): above
#: `DERATE_ABOVE` the maximum allowable dry-bulb falls 1 degC per this many metres (A1, A2: 300 m; A3: 175 m; A4:
#: 125 m), up to `MAX_ELEVATION`. IBM's Power E1050 Technical Overview (Redpaper REDP-5684, table 1-3 note) quotes the
#: A3 rule in these words: 1 degC per 175 m above 900 m, to a maximum allowable elevation of 3050 m. The 2011 edition
#: of the classes (and vendors who copy it, e.g. Microsoft's Azure Stack Edge specifications) start at 950 m.
ALTITUDE_DERATING: dict[str, float] = {"A1": 300, "A2": 300, "A3": 175, "A4": 125}
DERATE_ABOVE = Q_(900, "m")
#: The keys of a Facility that state each rating condition: for a unit in the hall (`Facility.indoor`) and for its
#: heat-rejection plant (`Facility.outdoor`).
INDOOR_KEYS = {"water": "water.supply", "ambient": "air.supply", "altitude": "altitude"}
OUTDOOR_KEYS = {"ambient": "outdoor_design", "altitude": "altitude"}
MAX_ELEVATION = Q_(3050, "m")


def allowable_air(cls: str, altitude: Q | None) -> tuple[Q, Q, str]:
    """(lowest, highest) allowable inlet dry-bulb of an ASHRAE air class at an altitude, and how the top was derated.

    The highest falls 1 K per `ALTITUDE_DERATING[cls]` metres above `DERATE_ABOVE`; the reason is '' at or below it.
    """
    low, high = AIR_CLASS_RANGE[cls]
    above = 0.0 if altitude is None else max(altitude.to("m").magnitude - DERATE_ABOVE.magnitude, 0.0)
    if not above:
        return Q_(low, "degC"), Q_(high, "degC"), ""
    drop = above / ALTITUDE_DERATING[cls]
    why = (f"at {altitude:~P}: {high} °C less 1 K per {ALTITUDE_DERATING[cls]:g} m above {DERATE_ABOVE:~P}, "
           "ASHRAE TC 9.9")
    return Q_(low, "degC"), Q_(round(high - drop, 6), "degC"), why


def pressure_ratio(altitude: Q | None) -> float:
    """Barometric pressure at an altitude over that at sea level, p/p0 = (1 - 2.25577e-5 Z)^5.2559 (Z in m).

    ASHRAE Handbook, Fundamentals (2017), ch. 1, eq. 3 (the U.S. Standard Atmosphere, 1976). At a given temperature
    air density scales with pressure, so an air flow at altitude carries less heat per m^3.
    """
    if altitude is None:
        return 1.0
    return (1 - 2.25577e-5 * altitude.to("m").magnitude) ** 5.2559


class FacilityWater(Spec):
    """Facility water (FWS) delivered to CDUs."""

    supply: Temperature = Field(description="Facility water supply temperature, e.g. '30 degC'.")
    return_: Temperature | None = Field(None, alias="return", description=(
        "Design facility water return temperature at full load, e.g. '40 degC' (the plant's design FWS/FWR "
        "temperatures; ASHRAE's W classes bound the supply only). Its rise over `supply` gives the facility water "
        "flow per CDU group, Q / (ρ c_p ΔT), where the CDU states no `facility_delta_t`. Not stated either: the flow "
        "is shown over an assumed range of rises (`analyse.facility_water.ASSUMED_RISES`), marked assumed."))

    @model_validator(mode="after")
    def _rise(self) -> Self:
        if self.return_ is not None and self.return_.to("degC") <= self.supply.to("degC"):
            raise FieldError(("return",), f"a return of {self.return_:~P} is not above the supply {self.supply:~P}: "
                                          "the water warms through the CDUs (state the design return)")
        return self


class FacilityAir(Spec):
    """Air delivered to rack inlets."""

    supply: Temperature = Field(description="Design inlet air temperature, e.g. '25 degC'.")


class SiteTier(Spec):
    """The hall's availability rating under one of the data-centre standards."""

    standard: Literal["Uptime Institute", "TIA-942", "EN 50600"] = Field(description=(
        "The standard: Uptime Institute Tier (I-IV), ANSI/TIA-942 Rated (1-4) or EN 50600 Availability Class (1-4)."))
    level: int = Field(ge=1, le=4, description="Tier, rating or class, 1 to 4 (Uptime Tier III is 3).")
    certified: bool = Field(False, description="Whether the site is certified at that level, not only designed to it.")


class Facility(AcSupply, Document):
    """A data hall: floor rating, facility water and air conditions."""

    kind: Literal["Facility"] = "Facility"
    floor_rating: AreaLoad = Field(description="Allowed distributed floor load, e.g. '1200 kg/m**2'.")
    water: FacilityWater | None = Field(None, description="Facility water, when liquid cooling is available.")
    air: FacilityAir = Field(description="Inlet air conditions.")
    voltage: Voltage | None = Field(None, description=(
        "Distribution voltage to the racks, line-to-line (the 415 V of a 415/240 V system); each rack's feeds, "
        "restated line-to-line, are compared with it (PWR015). AC only: a voltage outside IEC 60038 Table 1's "
        "low-voltage systems (above 690 V other than 1000 V), such as NVIDIA's 800 VDC, is refused (DC distribution "
        "is not modelled: `dc_feeds`)."))
    critical_it_power: Power | None = Field(None, description=(
        "Critical IT power the hall delivers (UPS-backed, to the IT load), e.g. '1.5 MW'; a cluster's IT power is "
        "measured against it (metric `it_capacity_headroom`)."))
    cooling_capacity: Power | None = Field(None, description=(
        "IT heat the hall's cooling plant can reject (liquid and air together), e.g. '1.5 MW'; a cluster's IT power,"
        " all of which becomes heat, is measured against it (metric `cooling_headroom`)."))
    air_cooling_capacity: PowerOrZero | None = Field(None, description=(
        "Heat the hall's air side (CRAHs, fan walls, in-row air coolers) can take from the room air, part of "
        "`cooling_capacity`, e.g. '300 kW': the racks' heat to air (after any rear doors) is measured against it "
        "(COOL009); counted as stated, at no stated conditions. A water-only plant states 0 kW."))
    air_cooling_per_rack: PowerOrZero | None = Field(None, description=(
        "Heat the hall's air side can take at one rack position (the in-row coolers or contained CRAH air serving "
        "it), e.g. '30 kW': each rack's heat to air, after any rear door, is measured against it (COOL021). Not "
        "stated: COOL021 says the rack's air side is not judged (an info finding, not a pass)."))
    peak_pue: float | None = Field(None, ge=1, le=5, description=(
        "Facility power over IT power at design conditions: full IT load on the design day (the site's outdoor "
        "design dry-bulb), the 'design PUE' or 'peak PUE' a facility engineer sizes plant on, e.g. 1.35 (ASHRAE "
        "90.4 likewise keeps a design mechanical load component apart from the annualized one). Generator sets "
        "carry IT power x this (PWR011); without it PWR011 uses `cost.energy.pue`, an annual average (The Green "
        "Grid, White Paper #49), and says the check is optimistic."))
    source: str = Field("", description="Where the facility figures come from.")
    site_events: list[SiteEvent] = Field(default_factory=list, description=(
        "Events that stop every job in the hall (power, cooling), with their rate per year."))
    cost: FacilityCost | None = Field(None, description="Electricity price, PUE, space cost and depreciation.")
    sustainability: Sustainability | None = Field(None, description=(
        "The grid's carbon intensity (location-based, and market-based where contracts are held) and the site's "
        "WUE, e.g. {carbon_intensity: 390 g/kWh, market_carbon_intensity: 0 g/kWh, wue: 0.2 L/kWh, basis: "
        "assumed, source: ...}: with `cost:` (the annual PUE and utilisation), the cluster's carbon and water "
        "per year and a training run's (docs/facility.md, Carbon and water)."))
    tier: SiteTier | None = Field(None, description=(
        "Availability rating of the hall, e.g. `{standard: Uptime Institute, level: 3}`; a reference architecture "
        "may require one (NVIDIA's DGX SuperPOD GB200 asks for Tier 3, Rated 3 or Class 3)."))
    concurrently_maintainable: bool | None = Field(None, description=(
        "Whether every power and cooling component upstream of the racks can be taken out for maintenance without "
        "stopping the IT load (the Tier III property)."))
    feeds: UpstreamFeeds | None = Field(None, description="Utility, UPS, generator and cooling-plant redundancy.")
    deployed: list[Ref] | None = Field(None, description=(
        "Ids of the clusters deployed together in the hall, e.g. [h100-pod, gb200-su] (two generations side by "
        "side): their IT power, facility power and energy are summed (`hall_it_power`, ...) and PWR010, PWR011 and "
        "COOL009 judge the sum (an error above a capacity). A cluster naming the hall but not listed is a candidate "
        "design, judged alone against the hall. Each id must be a cluster of the run that names this hall (PWR020). "
        "Not stated: the hall's totals are not provided (PWR021), as the clusters naming it may be alternatives. "
        "Empty ([]): no cluster stands in the hall yet, every one naming it is a candidate judged alone, and the "
        "totals are not provided (PWR021 says so)."))
    altitude: LengthOrZero | None = Field(None, description=(
        "Site elevation above sea level, e.g. '1600 m': above 900 m it lowers each ASHRAE air class's allowable "
        "inlet maximum (COOL005), and it thins the air an air path moves (COOL007)."))
    outdoor_design: Temperature | None = Field(None, description=(
        "Outdoor design dry-bulb the heat-rejection plant must work at, e.g. '38 degC' (a climatic design value of "
        "the site, such as ASHRAE's 0.4 % or 20-year extreme): compared with `cooling_rated_at.ambient` (COOL011)."))
    cooling_rated_at: Conditions | None = Field(None, description=(
        "Outdoor conditions `cooling_capacity` is stated at, e.g. {ambient: 35 degC, altitude: 0 m}; a site "
        "hotter (`outdoor_design`) or higher (`altitude`) is a finding (COOL011) unless `cooling_derating` covers "
        "it."))
    cooling_derating: list[Rating] = Field(default_factory=list, description=(
        "The plant's capacity at harder outdoor conditions, as its source states it, e.g. [{ambient: 40 degC, "
        "capacity: 1.3 MW}]; COOL009 and `cooling_headroom` count the row covering the site (no interpolation)."))

    @model_validator(mode="after")
    def _plant_rating(self) -> Self:
        errors = derating_needs_rating(self.cooling_rated_at, self.cooling_derating, "cooling_")
        if self.cooling_rated_at is not None and self.cooling_capacity is None:
            errors.append(FieldError(("cooling_rated_at",), "conditions without a `cooling_capacity` to state them "
                                                            "for"))
        errors += no_water(self.cooling_rated_at, self.cooling_derating, "cooling_", "the plant is rated against "
                           "outdoor `ambient` and `altitude`; facility water is what it delivers (`water.supply`)")
        twice = sorted(c for c, n in Counter(self.deployed or []).items() if n > 1)
        if twice:
            errors.append(FieldError(("deployed",), f"lists {', '.join(repr(c) for c in twice)} more than once: "
                                                    "each cluster deployed in the hall once"))
        raise_each(errors, type(self).__name__)
        return self

    def outdoor(self) -> dict[str, Q | None]:
        """The outdoor conditions the hall's plant works at (`cooling_rated_at` is compared with them)."""
        return {"ambient": self.outdoor_design, "altitude": self.altitude}

    def indoor(self) -> dict[str, Q | None]:
        """The conditions a cooling unit in the hall works at (its `rated_at` is compared with them)."""
        return {"water": self.water.supply if self.water else None, "ambient": self.air.supply,
                "altitude": self.altitude}

    def cooling_at_site(self) -> Q | None:
        """`cooling_capacity` at the site's conditions: derated where stated, None where no stated rating covers it."""
        if self.cooling_capacity is None:
            return None
        rated = rated_capacity(self.cooling_capacity, self.cooling_rated_at, self.cooling_derating, self.outdoor())
        return rated.capacity
