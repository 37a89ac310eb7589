"""Requirements with targets (``"<= 132 kW"``) and the `Requirements` kind that groups them."""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field, GetCoreSchemaHandler, StringConstraints
from pydantic_core import PydanticCustomError, core_schema

from archgen.model.base import Document, Spec
from archgen.units import Q, format_quantity, parse_quantity, ureg

_OPS = {"<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt, "==": operator.eq}
_TARGET = re.compile(r"^\s*(<=|>=|==|<|>)\s*(\S.*?)\s*$")


@dataclass(frozen=True)
class Target:
    """A comparator and a limit: ``<= 132 kW`` or ``>= 0.4``."""

    op: str
    limit: Q

    def met_by(self, value: Q) -> bool:
        """Whether `value` satisfies the target (the caller has checked the dimensions agree)."""
        return bool(_OPS[self.op](value.to(self.limit.units).magnitude, self.limit.magnitude))

    def __str__(self) -> str:
        return f"{self.op} {format_quantity(self.limit)}"

    @classmethod
    def parse(cls, value: Any) -> Target:
        """Parse ``"<= 132 kW"``, ``">= 0.4"`` or ``"== 72"``."""
        if isinstance(value, Target):
            return value
        m = _TARGET.match(value) if isinstance(value, str) else None
        if not m:
            raise PydanticCustomError("target", "expected a comparator and a value such as '<= 132 kW', got '{v}'",
                                      {"v": value})
        op, text = m.groups()
        try:
            limit = ureg.Quantity(float(text), "dimensionless")
        except ValueError:
            limit = parse_quantity(text)
        return cls(op, limit)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            cls.parse, serialization=core_schema.plain_serializer_function_ser_schema(str, when_used="json"),
            json_schema_input_schema=core_schema.str_schema(pattern=r"^\s*(<=|>=|==|<|>)"))


ReqId = Annotated[str, StringConstraints(pattern=r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$")]


class Requirement(Spec):
    """A numbered requirement with a target on a computed metric."""

    id: ReqId = Field(description="Requirement id, e.g. 'REQ-PWR-001'.")
    statement: str = Field(description="What is required, in words.")
    metric: str = Field(description="Name of the computed metric the target applies to, e.g. 'it_power'.")
    target: Target = Field(description="Comparator and limit, e.g. '<= 132 kW'.")
    subject: str = Field("", description=(
        "Object the metric belongs to, e.g. 'rack/gb200-nvl72', or a glob over object paths that applies the "
        "requirement to every object it matches: 'rack/*', 'cluster/*/fabric/compute' ('*' does not cross '/'); "
        "implied inline."))
    level: Literal["shall", "should", "may"] = Field("shall", description="SHALL (error), SHOULD (warning), MAY.")
    basis: Literal["sourced", "assumed"] = Field("assumed", description="Whether the target is sourced or assumed.")
    source: str = Field("", description="Where the requirement comes from.")


class Requirements(Document):
    """A set of requirements applying to racks, clusters or workloads."""

    kind: Literal["Requirements"] = "Requirements"
    requirements: list[Requirement] = Field(description="The requirements.")
