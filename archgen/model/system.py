"""The `System` kind: a server node or a rack tray (compute tray, DGX system)."""

from collections.abc import Mapping
from typing import Annotated, Literal, Self

from pydantic import Field, PrivateAttr, model_validator

from archgen.model.base import Cooling, Electrical, Mechanical, Part
from archgen.model.field_types import PositiveFraction
from archgen.model.network import NIC
from archgen.model.pcie import PCIE_COPY_RANGE
from archgen.model.spec import Document, FieldError, Ref, Spec
from archgen.units import Q_, Bandwidth, FlowRate, Information, Q

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


#: Achieved fraction of an accelerator's host link for large copies where a system states none: nvbandwidth's copy-
#: engine host-to-device rate on an H100 80GB HBM3 over PCIe Gen5 x16 (63 GB/s per direction: 32 GT/s x 16 lanes,
#: 128b/130b), 51 GB/s (Azure/AI-benchmarking-guide Azure_Results/ND_H100_v5_results.md at ae0b6a7, "NV Bandwidth"
#: table, Xeon Platinum 8480C host): 51 / 63 = 0.81, the lowest of the guide's PCIe figures. The same table gives
#: device-to-host 52 (0.825); ND H200 v5 (ND_H200_v5_results.md at 7f20e5f) 52 and 52 (0.825); ND A100 v4
#: (ND_A100_v4_results.md at 3bb66ca) host-to-device 26.28 of PCIe Gen4's 31.5 GB/s (0.834), so the measured range
#: is 0.81 to 0.834. Left out of it: that A100 node's device-to-host 6.27 GB/s (0.199), a fifth of its own
#: host-to-device rate on the same link. NVLink-C2C (Grace superchips) has no measurement here: the figure is
#: assumed for it. These are one direction at a time; nvbandwidth's README (NVIDIA/nvbandwidth at 66746a3) shows
#: 18.4 to 19.6 GB/s per direction when both run at once against about 26 one way (its examples name no device), a
#: slowdown offload moving both ways at once may meet and the model does not charge.
HOST_LINK_EFFICIENCY = PCIE_COPY_RANGE[0]   # 0.81: the low end of the range `model.pcie` holds, one figure


class HostMemory(Spec):
    """The host (CPU) memory of a node and the link each accelerator reaches it over: where training may offload."""

    capacity: Information = Field(description="System memory of the node, all CPUs together, e.g. '2 TB'.")
    bandwidth: Bandwidth = Field(description=(
        "CPU memory bandwidth of the node, all sockets together (e.g. 2 x 8 channels of DDR5-4800: '614 GB/s'); "
        "a CPU optimizer step streams its state at this rate."))
    link: Bandwidth = Field(description=(
        "Host link of one accelerator, per direction: '63 GB/s' for PCIe Gen5 x16, an NVLink-C2C share on Grace "
        "superchips."))
    efficiency: PositiveFraction = Field(HOST_LINK_EFFICIENCY, description=(
        "Achieved fraction of `link` for large copies. Left out, 0.81: nvbandwidth's host-to-device copy on an H100 "
        "over PCIe Gen5 x16, 51 of 63 GB/s (Azure AI benchmarking guide, ND H100 v5); its measured range over "
        "PCIe is 0.81 to 0.834 (`HOST_LINK_EFFICIENCY`, docs/efficiencies.md)."))


class ApplianceStorage(Spec):
    """What one storage appliance (a System placed in racks as a storage server) stores and serves, as published."""

    capacity: Information = Field(description="Usable capacity of one appliance as configured, e.g. '500 TB'.")
    read_bandwidth: Bandwidth = Field(description="Sustained read bandwidth of one appliance, e.g. '90 GB/s'.")
    write_bandwidth: Bandwidth = Field(description="Sustained write bandwidth of one appliance, e.g. '65 GB/s'.")


class System(Part):
    """A node or tray: accelerators, CPUs, NICs, power, size and weight."""

    kind: Literal["System"] = "System"
    accelerator: Ref | None = Field(None, description="Id of the accelerator fitted.")
    accelerators: int = Field(0, ge=0, le=4096, description="Number of accelerators fitted.")
    cpu: str = Field("", description="CPU model, e.g. 'Grace' or '2 x Xeon Platinum 8480C'.")
    cpus: int = Field(0, ge=0, le=1024, description="Number of CPUs.")
    nics: list[NicSlot] = Field(default_factory=list, description="NICs fitted, by role.")
    torus_block: list[Annotated[int, Field(ge=1, le=64)]] | None = Field(None, min_length=2, max_length=3, description=(
        "Chips along each torus dimension that the system wires on its own board, e.g. [2, 2, 1] for a TPU v4 "
        "tray (Jouppi et al., ISCA 2023): the torus links inside the block are board traces, neither cables nor "
        "failure units. Left out: every torus link leaves the system on a cable."))
    mechanical: Mechanical = Field(description="Height, weight and depth.")
    power: Electrical = Field(description="Maximum draw and optional rated heat output.")
    power_includes_optics: bool = Field(True, description=(
        "Whether `power.max` (and `typical`) include the transceivers and active cable ends plugged into the "
        "system's own NIC ports: true (default) for a whole-system maximum input, which the system's PSUs supply "
        "since modules draw their power from the adapter's port; false where the source states the figure without "
        "modules, and then the cabling's node-end modules are added to its rack's budgets and the cluster's IT "
        "power (docs/clusters.md, Power)."))
    power_includes_nics: bool = Field(True, description=(
        "Whether `power.max` (and `typical`, `idle`) include the NICs fitted (`nics`): true (default) for a "
        "whole-system maximum input (a DGX datasheet's maximum system power, an OEM's PSU rating), which the "
        "system's PSUs supply; false where the source states the figure without its NICs (a baseboard's or a "
        "board's own), and then each NIC's `power` x its count is added to the system's draw wherever it is used "
        "(racks' budgets, the cluster's IT power, energy), never twice; PWR012 says which (docs/clusters.md, "
        "Power)."))
    cooling: Cooling = Field(default_factory=Cooling, description="Air or liquid, and the liquid share of heat.")
    airflow: FlowRate | None = Field(None, description="Maximum air flow at full load, e.g. '1105 CFM' (ft**3/min).")
    host_memory: HostMemory | None = Field(None, description=(
        "Host memory and the accelerators' link to it; training may offload activations and optimizer state there. "
        "Left out: no offload."))
    storage: ApplianceStorage | None = Field(None, description=(
        "A storage appliance's figures (no accelerators): usable capacity and sustained read and write bandwidth of "
        "one, as its datasheet states them. A cluster's `storage.appliance` names it; REL014 holds the cluster's "
        "stated storage to the appliances its racks place (docs/reliability.md, \"Storage appliances as parts\")."))

    @model_validator(mode="after")
    def _appliance_without_accelerators(self) -> Self:
        """review42: a system with accelerators is a compute node (its NICs no storage port, REL010), not storage."""
        if self.storage is not None and self.accelerators:
            raise FieldError(("storage",), f"a storage appliance fits no accelerators, and this system fits "
                                           f"{self.accelerators}: its NICs would count as a compute node's, not as "
                                           "the storage's ports; expected `storage:` on a system without accelerators")
        return self

    #: The NICs' power added to this system's figures (`with_nic_power`); None where `power` includes them.
    _nic_power: Q | None = PrivateAttr(default=None)

    @property
    def nic_power(self) -> Q | None:
        """The fitted NICs' power this system's draw adds to `power` (None: `power` includes its NICs)."""
        return self._nic_power


def with_nic_power(items: Mapping[str, Document]) -> dict[str, Document]:
    """`items` with each system whose `power` leaves its NICs out carrying their power (`System.nic_power`).

    The NICs' `power` x their count in `nics`, as catalogued; a NIC that names no NIC part adds nothing (REF001
    reports it). Systems whose figure includes their NICs (the default) are the same objects, so nothing is counted
    twice.
    """
    out = dict(items)
    for key, s in items.items():
        if isinstance(s, System) and not s.power_includes_nics:
            nics = [(n, slot.count) for slot in s.nics if isinstance(n := items.get(slot.part), NIC)]
            copy = s.model_copy()
            copy._nic_power = sum((n.power * count for n, count in nics), Q_(0, "W")).to("W")
            out[key] = copy
    return out


def max_draw(part: object) -> Q:
    """A system's or switch's maximum draw: `power.max`, plus a system's NICs where its figure leaves them out."""
    return _plus_nics(part, part.power.max)  # type: ignore[attr-defined]


def typical_draw(part: object) -> Q:
    """Typical draw where the datasheet states one, else the maximum (the stated fallback); NICs as in `max_draw`."""
    typical = part.power.typical  # type: ignore[attr-defined]
    return _plus_nics(part, typical) if typical is not None else max_draw(part)


def idle_draw(part: object) -> Q | None:
    """The draw with no job running where the datasheet states one (`power.idle`), NICs as in `max_draw`; else None."""
    idle = part.power.idle  # type: ignore[attr-defined]
    return None if idle is None else _plus_nics(part, idle)


def _plus_nics(part: object, draw: Q) -> Q:
    nics = part.nic_power if isinstance(part, System) else None
    return draw if nics is None else draw + nics
