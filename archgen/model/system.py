"""The `System` kind: a server node or a rack tray (compute tray, DGX system)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from archgen.model.base import Cooling, Count, Electrical, Mechanical, Part, Ref, Spec
from archgen.units import FlowRate

NicRole = Literal["compute", "storage", "frontend", "management", "converged"]


class Component(Spec):
    """A catalog part fitted inside a system, with its count."""

    part: Ref = Field(description="Id of the catalog part.")
    count: Count = Field(1, description="How many are fitted.")


class NicSlot(Component):
    """A NIC fitted in a system and the network it serves."""

    role: NicRole = Field("compute", description="compute (scale-out), storage, frontend (in-band) or management.")
    cage: str = Field("", description=(
        "The system's own cage for these NIC ports when it differs from the NIC card's, e.g. 'OSFP' for a DGX "
        "whose ConnectX-7 ports leave through twin-port OSFP cages (checked against link modules, CAB005)."))
    per_cage: int | None = Field(None, gt=0, le=8, description=(
        "NIC ports per system cage (2 for a DGX twin-port OSFP); one module then serves that many ports."))


class System(Part):
    """A node or tray: accelerators, CPUs, NICs, power, size and weight."""

    kind: Literal["System"] = "System"
    accelerator: Ref | None = Field(None, description="Id of the accelerator fitted.")
    accelerators: int = Field(0, ge=0, description="Number of accelerators fitted.")
    cpu: str = Field("", description="CPU model, e.g. 'Grace' or '2 x Xeon Platinum 8480C'.")
    cpus: int = Field(0, ge=0, description="Number of CPUs.")
    nics: list[NicSlot] = Field(default_factory=list, description="NICs fitted, by role.")
    mechanical: Mechanical = Field(description="Height, weight and depth.")
    power: Electrical = Field(description="Maximum draw and optional rated heat output.")
    cooling: Cooling = Field(default_factory=Cooling, description="Air or liquid, and the liquid share of heat.")
    airflow: FlowRate | None = Field(None, description="Maximum air flow at full load, e.g. '1105 ft**3/min'.")
