"""Shared bases of every spec model: frozen, unknown keys rejected, every field described."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints
from pydantic_core import PydanticCustomError

from archgen.units import Mass, Power, PowerOrZero, RackSpace

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

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


class FieldError(ValueError):
    """A model validator's error about one of its fields: the validator locates it at `field` (a key path)."""

    def __init__(self, field: tuple[str | int, ...], message: str):
        super().__init__(message)
        self.field = field


class Spec(BaseModel):
    """Base of every spec model."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=False, arbitrary_types_allowed=True, defer_build=True,
                              validate_default=True)  # a default is parsed like user input ("1.9 us" → Quantity)


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

    count: int = Field(gt=0, description="PSUs per unit.")
    capacity: Power | None = Field(None, description="Output per PSU, e.g. '5.5 kW'.")
    redundancy: Redundancy = Field("N", description="Redundancy across the PSUs (N, N+1, N+2, N+N), as published.")
    inlet: str = Field("", description=(
        "AC inlet of each PSU as IEC 60320 names it, e.g. 'C14', 'C20', or another connector ('7-pin'); it "
        "fixes the power cord (a C13 or C19 plug into the PDU, a C14 or C20 connector at the PSU)."))


class Electrical(Spec):
    """Power draw of an item."""

    max: PowerOrZero = Field(description="Maximum power draw (nameplate or datasheet maximum), e.g. '14.3 kW'.")
    typical: PowerOrZero | None = Field(None, description=(
        "Typical draw under load, when published; average-power metrics (`it_power_typical`) use it, budgets use "
        "`max`."))
    idle: PowerOrZero | None = Field(None, description=(
        "Draw powered on with no job running, when published; the hours a cluster idles (its facility's "
        "`utilisation`) are costed at it, else at the average draw (assumed)."))
    max_basis: Literal["stated", "psu-rating", "placeholder"] = Field("stated", description=(
        "What `max` is: 'stated', a maximum draw a source states (or derives, as the part's notes say); "
        "'psu-rating', a power-supply rating standing in where no maximum draw is published (an upper bound, not a "
        "draw); 'placeholder', an estimate to replace. Documents list the last two under Open items."))
    psus: Psus | None = Field(None, description="Power supply units, when the datasheet gives them.")
    heat_output: PowerOrZero | None = Field(
        None, description="Rated heat output when the datasheet gives one (e.g. in BTU/h), checked against max.")
