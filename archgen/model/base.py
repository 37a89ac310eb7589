"""Shared bases of the catalog parts: a part with its sources, price and failure rate, and the fields parts share.

The roots of every spec model (`Spec`, `Document`, ids) are in `archgen.model.spec`, below prices and failure rates.
"""

import re
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import BeforeValidator, Field, StringConstraints, model_validator
from pydantic_core import PydanticCustomError

from archgen.model import field_words
from archgen.model.cost import Price
from archgen.model.embodied import EmbodiedCarbon
from archgen.model.field_types import Fraction, PartNumber, PositiveFraction, RackHeight
from archgen.model.reliability import FailureRate
from archgen.model.smoothing import PartSmoothing
from archgen.model.spec import Document, FieldError, Spec, raise_each
from archgen.model.spec_paths import names_a_field
from archgen.units import Mass, Power, PowerOrZero, Q, Temperature, Voltage, Volume

_REDUNDANCY = re.compile(r"^N(\+[0-9]+|\+N)?$")


def _redundancy(value: object) -> object:
    """A redundancy scheme; '2N', the common name of N+N (a full second set), is read as N+N."""
    if not isinstance(value, str):
        return value  # the string type says what was expected
    value = "N+N" if value.strip() == "2N" else value.strip()   # as `_ups_redundancy` reads ' 4N/3 '
    if not _REDUNDANCY.match(value):
        raise PydanticCustomError("expected", "N, N+1 (N+k spare units) or N+N (also written 2N)")
    return value


#: N (no spare), N+k (k spare units) or N+N, also written 2N (a full second set).
Redundancy = Annotated[str, BeforeValidator(_redundancy), StringConstraints(pattern=_REDUNDANCY.pattern)]

#: Distributed redundancy of UPS systems, written xN/y: x independent systems, any y of which carry the load (each
#: sized for N/y, so x of them give x/y of N; "4N/3": four systems, any three carry it, each loaded to 75 %). The
#: scheme is Schneider Electric White Paper 75 rev 4, "Comparing UPS System Design Configurations" (McCarthy and
#: Avelar), section "Distributed redundant" (three or more UPS modules, each on its own input and output, loaded so
#: that the others carry the load of one lost: https://www.scribd.com/document/709548785); the xN/y notation
#: ("3 to make 2", 4N/3) as used for it by https://www.feace.com/single-post/an-introduction-to-ups-redundancy.
DISTRIBUTED = re.compile(r"^([1-9][0-9]*)N/([1-9][0-9]*)$")


def _ups_redundancy(value: object) -> object:
    """A UPS redundancy: any `Redundancy`, or distributed xN/y with x > y (`DISTRIBUTED`)."""
    if isinstance(value, str) and (m := DISTRIBUTED.match(value.strip())):
        if int(m[1]) <= int(m[2]):
            raise PydanticCustomError("expected", "xN/y with more systems (x) than carry the load (y), e.g. 4N/3")
        return value.strip()
    try:
        return _redundancy(value)
    except PydanticCustomError:
        raise PydanticCustomError("expected", "N, N+1 (N+k spare units), N+N (also written 2N) or distributed "
                                  "xN/y (x systems, any y carry the load, e.g. 4N/3)") from None


#: A UPS's redundancy: `Redundancy`, or distributed xN/y (`DISTRIBUTED`).
UpsRedundancy = Annotated[str, BeforeValidator(_ups_redundancy),
                          StringConstraints(pattern=f"{_REDUNDANCY.pattern}|{DISTRIBUTED.pattern}")]


def distributed(redundancy: str) -> tuple[int, int] | None:
    """(x, y) of a distributed xN/y scheme (`DISTRIBUTED`); None for N, N+k and N+N."""
    m = DISTRIBUTED.match(redundancy)
    return (int(m[1]), int(m[2])) if m else None


def spare_units(redundancy: str, count: int) -> int:
    """Units held in reserve by a redundancy scheme: N → 0, N+k → k, N+N → half (rounded up).

    Distributed xN/y (`DISTRIBUTED`): the units of x − y of the x systems, count × (x − y) / x, rounded up (the
    facility refuses a count that x does not divide, `UpstreamFeeds`).
    """
    if redundancy == "N":
        return 0
    if redundancy == "N+N":
        return -(-count // 2)
    if (xy := distributed(redundancy)) is not None:
        x, y = xy
        return -(-count * (x - y) // x)
    return int(redundancy.split("+")[1])


class Part(Document):
    """A catalog part: every figure cites a public source."""

    vendor: str = Field("", description="Manufacturer.")
    part_number: PartNumber = Field("", description=(
        "The vendor's orderable part number (OPN, SKU), when published; one code such as MQM9700-NS2F, cited in "
        "`source`. Empty: the BOM reads 'not provided' (docs/rendering.md, Part numbers)."))
    generic: bool = Field(False, description=(
        "True for a catalog stand-in for a class of parts that no single vendor's number names (a 0U 415 V PDU, a "
        "100GBASE-SR4 module, a Cat 6A cord): it states no `part_number`, and the BOM reads 'generic part: no OPN'."))
    source: str | list[str] = Field(description="Public source(s) of the figures: URL or document and table.")
    unconfirmed: bool | list[str] = Field(
        False, description=(
            "True, or the names of fields (dotted where nested: power.max, peak.fp8; a name that is no field of "
            "the part is refused), when a figure could not be confirmed from a public source. A required "
            "figure nobody publishes (an accelerator's `tdp`, a system's `power.max`) is stated at its best estimate "
            "and listed here, never invented as if sourced: documents tag the part assumed, and a power figure so "
            "listed is named in `archgen check` (PWR012)."))
    notes: str = Field("", description="Assumptions and remarks.")
    reliability: FailureRate | None = Field(None, description=(
        "This part's own failure rate and repair time; default: its class's rate in the cluster's `FailureRates` "
        "(docs/reliability.md)."))
    price: Price | None = Field(None, description="Purchase price of one unit, with its currency, date and basis.")
    embodied_carbon: EmbodiedCarbon | None = Field(None, description=(
        "The product carbon footprint of one unit, e.g. {value: 1300 kg, boundary: cradle-to-gate, basis: sourced, "
        "source: ...}: summed over a cluster's BOM into its `embodied_carbon` (scope 3). Unstated: the cluster's "
        "total is not provided, and the part is named (docs/facility.md, Embodied carbon)."))

    @model_validator(mode="after")
    def _price_of_a_part(self) -> Self:
        if self.price is not None and self.price.rack is not None:
            raise FieldError(("price", "rack"), f"'rack: {self.price.rack}' states what a rack's price covers; "
                                                f"{self.id} is a {self.kind}, no rack: remove it")
        return self

    @model_validator(mode="after")
    def _generic_has_no_number(self) -> Self:
        if self.generic and self.part_number:
            raise FieldError(("part_number",), f"'part_number: {self.part_number}' names one vendor's part, but "
                                               f"{self.id} is generic (a class of parts): remove one of them")
        return self

    @model_validator(mode="after")
    def _unconfirmed_names_fields(self) -> Self:
        """Each name under `unconfirmed:` is a field of the part (`spec_paths.names_a_field`).

        A misspelt one (`memory_bandwith`, `peak.fp9`) would mark nothing, and the figure it meant would read as
        sourced (review21b).
        """
        refuse_unmarkable(type(self), self.unconfirmed, f"{self.kind} '{self.id}'")
        return self

    def unconfirmed_fields(self) -> list[str]:
        """Names of fields marked unconfirmed ('*' for the whole part)."""
        return marked_fields(self.unconfirmed)

    def is_unconfirmed(self, field: str) -> bool:
        """Whether the part marks the dotted `field` unconfirmed: itself, a field above it, or the whole part.

        `efficiency` covers `efficiency.gemm.bf16`; a figure not so marked is stated as measured or sourced.
        """
        return is_marked(self.unconfirmed, field)


def refuse_disordered(spec: Spec, low: str, high: str) -> None:
    """Refuse a stated range whose field `low` is above its field `high` (either left out: nothing to compare)."""
    lo, hi = getattr(spec, low), getattr(spec, high)
    if lo is not None and hi is not None and lo > hi:
        raise FieldError((low,), f"{lo:~P} is above {high} {hi:~P}")


def marked_fields(unconfirmed: bool | list[str]) -> list[str]:
    """The names an `unconfirmed:` value marks: '*' for `true` (every figure), the listed names, or none."""
    if unconfirmed is True:
        return ["*"]
    return list(unconfirmed) if isinstance(unconfirmed, list) else []


def is_marked(unconfirmed: bool | list[str], field: str) -> bool:
    """Whether `unconfirmed:` marks the dotted `field`: itself, a field above it, or everything (`true`)."""
    marks = set(marked_fields(unconfirmed))
    parts = field.split(".")
    return "*" in marks or any(".".join(parts[:i]) in marks for i in range(1, len(parts) + 1))


def refuse_unmarkable(cls: type, unconfirmed: bool | list[str], what: str) -> None:
    """Raise for each name under `unconfirmed:` that is no field of `cls` (`spec_paths.names_a_field`).

    A misspelt one (`memory_bandwith`, `peak.fp9`) would mark nothing, and the figure it meant would read as
    sourced (review21b). `what` names the object in the message ("Accelerator 'h100'").
    """
    names = unconfirmed if isinstance(unconfirmed, list) else []
    raise_each([FieldError(("unconfirmed", i), f"'{name}' is no field of {what}: name a field whose figure is "
                           "unconfirmed, dotted where nested (power.max, peak.fp8), or give true for all of them")
                for i, name in enumerate(names) if not names_a_field(cls, name)], cls.__name__)


class MarkedFigures(Spec):
    """A group of a rack's own figures that cites its sources or marks them assumed, as a part does its own.

    The rack's liquid loop, its air path and its enclosure (racksrc, airsrc): each names the figures the analysis and
    checks read in `FIGURES` and where they sit in the rack in `WHERE` ('cooling.liquid'). One rule for all of them:
    `unconfirmed:` names only those figures (a misspelt name would mark nothing and the figure it meant would read as
    sourced), documents tag the marked ones "(assumed)", `archgen check` names them (COOL016, COOL017, MECH005) and
    tests/test_catalog_cooling_sources.py asks every shipped rack to cite or mark each.
    """

    FIGURES: ClassVar[tuple[str, ...]] = ()
    WHERE: ClassVar[str] = ""

    source: str | list[str] = Field("", description=(
        "Public source(s) of these figures, one entry per figure it confirms, starting with the figure's name "
        "('supply: NVIDIA ..., table 3'), as a part cites its own. A figure neither sourced here nor listed under "
        "`unconfirmed:` is refused by the catalog's tests."))
    unconfirmed: bool | list[str] = Field(False, description=(
        "True, or the names of these figures that no public source gives (another name is refused): the design's "
        "assumption, stated as a part states an unconfirmed figure. Documents show them as assumed, and `archgen "
        "check` names them."))
    notes: str = Field("", description="How the assumed figures were chosen, and what the sources do say.")

    @model_validator(mode="after")
    def _unconfirmed_names_figures(self) -> Self:
        """Each name under `unconfirmed:` is one of `FIGURES` (another field is no figure the documents tag)."""
        names = self.unconfirmed if isinstance(self.unconfirmed, list) else []
        raise_each([FieldError(("unconfirmed", i), f"'{name}' is no figure of {self.WHERE}: name one of "
                               f"{', '.join(self.FIGURES)}, or give true for all of them")
                    for i, name in enumerate(names) if name not in self.FIGURES], type(self).__name__)
        return self

    def unconfirmed_fields(self) -> list[str]:
        """Names of the figures marked unconfirmed ('*' for all of them)."""
        return marked_fields(self.unconfirmed)

    def is_unconfirmed(self, field: str) -> bool:
        """Whether `field` (a name in `FIGURES`) is marked unconfirmed, itself or with all of them.

        A figure not stated (an enclosure's weight no source gives: not provided) is never assumed (weight36).
        """
        stated = getattr(self, "class_" if field == "class" else field, None) is not None
        return stated and is_marked(self.unconfirmed, field)

    def assumed(self) -> tuple[str, ...]:
        """The figures (`FIGURES`) marked unconfirmed, in that order."""
        return tuple(f for f in self.FIGURES if self.is_unconfirmed(f))

    def stated(self, names: tuple[str, ...], said: bool = False) -> str:
        """`names` (of `FIGURES`) with the values stated: 'supply 40 °C, delta_t 10 K, racks_per_cdu 8'.

        `said`: each name as a customer reads it, not as the spec keys it ('supply 40 °C, ΔT 10 K, racks per CDU 8').
        """
        values = {field_words.said(f) if said else f: getattr(self, "class_" if f == "class" else f)
                  for f in names}
        return ", ".join(f"{f} {v:~P}" if hasattr(v, "units") else f"{f} {v}" for f, v in values.items())


#: Directions of air through a part, NetBox's device-type vocabulary (netbox-community/devicetype-library
#: schema/devicetype.json, `airflow`), named from the part's own front.
Airflow = Literal["front-to-rear", "rear-to-front", "left-to-right", "right-to-left", "side-to-rear", "rear-to-side",
                  "bottom-to-top", "top-to-bottom", "passive", "mixed"]


class Cooling(Spec):
    """How a piece of equipment rejects its heat."""

    type: Literal["air", "liquid", "hybrid"] = Field("air", description="air, liquid (cold plates) or hybrid.")
    liquid_fraction: Fraction = Field(
        0.0, description="Share of the heat removed by liquid (0 for air cooled, e.g. 0.85 for GB200).")
    coolant_volume: Volume | None = Field(None, description=(
        "Coolant a liquid-cooled part holds when filled (its cold plates and internal tubing), e.g. '1.5 L', where "
        "its datasheet states it: where the rack's loop states no `coolant_volume` (which holds the parts'), the "
        "rack's weight adds it at the loop's coolant density, still a lower bound without the manifolds and hoses. "
        "Not stated either, a rack whose loop carries this part's heat has a weight that is a lower bound "
        "(analyse.rack.coolant)."))
    inlet_min: Temperature | None = Field(None, description=(
        "Lowest inlet (ambient) air temperature the datasheet allows in operation, e.g. '5 degC' (DGX H100/H200 "
        "User Guide: 5-30 °C); COOL015 compares the hall's air supply with it. Left out: not stated, not judged."))
    inlet_max: Temperature | None = Field(None, description=(
        "Highest inlet (ambient) air temperature the datasheet allows in operation, e.g. '30 degC'; COOL015 compares "
        "the hall's air supply with it (it may be below the rack's ASHRAE class allows: A2 is 10-35 °C)."))
    airflow: Airflow | None = Field(None, description=(
        "Direction its fans move air, from its own front (the port or bezel side its maker shows as the front), as "
        "its datasheet or NetBox's device-type library gives it, e.g. 'front-to-rear', or 'rear-to-front' for a "
        "switch ordered with power-to-connector (P2C) airflow. Placed from a slot's `face: rear` it turns round in "
        "the rack. COOL018 warns where a placed part takes its air from the rack's rear (the hot aisle) or exhausts "
        "anywhere but the rear. Left out: not stated, not judged."))

    @model_validator(mode="after")
    def _inlet_ordered(self) -> Self:
        refuse_disordered(self, "inlet_min", "inlet_max")
        return self


class Mechanical(Spec):
    """Size and weight of a rack-mounted item."""

    height: RackHeight = Field(description="Height in whole rack units, e.g. '1 U'.")
    weight: Mass = Field(description="Weight including its trays/rails as installed, e.g. '34 kg'.")
    depth: Literal["full", "half"] = Field("full", description="Occupies the full rack depth or only one face.")


class Psus(Spec):
    """The power supply units of a shelf, system or switch."""

    count: int = Field(gt=0, le=256, description="PSUs per unit.")
    capacity: Power | None = Field(None, description="Output per PSU, e.g. '5.5 kW'.")
    redundancy: Redundancy = Field("N", description="Redundancy across the PSUs (N, N+1, N+2, N+N), as published.")
    inlet: str = Field("", description=(
        "AC inlet of each PSU as IEC 60320 names it, e.g. 'C14', 'C20', or another connector ('7-pin'); it "
        "fixes the power cord (a C13 or C19 plug into the PDU, a C14 or C20 connector at the PSU)."))
    efficiency: PositiveFraction | None = Field(None, description=(
        "A system's or switch's PSUs' conversion efficiency (AC in, DC out) near the load they carry, as the datasheet "
        "or its 80 PLUS certificate states it (Titanium: 96 % at 50 % load, 230 V internal redundant, the program's "
        "table as https://www.tomshardware.com/uk/reviews/80-plus-psu-efficiency,4848-2.html prints it); a power shelf "
        "states its own `efficiency`. Its `power.max` is at its AC input already; this moves a sweep's `tdp` change on "
        "a system behind PDUs to that input, 1 / efficiency per watt (`analyse.conversion.feed_per_watt`). Not "
        "stated: the change counts its own watt, without the PSUs' loss (a lower bound)."))

    @property
    def active_output(self) -> Q | None:
        """Output of the PSUs the redundancy keeps active, (count − spares) × capacity; None without a capacity."""
        if self.capacity is None:
            return None
        return self.capacity * max(self.count - spare_units(self.redundancy, self.count), 0)


class SupplyInput(Spec):
    """What an item's own power supplies take, as its datasheet states it: AC or DC, and the voltage range.

    PWR013 compares it with what the rack feeds the item: a power shelf's DC busbar, or AC from PDUs or feeds.
    """

    type: Literal["ac", "dc"] = Field(description="'ac' (PSUs on mains, e.g. 100-240 V) or 'dc' (a 48-54 V busbar).")
    voltage_min: Voltage | None = Field(None, description="Lowest rated input voltage, e.g. '100 V' or '40 V'.")
    voltage_max: Voltage | None = Field(None, description="Highest rated input voltage, e.g. '240 V' or '60 V'.")

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        refuse_disordered(self, "voltage_min", "voltage_max")
        return self


class Electrical(Spec):
    """Power draw of an item.

    Where no maximum draw is published, `max` may be left out when `psus` gives their count, output and redundancy:
    it is then the output of the PSUs the redundancy keeps active, (count − spares) × capacity (N of N+N, N of N+k),
    with `max_basis: psu-active`: an upper bound on the draw, since the redundant PSUs only share that load. A
    `psu-rating` or `psu-active` maximum above that output (the ratings of every PSU, spares included) is refused.
    """

    max: PowerOrZero = Field(description=(
        "Maximum power draw (nameplate or datasheet maximum), e.g. '14.3 kW'; may be left out when `psus` gives "
        "count, capacity and redundancy (then the active PSUs' output, `max_basis: psu-active`). Where neither is "
        "published, state the best estimate and list `power.max` under the part's `unconfirmed:` (PWR012 names it). "
        "It is the draw at the part's own input: its plug, or for a part fed from a rack's DC busbar (`input: {type: "
        "dc}`) the busbar, so the power shelves' losses are not in it and the analysis adds them once. A figure "
        "derived from a rack's power at its feeds is first brought to the busbar (x the shelves' efficiency)."))
    typical: PowerOrZero | None = Field(None, description=(
        "Typical draw under load, when published; average-power metrics (`it_power_typical`) use it, budgets use "
        "`max`."))
    idle: PowerOrZero | None = Field(None, description=(
        "Draw powered on with no job running, when published; the hours a cluster idles (its facility's "
        "`utilisation`) are costed at it, else at the average draw (assumed)."))
    smoothing: PartSmoothing | None = Field(None, description=(
        "How the part holds its own draw steady while a job runs (GB300 NVL72 power smoothing: a GPU floor and "
        "ramp rates through NVML, energy storage in the power shelves), e.g. {floor: 0.8, source: ...}: with "
        "`idle`, a bound on how far its draw falls in a training step's communication phase (`job_power_swing`; "
        "PWR022 where the hall states no `feeds.power_smoothing.floor`). Not stated: no floor is taken."))
    max_basis: Literal["stated", "psu-rating", "psu-active", "placeholder"] = Field("stated", description=(
        "What `max` is: 'stated', a maximum draw a source states (or derives, as the part's notes say); "
        "'psu-rating', a power-supply rating standing in where no maximum draw is published (an upper bound, not a "
        "draw); 'psu-active', the output of the PSUs the redundancy keeps active, derived from `psus` (an upper "
        "bound); 'placeholder', an estimate to replace. Documents list the last three under Open items."))
    psus: Psus | None = Field(None, description="Power supply units, when the datasheet gives them.")
    input: SupplyInput | None = Field(None, description=(
        "The input its power supplies take, as the datasheet states it, e.g. {type: ac, voltage_min: 100 V, "
        "voltage_max: 240 V} or {type: dc, voltage_min: 48 V, voltage_max: 54 V}; PWR013 checks it against what the "
        "rack feeds the part (a shelf's DC busbar, or AC). Not stated: not checked."))
    heat_output: PowerOrZero | None = Field(
        None, description="Rated heat output when the datasheet gives one (e.g. in BTU/h), checked against max.")

    @model_validator(mode="before")
    @classmethod
    def _derive_max(cls, data: Any) -> Any:
        """Fill a left-out `max` from the active PSUs (class docstring); leave errors to field validation."""
        if not isinstance(data, dict) or "max" in data or not isinstance(data.get("psus"), dict | Psus):
            return data
        try:
            psus = Psus.model_validate(data["psus"])
        except ValueError:
            return data  # the field's own validation reports it
        bound = psus.active_output
        return data if bound is None else {**data, "max": bound, "max_basis": data.get("max_basis", "psu-active")}

    @model_validator(mode="after")
    def _max_within_active_psus(self) -> Self:
        bound = self.psus.active_output if self.psus is not None else None
        if bound is None or self.max_basis not in ("psu-rating", "psu-active") or self.max <= bound * (1 + 1e-9):
            return self
        psus = self.psus
        assert psus is not None and psus.capacity is not None
        active = psus.count - spare_units(psus.redundancy, psus.count)
        raise FieldError(("max",), (
            f"{self.max:~P} is more than the active PSUs deliver: {active} of {psus.count} x {psus.capacity:~P} "
            f"({psus.redundancy}) = {bound.to('kW'):~P}; a PSU bound counts only the PSUs the redundancy keeps active "
            f"(leave `max` out to derive it)"))
