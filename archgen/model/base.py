"""Shared bases of every spec model: frozen, unknown keys rejected, every field described."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, field_validator, model_validator
from pydantic_core import PydanticCustomError

from archgen.units import Mass, Power, PowerOrZero, Q, RackSpace

Id = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]*$", max_length=80)]
Ref = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]*$", max_length=80)]
Count = Annotated[int, Field(gt=0, le=10_000_000)]
_REDUNDANCY = re.compile(r"^N(\+[0-9]+|\+N)?$")


def _redundancy(value: object) -> object:
    """A redundancy scheme; '2N', the common name of N+N (a full second set), is read as N+N."""
    if not isinstance(value, str):
        return value  # the string type says what was expected
    value = "N+N" if value.strip() == "2N" else value
    if not _REDUNDANCY.match(value):
        raise PydanticCustomError("expected", "N, N+1 (N+k spare units) or N+N (also written 2N)")
    return value


#: N (no spare), N+k (k spare units) or N+N, also written 2N (a full second set).
Redundancy = Annotated[str, BeforeValidator(_redundancy), StringConstraints(pattern=_REDUNDANCY.pattern)]


def spare_units(redundancy: str, count: int) -> int:
    """Units held in reserve by a redundancy scheme: N → 0, N+k → k, N+N → half (rounded up)."""
    if redundancy == "N":
        return 0
    if redundancy == "N+N":
        return -(-count // 2)
    return int(redundancy.split("+")[1])


ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


class FieldError(ValueError):
    """A model validator's error about one of its fields: the validator locates it at `field` (a key path)."""

    def __init__(self, field: tuple[str | int, ...], message: str):
        super().__init__(message)
        self.field = field


#: No whole number in a spec (a count of accelerators, ports, layers, tokens per sequence) reaches this; a field whose
#: own bound is lower says so. Beyond it an analysis sized by the count would allocate or loop past any machine.
MAX_WHOLE = 1_000_000_000


class Spec(BaseModel):
    """Base of every spec model."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=False, arbitrary_types_allowed=True, defer_build=True,
                              validate_default=True)  # a default is parsed like user input ("1.9 us" → Quantity)

    @field_validator("*", mode="after")
    @classmethod
    def _whole_numbers_in_reach(cls, value: object) -> object:
        """Refuse a whole number beyond `MAX_WHOLE` in any field (lane, PSU or pump counts of 2^63 - 1, issue 23)."""
        if isinstance(value, int) and not isinstance(value, bool) and not -MAX_WHOLE <= value <= MAX_WHOLE:
            raise PydanticCustomError("whole_too_large", "expected a whole number of at most {most}, got {got}",
                                      {"most": f"{MAX_WHOLE:,}", "got": f"{value:,}"})
        return value


class Waiver(Spec):
    """A check deliberately waived for this document, with a reason."""

    check: str = Field(pattern=r"^[A-Z]{2,4}[0-9]{3}$", description="Check id, e.g. 'CAT001'.")
    subject: str = Field("", pattern=r"^([a-z]+(/[A-Za-z0-9._*?\[\]!-]+)+)?$", description=(
        "Object path of the findings waived, e.g. 'cluster/c/fabric/oob', or a glob over object paths as "
        "requirement subjects are ('rack/*', 'cluster/*/fabric/*'; '*' does not cross '/'); default: the document's "
        "own object ('rack/<id>', 'part/<id>', 'cluster/<id>'), so a waiver never hides findings about other "
        "objects unless it names them."))
    reason: str = Field(min_length=3, description="Why the finding is accepted.")


class Document(Spec):
    """Base of every top-level document: it has a kind and an id."""

    if TYPE_CHECKING:
        kind: str  # each kind declares its own `kind: Literal[...]` field

    id: Id = Field(description="Unique id, lower-case letters, digits, '.', '_' and '-'; other specs refer to it.")
    name: str = Field("", description="Human-readable name used in documents.")
    description: str = Field("", description="A paragraph describing the item, shown in documents.")
    waivers: list[Waiver] = Field(default_factory=list, description="Checks waived for this document, with reasons.")


# Prices and failure rates are specs of their own modules, which build on the bases above.
from archgen.model.cost import Price  # noqa: E402
from archgen.model.reliability import FailureRate  # noqa: E402


class Part(Document):
    """A catalog part: every figure cites a public source."""

    vendor: str = Field("", description="Manufacturer.")
    part_number: str = Field("", description="The vendor's orderable part number, when published.")
    source: str | list[str] = Field(description="Public source(s) of the figures: URL or document and table.")
    unconfirmed: bool | list[str] = Field(
        False, description="True, or the names of fields, when a figure could not be confirmed from a public source.")
    notes: str = Field("", description="Assumptions and remarks.")
    reliability: FailureRate | None = Field(None, description=(
        "This part's own failure rate and repair time; default: its class's rate in the cluster's `FailureRates` "
        "(docs/reliability.md)."))
    price: Price | None = Field(None, description="Purchase price of one unit, with its currency, date and basis.")

    def unconfirmed_fields(self) -> list[str]:
        """Names of fields marked unconfirmed ('*' for the whole part)."""
        if self.unconfirmed is True:
            return ["*"]
        return list(self.unconfirmed) if isinstance(self.unconfirmed, list) else []


class Cooling(Spec):
    """How a piece of equipment rejects its heat."""

    type: Literal["air", "liquid", "hybrid"] = Field("air", description="air, liquid (cold plates) or hybrid.")
    liquid_fraction: float = Field(
        0.0, ge=0, le=1, description="Share of the heat removed by liquid (0 for air cooled, e.g. 0.85 for GB200).")


class Mechanical(Spec):
    """Size and weight of a rack-mounted item."""

    height: RackSpace = Field(description="Height in rack units, e.g. '1 U'.")
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

    @property
    def active_output(self) -> Q | None:
        """Output of the PSUs the redundancy keeps active, (count − spares) × capacity; None without a capacity."""
        if self.capacity is None:
            return None
        return self.capacity * max(self.count - spare_units(self.redundancy, self.count), 0)


class Electrical(Spec):
    """Power draw of an item.

    Where no maximum draw is published, `max` may be left out when `psus` gives their count, output and redundancy:
    it is then the output of the PSUs the redundancy keeps active, (count − spares) × capacity (N of N+N, N of N+k),
    with `max_basis: psu-active`: an upper bound on the draw, since the redundant PSUs only share that load. A
    `psu-rating` or `psu-active` maximum above that output (the ratings of every PSU, spares included) is refused.
    """

    max: PowerOrZero = Field(description=(
        "Maximum power draw (nameplate or datasheet maximum), e.g. '14.3 kW'; may be left out when `psus` gives "
        "count, capacity and redundancy (then the active PSUs' output, `max_basis: psu-active`)."))
    typical: PowerOrZero | None = Field(None, description=(
        "Typical draw under load, when published; average-power metrics (`it_power_typical`) use it, budgets use "
        "`max`."))
    idle: PowerOrZero | None = Field(None, description=(
        "Draw powered on with no job running, when published; the hours a cluster idles (its facility's "
        "`utilisation`) are costed at it, else at the average draw (assumed)."))
    max_basis: Literal["stated", "psu-rating", "psu-active", "placeholder"] = Field("stated", description=(
        "What `max` is: 'stated', a maximum draw a source states (or derives, as the part's notes say); "
        "'psu-rating', a power-supply rating standing in where no maximum draw is published (an upper bound, not a "
        "draw); 'psu-active', the output of the PSUs the redundancy keeps active, derived from `psus` (an upper "
        "bound); 'placeholder', an estimate to replace. Documents list the last three under Open items."))
    psus: Psus | None = Field(None, description="Power supply units, when the datasheet gives them.")
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
    def _max_within_active_psus(self) -> Electrical:
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
