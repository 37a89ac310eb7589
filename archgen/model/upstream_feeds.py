"""A hall's power and cooling upstream of the racks (`Facility.feeds`): utility feeds, UPS, generators, the plant.

Split from `archgen.model.facility` for its size: `UpstreamFeeds` and the identical units it counts (`Units`: UPS
modules, generator sets, utility feeds, each one's rating in kW or kVA and a set's outdoor derating), a utility
connection several halls share (`SharedUtility`), and `no_water`, which refuses facility water in a rating against
outdoor conditions (a generator set's here, the hall's plant's in `Facility`).
"""

from typing import Self

from pydantic import Field, model_validator

from archgen.model.base import Redundancy, UpsRedundancy, distributed
from archgen.model.cooling import Conditions, Rated, Rating, derating_needs_rating, rated_capacity
from archgen.model.dc_feeds import AcSupply
from archgen.model.field_types import PositiveFraction
from archgen.model.power import PowerRating
from archgen.model.smoothing import PowerRate, PowerSmoothing
from archgen.model.spec import Count, FieldError, Spec, raise_each
from archgen.units import Q_, Duration, Power, Q, Voltage, apparent_power


def no_water(rated_at: Conditions | None, derating: list[Rating], prefix: str, why: str) -> list[FieldError]:
    """An error at each `water` of a rating against outdoor conditions (the hall's plant, its generator sets)."""
    rows = [((f"{prefix}rated_at",), rated_at)] + [((f"{prefix}derating", i), r) for i, r in enumerate(derating)]
    return [FieldError(key + ("water",), why) for key, row in rows if row is not None and row.water is not None]


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
    def _outdoor(self) -> Self:
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

    def at_site(self, load_pf: float | None, outdoor: dict[str, Q | None]) -> Rated:
        """Each unit's capacity at the hall's `outdoor()` conditions (`rated_capacity`; None where no row covers them).

        The nominal capacity is its real power at the load's power factor (`real`; the hall's `feeds.power_factor`);
        None where a kVA rating has no power factor to judge it by (no conditions unmet: `Rated.unmet` is empty).
        """
        nominal = self.real(load_pf)
        if nominal is None:
            return Rated(None, None, ())
        return rated_capacity(nominal, self.rated_at, self.derating, outdoor)


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
    def _ups_rating(self) -> Self:
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
