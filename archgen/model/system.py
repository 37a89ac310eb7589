"""The `System` kind: a server node or a rack tray (compute tray, DGX system)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from archgen.model.base import Cooling, Electrical, Mechanical, Part
from archgen.model.spec import Ref, Spec
from archgen.units import Bandwidth, FlowRate, Information

NicRole = Literal["compute", "storage", "frontend", "management", "converged"]


class Component(Spec):
    """A catalog part fitted inside a system, with its count."""

    part: Ref = Field(description="Id of the catalog part.")
    count: int = Field(1, gt=0, le=1024, description="How many are fitted (at most 1,024 in one system).")


class NicSlot(Component):
    """A NIC fitted in a system and the network it serves."""

    role: NicRole = Field("compute", description="compute (scale-out), storage, frontend (in-band) or management.")
    cage: str = Field("", description=(
        "The system's own cage for these NIC ports when it differs from the NIC card's, e.g. 'OSFP' for a DGX "
        "whose ConnectX-7 ports leave through twin-port OSFP cages (checked against link modules, CAB005)."))
    per_cage: int | None = Field(None, gt=0, le=8, description=(
        "NIC ports per system cage (2 for a DGX twin-port OSFP); one module then serves that many ports."))


class HostMemory(Spec):
    """The host (CPU) memory of a node and the link each accelerator reaches it over: where training may offload."""

    capacity: Information = Field(description="System memory of the node, all CPUs together, e.g. '2 TB'.")
    bandwidth: Bandwidth = Field(description=(
        "CPU memory bandwidth of the node, all sockets together (e.g. 2 x 8 channels of DDR5-4800: '614 GB/s'); "
        "a CPU optimizer step streams its state at this rate."))
    link: Bandwidth = Field(description=(
        "Host link of one accelerator, per direction: '63 GB/s' for PCIe Gen5 x16, an NVLink-C2C share on Grace "
        "superchips."))
    efficiency: float = Field(0.8, gt=0, le=1, description=(
        "Achieved fraction of `link` for large copies (nvbandwidth: 25.1 of 31.5 GB/s on A100 PCIe Gen4, 52.8 of "
        "63 GB/s device-to-host on H100 PCIe Gen5)."))


class System(Part):
    """A node or tray: accelerators, CPUs, NICs, power, size and weight."""

    kind: Literal["System"] = "System"
    accelerator: Ref | None = Field(None, description="Id of the accelerator fitted.")
    accelerators: int = Field(0, ge=0, le=4096, description="Number of accelerators fitted.")
    cpu: str = Field("", description="CPU model, e.g. 'Grace' or '2 x Xeon Platinum 8480C'.")
    cpus: int = Field(0, ge=0, le=1024, description="Number of CPUs.")
    nics: list[NicSlot] = Field(default_factory=list, description="NICs fitted, by role.")
    mechanical: Mechanical = Field(description="Height, weight and depth.")
    power: Electrical = Field(description="Maximum draw and optional rated heat output.")
    power_includes_optics: bool = Field(True, description=(
        "Whether `power.max` (and `typical`) include the transceivers and active cable ends plugged into the "
        "system's own NIC ports: true (default) for a whole-system maximum input, which the system's PSUs supply "
        "since modules draw their power from the adapter's port; false where the source states the figure without "
        "modules, and then the cabling's node-end modules are added to its rack's budgets and the cluster's IT "
        "power (docs/clusters.md, Power)."))
    cooling: Cooling = Field(default_factory=Cooling, description="Air or liquid, and the liquid share of heat.")
    airflow: FlowRate | None = Field(None, description="Maximum air flow at full load, e.g. '1105 ft**3/min'.")
    host_memory: HostMemory | None = Field(None, description=(
        "Host memory and the accelerators' link to it; training may offload activations and optimizer state there. "
        "Left out: no offload."))
