"""One accelerator's share of its node's host memory and host link, as `hardware_for` takes it (`Hardware.host_*`).

Split from `hardware` (review21a: that module stood at the 400-line limit), which imports `HostShare` from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from archgen.model.system import HOST_LINK_EFFICIENCY
from archgen.perf.hw.given import si
from archgen.units import Q


class HostFields(TypedDict, total=False):
    """The `Hardware` fields a host share sets (`HostShare.fields` sets all five; none without host memory)."""

    host_capacity: float
    host_link_bandwidth: float
    host_memory_bandwidth: float
    host_link_efficiency: float
    host_link_default: bool


@dataclass(frozen=True)
class HostShare:
    """One accelerator's share of its node's host memory, as quantities (see `Hardware.host_capacity`)."""

    capacity: Q
    link: Q
    memory_bandwidth: Q
    efficiency: float = HOST_LINK_EFFICIENCY
    default: bool = False  # the efficiency is the model's default: the system states none

    @classmethod
    def of_node(cls, host, accelerators: int) -> HostShare:
        """The share of one of a node's `accelerators` in its `System.host_memory`."""
        n = max(1, int(accelerators))
        return cls(host.capacity / n, host.link, host.bandwidth / n, host.efficiency,
                   "efficiency" not in host.model_fields_set)

    def fields(self) -> HostFields:
        """The `Hardware` fields, in SI."""
        return {"host_capacity": si(self.capacity, "B"), "host_link_bandwidth": si(self.link, "B/s"),
                "host_memory_bandwidth": si(self.memory_bandwidth, "B/s"), "host_link_efficiency": self.efficiency,
                "host_link_default": self.default}
