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

NCCL's tuning model (`perf/comm/nccl.py`, src/graph/tuning.cc) then turns each (algorithm, protocol) into latency +
size / bandwidth, and `auto` takes the fastest pair NCCL enables by default: ring and tree with LL, LL128 and Simple,
NVLS inside a domain, NVLSTree across domains (NVLS needs the accelerator's NVLink SHARP), PAT for all-gather and
reduce-scatter with one rank per domain. In-network reduction across domains (SHARP on the scale-out switches, NCCL's
CollNet, or NVLS+SHARP) is taken only when asked for by name (`sharp`, or `nvls` across domains), as NCCL needs
NCCL_COLLNET_ENABLE=1 and the SHARP plugin for it; asking for it on a fabric whose switches lack it is an error.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter

import numpy as np

from archgen.errors import AnalyseError
from archgen.perf.comm import nccl, torus
from archgen.perf.comm.algorithms import (
    BASE_LATENCY,
    PER_GROUP,
    all_to_all,
    candidates,
    fastest,
    fastest_number,
    hierarchical,
    number_form,
    unless,
)
from archgen.perf.comm.group import Topo, busbw_factor, mesh_share, out_bandwidth, up_bandwidth
from archgen.perf.comm.group_arrays import distinct_groups, gather_candidates, trailing_axis
from archgen.perf.comm.placement import members_per_domain
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.numeric import NUMBER, as_float, minimum, where

__all__ = ["ALGORITHMS", "BASE_LATENCY", "HW_FIELDS", "IN_NETWORK", "OPS", "bus_bandwidth", "busbw_curve",
           "busbw_factor", "collective_time", "collective_times", "members_per_domain", "require"]

OPS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "p2p")
ALGORITHMS = ("auto", "ring", "tree", "hierarchical", "nvls", "nvls_tree", "sharp", "pat")
#: Algorithms that reduce in the network and what they need.
IN_NETWORK = {"nvls": "NVLink SHARP (NVLS) in the scale-up switches",
              "nvls_tree": "NVLink SHARP (NVLS) in the scale-up switches",
              "sharp": "SHARP in-network reduction in the scale-out switches"}


def bus_bandwidth(op: str, size, time, n):
    """Bus bandwidth (B/s) of a collective of `size` bytes that took `time` seconds on `n` ranks."""
    return size / time * busbw_factor(op, n)


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
        raise AnalyseError(f"unknown collective '{op}' (expected one of: {', '.join(OPS)})")
    if algorithm not in ALGORITHMS:
        raise AnalyseError(f"unknown algorithm '{algorithm}' (expected one of: {', '.join(ALGORITHMS)})")


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
            in-network algorithm raises `AnalyseError` where the hardware lacks the capability (`require`).

    Returns:
        Seconds; 0 for a group of one rank. Size, group and hardware figures may be numpy arrays that broadcast.
    """
    return collective_times(hw, ((op, size),), n, k, algorithm)[0]


def collective_times(hw: Hardware, requests, n, k=None, algorithm: str = "auto") -> list:
    """`collective_time` of several (op, size) requests on one group: its figures are worked out once.

    The candidates of a group (`candidates`: NCCL's algorithms and protocols, each a latency and a bandwidth)
    depend on the hardware and the group, not on the size. They are computed once per call, kept for groups that
    recur with the same hardware figures (`_CACHE`: a layout search or a sensitivity study asks for the same group
    again and again), and computed once per distinct (n, k) when the groups are many arrays of few values.
    """
    if algorithm == "auto" and isinstance(n, NUMBER) and (k is None or isinstance(k, NUMBER)) and not hw.torus:
        got = _numbers(hw, requests, n, k)
        if got is not None:
            return got
    for op, _ in requests:
        _check(op, algorithm)
    if hw.torus:  # chips joined in a torus (TPU ICI, Trn2): rings and the bucket algorithm along its dimensions
        return _torus_times(hw, requests, n, k, algorithm)
    n = as_float(n)
    k = minimum(n, float(hw.scale_up_size)) if k is None else minimum(as_float(k), n)
    groups = _Groups(hw, n, k, algorithm)
    return [groups.time(op, size) for op, size in requests]


def _torus_times(hw: Hardware, requests, n, k, algorithm: str) -> list:
    """Groups inside one torus take its rings (`perf.comm.torus`); a group that leaves its domain the model above.

    A TPU pod's torus is the whole cluster, with no fabric out of it, so every group is inside it. A Trn2
    instance's 4x4 torus is one scale-up domain with EFA between domains: a group with fewer members in a domain
    than in all (k < n) crosses the fabric, and is timed as on a switched domain, its inside part at the chip's
    whole scale-up bandwidth (the bound the bucket algorithm approaches on equal sides; Chan et al. 2007).
    """
    inside = [torus.collective_time(hw, op, size, n, algorithm) for op, size in requests]
    if not np.any(np.asarray(hw.scale_out_bandwidth) > 0):   # no way out of the torus
        return inside
    n_f = as_float(n)
    k_f = minimum(n_f, float(hw.scale_up_size)) if k is None else minimum(as_float(k), n_f)
    cross = np.asarray(k_f < n_f)
    if not cross.any():
        return inside
    groups = _Groups(hw, n_f, k_f, algorithm)
    across = [groups.time(op, size) for op, size in requests]
    if cross.all():
        return across
    return [where(cross, a, t) for a, t in zip(across, inside, strict=True)]


#: Candidates of recent (hardware figures, op, n, k, algorithm): a search and a sensitivity study repeat them.
_CACHE: dict[tuple, list] = {}
_CACHE_SIZE = 4096


def _cached(key: tuple, hw: Hardware, topo: Callable[[], Topo], op: str, algorithm: str) -> list:
    """`_CACHE[key]`: the candidates of `op`, worked out on `topo()` where they are missing (emptied when full)."""
    got = _CACHE.get(key)
    if got is None:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        got = _CACHE[key] = candidates(hw, topo(), op, algorithm)
    return got


_A2A_TOPOS: dict[tuple, Topo] = {}  # `_Groups._a2a_topo`'s, by (hardware figures, n, k)
#: Sizes against one group of plain figures that are timed one by one as numbers (numpy is slow on a few).
_FEW = 8
#: Groups in one call from which the candidates are computed once per distinct (n, k) and looked up.
_MANY = 256


#: The hardware fields a collective reads: collectives at points that agree on these, the group and the sizes are the
#: same (`_hw_key`, the memo's key).
HW_FIELDS = ("scale_up_size", "scale_up_bandwidth", "scale_up_efficiency", "scale_up_latency", "in_network_reduction",
             "scale_up_mesh", "scale_up_pcie", "nvls_efficiency", "compute_capability", "all_to_all_efficiency",
             "scale_out_bandwidth", "scale_out_efficiency", "scale_out_latency", "scale_out_reduction",
             "oversubscription", "pod", "vendor")


#: The hardware figures a collective reads, as a tuple (all numbers: hashable; arrays make it unhashable).
_hw_key = attrgetter(*HW_FIELDS)


#: The operations `_numbers` times by their candidates (those NCCL picks an algorithm and protocol for; and p2p).
_PICKED = frozenset(("all_reduce", "all_gather", "reduce_scatter"))
#: `_CACHE`'s entries as `_numbers` found them for one hardware object: (that object, its `_hw_key`, {(op, n, k):
#: candidates in `number_form`}) by its id (the object is held here, so its id is not reused while it is): the few
#: lookups of one estimate without building and hashing the hardware's figures each time (issue 25).
_BY_HW: dict[int, tuple[Hardware, tuple, dict[tuple, tuple | list]]] = {}
_BY_HW_SIZE = 64


def _numbers(hw: Hardware, requests, n, k) -> list | None:
    """`collective_times` of one group and sizes given as numbers on hardware of numbers (`auto`), or None.

    The same `_CACHE` entries and `fastest` that `_Groups.time` takes for such a request, without building
    the group (one estimate times a few such groups, issue 25); None where a request needs the general path.
    """
    n = float(n)
    if not n > 1:
        for op, size in requests:
            if (op not in _PICKED and op != "p2p") or not isinstance(size, NUMBER):
                return None
        return [0.0 for _ in requests]
    k = float(hw.scale_up_size) if k is None else float(k)
    k = k if k < n else n  # `minimum` of two numbers, as `collective_times` takes it
    mine = _BY_HW.get(id(hw))
    if mine is None or mine[0] is not hw:
        try:
            hw_key = _hw_key(hw)
            hash(hw_key)
        except TypeError:  # hardware figures as arrays
            return None
        if len(_BY_HW) >= _BY_HW_SIZE:
            _BY_HW.clear()
        mine = _BY_HW[id(hw)] = (hw, hw_key, {})
    out = []
    for op, size in requests:  # (each request checked as it comes: one pass, issue 25)
        if not isinstance(size, NUMBER):
            return None
        if op == "p2p":
            out.append(_p2p(hw, k, size))
            continue
        if op not in _PICKED:
            return None
        got = mine[2].get((op, n, k))
        if got is None:
            got = number_form(_cached((op, mine[1], n, k, "auto"), hw, lambda: Topo(hw, n, k), op, "auto"))
            if len(mine[2]) >= _CACHE_SIZE:
                mine[2].clear()
            mine[2][(op, n, k)] = got
        out.append(fastest_number(got, size))
    return out


class _Groups:
    """The groups of one call (n ranks, k per domain: floats or arrays) and their candidates per operation."""

    def __init__(self, hw: Hardware, n, k, algorithm: str):
        self.hw, self.n, self.k, self.algorithm = hw, n, k, algorithm
        self.topo: Topo | None = None
        self.key: tuple[object, ...] | None = None
        self.shape: tuple[int, ...] | None = None
        self.many = False   # many groups of few distinct (n, k): candidates per distinct group, then looked up
        self.index: np.ndarray | None = None
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

    def _topo(self) -> Topo:
        if self.topo is None:
            if self.many:
                self.index, distinct = distinct_groups(self.n, self.k)
                self.topo = Topo(self.hw, *distinct)
            else:
                self.topo = Topo(self.hw, self.n, self.k)
        return self.topo

    def candidates(self, op: str) -> list:
        """The candidates of `op` for every group (looked up in `_CACHE` for one group of scalar figures)."""
        if self.key is not None:
            return _cached((op, *self.key), self.hw, self._topo, op, self.algorithm)
        cands = candidates(self.hw, self._topo(), op, self.algorithm)
        return cands if self.index is None else gather_candidates(cands, self.index)

    def time(self, op: str, size):
        """Seconds of `op` on `size` bytes for every group."""
        hw, n = self.hw, self.n
        if self.key is not None and self.shape is None and isinstance(size, np.ndarray) and 0 < size.size <= _FEW:
            # one group, a few sizes (one layout's pipeline rank classes): size by size, as plain floats
            return np.array([self.time(op, s) for s in size.reshape(-1).tolist()]).reshape(size.shape)
        if op == "p2p":
            return self._shaped(where(n > 1, _p2p(hw, self.k, size), 0.0))
        if op == "all_to_all":
            return self._shaped(where(n > 1, all_to_all(hw, self._a2a_topo(), size), 0.0))
        if self.algorithm in IN_NETWORK and (problem := require(hw, self.algorithm, n, self.k)):
            raise AnalyseError(problem)
        if self.algorithm == "hierarchical":
            return self._shaped(where(n > 1, hierarchical(hw, self._direct(), op, size), 0.0))
        if self.key is not None and not isinstance(size, np.ndarray):  # one group, one size: numbers (issue 25)
            return self._shaped(fastest(self.candidates(op), size) if n > 1 else 0.0)
        cands = self.candidates(op)
        if trailing_axis(size, n, cands):  # (..., groups, c) sizes against (..., groups, 1) groups: c first
            front = lambda x: np.moveaxis(x, -1, 0) if isinstance(x, np.ndarray) else x  # noqa: E731
            cands = [(front(lat), front(f), front(bus), kind, tuple(front(e) for e in extra) if kind in PER_GROUP
                      else extra, front(mask)) for lat, f, bus, kind, extra, mask in cands]
            t = unless(front(n) > 1, fastest(cands, np.ascontiguousarray(front(size))), 0.0)
            return np.ascontiguousarray(np.moveaxis(t, 0, -1))
        return self._shaped(unless(n > 1, fastest(cands, size), 0.0))

    def _a2a_topo(self) -> Topo:
        """`_direct`, kept per group of numbers (a serving run's all-to-alls at thousands of sizes; issue 25).

        Not `_topo`'s objects (`candidates` may set their `rccl`): `all_to_all` reads n, k, `cross` and `net` only.
        """
        if self.key is None or self.many:
            return self._direct()
        topo = _A2A_TOPOS.get(self.key[:3])
        if topo is None:
            if len(_A2A_TOPOS) >= _CACHE_SIZE:
                _A2A_TOPOS.clear()
            topo = _A2A_TOPOS[self.key[:3]] = Topo(self.hw, self.n, self.k)
        return topo

    def _direct(self) -> Topo:
        """The groups' figures as they are (not looked up by distinct group): what sizes enter elementwise."""
        return Topo(self.hw, self.n, self.k) if self.many else self._topo()

    def _shaped(self, t):
        """Arrays where the caller gave arrays: one group given as arrays was worked out as floats."""
        if self.shape is None:
            return t
        t = np.asarray(t, dtype=float)
        if t.shape == self.shape or not self.shape:  # the shapes one layout gives: no broadcast to work out
            return t.copy()
        if not t.shape:
            return np.full(self.shape, t)
        return np.broadcast_to(np.asarray(t, dtype=float), np.broadcast_shapes(np.shape(t), self.shape)).copy()


def _p2p(hw: Hardware, k, size):
    """A point-to-point send of `size` bytes between two ranks, k of them in one domain (both: inside it)."""
    cross = k < 2
    if type(cross) is bool:  # a number k: the `where`s below as one branch, the other side's figures not worked out
        if cross:
            return nccl.NET_STEP * nccl.US + hw.scale_out_latency + size / out_bandwidth(hw, 2.0)
        return hw.scale_up_latency + size / (up_bandwidth(hw) * mesh_share(hw, 2.0))
    bw = where(cross, out_bandwidth(hw, 2.0), up_bandwidth(hw) * mesh_share(hw, 2.0))  # one link in a mesh
    return where(cross, nccl.NET_STEP * nccl.US + hw.scale_out_latency, hw.scale_up_latency) + size / bw


#: Message sizes of an nccl-tests sweep (`-b 8 -e 16G -f 2`): 8 B to 16 GiB.
CURVE_SIZES = tuple(2.0 ** i for i in range(3, 35))


def busbw_curve(hw: Hardware, op: str, n: int, algorithm: str = "auto") -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The nccl-tests curve of a collective on `n` ranks: (sizes in B, busbw in B/s), 8 B to 16 GiB."""
    sizes = np.asarray(CURVE_SIZES)
    t = collective_time(hw, op, sizes, float(n) + 0.0 * sizes, algorithm=algorithm)
    return CURVE_SIZES, tuple(float(b) for b in bus_bandwidth(op, sizes, t, n))
