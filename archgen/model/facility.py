"""The `Facility` kind: the data hall a rack or cluster is installed in, and the ASHRAE classes."""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import Field, model_validator

from archgen.model.base import Redundancy, UpsRedundancy, distributed
from archgen.model.cooling import Conditions, Rated, Rating, derating_needs_rating, rated_capacity
from archgen.model.cost import FacilityCost
from archgen.model.dc_feeds import AcSupply
from archgen.model.field_types import PositiveFraction
from archgen.model.power import PowerRating
from archgen.model.reliability import SiteEvent
from archgen.model.smoothing import PowerRate, PowerSmoothing
from archgen.model.spec import Count, Document, FieldError, Ref, Spec, raise_each
from archgen.model.sustainability import Sustainability
from archgen.units import (
    Q_,
    AreaLoad,
    Duration,
    LengthOrZero,
    Power,
    PowerOrZero,
    Q,
    Temperature,
    Voltage,
    apparent_power,
)

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


def no_water(rated_at: Conditions | None, derating: list[Rating], prefix: str, why: str) -> list[FieldError]:
    """An error at each `water` of a rating against outdoor conditions (the hall's plant, its generator sets)."""
    rows = [((f"{prefix}rated_at",), rated_at)] + [((f"{prefix}derating", i), r) for i, r in enumerate(derating)]
    return [FieldError(key + ("water",), why) for key, row in rows if row is not None and row.water is not None]


class FacilityWater(Spec):
    """Facility water (FWS) delivered to CDUs."""

    supply: Temperature = Field(description="Facility water supply temperature, e.g. '30 degC'.")
    return_: Temperature | None = Field(None, alias="return", description=(
        "Design facility water return temperature at full load, e.g. '40 degC' (the plant's design FWS/FWR "
        "temperatures; ASHRAE's W classes bound the supply only). Its rise over `supply` gives the facility water "
        "flow per CDU group, Q / (ρ c_p ΔT), where the CDU states no `facility_delta_t`. Not stated either: the flow "
        "is shown over an assumed range of rises (`analyse.facility_water.ASSUMED_RISES`), marked assumed."))

    @model_validator(mode="after")
    def _rise(self) -> FacilityWater:
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


class Units(Spec):
    """Identical units upstream of the racks (UPS modules, generator sets, utility feeds) and each one's rating."""

    count: Count = Field(description="Units installed, spares included, e.g. 4.")
    capacity: PowerRating = Field(description=(
        "Each unit's rating as its nameplate states it, in kW or in kVA/MVA, e.g. '500 kW' or '2.5 MVA' (a UPS "
        "module's rating; a generator set's rating for the duty it serves, e.g. prime or data-centre continuous; what "
        "a utility feed's service or transformer delivers). A rating in volt-amperes carries kVA x the lower of "
        "`power_factor` and the load's `feeds.power_factor` in kW; with neither stated its real power is not "
        "provided and PWR011 says so."))
    power_factor: PositiveFraction | None = Field(None, description=(
        "The unit's rated power factor, kW over kVA on its nameplate, e.g. 0.8 (a generator set's alternator, ISO "
        "8528-1) or 1.0 (a UPS module rated kW = kVA): a kVA `capacity` carries at most kVA x it, and a kW one "
        "at most kW / it x the load's `feeds.power_factor` where that is lower (the winding's current limit)."))
    rated_at: Conditions | None = Field(None, description=(
        "Generator sets only: the outdoor conditions `capacity` is stated at, as the datasheet states them, e.g. "
        "{ambient: 40 degC, altitude: 1000 m}; a site hotter (`outdoor_design`) or higher (`altitude`) counts the "
        "`derating` row covering it, and without one the sets have no stated capacity there (PWR011)."))
    derating: list[Rating] = Field(default_factory=list, description=(
        "Generator sets only: each set's capacity at harder outdoor conditions, as the datasheet's derating table "
        "states it, e.g. [{ambient: 45 degC, altitude: 2000 m, capacity: 1.8 MW}] (no interpolation)."))

    @model_validator(mode="after")
    def _outdoor(self) -> Units:
        raise_each(derating_needs_rating(self.rated_at, self.derating, "") + no_water(
            self.rated_at, self.derating, "", "a generator set is rated against outdoor `ambient` and `altitude`"),
            type(self).__name__)
        return self

    def real(self, load_pf: float | None) -> Q | None:
        """Each unit's real-power rating: kVA x min(rated, load power factor), as stated where in kW.

        A kVA rating with neither power factor stated: None (not provided). A kW rating with a rated power factor and
        a lower load power factor: kW / rated x load (the kVA, a current limit, binds first).
        """
        kva = self.capacity if apparent_power(self.capacity) else None
        if kva is None and self.power_factor is not None:
            kva = self.capacity / float(self.power_factor)
        pfs = [float(f) for f in (self.power_factor, load_pf) if f is not None]
        if kva is None or not pfs:
            return None if kva is not None else self.capacity
        return Q_((kva * min(pfs)).m_as("kW"), "kW")

    def at_site(self, hall: Facility) -> Rated:
        """Each unit's capacity at the hall's outdoor conditions (`rated_capacity`; None where no row covers them).

        The nominal capacity is its real power at the hall's load power factor (`real`); None where a kVA rating has
        no power factor to judge it by (no conditions unmet: `Rated.unmet` is empty).
        """
        nominal = self.real(hall.feeds.power_factor if hall.feeds is not None else None)
        if nominal is None:
            return Rated(None, None, ())
        return rated_capacity(nominal, self.rated_at, self.derating, hall.outdoor())


class SharedUtility(Spec):
    """A utility connection several halls share (a campus substation, the site's grid interconnection)."""

    id: str = Field(min_length=1, max_length=200, description=(
        "The connection's name, the same in every hall that shares it, e.g. 'campus-138kv'."))
    capacity: Power = Field(description=(
        "The real power the connection delivers to all the halls that name it together, e.g. '60 MW' (the "
        "interconnection agreement's or the substation's firm capacity, as stated): PWR011 sums the facility power "
        "of the clusters each hall lists as `deployed` against it."))


#: The units whose kVA rating needs their own rated power factor, as a set's engine and a UPS module's inverter are
#: rated in kW at it; a utility feed's transformer, a current limit, takes the load's (`Units.real`). UPS modules since
#: review39: 150 kVA at the load's 0.9 carried 135 kW where a 0.8-rated module gives 120 kW ("UPS: how to rate a UPS":
#: 20 kVA at 0.8 is 16 kW, https://killerplrarticles.com/access/details/ups-how-to-rate-a-ups.html).
_KVA_RATED = (
    ("generator_units", "generator sets", "a set's real power is kVA x its alternator's rated power factor (ISO "
     "8528-1 nameplates state kVA, kW and it, commonly 0.8)", "nameplate, e.g. 0.8, or write the set's kW"),
    ("ups_units", "UPS modules", "a module's real power is kVA x its rated output power factor (its datasheet states "
     "kVA and kW, from 0.8 to 1.0: a 20 kVA module at 0.8 is 16 kW)", "datasheet, e.g. 0.9, or write the module's "
     "kW"))


class UpstreamFeeds(AcSupply):
    """Power and cooling upstream of the racks: utility feeds, UPS, generators and the cooling plant."""

    utility_feeds: Count | None = Field(None, description="Independent utility feeds to the site, e.g. 2.")
    utility_voltage: Voltage | None = Field(None, description="Utility (medium) voltage, e.g. '13.8 kV'.")
    utility: Redundancy | None = Field(None, description=(
        "Utility feed redundancy: N, N+1 or N+N (2N, each side able to carry the site alone)."))
    utility_units: Units | None = Field(None, description=(
        "Utility feeds and each one's capacity, the real power the feed (its service or transformer) can deliver, "
        "e.g. {count: 2, capacity: 2.5 MW}: with `utility` redundancy held back they carry the cluster's facility "
        "power at design conditions, as the generator sets do (PWR011). `count` is `utility_feeds` where both are "
        "given."))
    shared_utility: SharedUtility | None = Field(None, description=(
        "The utility connection this hall shares with other halls, e.g. {id: campus-138kv, capacity: 60 MW}: PWR011 "
        "sums the deployed clusters of every hall of the run naming the same id against its capacity. Not stated: "
        "the utility feeds are judged on this hall's load alone, and the findings say a shared connection is not "
        "judged."))
    ups: UpsRedundancy | None = Field(None, description=(
        "UPS redundancy: N, N+1, N+N (2N) or distributed xN/y: x UPS systems, any y of which carry the load, e.g. "
        "4N/3 (Schneider Electric White Paper 75, \"Distributed redundant\"); `ups_units` then counts the modules "
        "of all x systems, a multiple of x, and PWR011 counts y / x of them. Block (\"catcher\") redundancy, N "
        "systems and one reserve system switched in for any of them, is N+1 counted in systems."))
    ups_autonomy: Duration | None = Field(None, description=(
        "UPS ride-through at full load, e.g. '5 min': compared with `generator_transfer` (PWR019)."))
    ups_recharge: Power | None = Field(None, description=(
        "Each UPS module's battery charging power after a ride-through, drawn from its input (generator sets, utility),"
        " from its datasheet: a stated charging power, or its maximum charge current x the charge voltage (e.g. Eaton "
        "93PS: 25 A per 20 kW module, 15 A above 80 % load), e.g. '40 kW': PWR011 adds `ups_units.count` x it once "
        "to the generator and utility load at full load (an upper bound). Not stated: left out, and PWR011 says so."))
    generator_transfer: Duration | None = Field(None, description=(
        "Time from a utility loss until the generator sets carry the load (start, stable voltage and frequency, "
        "transfer switch), e.g. '10 s' for an NFPA 110 Type 10 system or '2 min': the UPS autonomy must cover it "
        "(PWR019). Not stated: PWR019 says the ride-through is not judged."))
    generators: Redundancy | None = Field(None, description="Standby generator redundancy: N, N+1 or N+N (2N).")
    ups_units: Units | None = Field(None, description=(
        "UPS modules and each one's rating, e.g. {count: 4, capacity: 500 kW}: with `ups` redundancy held back they "
        "carry the cluster's IT power (PWR011)."))
    generator_units: Units | None = Field(None, description=(
        "Generator sets and each one's rating, e.g. {count: 5, capacity: 2 MW}: with `generators` redundancy held "
        "back they carry the cluster's facility power, IT power x PUE (PWR011)."))
    distribution_efficiency: PositiveFraction | None = Field(None, description=(
        "Efficiency of the distribution between the UPS output and the rack feeds (PDU transformers, busway, "
        "remote power panels, cables), from their datasheets at the load, e.g. 0.985: PWR011 holds the UPS modules "
        "to the rack feeds' load over it. Not stated: the distribution is taken as lossless and PWR011 says so "
        "(a three-phase 300 kVA dry-type transformer alone may lose 0.98 % at 35 % load, 10 CFR 431.196(a)(2))."))
    power_factor: PositiveFraction | None = Field(None, description=(
        "The load's power factor, one figure for every stage, e.g. 0.95: the UPS output carries the PSUs (their "
        "power factor at load), the generator sets and utility feeds the UPS input (its input power factor); where "
        "they differ state the lower, conservative at every stage. Each unit rated in kVA carries kVA x it in kW, or "
        "x its own `power_factor` where lower (generator sets and UPS modules in kVA must state theirs). Not stated: "
        "a utility feed's kVA rating has no real power to judge against, and PWR011 says so (never a default)."))
    load_step_limit: Power | None = Field(None, description=(
        "The largest step in the hall's draw its supply accepts at once, as the utility's interconnection "
        "requirements or the generator sets' load acceptance (ISO 8528-5) state it, e.g. '5 MW': PWR022 holds a "
        "job's start or stop, at most each cluster's whole IT power stepping at once, and the hall's clusters' "
        "summed (over `distribution_efficiency` where stated; the UPS's and transformers' losses, stated nowhere, "
        "add to it), to it. Not stated: the step is not judged; the swing's ramp rate and frequency are not "
        "judged either way."))
    power_smoothing: PowerSmoothing | None = Field(None, description=(
        "How the IT load is held steady (GB300 NVL72 power smoothing, site energy storage), e.g. {floor: 0.9, "
        "ramp_up: 2 MW/s, ramp_down: 2 MW/s, source: ...}: PWR022 judges a training step's swing, the IT power x "
        "(1 - floor), against `load_step_limit`, and the ramps against `ramp_rate_limit`, each over "
        "`distribution_efficiency` where stated. Not stated: the swing's depth and ramp are not provided."))
    ramp_rate_limit: PowerRate | None = Field(None, description=(
        "The fastest change in the hall's draw its supply accepts, as the utility's interconnection requirements "
        "state it, e.g. '10 MW/min': PWR022 holds the smoothing's `ramp_up` and `ramp_down` (over "
        "`distribution_efficiency` where stated) to it; without them a job's start or stop is a step, and the ramp "
        "is not provided."))
    cooling: Redundancy | None = Field(None, description="Cooling plant (chillers, CDUs, pumps) redundancy.")
    cdus_on_ups: bool | None = Field(None, description=(
        "Whether the UPS carries the in-row CDUs' pumps (so coolant keeps flowing through a utility loss until the "
        "generator sets take the load): PWR011 then adds their draw (`cdu_power`) to the UPS load. Not stated: "
        "not added (in-rack CDUs are on the rack feeds, and so always in it)."))

    @model_validator(mode="after")
    def _ups_rating(self) -> UpstreamFeeds:
        for key, units, what in (("ups_units", self.ups_units, "UPS modules are counted at their stated rating: the "
                                  "hall states no UPS-room conditions to derate them for (state the module's "
                                  "rating at the site)"),
                                 ("utility_units", self.utility_units, "utility feeds are counted at their stated "
                                  "capacity: outdoor conditions do not derate a feed (state what it delivers)")):
            if units is not None and (units.rated_at is not None or units.derating):
                raise FieldError((key, "rated_at" if units.rated_at is not None else "derating"), what)
        xy = distributed(self.ups) if self.ups is not None else None
        if xy is not None and self.ups_units is not None and self.ups_units.count % xy[0]:
            raise FieldError(("ups_units", "count"), f"ups is {self.ups}: {xy[0]} UPS systems of equal size, but "
                             f"ups_units.count {self.ups_units.count} does not divide into {xy[0]} (count every "
                             "module of the systems, the same number in each)")
        if self.ups_recharge is not None and self.ups_units is None:
            raise FieldError(("ups_recharge",), "ups_recharge is each UPS module's battery charging power: state "
                             "the modules it is counted for (`ups_units`)")
        if self.utility_units is not None and self.utility_feeds not in (None, self.utility_units.count):
            raise FieldError(("utility_units", "count"), f"utility_units.count is {self.utility_units.count} but "
                             f"utility_feeds is {self.utility_feeds}: one count of feeds (state one, or make them "
                             "agree)")
        raise_each([FieldError((key, "power_factor"), f"{what} rated {units.capacity:~P}, an apparent power, state no "
                               f"rated power factor: {why}, which the load's higher power factor does not raise; "
                               f"state `power_factor` from the {where}")
                    for key, what, why, where in _KVA_RATED
                    if (units := getattr(self, key)) is not None and apparent_power(units.capacity)
                    and units.power_factor is None], type(self).__name__)
        return self


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
    def _plant_rating(self) -> Facility:
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
