"""Published all-reduce curves against the model, size by size, with the (algorithm, protocol) the model takes.

A curve file (`tests/perf/data/allreduce-curves.yaml`) maps a name to a measured nccl-tests-style curve: its
`source`, `accelerator`, `ranks` (8 per scale-up domain), optionally `scale_out` (per accelerator) and
`network_latency_us` (the latency its network transport declares, NCCL's `latencyInter`), `busbw` in GB/s by
message size in bytes, and optionally `tuner`: the (algorithm, protocol) a tuner plugin takes at each size. The
accuracy page lists every point (`output.curves.curve_section`); nothing here is scored.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from archgen.model.accelerator import Accelerator
from archgen.perf.comm.algorithms import fastest, labelled
from archgen.perf.comm.collectives import bus_bandwidth, collective_time
from archgen.perf.comm.group import Topo
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.hw.hardware import Hardware
from archgen.units import Q_, parse_quantity

#: Accelerators per scale-up domain of every curve in the file (HGX nodes of 8).
DOMAIN = 8


@dataclass(frozen=True)
class CurvePoint:
    """One message size of a published curve: measured and predicted bus bandwidth (B/s) and the model's choice."""

    size: float
    measured: float
    predicted: float
    choice: str

    @property
    def error(self) -> float:
        """(predicted - measured) / measured."""
        return self.predicted / self.measured - 1.0


def curve_hardware(curve: dict, accelerators: dict[str, Accelerator]) -> Hardware:
    """The hardware of a curve: its accelerator in nodes of `DOMAIN`, its scale-out rate and network latency."""
    return hardware_for(accelerators[curve["accelerator"]], scale_up_size=DOMAIN,
                        scale_out_bandwidth=parse_quantity(curve["scale_out"]) if "scale_out" in curve else None,
                        scale_out_latency=Q_(curve.get("network_latency_us", 0), "us"))


def choice(hw: Hardware, op: str, size: float, n: int) -> str:
    """The (algorithm, protocol) NCCL's (on AMD RCCL's) tuning model takes for one message, as 'Ring/LL128' ('auto')."""
    k = float(min(n, hw.scale_up_size))
    named = labelled(hw, Topo(hw, float(n), k), op)
    times = [float(fastest([c], float(size), choosing=True)) for _, c in named]
    return named[int(np.argmin(times))][0]


def curve_points(curve: dict, accelerators: dict[str, Accelerator]) -> list[CurvePoint]:
    """Every size of an all-reduce curve, measured against the model ('auto')."""
    hw = curve_hardware(curve, accelerators)
    n = int(curve["ranks"])
    out = []
    for size, measured in curve["busbw"].items():
        size = float(size)
        t = float(collective_time(hw, "all_reduce", size, n))
        out.append(CurvePoint(size, float(measured) * 1e9, float(bus_bandwidth("all_reduce", size, t, n)),
                              choice(hw, "all_reduce", size, n)))
    return out
