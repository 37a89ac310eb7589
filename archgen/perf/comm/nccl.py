"""NCCL's own tuning model: the constants and formulas NCCL uses to pick an algorithm and a protocol.

Everything here is transcribed from NVIDIA/nccl at commit 5067397c2676 (2026-06-11); line numbers refer to that
commit. `collectives.py` feeds it the bandwidths of the cluster's real topology (measured link efficiencies from the
catalog) and takes the fastest (algorithm, protocol) pair, as `ncclTopoGetAlgoTime` does.

* `src/graph/tuning.cc` 139-212: `nvlsEfficiency`, `baseLatencies`, `hwLatencies` (NVLink and NET),
  `llMaxBws`, `perChMaxRingLL128Bws`, `perChMaxTreeLL128Bws`, `perChMaxTreeBws`, `perChMaxNVLSTreeBws`;
  288-437: the bandwidth refinements per protocol and the latency of each algorithm; 623-656: the tree correction
  for mid sizes, the ring plateau and time = latency + bytes / bandwidth.
* `src/graph/search.cc` 1051-1064: the per-channel speeds the topology search tries (NVLS per-channel bandwidth
  is rounded down to one of them).
* `src/include/device.h` 213: `NCCL_MAX_NVLS_ARITY` (32 NVLS heads at most).
* tuning.cc 164-168 and 284-285: the PCI latencies a node without NVLink takes; 518-537: LL128 enabled only where
  the path inside a node is NVLink (`ll128_inside`), so not in a PCIe peer-to-peer domain.

Units: latencies in microseconds and bandwidths in GB/s as in NCCL's tables, converted to SI where they leave this
module. Generations index the tables as NCCL's `compCapIndex` does: 0 Volta, 1 Ampere, 2 Hopper, 3 Blackwell.
"""

from __future__ import annotations

import math

import numpy as np

from archgen.perf.hw.numeric import maximum, minimum, where

PROTOCOLS = ("LL", "LL128", "Simple")
LL, LL128, SIMPLE = 0, 1, 2

#: tuning.cc 139: NVLS efficiency per generation (0 before Hopper: no NVLS).
NVLS_EFFICIENCY = (0.0, 0.0, 0.85, 0.74)

#: tuning.cc 149-155: base latency (us) per algorithm, (LL, LL128, Simple).
BASE_LATENCY = {"tree": (6.8, 14.0, 8.4), "ring": (6.6, 14.0, 8.4), "collnet": (0.0, 0.0, 0.0),
                "nvls": (0.0, 0.0, 0.0), "nvls_tree": (0.0, 0.0, 0.0), "pat": (8.0, 8.0, 8.0)}
#: tuning.cc 158-163: latency (us) of one step over NVLink.
NVLINK_LATENCY = {"tree": (0.6, 1.25, 4.0), "ring": (0.6, 1.9, 3.4), "collnet": (0.0, 0.0, 3.7),
                  "nvls": (0.0, 0.0, 25.0), "nvls_tree": (0.0, 0.0, 25.0), "pat": (0.0, 0.0, 4.0)}
#: tuning.cc 170-175: latency (us) of one step over the network.
NET_LATENCY = {"tree": (5.0, 8.5, 14.0), "ring": (2.7, 4.0, 14.0), "collnet": (0.0, 0.0, 31.0),
               "nvls": (0.0, 0.0, 18.0), "nvls_tree": (0.0, 0.0, 20.9), "pat": (0.0, 0.0, 14.0)}
#: tuning.cc 164-168: latency (us) of one step over PCI, the row NCCL takes inside a node whose ring or tree is not
#: NVLink (tuning.cc 284-285: `intraHw` is PCI unless `typeIntra == LINK_NVL`): a PCIe peer-to-peer domain.
PCI_LATENCY = {"tree": (1.0, 1.9, 4.0), "ring": (1.0, 2.5, 5.7), "collnet": (0.0, 0.0, 3.7),
               "nvls": (0.0, 0.0, 0.0), "nvls_tree": (0.0, 0.0, 0.0), "pat": (0.0, 0.0, 4.0)}
#: NCCL's NVLink ring LL128 step: the catalog's `scale_up.latency` is this figure, so a what-if on it scales every
#: NVLink latency above by the same factor.
NVLINK_REFERENCE = 1.9
#: NCCL's PCI ring LL128 step (`model.pcie.PCIE_P2P_LATENCY`): a PCIe domain's latencies scale by its latency over it.
PCI_REFERENCE = 2.5
#: A point-to-point send across the network: NCCL's NET ring LL128 step (us).
NET_STEP = NET_LATENCY["ring"][1]
#: tuning.cc 226-233: network post overhead (us) of an x86 Intel host (AMD 2.0); x3 for Simple. CPUs are not in
#: the specs, so the Intel figure (also NCCL's default) is used.
NET_OVERHEAD = 1.0

#: tuning.cc 178-183: LL bandwidth cap (GB/s). One node: by generation; several nodes: by CPU, non-AMD row, for
#: 2 and for 3 or more nodes.
LL_MAX_BW_ONE_NODE = (39.0, 87.7, 141.0, 282.0)
LL_MAX_BW_NODES = (39.0, 20.4)
#: tuning.cc 185-211: per-channel caps (GB/s) by generation and node count (1, 2, 3+).
PER_CH_RING_LL128 = ((20.0, 20.0, 20.0), (20.0, 20.0, 20.0), (36.7, 36.7, 36.7), (40.0, 40.0, 40.0))
PER_CH_TREE_LL128 = ((20.0, 20.0, 20.0), (20.0, 20.0, 20.0), (36.7, 36.7, 29.0), (55.6, 31.67, 20.0))
PER_CH_TREE = ((26.5, 18.5, 10.0), (24.0, 23.6, 17.8), (38.7, 41.4, 36.0), (70.0, 42.8, 24.0))
PER_CH_NVLS_TREE = ((26.5, 18.5, 10.0), (24.0, 23.6, 17.8), (0.0, 57.7, 45.5), (0.0, 96.0, 80.0))

#: tuning.cc 623-628: tree all-reduce bandwidth correction by protocol, for sizes 64 B x 2^i (i = 0..23).
TREE_CORRECTION = (
    (1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0),
    (1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0),
    (.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9),
)
#: tuning.cc 637-640: the correction applies where `logSize < 23`, to 64 B x 2^i for i = 0..22 (each row's last entry
#: is never read); `tree_index`, `tree_correction_at` and `algorithms.fastest_number` check the index against it.
TREE_SIZES = 23

#: search.cc 1051, 1057, 1063: per-channel speeds (GB/s) the intra-node search tries, by generation.
SPEED_INTRA = {0: (40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0),
               1: (40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0),
               2: (60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0),
               3: (90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0)}
#: device.h 213: NVLS heads (channels of the NVLS graph) at most.
MAX_NVLS_ARITY = 32

GB = 1e9
US = 1e-6


def generation(compute_capability: float) -> int | None:
    """NCCL's `compCapIndex` for a CUDA compute capability; None for a non-NVIDIA accelerator (0)."""
    if compute_capability <= 0:
        return None
    return 3 if compute_capability >= 10 else 2 if compute_capability >= 9 else 1 if compute_capability >= 8 else 0




def log2i(x):
    """NCCL's `log2i`: the floor of log2 (0 for x <= 1)."""
    if isinstance(x, np.ndarray):
        return np.floor(np.log2(np.maximum(x, 1.0)))
    return float(math.floor(math.log2(x))) if x > 1 else 0.0


def by_nodes(table_row: tuple[float, float, float], nodes):
    """A (1 node, 2 nodes, 3+ nodes) table entry for `nodes` (NCCL's `index2`)."""
    return where(nodes <= 1, table_row[0], where(nodes <= 2, table_row[1], table_row[2]))


def ll_max_bw(gen: int, nodes):
    """tuning.cc 268-272: the LL protocol's bandwidth cap (B/s)."""
    return where(nodes <= 1, LL_MAX_BW_ONE_NODE[gen], where(nodes <= 2, LL_MAX_BW_NODES[0], LL_MAX_BW_NODES[1])) * GB


def speed_floor(gen: int, bw):
    """search.cc: the largest per-channel speed of the intra-node search at most `bw` (B/s); the smallest if none."""
    speeds = SPEED_INTRA[gen]
    if isinstance(bw, np.ndarray):
        grid = np.asarray(sorted(speeds)) * GB
        idx = np.searchsorted(grid, bw, side="right") - 1
        return grid[np.maximum(idx, 0)]
    return next((s for s in speeds if s * GB <= bw), speeds[-1]) * GB


def ring_protocol_bw(gen: int | None, proto: int, bus, channels, nodes):
    """tuning.cc 327-329: ring bus bandwidth under a protocol (B/s), from its Simple-protocol figure `bus`."""
    if proto == SIMPLE:
        return bus
    assert gen is not None, "LL and LL128 need the NVLink generation (algorithms refuses them without one)"
    if proto == LL:
        return minimum(ll_max_bw(gen, nodes), bus * 0.5)
    return minimum(bus * 0.92, channels * PER_CH_RING_LL128[gen][0] * GB)


def tree_protocol_bw(gen: int, proto: int, bus, channels, nodes):
    """tuning.cc 330-335: tree all-reduce bus bandwidth under a protocol (B/s)."""
    bus = minimum(bus * 0.92, channels * by_nodes(PER_CH_TREE[gen], nodes) * GB)
    if proto == LL:
        return minimum(bus / 3.8, ll_max_bw(gen, nodes))
    if proto == LL128:
        return minimum(bus * where(nodes <= 1, 7.0 / 9.0, 120.0 / 128.0),
                       channels * by_nodes(PER_CH_TREE_LL128[gen], nodes) * GB)
    return bus


#: `TREE_CORRECTION` rows as arrays.
_TREE_ROWS = tuple(np.asarray(row) for row in TREE_CORRECTION)


def tree_index(size):
    """Where `size` falls in `TREE_CORRECTION` (64 B x 2^i), the same for every protocol.

    For arrays (the index clipped to the table, whether it is in range); for a number the index (None below 64 B).
    """
    if isinstance(size, np.ndarray):
        idx = np.floor(np.log2(np.maximum(size, 1.0) / 64.0)).astype(int)
        return np.minimum(np.maximum(idx, 0), TREE_SIZES), (idx >= 0) & (idx < TREE_SIZES)  # np.clip, no dispatch
    if size < 64:
        return None
    return int(math.floor(math.log2(size / 64.0)))


def tree_correction_at(proto: int, index):
    """tuning.cc 637-640: the tree's mid-size bandwidth correction of protocol `proto` at a `tree_index`."""
    if isinstance(index, tuple):
        clipped, ok = index
        return np.where(ok, _TREE_ROWS[proto][clipped], 1.0)
    return TREE_CORRECTION[proto][index] if index is not None and 0 <= index < TREE_SIZES else 1.0


def net_latency(algorithm: str, proto: int, extra: float) -> float:
    """tuning.cc 386-391: a network step (us): the table, plus the plugin's `latencyInter` (twice for Simple)."""
    return NET_LATENCY[algorithm][proto] + extra * (2.0 if proto == SIMPLE else 1.0)


def ll128_inside(pci: bool, k):
    """Whether NCCL enables LL128 for a ring or tree with `k` ranks in each node (True, False or an array of them).

    tuning.cc 531: `pEnable &= (graphs[a]->typeIntra <= PATH_NVB)`: LL128 runs only where the path inside a node is
    NVLink, directly or through another GPU (src/include/graph.h 117-145: PATH_LOC 0, PATH_NVL 1, PATH_NVB 2; PCIe
    paths PIX 4 to SYS 9). A PCIe peer-to-peer domain (`pci`) with two or more ranks in a node is PCIe; one rank in
    a node has a path of its own, PATH_LOC (search.cc 1088, 1102). The GPU-to-NIC bound of tuning.cc 520-525
    (`typeInter` up to PXB or PXN) is not modelled: a card's place on its PCIe tree is not in the specs.
    """
    if not pci:
        return True
    return k <= 1


def ring_latency(proto: int, op: str, n, nodes, intra_scale: float, net_extra: float, intra=None):
    """tuning.cc 393-411: a ring's latency (s): NVLink (or PCI) steps inside nodes, network steps between them.

    `intra` is NCCL's table of steps inside a node (`NVLINK_LATENCY`, default, or `PCI_LATENCY`); `intra_scale`
    scales it; `net_extra` is the network's own latency per step (us).
    """
    intra_row = (NVLINK_LATENCY if intra is None else intra)["ring"][proto]
    steps = 2.0 * (n - 1) if op == "all_reduce" else n - 1
    inter_steps = where(nodes > 1, (2.0 if op == "all_reduce" else 1.0) * (nodes - 1), 0.0)
    overhead = NET_OVERHEAD * (3.0 if proto == SIMPLE else 1.0)
    intra = maximum(intra_row * intra_scale, where(nodes > 1, overhead, 0.0))
    ppn_one = nodes >= n
    inter = where(ppn_one, net_latency("tree", proto, net_extra), net_latency("ring", proto, net_extra))
    return (BASE_LATENCY["ring"][proto] + (steps - inter_steps) * intra + inter_steps * inter) * US


def tree_latency(proto: int, n, nodes, intra_scale: float, net_extra: float, intra=None):
    """tuning.cc 412-415: a tree all-reduce's latency (s): a chain in each node, log2 steps between nodes."""
    ppn = n / nodes
    step = (NVLINK_LATENCY if intra is None else intra)["tree"][proto]
    return (BASE_LATENCY["tree"][proto] + 2.0 * ((ppn - 1) * step * intra_scale
                                                 + log2i(nodes) * net_latency("tree", proto, net_extra))) * US


def nvls_bus(gen: int, nvls_efficiency: float, up, heads, all_reduce: bool, ppn):
    """tuning.cc 305-320 with search.cc's NVLS graph: NVLS bus bandwidth inside a domain (B/s).

    NCCL's NVLS graph has one channel per head (a local rank, at most `MAX_NVLS_ARITY`), and each GPU's NVLink
    carries every channel once and its own head's twice, so a channel gets `up / (heads + 1)`, rounded down to a
    search speed. The tuner credits heads x that x efficiency x (heads - 1)/heads, doubled for an all-reduce (it
    pipelines the reduce-scatter and the all-gather) or x (ppn - 1)/ppn for the others.
    """
    per_channel = speed_floor(gen, up / (heads + 1.0))
    bus = per_channel * nvls_efficiency * maximum(heads - 1.0, 1e-12)  # one head: no NVLS (never the fastest)
    return bus * 2.0 if all_reduce else bus * maximum((ppn - 1.0) / ppn, 1e-12)
