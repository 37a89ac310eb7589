"""Power distribution parts: `PowerShelf` (ORv3 busbar shelves) and `PDU`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from archgen.model.base import Mechanical, Part, Psus
from archgen.units import Current, Power, Voltage


class PowerShelf(Part):
    """A power shelf that converts AC (or HVDC) to the rack busbar voltage."""

    kind: Literal["PowerShelf"] = "PowerShelf"
    capacity: Power = Field(description="Rated output of the shelf, e.g. '33 kW'.")
    output_voltage: Voltage = Field(description="Busbar voltage, e.g. '48 V' or '50 V'.")
    input: str = Field("", description="Input, e.g. '3-phase 200-277 Vac (346-480 V line-to-line)'.")
    psus: Psus | None = Field(None, description="PSUs in the shelf.")
    efficiency: float = Field(0.97, gt=0, le=1, description="Conversion efficiency at typical load.")
    mechanical: Mechanical = Field(description="Height, weight and depth.")


class PDU(Part):
    """A rack power distribution unit."""

    kind: Literal["PDU"] = "PDU"
    voltage: Voltage = Field(description="Input voltage.")
    basis: Literal["line-to-line", "line-to-neutral"] = Field(description="What `voltage` is measured between.")
    phases: Literal[1, 3] = Field(description="1 or 3 phase.")
    current: Current = Field(description="Input current rating per phase.")
    outlets: int = Field(0, ge=0, description="Number of outlets.")
    capacity: Power | None = Field(None, description="Rated capacity when published; else derived from V, A, phases.")
    mechanical: Mechanical | None = Field(None, description="Size and weight; 0U PDUs still have weight.")
