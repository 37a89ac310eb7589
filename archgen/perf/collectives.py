"""Collectives on the cluster's real topology, as NCCL runs them: its algorithms, protocols and tuning model.

Sizes follow nccl-tests: `size` is the per-rank buffer of an all-reduce, and the full (gathered) buffer of an
all-gather or reduce-scatter; for all-to-all it is the buffer each rank sends (its n slices). Bus bandwidth is
reported as nccl-tests defines it (NVIDIA/nccl-tests doc/PERFORMANCE.md): busbw = algbw · 2(n-1)/n for all-reduce,
algbw · (n-1)/n for all-gather, reduce-scatter and all-to-all, algbw for point-to-point, with algbw = size / time.

A group of `n` ranks with `k` of them in each scale-up domain spans m = n/k domains. The topology gives each
algorithm its Simple-protocol bus bandwidth (B/s):

* inside a domain, `up` = scale-up link x the catalog's measured ring efficiency;
* between domains, `net` = k x scale-out bandwidth per accelerator x its efficiency / the taper: NCCL opens one
  ring channel per rail-aligned NIC, so a ring that leaves a domain is carried by the NICs of all k members together;
* NVLS (NVLink SHARP, in-switch reduction): `nccl.nvls_bus`, NCCL's own formula, which saturates at 32 heads.

NCCL's tuning model (`perf/nccl.py`, src/graph/tuning.cc) then turns each (algorithm, protocol) into latency +
size / bandwidth, and `auto` takes the fastest pair NCCL enables by default: ring and tree with LL, LL128 and Simple,
NVLS inside a domain, NVLSTree across domains (NVLS needs the accelerator's NVLink SHARP), PAT for all-gather and
reduce-scatter with one rank per domain. In-network reduction across domains (SHARP on the scale-out switches, NCCL's
CollNet, or NVLS+SHARP) is taken only when asked for by name (`sharp`, or `nvls` across domains), as NCCL needs
NCCL_COLLNET_ENABLE=1 and the SHARP plugin for it; asking for it on a fabric whose switches lack it is an error.
"""

from __future__ import annotations

import numpy as np

from archgen.errors import UsageError
from archgen.perf import nccl, torus
from archgen.perf.hardware import Hardware
from archgen.perf.nccl import LL, LL128, SIMPLE, maximum, minimum, where

OPS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "p2p")
ALGORITHMS = ("auto", "ring", "tree", "hierarchical", "nvls", "nvls_tree", "sharp", "pat")
#: Algorithms that reduce in the network and what they need.
IN_NETWORK = {"nvls": "NVLink SHARP (NVLS) in the scale-up switches",
              "nvls_tree": "NVLink SHARP (NVLS) in the scale-up switches",
              "sharp": "SHARP in-network reduction in the scale-out switches"}

#: NCCL base latency of a ring or tree collective, Simple protocol (src/graph/tuning.cc `baseLatencies`).
BASE_LATENCY = nccl.BASE_LATENCY["ring"][SIMPLE] * nccl.US
#: NCCL's CollNet-direct bandwidth factor on Hopper and later (tuning.cc 348).
COLLNET_SM90 = 0.85


def busbw_factor(op: str, n):
    """nccl-tests factor from algorithm bandwidth to bus bandwidth."""
    if op == "all_reduce":
        return 2.0 * (n - 1) / n
    if op in ("all_gather", "reduce_scatter", "all_to_all"):
        return (n - 1) / n
    return 1.0 + 0.0 * n


def bus_bandwidth(op: str, size, time, n):
    """Bus bandwidth (B/s) of a collective of `size` bytes that took `time` seconds on `n` ranks."""
    return size / time * busbw_factor(op, n)


def _arr(x):
    return np.asarray(x, dtype=float) if isinstance(x, np.ndarray | list | tuple) else float(x)


def _up(hw: Hardware) -> float:
    return hw.scale_up_bandwidth * hw.scale_up_efficiency


def _out(hw: Hardware, domains):
    """Achievable scale-out bandwidth per accelerator of a group that spans `domains` scale-up domains.

    The taper applies once the accelerators of those domains outnumber the non-blocking `pod`: NCCL's rings are
    rail-aligned, so a group's cross-domain traffic leaves every domain it spans.
    """
    bw = hw.scale_out_bandwidth * hw.scale_out_efficiency
    if isinstance(bw, np.ndarray):  # a batch of hardware (`perf.batch`): no fabric where the figure is 0
        return where(bw > 0, _tapered(hw, bw, domains), 1e-30)
    if bw <= 0:
        return 1e-30  # no scale-out fabric: a cross-domain collective takes effectively forever
    return _tapered(hw, bw, domains)


def _tapered(hw: Hardware, bw, domains):
    """`bw` divided by the taper where the group's domains outnumber the non-blocking pod."""
    if hw.oversubscription == 1.0:
        return bw
    return bw / where((hw.pod <= 0) | (domains * hw.scale_up_size > hw.pod), hw.oversubscription, 1.0)


class _Topo:
    """The figures every algorithm of one group reads (plain floats or arrays of them)."""

    def __init__(self, hw: Hardware, n, k):
        self.n, self.k = n, k
        self.nodes = maximum(n / k, 1.0)
        self.cross = k < n
        up = _up(hw)
        self.up = up
        self.net = k * _out(hw, self.nodes)
        # ring bus bandwidth: the slowest of NVLink (when a domain holds two or more members) and the node's NICs
        self.ring = where(self.cross, where(k > 1, minimum(up, self.net), self.net), up)
        # channels: one per rail NIC across domains; inside a domain, NCCL's search doubles ⌊up / speed⌋ rings
        self.gen = nccl.generation(hw.compute_capability)
        inside = 16.0 if self.gen is None else 2.0 * (up // nccl.speed_floor(self.gen, up))
        self.channels = where(self.cross, k, inside)
        self.intra_scale = hw.scale_up_latency / (nccl.NVLINK_REFERENCE * nccl.US)
        self.net_extra = hw.scale_out_latency / nccl.US


def _ring(hw: Hardware, t: _Topo, op: str, size, proto: int):
    """NCCL Ring (tuning.cc 393-411 latency; algbw = busbw x n / steps)."""
    protos = (proto,) if t.gen is not None else (SIMPLE,)
    if proto not in protos:
        return np.inf
    bus = nccl.ring_protocol_bw(t.gen, proto, t.ring, t.channels, t.nodes)
    lat = nccl.ring_latency(proto, op, t.n, t.nodes, t.intra_scale, t.net_extra)
    if proto == SIMPLE and op == "all_reduce":  # tuning.cc 646-650: plateau effect of a multi-node ring
        plateau = 1.9 if 0 < hw.compute_capability < 8 else 1.4
        lat = lat * where(t.cross & (size / (t.channels * t.n) >= 64), plateau, 1.0)
    return lat + busbw_factor(op, t.n) * size / bus


def _tree(hw: Hardware, t: _Topo, size, proto: int):
    """NCCL Tree all-reduce: a chain in each domain, double binary trees between domains (algbw = busbw / 2)."""
    if t.gen is None and proto != SIMPLE:
        return np.inf
    gen = 2 if t.gen is None else t.gen
    bus = nccl.tree_protocol_bw(gen, proto, t.ring, t.channels, t.nodes) * nccl.tree_correction(proto, size)
    return nccl.tree_latency(proto, t.n, t.nodes, t.intra_scale, t.net_extra) + 2.0 * size / bus


def _nvls_bus(hw: Hardware, t: _Topo, all_reduce: bool):
    heads = minimum(t.k, float(nccl.MAX_NVLS_ARITY))
    return nccl.nvls_bus(t.gen if t.gen is not None else 2, hw.nvls_efficiency, t.up, heads, all_reduce, t.k)


def _nvls(hw: Hardware, t: _Topo, op: str, size):
    """NCCL NVLS: in-switch reduction in the domain; across domains (NVLS+SHARP) the scale-out switches reduce too."""
    if op == "all_reduce":
        # across domains each node's NICs carry size once each way, half a ring's traffic: 2x `net` as busbw
        bus = where(t.cross, minimum(_nvls_bus(hw, t, True), 2.0 * t.net), _nvls_bus(hw, t, True))
        lat = nccl.NVLINK_LATENCY["nvls"][SIMPLE] * t.intra_scale + where(
            t.cross, nccl.net_latency("nvls", SIMPLE, t.net_extra), 0.0)
        return lat * nccl.US + busbw_factor(op, t.n) * size / bus
    bus = _nvls_bus(hw, t, False)  # all-gather / reduce-scatter: NCCL uses busBw as algbw (tuning.cc 421)
    return nccl.NVLINK_LATENCY["nvls"][SIMPLE] * t.intra_scale * nccl.US + size / bus


def _nvls_tree(hw: Hardware, t: _Topo, size):
    """NCCL NVLSTree all-reduce: NVLS inside each domain, a tree between domains (tuning.cc 316-320, 428-429)."""
    gen = t.gen if t.gen is not None else 2
    heads = minimum(t.k, float(nccl.MAX_NVLS_ARITY))
    inter = t.net * where(t.nodes <= 2, 2.0, 1.0)
    cap = heads * nccl.by_nodes(nccl.PER_CH_NVLS_TREE[gen], maximum(t.nodes, 2.0)) * nccl.GB  # only across domains
    bus = minimum(minimum(_nvls_bus(hw, t, True), inter), cap)
    lat = (nccl.NVLINK_LATENCY["nvls_tree"][SIMPLE] * t.intra_scale
           + 2.0 * nccl.log2i(t.nodes) * nccl.net_latency("nvls_tree", SIMPLE, t.net_extra)) * nccl.US
    return lat + busbw_factor("all_reduce", t.n) * size / bus


def _sharp(hw: Hardware, t: _Topo, size):
    """NCCL CollNet Direct all-reduce: SHARP in the scale-out switches.

    Each NIC sends its 1/k shard up once and receives the reduced shard once, so the node's NICs carry size each way,
    half a ring's traffic (2x `net` as bus bandwidth); inside the domain a reduce-scatter and an all-gather move
    2(k-1)/k of the buffer per rank on NVLink. NCCL discounts CollNet by 0.85 from Hopper on (tuning.cc 348).
    """
    k = t.k
    up_bus = where(k > 1, t.up * (t.n - 1) / t.n * k / maximum(k - 1, 1.0), np.inf)
    bus = minimum(up_bus, 2.0 * t.net * (t.n - 1) / t.n) * (COLLNET_SM90 if hw.compute_capability >= 9 else 1.0)
    lat = (2.0 * (minimum(1.0, k - 1) * nccl.NVLINK_LATENCY["collnet"][SIMPLE] * t.intra_scale + (k - 1) * 0.4)
           + nccl.net_latency("collnet", SIMPLE, t.net_extra)) * nccl.US
    return lat + busbw_factor("all_reduce", t.n) * size / bus


def _pat(hw: Hardware, t: _Topo, op: str, size):
    """NCCL PAT all-gather / reduce-scatter, one rank per domain: 0.75 of the NIC rate, log latency (tuning.cc 337)."""
    lat = (nccl.BASE_LATENCY["pat"][SIMPLE] + nccl.log2i(t.nodes) * nccl.net_latency("pat", SIMPLE, t.net_extra)
           / 3.5 + t.n * 2.8) * nccl.US
    return where(t.k <= 1, lat + size / (0.75 * t.net), np.inf)


def _hierarchical(hw: Hardware, t: _Topo, op: str, size):
    """Reduce-scatter inside the domain, the operation across domains on 1/k of the data, all-gather inside.

    NCCL pipelines such phases, so the time is their latencies plus the slower of the NVLink and the NIC traffic
    (each member drives its own NIC), not the sum. archgen's own algorithm, for what-ifs; `auto` does not take it.
    """
    k = minimum(maximum(t.k, 1.0), t.n)
    m = t.nodes
    inner_bytes = where(k > 1, (2.0 if op == "all_reduce" else 1.0) * (k - 1) / k * size, 0.0)
    outer_bytes = where(m > 1, busbw_factor(op, m) * size / k, 0.0)
    lat_in = where(k > 1, nccl.ring_latency(SIMPLE, "all_gather", k, 1.0, t.intra_scale, t.net_extra), 0.0)
    lat_out = where(m > 1, nccl.ring_latency(SIMPLE, op, m, m, t.intra_scale, t.net_extra), 0.0)
    lat = lat_in * (2.0 if op == "all_reduce" else 1.0) + lat_out
    return lat + maximum(inner_bytes / t.up, outer_bytes / (t.net / k))


def _all_to_all(hw: Hardware, t: _Topo, size):
    """All-to-all as NCCL runs it (point-to-point sends), with the accelerator's measured all-to-all efficiency.

    Each rank sends (k-1)/n of its buffer over NVLink and (n-k)/n over its own NIC: all-to-all cannot aggregate the
    NICs of a node (S. Jeaugey, NVIDIA/nccl-tests#267). With PXN (NCCL's default on rail-optimized fabrics) a send
    to another domain first crosses NVLink to the local GPU on the destination's rail, adding (k-1)/k of that part
    to the NVLink traffic, and then stays on its rail.
    """
    k, n = t.k, t.n
    eff = hw.all_to_all_efficiency or hw.scale_up_efficiency
    nvlink = (k - 1) / n * size + where(t.cross, (n - k) / n * (k - 1) / k * size, 0.0)
    t_up = nvlink / (hw.scale_up_bandwidth * eff)
    t_out = where(t.cross, (n - k) / n * size / (t.net / k), 0.0)
    lat = where(t.cross, nccl.NET_STEP * nccl.US + hw.scale_out_latency, hw.scale_up_latency)
    return BASE_LATENCY + (n - 1) * lat / 8.0 + maximum(t_up, t_out)


def _best_ring_tree(hw: Hardware, t: _Topo, op: str, size):
    best = np.inf
    for proto in (LL, LL128, SIMPLE):
        best = minimum(best, _ring(hw, t, op, size, proto))
        if op == "all_reduce":
            best = minimum(best, _tree(hw, t, size, proto))
    return best


def require(hw: Hardware, algorithm: str, n, k) -> str | None:
    """Why `algorithm` cannot run on `hw` for a group of n ranks, k per domain (None when it can)."""
    cross = bool(np.any(np.asarray(k) < np.asarray(n)))
    inside = bool(np.any(np.asarray(k) >= np.asarray(n)))
    if algorithm in ("nvls", "nvls_tree") and not hw.in_network_reduction:
        return (f"algorithm '{algorithm}' needs {IN_NETWORK[algorithm]}, which accelerator '{hw.accelerator}' does "
                "not have here")
    if (algorithm == "sharp" or (algorithm == "nvls" and cross)) and not hw.scale_out_reduction:
        return (f"algorithm '{algorithm}' reduces across scale-up domains, which needs {IN_NETWORK['sharp']}; this "
                "fabric's switches do not have it")
    if algorithm == "sharp" and inside:
        return "algorithm 'sharp' reduces in the scale-out switches; a group inside one scale-up domain never uses them"
    return None


def collective_time(hw: Hardware, op: str, size, n, k=None, algorithm: str = "auto"):
    """Time of one collective.

    Args:
        hw: Hardware.
        op: One of `OPS`.
        size: nccl-tests size in bytes (see the module docstring).
        n: Ranks in the group.
        k: Ranks of the group inside one scale-up domain (defaults to all of them when n fits a domain, else
            the domain size).
        algorithm: 'auto' (the fastest algorithm and protocol NCCL enables by default), or one by name; an
            in-network algorithm raises `UsageError` where the hardware lacks the capability (`require`).

    Returns:
        Seconds; 0 for a group of one rank.
    """
    if op not in OPS:
        raise UsageError(f"unknown collective '{op}' (expected one of: {', '.join(OPS)})")
    if algorithm not in ALGORITHMS:
        raise UsageError(f"unknown algorithm '{algorithm}' (expected one of: {', '.join(ALGORITHMS)})")
    if hw.torus:  # chips joined in a torus (TPU ICI): rings and the bucket algorithm along its dimensions
        return torus.collective_time(hw, op, size, n, algorithm)
    n = _arr(n)
    k = minimum(n, float(hw.scale_up_size)) if k is None else minimum(_arr(k), n)
    if op == "p2p":
        cross = k < 2
        bw = where(cross, _out(hw, 2.0), _up(hw))
        t = where(cross, nccl.NET_STEP * nccl.US + hw.scale_out_latency, hw.scale_up_latency) + size / bw
        return where(n > 1, t, 0.0)
    topo = _Topo(hw, n, k)
    if op == "all_to_all":
        return where(n > 1, _all_to_all(hw, topo, size), 0.0)
    if algorithm in IN_NETWORK and (problem := require(hw, algorithm, n, k)):
        raise UsageError(problem)
    ar = op == "all_reduce"
    if algorithm == "ring":
        t = minimum(minimum(_ring(hw, topo, op, size, LL), _ring(hw, topo, op, size, LL128)),
                    _ring(hw, topo, op, size, SIMPLE))
    elif algorithm == "tree":
        t = _best_ring_tree(hw, topo, op, size) if not ar else minimum(
            minimum(_tree(hw, topo, size, LL), _tree(hw, topo, size, LL128)), _tree(hw, topo, size, SIMPLE))
    elif algorithm == "hierarchical":
        t = _hierarchical(hw, topo, op, size)
    elif algorithm == "pat":
        t = where(topo.k <= 1, _pat(hw, topo, op, size), _best_ring_tree(hw, topo, op, size)) \
            if op != "all_reduce" else _best_ring_tree(hw, topo, op, size)
    elif algorithm == "nvls":
        t = _nvls(hw, topo, op, size) if ar or not topo.cross else _best_ring_tree(hw, topo, op, size)
    elif algorithm == "nvls_tree":
        t = where(topo.cross, _nvls_tree(hw, topo, size), _nvls(hw, topo, op, size)) if ar else \
            _best_ring_tree(hw, topo, op, size)
    elif algorithm == "sharp":
        t = _sharp(hw, topo, size) if ar else _best_ring_tree(hw, topo, op, size)
    else:
        t = _auto(hw, topo, op, size)
    return where(n > 1, t, 0.0)


def _auto(hw: Hardware, topo: _Topo, op: str, size):
    """The fastest of what NCCL enables by default (no CollNet)."""
    t = _best_ring_tree(hw, topo, op, size)
    if op != "all_reduce":
        t = minimum(t, _pat(hw, topo, op, size))
    if hw.in_network_reduction and topo.gen is not None and topo.gen >= 2:
        nv = _nvls(hw, topo, op, size)
        if op == "all_reduce":
            nv = where(topo.cross, _nvls_tree(hw, topo, size), nv)
        else:
            nv = where(topo.cross, np.inf, nv)
        t = minimum(t, nv)
    return t


#: Message sizes of an nccl-tests sweep (`-b 8 -e 16G -f 2`): 8 B to 16 GiB.
CURVE_SIZES = tuple(2.0 ** i for i in range(3, 35))


def busbw_curve(hw: Hardware, op: str, n: int, algorithm: str = "auto") -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The nccl-tests curve of a collective on `n` ranks: (sizes in B, busbw in B/s), 8 B to 16 GiB."""
    sizes = np.asarray(CURVE_SIZES)
    t = collective_time(hw, op, sizes, float(n) + 0.0 * sizes, algorithm=algorithm)
    return CURVE_SIZES, tuple(float(b) for b in bus_bandwidth(op, sizes, t, n))


def members_per_domain(hw: Hardware, n, stride):
    """Ranks of a group (size n, consecutive members `stride` ranks apart) that share one scale-up domain."""
    stride = _arr(stride)
    per = np.floor(hw.scale_up_size / stride) if isinstance(stride, np.ndarray) else float(hw.scale_up_size // stride)
    return minimum(maximum(where(stride < hw.scale_up_size, per, 1.0), 1.0), _arr(n))
