"""The `CoolingUnit` kind: CDUs, rear-door heat exchangers and CRAH units."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from archgen.model.base import Mechanical, Part, Redundancy
from archgen.model.spec import Spec
from archgen.units import FlowRate, Power, PowerOrZero, TemperatureDelta


class Pumps(Spec):
    """Pumps of a CDU."""

    count: int = Field(gt=0, le=64, description="Number of pumps.")
    redundancy: Redundancy = Field("N+1", description="Pump redundancy the rated flow already allows for.")


class CoolingUnit(Part):
    """A coolant distribution unit (in-rack or in-row), rear-door heat exchanger or CRAH."""

    kind: Literal["CoolingUnit"] = "CoolingUnit"
    type: Literal["in-rack-cdu", "in-row-cdu", "rdhx", "crah"] = Field(description="What kind of unit it is.")
    capacity: Power = Field(description="Heat it removes at the rated approach temperature, e.g. '1.3 MW'.")
    flow: FlowRate | None = Field(None, description="Maximum secondary (technology cooling system) flow.")
    approach: TemperatureDelta | None = Field(
        None, description="Approach temperature: secondary supply minus facility water supply at rated capacity.")
    pumps: Pumps | None = Field(None, description="Pumps and their redundancy.")
    power: PowerOrZero | None = Field(None, description="Electrical draw (pumps, fans, controls).")
    mechanical: Mechanical | None = Field(None, description="Size and weight, for in-rack units.")
