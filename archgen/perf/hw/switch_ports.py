"""How many accelerators a switched scale-up domain's switch ports join: NET010's ports rule, for check and sweep.

A switched domain's accelerators each take `links` links to its switches; `size` accelerators need
ceil(size x links) ports (`ports_needed`), which its switches' ports must cover (`analyse.network`, NET010). Where
the cluster names a `link` part, its links per accelerator are the domain's bandwidth over twice that part's rate,
so a sweep point's `scale_up_bandwidth` moves them: twice the bandwidth over the same link part takes twice the links
and twice the ports (`SwitchPorts.widest`). Without a link part they are the chip's own links, which a bandwidth
does not change (a faster chip link is assumed instead).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["SwitchPorts", "ports_needed", "widest_switched"]


def ports_needed(per_acc: float, size: int) -> int:
    """The switch ports a switched domain of `size` accelerators, `per_acc` links each, needs (NET010's rule)."""
    return math.ceil(round(per_acc * size, 6))


def widest_switched(per_acc: float, ports: int) -> int:
    """The most accelerators `ports` switch ports join at `per_acc` links each (`ports_needed`); 0: no switch part.

    A sweep's `scale_up_size` beyond it is refused (`perf.explore.point_axes`), as NET010 refuses a stated domain
    whose accelerators need more ports than its switches have: 9 NVLink switch trays of 144 ports join 72 GPUs of
    18 links, not 144.
    """
    if ports <= 0 or per_acc <= 0:
        return 0
    n = math.floor(ports / per_acc) + 1
    while n > 0 and ports_needed(per_acc, n) > ports:
        n -= 1
    return n


@dataclass(frozen=True)
class SwitchPorts:
    """A switched domain's switch ports and its links per accelerator at the cluster's stated bandwidth.

    `per_bandwidth`: the links are the bandwidth over a `link` part's rate (the cluster names one), so they scale with
    a swept `scale_up_bandwidth`; otherwise they are the chip's own links and stay. `chip_links`: the accelerator's
    own `scale_up.links` where the domain runs on them (NVLink, Infinity Fabric: `analyse.scale_up_switches.
    own_links_domain`), which the links per accelerator may not exceed (NET010's `chip_links`); 0: not bound.
    """

    ports: int
    links: float
    per_bandwidth: bool
    chip_links: int = 0

    def chip_short(self, scale: float) -> bool:
        """Whether the links per accelerator at `scale` times the bandwidth are more than the chip has."""
        return bool(self.per_bandwidth and self.chip_links) and self.links_at(scale) > self.chip_links + 1e-9

    def links_at(self, scale: float) -> float:
        """Links per accelerator at `scale` times the cluster's scale-up bandwidth."""
        return round(self.links * scale, 9) if self.per_bandwidth else self.links

    def widest(self, scale: float = 1.0) -> int:
        """The most accelerators the ports join at `scale` times the cluster's bandwidth (0: no limit known)."""
        return widest_switched(self.links_at(scale), self.ports)
