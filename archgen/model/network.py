"""Network parts: `Switch`, `NIC` and `Link` (a cable or transceiver type)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from archgen.model.base import Cooling, Electrical, Mechanical, Part, Spec
from archgen.units import Bandwidth, DurationOrZero, Length, LengthOrZero, PowerOrZero


class Ports(Spec):
    """A group of identical ports."""

    count: int = Field(gt=0, le=100_000, description="Number of ports (logical ports at `speed`).")
    speed: Bandwidth = Field(description="Line rate per port, e.g. '400 Gb/s'.")
    cage: str = Field("", description="Physical cage, e.g. 'OSFP' (32 cages of 2 x 400G).")
    per_cage: int = Field(1, gt=0, description="Logical ports per physical cage (2 for a twin-port OSFP).")


class Switch(Part):
    """A network switch (box or tray)."""

    kind: Literal["Switch"] = "Switch"
    technology: Literal["infiniband", "ethernet", "nvlink"] = Field(description="Fabric technology.")
    asic: str = Field("", description="Switch ASIC, e.g. 'Quantum-2'.")
    ports: Ports = Field(description="Ports at their native speed.")
    switching_capacity: Bandwidth | None = Field(None, description="Aggregate bidirectional capacity as published.")
    latency: DurationOrZero | None = Field(None, description="Port-to-port latency.")
    in_network_reduction: bool = Field(
        False, description="The switch reduces in the network: SHARP on InfiniBand (Quantum-2, Quantum-X800), NVLink "
                           "SHARP on NVLink switches. A compute fabric whose every tier has it may run `sharp` "
                           "(NCCL CollNet) and NVLS+SHARP collectives; cite it in `source:`.")
    mechanical: Mechanical = Field(description="Height, weight and depth.")
    power: Electrical = Field(description="Maximum draw, without optics unless stated.")
    cooling: Cooling = Field(default_factory=Cooling, description="Air or liquid.")


class NIC(Part):
    """A network adapter or DPU."""

    kind: Literal["NIC"] = "NIC"
    technology: Literal["infiniband", "ethernet", "vpi"] = Field(description="Protocols supported.")
    ports: Ports = Field(description="Network ports.")
    host_interface: str = Field("", description="e.g. 'PCIe Gen5 x16'.")
    power: PowerOrZero = Field(description="Maximum power, e.g. '25 W'.")


#: Media sold as cable assemblies with their ends built in (ordered per cable, not per end).
COPPER_MEDIA = ("dac", "acc", "aec", "copper-backplane", "twisted-pair")


class Link(Part):
    """A cable or transceiver type: media, reach and power per end."""

    kind: Literal["Link"] = "Link"
    media: Literal["dac", "acc", "aec", "multimode", "singlemode", "copper-backplane", "twisted-pair"] = Field(
        description="dac (passive copper), acc/aec (active copper), multimode or singlemode fibre, "
                    "twisted-pair (RJ45).")
    rate: Bandwidth = Field(description="Line rate, e.g. '800 Gb/s'.")
    reach: Length = Field(description="Maximum supported length, e.g. '3 m'.")
    min_length: LengthOrZero | None = Field(None, description="Shortest length sold, when relevant.")
    power_per_end: PowerOrZero = Field(description="Power per end (transceiver or active cable end); 0 W for DAC.")
    lanes: int = Field(gt=0, description="Electrical lanes, e.g. 8 for 8 x 100G.")
    form_factor: str = Field("", description="e.g. 'OSFP', 'QSFP112'.")
    connector: str = Field("", description=(
        "Fibre connector of an optical link, e.g. 'MPO-12/APC', 'duplex LC': the patch cord each link takes."))
    standard: str = Field("", description="e.g. '800GBASE-DR8', '2xSR4'.")
