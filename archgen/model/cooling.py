"""The `CoolingUnit` kind: CDUs, rear-door heat exchangers and CRAH units."""

from dataclasses import dataclass
from typing import Any, Literal, Self

from pydantic import Field, model_validator

from archgen.model.base import Mechanical, Part, Redundancy
from archgen.model.field_words import said
from archgen.model.spec import FieldError, Spec, raise_each
from archgen.units import FlowRate, LengthOrZero, Power, PowerOrZero, Pressure, Q, Temperature, TemperatureDelta


class Pumps(Spec):
    """Pumps of a CDU."""

    count: int = Field(gt=0, le=64, description="Number of pumps.")
    redundancy: Redundancy = Field("N+1", description="Pump redundancy the rated flow already allows for.")


#: The conditions of `Conditions`, in the order messages list them.
CONDITIONS = ("water", "ambient", "altitude")


class Conditions(Spec):
    """Conditions a cooling capacity is stated at, as its source states them; each is harder the higher it is.

    Warmer facility water leaves a CDU less approach to work with, warmer air and thinner air (altitude) less capacity
    to a coil or dry cooler. Only the conditions stated here are compared with the site's.
    """

    water: Temperature | None = Field(None, description=(
        "Facility water supply temperature the capacity is stated at, e.g. '32 degC' (a CDU's rating)."))
    ambient: Temperature | None = Field(None, description=(
        "Air temperature the capacity is stated at: the inlet air of a unit in the hall, the outdoor dry-bulb of the "
        "hall's heat-rejection plant, e.g. '35 degC'."))
    altitude: LengthOrZero | None = Field(None, description="Altitude the capacity is stated at, e.g. '0 m'.")


class Rating(Conditions):
    """A capacity its source states at conditions other than the nominal ones (a row of a derating table)."""

    capacity: Power = Field(description="Capacity at these conditions, e.g. '1.1 MW'.")

    @model_validator(mode="after")
    def _differs(self) -> Self:
        if all(getattr(self, n) is None for n in CONDITIONS):
            raise FieldError(("capacity",), "a derating row states the conditions it is at (water, ambient or "
                                            "altitude); the others are those of the nominal rating")
        return self


def derating_needs_rating(rated_at: Conditions | None, derating: list[Rating], prefix: str) -> list[FieldError]:
    """A derating table is read against the nominal rating: without `rated_at` its rows have nothing to derate.

    Returns:
        The error where it has none (for the caller to raise with its others), else nothing.
    """
    if derating and rated_at is None:
        return [FieldError((f"{prefix}derating",), f"a derating table needs `{prefix}rated_at`, the conditions the "
                                                   "nominal capacity is stated at")]
    return []


class CoolingUnit(Part):
    """A coolant distribution unit (in-rack or in-row), rear-door heat exchanger or CRAH."""

    kind: Literal["CoolingUnit"] = "CoolingUnit"
    type: Literal["in-rack-cdu", "in-row-cdu", "rdhx", "crah"] = Field(description="What kind of unit it is.")
    capacity: Power = Field(description="Heat it removes at the rated approach temperature, e.g. '1.3 MW'.")
    flow: FlowRate | None = Field(None, description="Maximum secondary (technology cooling system) flow.")
    flow_basis: Literal["rated", "rule"] = Field("rated", description=(
        "What `flow` is: 'rated', the datasheet's secondary (pump) flow rating; 'rule', `capacity` x a rule-of-thumb "
        "flow per kW where no rating is read (a class part's 1.5 L/min/kW): the documents show it as that rule, not "
        "a pump rating."))
    approach: TemperatureDelta | None = Field(
        None, description="Approach temperature: secondary supply minus facility water supply at rated capacity.")
    facility_delta_t: TemperatureDelta | None = Field(None, description=(
        "Facility-side (primary) water temperature rise across the CDU at rated capacity, as its datasheet states "
        "it, e.g. '10 K': the rack and cluster documents give the facility water flow per CDU group, Q / (ρ c_p "
        "ΔT) with water's properties, and its return (facility supply + ΔT). Not stated: not provided."))
    pressure: Pressure | None = Field(None, description=(
        "Available external pressure on the secondary side at its rated `flow`, as its datasheet states it: the pump "
        "pressure left after its own heat exchanger, filter and valves for the racks and the piping to them, e.g. "
        "'200 kPa' (2 bar, '29 psi'). COOL019 compares it with each rack's `cooling.liquid.pressure_drop` plus its "
        "`piping_pressure_drop`. Not stated: not judged (the rack document says so)."))
    pumps: Pumps | None = Field(None, description="Pumps and their redundancy.")
    power: PowerOrZero | None = Field(None, description="Electrical draw (pumps, fans, controls).")
    mechanical: Mechanical | None = Field(None, description="Size and weight, for in-rack units.")
    management_ports: int | None = Field(None, ge=0, le=16, description=(
        "Network (Ethernet) management ports of the unit's controller, as its datasheet states them (Modbus TCP, "
        "BACnet/IP or SNMP over RJ45): a management fabric with `endpoints.cooling` cables them to its leaves (an "
        "in-rack CDU where it stands, an in-row one by the floor's longest run); 0: none (a serial RS-485 "
        "building-management link only); not stated: none cabled, and NET032 says so on such a fabric."))
    rated_at: Conditions | None = Field(None, description=(
        "Conditions `capacity` is stated at, as the datasheet states them, e.g. {water: 32 degC}: a hall whose "
        "facility water is warmer (or air, or altitude higher) is a finding (COOL010) unless `derating` covers it."))
    derating: list[Rating] = Field(default_factory=list, description=(
        "Capacities the datasheet states at harder conditions, e.g. [{water: 40 degC, capacity: 900 kW}]; the "
        "unit is counted at the row that covers the hall's conditions (no interpolation)."))

    @model_validator(mode="after")
    def _rated(self) -> Self:
        raise_each(derating_needs_rating(self.rated_at, self.derating, ""), type(self).__name__)
        return self


#: Conditions a site exceeds: (name, rated, site).
Unmet = tuple[tuple[str, Q, Q], ...]


@dataclass(frozen=True)
class Rated:
    """A capacity at the site's conditions: `capacity` (None where no stated rating covers them) and why.

    `rating` is the rating that covers the site (the nominal `Conditions` or a `Rating` row); `unmet` lists, for the
    nominal rating, each condition the site exceeds as (name, rated, site).
    """

    capacity: Q | None
    rating: Conditions | None
    unmet: Unmet


def _value(q: Q) -> float:
    """A condition's magnitude on one scale (degC for temperatures, m for altitudes), for comparing."""
    return q.to("degC").magnitude if q.check("[temperature]") else q.to("m").magnitude


def _exceeded(rating: Conditions, site: dict[str, Any], nominal: Conditions | None = None) -> Unmet:
    """The conditions a rating states that the site exceeds: (name, rated, site).

    A derating row's unstated conditions are those of the `nominal` rating (a table varies one condition at a time).
    """
    out = []
    for name in CONDITIONS:
        rated, here = getattr(rating, name), site.get(name)
        if rated is None and nominal is not None:
            rated = getattr(nominal, name)
        if rated is not None and here is not None and _value(here) > _value(rated):
            out.append((name, rated, here))
    return tuple(out)


def rated_capacity(nominal: Q, rated_at: Conditions | None, derating: list[Rating], site: dict[str, Any]) -> Rated:
    """The capacity a unit or plant can be counted on for at the site's conditions (`site`: name → value or None).

    Without stated conditions, the nominal capacity (nothing to compare). With them, the nominal capacity where
    the site meets them, else the largest capacity of the derating rows whose conditions (a row's unstated ones
    those of the nominal rating) are at least as hard as the site's in every condition both state (capacity falls
    as conditions harden, so each such row is a floor; no interpolation between rows), else None: a capacity stated
    at conditions the design does not meet.
    """
    if rated_at is None:
        return Rated(nominal, None, ())
    unmet = _exceeded(rated_at, site)
    if not unmet:
        return Rated(nominal, rated_at, ())
    covering = [r for r in derating if not _exceeded(r, site, rated_at)]
    if covering:
        best = max(covering, key=lambda r: r.capacity.to("W").magnitude)
        return Rated(best.capacity, best, unmet)
    return Rated(None, None, unmet)


def unstated(rated_at: Conditions | None, site: dict[str, Any]) -> tuple[tuple[str, Q], ...]:
    """The conditions `rated_at` states that the site leaves unstated: (name, rated), in `CONDITIONS` order.

    `rated_capacity` compares only the conditions both state, so a capacity rated at 35 °C outdoor air at a site
    whose design dry-bulb is not stated is counted in full without having been compared: its caller says so.
    """
    if rated_at is None:
        return ()
    return tuple((n, getattr(rated_at, n)) for n in CONDITIONS
                 if getattr(rated_at, n) is not None and site.get(n) is None)


def stated_only(conditions: tuple[tuple[str, Q], ...], air: str, keys: dict[str, str], site: str,
                words: bool = False) -> str:
    """"outdoor air 35 °C, altitude 0 m, but the hall states no `outdoor_design` nor `altitude`" (`unstated`'s).

    `keys` names the site's key stating each condition (`facility.INDOOR_KEYS`, `OUTDOOR_KEYS`); `words`: each key
    as a customer reads it ("no outdoor design conditions nor altitude", `field_words.said`).
    """
    names = {"water": "facility water", "ambient": air, "altitude": "altitude"}
    rated = ", ".join(f"{names[n]} {q:~P}" for n, q in conditions)
    return f"{rated}, but {site} states no " + " nor ".join(said(keys[n]) if words else f"`{keys[n]}`"
                                                           for n, _ in conditions)


def counted(capacity: Q, nominal: Q) -> str:
    """'1500 kW is counted as stated', or '1300 kW of a derating row is counted' where a row covers the site."""
    return f"{capacity.to('kW'):.0f~P} " + ("is counted as stated" if capacity == nominal else
                                           "of a derating row is counted")


def describe(conditions: Unmet, air: str = "air") -> str:
    """'facility water 30 °C, rated at 25 °C; ...' for the conditions a site exceeds (`air` names the ambient)."""
    names = {"water": "facility water", "ambient": air, "altitude": "altitude"}
    return "; ".join(f"{names[n]} {here:~P}, rated at {rated:~P}" for n, rated, here in conditions)
