"""A group of ranks as NCCL's tuning model sees it (`Topo`): members, domains, channels, its links' bandwidths.

`up_bandwidth` and `mesh_share` give a member's scale-up bandwidth (a direct mesh gives a small group only its peer
links), `out_bandwidth` its scale-out bandwidth past the fabric's taper, and `busbw_factor` nccl-tests' factor from
algorithm to bus bandwidth. Split from `algorithms` (the candidates of one group, and the fastest) for its size;
the formulas' sources are described in `collectives`.
"""

from __future__ import annotations

import numpy as np

from archgen.perf.comm import nccl, rccl
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.numeric import maximum, minimum, where


def busbw_factor(op: str, n):
    """nccl-tests factor from algorithm bandwidth to bus bandwidth."""
    if op == "all_reduce":
        return 2.0 * (n - 1) / n
    if op in ("all_gather", "reduce_scatter", "all_to_all"):
        return (n - 1) / n
    return 1.0 + 0.0 * n


def up_bandwidth(hw: Hardware) -> float:
    """Achievable scale-up bandwidth per accelerator (the link x its measured ring efficiency)."""
    return hw.scale_up_bandwidth * hw.scale_up_efficiency


def mesh_share(hw: Hardware, k):
    """Share of an accelerator's scale-up bandwidth that a group with `k` members in its domain reaches.

    1 on a switched domain (NVLink, every link goes to the switches, whatever the group). In a direct full mesh
    (AMD Infinity Fabric: one link to each of the size - 1 peers) a member reaches its k - 1 group peers over their
    own links only, (k - 1) / (size - 1) of the total: "with only 2 or 4 GPUs, only a fraction of the available
    bandwidth on the node is utilized" (AMD ROCm blog, Understanding RCCL Bandwidth and xGMI Performance on MI300X,
    2025-03-02). RCCL does not route a small group's traffic through the other peers by default.
    """
    if not hw.scale_up_mesh or hw.scale_up_size <= 1:
        return 1.0
    return minimum(maximum(k - 1.0, 1.0) / (hw.scale_up_size - 1.0), 1.0)


def out_bandwidth(hw: Hardware, domains):
    """Achievable scale-out bandwidth per accelerator of a group that spans `domains` scale-up domains.

    The taper applies once the accelerators of those domains outnumber the non-blocking `pod`: NCCL's rings are
    rail-aligned, so a group's cross-domain traffic leaves every domain it spans.
    """
    bw = hw.scale_out_bandwidth * hw.scale_out_efficiency
    if isinstance(bw, np.ndarray):  # a batch of hardware (`perf.explore.vectorised`): no fabric where the figure is 0
        return where(bw > 0, _tapered(hw, bw, domains), 1e-30)
    if bw <= 0:
        return 1e-30  # no scale-out fabric: a cross-domain collective takes effectively forever
    return _tapered(hw, bw, domains)


def _tapered(hw: Hardware, bw, domains):
    """`bw` divided by the taper where the group's domains outnumber the non-blocking pod."""
    if hw.oversubscription == 1.0:
        return bw
    return bw / where((hw.pod <= 0) | (domains * hw.scale_up_size > hw.pod), hw.oversubscription, 1.0)


class Topo:
    """The figures every algorithm of one group reads (plain floats or arrays of them)."""

    def __init__(self, hw: Hardware, n, k):
        self.n, self.k = n, k
        self.nodes = maximum(n / k, 1.0)
        self.cross = k < n
        up = up_bandwidth(hw) * mesh_share(hw, k)   # a mesh gives a group of k only its k - 1 peer links
        self.up = up
        self.net = k * out_bandwidth(hw, self.nodes)
        # ring bus bandwidth: the slowest of NVLink (when a domain holds two or more members) and the node's NICs
        self.ring = where(self.cross, where(k > 1, minimum(up, self.net), self.net), up)
        # channels: one per rail NIC across domains; inside a domain, NCCL's search doubles ⌊up / speed⌋ rings, and
        # keeps one ring at its slowest speed where NVLink is slower than that (a what-if of 0.001: was 0 channels)
        self.gen = nccl.generation(hw.compute_capability)
        inside = 16.0 if self.gen is None else 2.0 * maximum(up // nccl.speed_floor(self.gen, up), 1.0)
        self.channels = where(self.cross, k, inside)
        # a PCIe peer-to-peer domain takes NCCL's PCI step latencies, and no LL128 inside it (`nccl.ll128_inside`)
        self.pci = bool(hw.scale_up_pcie)
        self.intra = nccl.PCI_LATENCY if self.pci else nccl.NVLINK_LATENCY
        self.intra_scale = hw.scale_up_latency / ((nccl.PCI_REFERENCE if self.pci else nccl.NVLINK_REFERENCE) * nccl.US)
        self.net_extra = hw.scale_out_latency / nccl.US
        # RCCL's own table on an AMD part (`rccl`), None where NCCL's tuning model applies
        self.rccl = (rccl.table_for(hw.scale_up_size)
                     if rccl.uses_rccl(hw.vendor, hw.compute_capability) else None)
        self._factors: dict[str, object] = {}

    def factor(self, op: str):
        """`busbw_factor` of the group (one object per operation, so candidates can share f·size)."""
        got = self._factors.get(op)
        if got is None:
            got = self._factors[op] = busbw_factor(op, self.n)
        return got
