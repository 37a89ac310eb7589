"""Power distribution parts: `PowerShelf` (ORv3 busbar shelves) and `PDU`."""

from typing import Annotated, Literal, Self

from pydantic import BeforeValidator, Field, model_validator
from pydantic_core import PydanticCustomError

from archgen.model.base import Mechanical, Part, Psus, spare_units
from archgen.model.dc_feeds import AcSupply
from archgen.model.field_types import Fraction, PositiveFraction, ZeroURackHeight
from archgen.model.spec import FieldError
from archgen.units import Current, Dim, Power, Q, Voltage

#: A PDU's rating, which its maker states in kVA or kW: the rack feeds' `power_factor` makes kVA watts
#: (`analyse.power_chain.pdu_capacity`; a kW rating is taken as it is), so unlike `Power` it takes volt-amperes.
PowerRating = Annotated[Q, Dim("kW", gt=0, le=1e7, label="a power", example="17.3 kVA")]


def _input_mapping(value: object) -> object:
    """Refuse the free-text input of earlier versions ('3-phase AC') with how to write the typed rating."""
    if isinstance(value, str):
        raise PydanticCustomError(
            "expected", "an input rating, a mapping such as {voltage: 415 V, basis: line-to-line, phases: 3, "
            "current: 60 A}, not text")
    return value


class PowerInput(AcSupply):
    """A power shelf's rated AC input, as its datasheet states it (what PWR006 checks the feeds against)."""

    voltage: Voltage = Field(description="Nominal input voltage, e.g. '415 V'.")
    basis: Literal["line-to-line", "line-to-neutral"] = Field(description="What the voltages are measured between.")
    phases: Literal[1, 3] = Field(description="1 or 3 phase.")
    voltage_min: Voltage | None = Field(None, description=(
        "Lowest rated input voltage when the datasheet gives a range (e.g. '346 V' of 346-480 V); without a range "
        "a feed may sit within ±10 % of `voltage` (IEC 60038)."))
    voltage_max: Voltage | None = Field(None, description="Highest rated input voltage of the range, e.g. '480 V'.")
    current: Current | None = Field(None, description=(
        "Rated input current per phase (of the inlet or its cord), e.g. '50 A': the largest breaker ahead of it."))
    power: Power | None = Field(None, description="Rated input power, when the datasheet gives it, e.g. '34 kW'.")
    inlet: str = Field("", description="Input connector, e.g. 'IEC 60309 5-pin', 'ORv3 7-pin'.")

    @model_validator(mode="after")
    def _range(self) -> Self:
        low, high = self.voltage_min or self.voltage, self.voltage_max or self.voltage
        if not low <= self.voltage <= high:
            key = "voltage_min" if low > self.voltage else "voltage_max"
            raise FieldError((key,), f"the rated range {low:~P} to {high:~P} does not contain the nominal "
                                     f"{self.voltage:~P}")
        return self

    def voltage_range(self) -> tuple:
        """(lowest, highest) voltage a feed may have on this input's basis: the rated range, else ±10 % (IEC 60038)."""
        if self.voltage_min is None and self.voltage_max is None:
            return self.voltage * (1 - VOLTAGE_TOLERANCE), self.voltage * (1 + VOLTAGE_TOLERANCE)
        return self.voltage_min or self.voltage, self.voltage_max or self.voltage


#: How far a supply voltage may sit from a nominal rating: IEC 60038 (standard voltages) allows ±10 %.
VOLTAGE_TOLERANCE = 0.10


class PowerShelf(Part):
    """A power shelf that converts AC to the rack busbar voltage (an HVDC input is refused: `dc_feeds`)."""

    kind: Literal["PowerShelf"] = "PowerShelf"
    capacity: Power = Field(description="Rated output of the shelf, e.g. '33 kW'.")
    output_voltage: Voltage = Field(description="Busbar voltage, e.g. '48 V' or '50 V'.")
    input: Annotated[PowerInput, BeforeValidator(_input_mapping)] = Field(description=(
        "Rated AC input: voltage, basis, phases, current or power, inlet, e.g. {voltage: 415 V, voltage_min: 346 V, "
        "voltage_max: 480 V, basis: line-to-line, phases: 3, current: 50 A, inlet: ORv3 7-pin}."))
    psus: Psus | None = Field(None, description=(
        "PSUs in the shelf; with their `capacity`, the shelf's `capacity` is at most what the PSUs the redundancy "
        "keeps active deliver (6 x 3 kW in N+1: 15 kW)."))
    efficiency: PositiveFraction = Field(0.97, description="Conversion efficiency at typical load.")
    efficiency_range: tuple[Fraction, Fraction] | None = Field(None, description=(
        "Where `efficiency` is unconfirmed: the low and high efficiency it may lie between, with their source in "
        "`source:` or `notes:`, e.g. [0.965, 0.977]; PWR012 gives the cluster's IT power at both ends."))
    mechanical: Mechanical = Field(description="Height, weight and depth.")
    management_ports: int | None = Field(None, ge=0, le=16, description=(
        "Out-of-band management ports a management fabric with `endpoints.power` cables to its leaves; 0: it has "
        "none; not stated: none cabled, and NET032 says so on such a fabric."))

    @model_validator(mode="after")
    def _range_holds_efficiency(self) -> Self:
        if self.efficiency_range is not None:
            low, high = self.efficiency_range
            if not 0 < low <= self.efficiency <= high <= 1:
                raise FieldError(("efficiency_range",), f"expected a low and a high efficiency around efficiency "
                                                        f"{self.efficiency:g}, each within (0, 1], got [{low:g}, "
                                                        f"{high:g}]")
        return self

    @model_validator(mode="after")
    def _within_active_psus(self) -> Self:
        """Refuse a `capacity` above its PSUs' active output: the rack budget (PWR001) counts `capacity` alone."""
        bound = self.psus.active_output if self.psus is not None else None
        if bound is None or self.capacity <= bound * (1 + 1e-9):
            return self
        psus = self.psus
        assert psus is not None and psus.capacity is not None   # a bound needs both (Psus.active_output)
        active = psus.count - spare_units(psus.redundancy, psus.count)
        raise FieldError(("capacity",), (
            f"{self.capacity:~P} is more than the shelf's active PSUs deliver: {active} of {psus.count} x "
            f"{psus.capacity:~P} ({psus.redundancy}) = {bound.to('kW'):~P}; state the shelf's output with its PSU "
            f"redundancy held back, or the PSUs' redundancy as published"))


class PduMechanical(Mechanical):
    """Size and weight of a PDU: a vertical (0U) one, mounted in the rack's side channel, takes `height: 0 U`."""

    height: ZeroURackHeight = Field(description="Height in rack units: '0 U' for a vertical PDU, e.g. '1 U'.")


class PDU(AcSupply, Part):
    """A rack power distribution unit."""

    kind: Literal["PDU"] = "PDU"
    voltage: Voltage = Field(description="Input voltage.")
    basis: Literal["line-to-line", "line-to-neutral"] = Field(description="What `voltage` is measured between.")
    phases: Literal[1, 3] = Field(description="1 or 3 phase.")
    current: Current = Field(description="Input current rating per phase.")
    outlets: int = Field(0, ge=0, le=1000, description=(
        "Number of outlets; where stated, each PDU must have one for every PSU cord the rack's outlet map puts on it "
        "(PWR016). 0: not stated, not judged."))
    capacity: PowerRating | None = Field(None, description=(
        "Rated capacity when published, in kVA or kW as its maker states it (the feeds' `power_factor` applies to kVA "
        "only: kW is real power already); else "
        "derived from V, A, phases."))
    mechanical: PduMechanical | None = Field(None, description=(
        "Size and weight, e.g. {height: 0 U, weight: 12 kg} for a vertical PDU (0U PDUs still have weight); not "
        "stated, the rack's payload and floor load leave it out and say so (MECH003, MECH004)."))
    management_ports: int | None = Field(None, ge=0, le=16, description=(
        "Out-of-band management ports a management fabric with `endpoints.power` cables to its leaves; 0: it has "
        "none; not stated: none cabled, and NET032 says so on such a fabric."))

