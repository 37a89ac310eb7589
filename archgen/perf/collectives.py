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
        self._factors: dict[str, object] = {}

    def factor(self, op: str):
        """`busbw_factor` of the group (one object per operation, so candidates can share f·size)."""
        got = self._factors.get(op)
        if got is None:
            got = self._factors[op] = busbw_factor(op, self.n)
        return got


# A candidate (algorithm, protocol) of one group: time = latency + f·size / bus, as NCCL's tuner computes it
# (tuning.cc 651: latency + bytes / bandwidth). Its figures are plain floats or arrays over the groups; `f` None
# stands for 1 (the size itself). `kind` adds what depends on the size: the multi-node ring's plateau on the
# latency (`PLATEAU`, extra = (cross, channels·n, factor)) or the tree's correction on the bandwidth (`TREE`,
# extra = the protocol, and 2·size for f). `mask` (None: everywhere) says where the candidate runs at all.
PLAIN, PLATEAU, TREE = 0, 1, 2


def _ring(hw: Hardware, t: _Topo, op: str, proto: int):
    """NCCL Ring (tuning.cc 393-411 latency; algbw = busbw x n / steps); None where the protocol does not run."""
    if t.gen is None and proto != SIMPLE:
        return None
    bus = nccl.ring_protocol_bw(t.gen, proto, t.ring, t.channels, t.nodes)
    lat = nccl.ring_latency(proto, op, t.n, t.nodes, t.intra_scale, t.net_extra)
    if proto == SIMPLE and op == "all_reduce":  # tuning.cc 646-650: plateau effect of a multi-node ring
        plateau = 1.9 if 0 < hw.compute_capability < 8 else 1.4
        return (lat, t.factor(op), bus, PLATEAU, (t.cross, t.channels * t.n, plateau), None)
    return (lat, t.factor(op), bus, PLAIN, None, None)


def _tree(hw: Hardware, t: _Topo, proto: int):
    """NCCL Tree all-reduce: a chain in each domain, double binary trees between domains (algbw = busbw / 2)."""
    if t.gen is None and proto != SIMPLE:
        return None
    gen = 2 if t.gen is None else t.gen
    bus = nccl.tree_protocol_bw(gen, proto, t.ring, t.channels, t.nodes)  # x the mid-size correction (`TREE`)
    return (nccl.tree_latency(proto, t.n, t.nodes, t.intra_scale, t.net_extra), None, bus, TREE, proto, None)


def _nvls_bus(hw: Hardware, t: _Topo, all_reduce: bool):
    heads = minimum(t.k, float(nccl.MAX_NVLS_ARITY))
    return nccl.nvls_bus(t.gen if t.gen is not None else 2, hw.nvls_efficiency, t.up, heads, all_reduce, t.k)


def _nvls(hw: Hardware, t: _Topo, op: str, mask=None):
    """NCCL NVLS: in-switch reduction in the domain; across domains (NVLS+SHARP) the scale-out switches reduce too."""
    if op == "all_reduce":
        # across domains each node's NICs carry size once each way, half a ring's traffic: 2x `net` as busbw
        bus = where(t.cross, minimum(_nvls_bus(hw, t, True), 2.0 * t.net), _nvls_bus(hw, t, True))
        lat = nccl.NVLINK_LATENCY["nvls"][SIMPLE] * t.intra_scale + where(
            t.cross, nccl.net_latency("nvls", SIMPLE, t.net_extra), 0.0)
        return (lat * nccl.US, t.factor(op), bus, PLAIN, None, mask)
    bus = _nvls_bus(hw, t, False)  # all-gather / reduce-scatter: NCCL uses busBw as algbw (tuning.cc 421)
    return (nccl.NVLINK_LATENCY["nvls"][SIMPLE] * t.intra_scale * nccl.US, None, bus, PLAIN, None, mask)


def _nvls_tree(hw: Hardware, t: _Topo, mask=None):
    """NCCL NVLSTree all-reduce: NVLS inside each domain, a tree between domains (tuning.cc 316-320, 428-429)."""
    gen = t.gen if t.gen is not None else 2
    heads = minimum(t.k, float(nccl.MAX_NVLS_ARITY))
    inter = t.net * where(t.nodes <= 2, 2.0, 1.0)
    cap = heads * nccl.by_nodes(nccl.PER_CH_NVLS_TREE[gen], maximum(t.nodes, 2.0)) * nccl.GB  # only across domains
    bus = minimum(minimum(_nvls_bus(hw, t, True), inter), cap)
    lat = (nccl.NVLINK_LATENCY["nvls_tree"][SIMPLE] * t.intra_scale
           + 2.0 * nccl.log2i(t.nodes) * nccl.net_latency("nvls_tree", SIMPLE, t.net_extra)) * nccl.US
    return (lat, t.factor("all_reduce"), bus, PLAIN, None, mask)


def _sharp(hw: Hardware, t: _Topo):
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
    return (lat, t.factor("all_reduce"), bus, PLAIN, None, None)


def _pat(hw: Hardware, t: _Topo):
    """NCCL PAT all-gather / reduce-scatter, one rank per domain: 0.75 of the NIC rate, log latency (tuning.cc 337)."""
    lat = (nccl.BASE_LATENCY["pat"][SIMPLE] + nccl.log2i(t.nodes) * nccl.net_latency("pat", SIMPLE, t.net_extra)
           / 3.5 + t.n * 2.8) * nccl.US
    return (lat, None, 0.75 * t.net, PLAIN, None, t.k <= 1)


def _ring_tree(hw: Hardware, t: _Topo, op: str, mask=None) -> list:
    """Ring with each protocol, and for an all-reduce tree with each (NCCL's default algorithms)."""
    out = [_ring(hw, t, op, proto) for proto in (LL, LL128, SIMPLE)]
    if op == "all_reduce":
        out += [_tree(hw, t, proto) for proto in (LL, LL128, SIMPLE)]
    return [c if mask is None or c is None else (*c[:5], mask) for c in out]


def _candidates(hw: Hardware, t: _Topo, op: str, algorithm: str) -> list:
    """The (algorithm, protocol) candidates `algorithm` stands for; the collective takes the fastest that runs."""
    ar = op == "all_reduce"
    if algorithm == "ring":
        out = [_ring(hw, t, op, proto) for proto in (LL, LL128, SIMPLE)]
    elif algorithm == "tree":
        out = [_tree(hw, t, proto) for proto in (LL, LL128, SIMPLE)] if ar else _ring_tree(hw, t, op)
    elif algorithm == "pat":  # one rank per domain; ring and tree elsewhere
        out = _ring_tree(hw, t, op) if ar else [_pat(hw, t), *_ring_tree(hw, t, op, t.k > 1)]
    elif algorithm == "nvls":  # all-gather / reduce-scatter across domains: ring and tree
        out = [_nvls(hw, t, op)] if ar else [_nvls(hw, t, op, ~_bool(t.cross)), *_ring_tree(hw, t, op, t.cross)]
    elif algorithm == "nvls_tree":
        out = [_nvls_tree(hw, t, t.cross), _nvls(hw, t, op, ~_bool(t.cross))] if ar else _ring_tree(hw, t, op)
    elif algorithm == "sharp":
        out = [_sharp(hw, t)] if ar else _ring_tree(hw, t, op)
    else:  # auto: the fastest of what NCCL enables by default (no CollNet)
        out = _ring_tree(hw, t, op) + ([] if ar else [_pat(hw, t)])
        if hw.in_network_reduction and t.gen is not None and t.gen >= 2:
            out.append(_nvls_tree(hw, t, t.cross) if ar else None)
            out.append(_nvls(hw, t, op, ~_bool(t.cross)))
    return [c for c in out if c is not None]


def _bool(x):
    """`x` as a numpy boolean (so that ~ negates a plain bool too)."""
    return np.asarray(x, dtype=bool) if isinstance(x, np.ndarray) else np.bool_(x)


def _fastest(cands: list, size):
    """The least time over the candidates for messages of `size` bytes (plain float for scalars, else arrays).

    Each candidate's time is computed with the same operations, in the same order, as NCCL's formula reads, so the
    result does not depend on how the candidates were computed (once per group, or looked up for a repeated one).
    Arrays are updated in place where they are this function's own: fresh large temporaries cost page faults.
    """
    scaled: dict[int, object] = {}
    tree = None
    best = None
    for lat, f, bus, kind, extra, mask in cands:
        if kind == TREE:
            if tree is None:
                tree = (2.0 * size, nccl.tree_index(size))
            t = _plus(tree[0] / (bus * nccl.tree_correction_at(extra, tree[1])), lat)
        else:
            if f is None:
                x = size
            else:
                x = scaled.get(id(f))
                if x is None:
                    x = scaled[id(f)] = f * size
            if kind == PLATEAU:
                cross, cn, plateau = extra
                lat = lat * where(cross & (size / cn >= 64), plateau, 1.0)
            t = _plus(x / bus, lat)
        if mask is not None:
            t = _unless(mask, t, np.inf)
        if best is None:
            best = t
        elif isinstance(best, np.ndarray) and best.shape == np.broadcast_shapes(best.shape, np.shape(t)):
            np.minimum(best, t, out=best)
        else:
            best = minimum(best, t)
    return best


def _plus(own, other):
    """Own + other (IEEE addition commutes), into `own` when it is an array of the result's shape."""
    if isinstance(own, np.ndarray) and own.shape == np.broadcast_shapes(own.shape, np.shape(other)):
        return np.add(own, other, out=own)
    return other + own


def _unless(cond, own, value):
    """where(cond, own, value), into `own` when it is an array of the result's shape."""
    if isinstance(own, np.ndarray) and own.shape == np.broadcast_shapes(own.shape, np.shape(cond)):
        np.copyto(own, value, where=~np.asarray(cond, dtype=bool))
        return own
    return where(cond, own, value)


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


def _check(op: str, algorithm: str) -> None:
    if op not in OPS:
        raise UsageError(f"unknown collective '{op}' (expected one of: {', '.join(OPS)})")
    if algorithm not in ALGORITHMS:
        raise UsageError(f"unknown algorithm '{algorithm}' (expected one of: {', '.join(ALGORITHMS)})")


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
        Seconds; 0 for a group of one rank. Size, group and hardware figures may be numpy arrays that broadcast.
    """
    return collective_times(hw, ((op, size),), n, k, algorithm)[0]


def collective_times(hw: Hardware, requests, n, k=None, algorithm: str = "auto") -> list:
    """`collective_time` of several (op, size) requests on one group: its figures are worked out once.

    The candidates of a group (`_candidates`: NCCL's algorithms and protocols, each a latency and a bandwidth)
    depend on the hardware and the group, not on the size. They are computed once per call, kept for groups that
    recur with the same hardware figures (`_CACHE`: a layout search or a sensitivity study asks for the same group
    again and again), and computed once per distinct (n, k) when the groups are many arrays of few values.
    """
    for op, _ in requests:
        _check(op, algorithm)
    if hw.torus:  # chips joined in a torus (TPU ICI): rings and the bucket algorithm along its dimensions
        return [torus.collective_time(hw, op, size, n, algorithm) for op, size in requests]
    n = _arr(n)
    k = minimum(n, float(hw.scale_up_size)) if k is None else minimum(_arr(k), n)
    groups = _Groups(hw, n, k, algorithm)
    return [groups.time(op, size) for op, size in requests]


#: Candidates of recent (hardware figures, op, n, k, algorithm): a search and a sensitivity study repeat them.
_CACHE: dict[tuple, list] = {}
_CACHE_SIZE = 4096
#: Groups in one call from which the candidates are computed once per distinct (n, k) and looked up.
_MANY = 256


def _hw_key(hw: Hardware) -> tuple:
    """The hardware figures a collective reads (all numbers: hashable; arrays make it unhashable)."""
    return (hw.scale_up_size, hw.scale_up_bandwidth, hw.scale_up_efficiency, hw.scale_up_latency,
            hw.in_network_reduction, hw.nvls_efficiency, hw.compute_capability, hw.all_to_all_efficiency,
            hw.scale_out_bandwidth, hw.scale_out_efficiency, hw.scale_out_latency, hw.scale_out_reduction,
            hw.oversubscription, hw.pod)


class _Groups:
    """The groups of one call (n ranks, k per domain: floats or arrays) and their candidates per operation."""

    def __init__(self, hw: Hardware, n, k, algorithm: str):
        self.hw, self.n, self.k, self.algorithm = hw, n, k, algorithm
        self.topo: _Topo | None = None
        self.key = None
        self.shape: tuple[int, ...] | None = None
        self.many = False   # many groups of few distinct (n, k): candidates per distinct group, then looked up
        self.index = None
        try:
            hw_key = _hw_key(hw)
            hash(hw_key)
        except TypeError:  # hardware figures as arrays (a batch of sweep points)
            return
        if isinstance(n, np.ndarray) or isinstance(k, np.ndarray):
            groups = np.broadcast(n, k)
            if groups.size != 1:
                self.many = groups.size >= _MANY
                return
            self.shape = groups.shape  # one group given as arrays: worked out as floats
            self.n, self.k = float(np.reshape(n, -1)[0]), float(np.reshape(k, -1)[0])
        self.key = (hw_key, self.n, self.k, algorithm)

    def _topo(self) -> _Topo:
        if self.topo is None:
            if self.many:
                self.index, distinct = _distinct(self.n, self.k)
                self.topo = _Topo(self.hw, *distinct)
            else:
                self.topo = _Topo(self.hw, self.n, self.k)
        return self.topo

    def candidates(self, op: str) -> list:
        """The candidates of `op` for every group (looked up in `_CACHE` for one group of scalar figures)."""
        if self.key is not None:
            key = (op, *self.key)
            got = _CACHE.get(key)
            if got is None:
                if len(_CACHE) >= _CACHE_SIZE:
                    _CACHE.clear()
                got = _CACHE[key] = _candidates(self.hw, self._topo(), op, self.algorithm)
            return got
        cands = _candidates(self.hw, self._topo(), op, self.algorithm)
        return cands if self.index is None else _gather(cands, self.index)

    def time(self, op: str, size):
        """Seconds of `op` on `size` bytes for every group."""
        hw, n = self.hw, self.n
        if op == "p2p":
            k = self.k
            cross = k < 2
            bw = where(cross, _out(hw, 2.0), _up(hw))
            t = where(cross, nccl.NET_STEP * nccl.US + hw.scale_out_latency, hw.scale_up_latency) + size / bw
            return self._shaped(where(n > 1, t, 0.0))
        if op == "all_to_all":
            return self._shaped(where(n > 1, _all_to_all(hw, self._direct(), size), 0.0))
        if self.algorithm in IN_NETWORK and (problem := require(hw, self.algorithm, n, self.k)):
            raise UsageError(problem)
        if self.algorithm == "hierarchical":
            return self._shaped(where(n > 1, _hierarchical(hw, self._direct(), op, size), 0.0))
        cands = self.candidates(op)
        if _trailing(size, n, cands):  # (..., groups, c) sizes against (..., groups, 1) groups: c first
            front = lambda x: np.moveaxis(x, -1, 0) if isinstance(x, np.ndarray) else x  # noqa: E731
            cands = [(front(lat), front(f), front(bus), kind, tuple(front(e) for e in extra) if kind == PLATEAU
                      else extra, front(mask)) for lat, f, bus, kind, extra, mask in cands]
            t = _unless(front(n) > 1, _fastest(cands, np.ascontiguousarray(front(size))), 0.0)
            return np.ascontiguousarray(np.moveaxis(t, 0, -1))
        return self._shaped(_unless(n > 1, _fastest(cands, size), 0.0))

    def _direct(self) -> _Topo:
        """The groups' figures as they are (not looked up by distinct group): what sizes enter elementwise."""
        return _Topo(self.hw, self.n, self.k) if self.many else self._topo()

    def _shaped(self, t):
        """Arrays where the caller gave arrays: one group given as arrays was worked out as floats."""
        if self.shape is None:
            return t
        return np.broadcast_to(np.asarray(t, dtype=float), np.broadcast_shapes(np.shape(t), self.shape)).copy()


def _trailing(size, n, cands: list) -> bool:
    """Whether sizes have a short trailing axis (the pipeline's rank classes) that every group figure lacks.

    numpy broadcasts such a pair slowly (an inner loop of a few elements), so `_Groups.time` then puts that axis
    first; the arithmetic is the same.
    """
    if not isinstance(size, np.ndarray) or size.ndim < 2 or not 1 < size.shape[-1] <= 16:
        return False
    figures = [n] + [x for c in cands for x in (c[0], c[1], c[2], c[5], *(c[4] if c[3] == PLATEAU else ()))]
    return all(x.ndim == size.ndim and x.shape[-1] == 1 for x in figures if isinstance(x, np.ndarray))


def _distinct(n, k) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Where each group's (n, k) sits among the distinct ones, and those (two arrays).

    Group sizes are whole numbers in practice, which a table indexed by n·K + k sorts without a sort; anything else
    takes `np.unique`.
    """
    nb, kb = np.broadcast_arrays(n, k)
    nf, kf = nb.reshape(-1), kb.reshape(-1)
    ni, ki = nf.astype(np.int64), kf.astype(np.int64)
    if len(nf) and ni.min() >= 0 and ki.min() >= 0 and np.array_equal(ni, nf) and np.array_equal(ki, kf):
        width = int(ki.max()) + 1
        top = int(ni.max()) * width + width
        if top <= 1 << 22:
            key = ni * width + ki
            present = np.zeros(top, dtype=bool)
            present[key] = True
            keys = np.flatnonzero(present)
            slot = np.zeros(top, dtype=np.int64)
            slot[keys] = np.arange(len(keys))
            return slot[key].reshape(nb.shape), ((keys // width).astype(float), (keys % width).astype(float))
    pairs, index = np.unique((nf + 1j * kf), return_inverse=True)
    return index.reshape(nb.shape), (np.ascontiguousarray(pairs.real), np.ascontiguousarray(pairs.imag))


def _gather(cands: list, index: np.ndarray) -> list:
    """Candidates computed once per distinct group, at each group (`index`)."""
    taken: dict[int, object] = {}

    def at(x):
        if not isinstance(x, np.ndarray):
            return x
        got = taken.get(id(x))
        if got is None:
            got = taken[id(x)] = x[index]
        return got

    out = []
    for lat, f, bus, kind, extra, mask in cands:
        if kind == PLATEAU:
            extra = tuple(at(e) for e in extra)
        out.append((at(lat), at(f), at(bus), kind, extra, at(mask)))
    return out


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
