"""The roots of every spec model: frozen, unknown keys rejected, every field described; a document has a kind and an id.

Every domain module (`archgen.model.*`, prices and failure rates included) builds on these; they import no other
spec module.
"""

import datetime
import inspect
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

Id = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]*$", max_length=80)]
Ref = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]*$", max_length=80)]
Count = Annotated[int, Field(gt=0, le=10_000_000)]


class FieldError(ValueError):
    """A validator's error about one of its model's fields, located at `field` (a key path).

    A model validator's `field` is a key path from its model; a field validator's, from the field it validates, or,
    with `beside`, from the model that holds that field (a key checked against an earlier one: `endpoints` against
    `ports_per_node`), so that the check runs, and its error comes, with the model's other field errors.
    """

    def __init__(self, field: tuple[str | int, ...], message: str, beside: bool = False):
        super().__init__(message)
        self.field = field
        self.beside = beside


def raise_each(errors: Sequence[FieldError], title: str) -> None:
    """Raise every one of a validator's `errors` at once, each located at its own field; return when there is none.

    A validator that checks several things collects a `FieldError` per problem and ends with this, so the user sees
    them all in one run (STYLE.md, habit 6). pydantic-core takes a `ValidationError` raised inside a validator as its
    line errors, each under the validator's own location (pydantic-core PR 510, "support for raising
    `ValidationError` directly"); each line error is the `value_error` a lone `FieldError` makes, so
    `archgen.validate` locates and words it the same way. One error is raised as itself.

    Args:
        errors: The problems found, in the order the validator checks them.
        title: The model's name (pydantic's title of the error).
    """
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise ValidationError.from_exception_data(title, [
            InitErrorDetails(type="value_error", loc=(), input=None, ctx={"error": e}) for e in errors])


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


# pydantic reads a field validator's signature for each field it applies to (whether it takes `info`): this one
# applies to every field of every spec model, 729 fields for the shipped specs, 4-5 ms of each start (issue 25).
# `inspect.signature` answers from `__signature__`, set once here to what it computes.
_whole = Spec._whole_numbers_in_reach.__func__  # type: ignore[attr-defined]
_whole.__signature__ = inspect.signature(_whole)


#: Checks no waiver covers, with why: a reference that does not resolve leaves its document out of every figure of
#: the objects that name it (a rack's power, weight and cost without the part), so a waived REF001 passed a pull
#: request on numbers that look whole (newuser32's trial: a rack's `it_power` of 40.9 kW without its misspelt part,
#: exit 0). The fix is the reference, never a reason.
UNWAIVABLE = {"REF001": "a reference that names no document", "REF002": "a reference to a document of the wrong kind"}


class Waiver(Spec):
    """A check deliberately waived for this document, with a reason."""

    check: str = Field(pattern=r"^[A-Z]{2,4}[0-9]{3}$", description=(
        "Check id, e.g. 'CAT001'; REF001 and REF002 cannot be waived (correct the reference)."))
    subject: str = Field("", pattern=r"^([a-z]+(/[A-Za-z0-9._*?\[\]!-]+)+)?$", description=(
        "Object path of the findings waived, e.g. 'cluster/c/fabric/oob', or a glob over object paths as "
        "requirement subjects are ('rack/*', 'cluster/*/fabric/*'; '*' does not cross '/'); default: the document's "
        "own object ('rack/<id>', 'part/<id>', 'cluster/<id>'), so a waiver never hides findings about other "
        "objects unless it names them."))
    requirement: str = Field("", pattern=r"^([A-Z][A-Z0-9]*(-[A-Z0-9]+)+)?$", description=(
        "The requirement whose findings are waived (REQ001-REQ005, PERF001: a requirement not met, not provided, "
        "at risk, on assumed inputs), e.g. 'REQ-PWR-001'. A finding about a requirement is waived only by a waiver "
        "that names it, so that a waiver written for one requirement never hides another that the object starts "
        "to miss; a waiver without `requirement` covers only findings about no requirement."))
    reason: str = Field(min_length=3, description="Why the finding is accepted.")
    owner: str = Field("", description=(
        "Who accepted the finding and answers for the waiver (a person or team), shown with its reason."))
    scope: Literal["design", "proposal", "both"] | None = Field(None, description=(
        "Whose rows a waiver in our Requirements document waives in `archgen gap`: 'design' (our own design's open "
        "item: only where our requirements are judged on our design, their file under a PROPOSAL path), 'proposal' "
        "(only a vendor's proposal), 'both'. Unstated: 'design' where the subject's id is '*' ('rack/*': it names "
        "no vendor's object), else 'both'; the report says which applied and whether it was stated, and a "
        "'design' waiver that matches nothing in a vendor's proposal is not reported unused (SPC002). `check`, "
        "`render` and `diff` judge one design and apply every waiver."))
    expires: datetime.date | None = Field(None, description=(
        "The last day the waiver waives, e.g. 2027-03-31: judged against `--as-of DATE`, else SOURCE_DATE_EPOCH, "
        "else today's date, never a clock inside the specs; from the day after, its findings count again and a "
        "warning (SPC004) names the expired waiver. Unstated: the waiver never expires."))

    @field_validator("check")
    @classmethod
    def _waivable(cls, value: str) -> str:
        """Refuse a waiver of a check in `UNWAIVABLE`: its figures would pass without the part it names."""
        if value in UNWAIVABLE:
            raise PydanticCustomError("unwaivable", "{check} cannot be waived ({what}): the objects that hold it are "
                                      "analysed without it, so their figures would pass incomplete; correct the "
                                      "reference instead",
                                      {"check": value, "what": UNWAIVABLE[value]})
        return value


class Document(Spec):
    """Base of every top-level document: it has a kind and an id."""

    if TYPE_CHECKING:
        kind: str  # each kind declares its own `kind: Literal[...]` field

    id: Id = Field(description="Unique id, lower-case letters, digits, '.', '_' and '-'; other specs refer to it.")
    name: str = Field("", description="Human-readable name used in documents.")
    description: str = Field("", description="A paragraph describing the item, shown in documents.")
    waivers: list[Waiver] = Field(default_factory=list, description="Checks waived for this document, with reasons.")
