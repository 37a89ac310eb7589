"""Collectives with an α-β model: ring, tree, hierarchical and in-switch (NVLS) algorithms on a two-tier fabric.

Sizes follow nccl-tests: `size` is the per-rank buffer of an all-reduce, and the full (gathered) buffer of an
all-gather or reduce-scatter; for all-to-all it is the buffer each rank sends (its n slices). Bus bandwidth is
reported as nccl-tests defines it (NVIDIA/nccl-tests doc/PERFORMANCE.md): busbw = algbw · 2(n-1)/n for all-reduce,
algbw · (n-1)/n for all-gather, reduce-scatter and all-to-all, algbw for point-to-point, with algbw = size / time.

Time of one algorithm = base latency + steps · per-step latency + bytes on the busiest link / achievable bandwidth.
Base latencies and per-step latencies follow NCCL's own tuning model (src/graph/tuning.cc: ring/tree base 8.4 us for
the Simple protocol, about 2 us per NVLink step, 25 us for NVLS). Achievable bandwidth = link bandwidth x the
catalog's measured ring efficiency. A group of `n` ranks with `k` ranks per scale-up domain (k = n: inside one
domain) uses the scale-up link inside a domain and the scale-out NIC between domains; oversubscription divides the
scale-out bandwidth once the domains the group spans hold more accelerators than the non-blocking pod.
"""

from __future__ import annotations

import numpy as np

from archgen.errors import UsageError
from archgen.perf.hardware import Hardware

OPS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "p2p")
ALGORITHMS = ("auto", "ring", "tree", "hierarchical", "nvls")

#: NCCL base latency of a ring or tree collective, Simple protocol (src/graph/tuning.cc `baseLat`).
BASE_LATENCY = 8.4e-6
#: NCCL latency of an NVLS collective (src/graph/tuning.cc `hwLat` NVLS, Simple).
NVLS_LATENCY = 25e-6


def _sel(cond, a, b):
    """`np.where` that stays a plain float for scalar input (numpy ufuncs on scalars are slow)."""
    if not isinstance(cond, np.ndarray) and not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray):
        return a if cond else b
    return np.where(cond, a, b)


def _max(a, b):
    if not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray):
        return a if a > b else b
    return np.maximum(a, b)


def _min(a, b):
    if not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray):
        return a if a < b else b
    return np.minimum(a, b)


def _arr(x):
    return np.asarray(x, dtype=float) if isinstance(x, np.ndarray | list | tuple) else float(x)


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


def _up(hw: Hardware) -> float:
    return hw.scale_up_bandwidth * hw.scale_up_efficiency


def _out(hw: Hardware, domains) -> np.ndarray | float:
    """Achievable scale-out bandwidth of a group that spans `domains` scale-up domains.

    The taper applies once the accelerators of those domains outnumber the non-blocking `pod`: NCCL's rings are
    rail-aligned, so a group's cross-domain traffic leaves every domain it spans.
    """
    bw = hw.scale_out_bandwidth * hw.scale_out_efficiency
    if bw <= 0:
        return 1e-30  # no scale-out fabric: a cross-domain collective takes effectively forever
    if hw.oversubscription == 1.0:
        return bw
    return bw / _sel((hw.pod <= 0) | (domains * hw.scale_up_size > hw.pod), hw.oversubscription, 1.0)


def _ring(hw: Hardware, op: str, size, n, k):
    """Flat ring (NCCL Ring) over n ranks; bandwidth of the slowest hop, latency of every step."""
    cross = k < n
    bw = _sel(cross, _min(_up(hw), _out(hw, n / _max(k, 1.0))), _up(hw))
    lat = _sel(cross, hw.scale_out_latency, hw.scale_up_latency)
    steps = (2.0 if op == "all_reduce" else 1.0) * (n - 1)
    return BASE_LATENCY + steps * lat + busbw_factor(op, n) * size / bw


def _tree(hw: Hardware, op: str, size, n, k):
    """NCCL Tree all-reduce: a chain inside each domain, double binary trees between domains."""
    domains = np.maximum(n / np.maximum(k, 1), 1.0)
    bw = _sel(domains > 1, _min(_up(hw), _out(hw, domains)), _up(hw))
    lat = 2.0 * (k - 1) * hw.scale_up_latency + 2.0 * np.log2(domains) * hw.scale_out_latency
    return BASE_LATENCY + lat + 2.0 * size / bw


def _hierarchical(hw: Hardware, op: str, size, n, k):
    """Reduce-scatter inside the domain, the operation across domains on 1/k of the data, all-gather inside."""
    k = _min(_max(k, 1.0), n)
    domains = _max(n / k, 1.0)
    inner_op = {"all_reduce": "reduce_scatter"}.get(op, op)
    inner = _sel(k > 1, _ring(hw, inner_op, size, k, k), 0.0)
    outer = _sel(domains > 1, _ring(hw, op, size / k, domains, 1.0), 0.0)
    if op == "all_reduce":
        inner = inner + _sel(k > 1, _ring(hw, "all_gather", size, k, k), 0.0)
    return inner + outer


def _nvls(hw: Hardware, op: str, size, n, k):
    """In-switch reduction (NVLink SHARP): each rank sends and receives size·(1 + 1/n) for an all-reduce."""
    bw = _up(hw) * hw.nvls_efficiency
    traffic = (1.0 + 1.0 / n) if op == "all_reduce" else (n - 1) / n
    return NVLS_LATENCY + traffic * size / bw


def _all_to_all(hw: Hardware, size, n, k):
    k = _min(_max(k, 1.0), n)
    t_up = (k - 1) / n * size / _up(hw)
    t_out = _sel(k < n, (n - k) / n * size / _out(hw, n / k), 0.0)
    lat = _sel(k < n, hw.scale_out_latency, hw.scale_up_latency)
    return BASE_LATENCY + (n - 1) * lat / 8.0 + _max(t_up, t_out)


def collective_time(hw: Hardware, op: str, size, n, k=None, algorithm: str = "auto"):
    """Time of one collective.

    Args:
        hw: Hardware.
        op: One of `OPS`.
        size: nccl-tests size in bytes (see the module docstring).
        n: Ranks in the group.
        k: Ranks of the group inside one scale-up domain (defaults to all of them when n fits a domain, else
            the domain size).
        algorithm: 'auto' (the fastest of ring, tree, hierarchical, and NVLS when the hardware has it enabled),
            or one of them by name.

    Returns:
        Seconds; 0 for a group of one rank.
    """
    if op not in OPS:
        raise UsageError(f"unknown collective '{op}' (expected one of: {', '.join(OPS)})")
    if algorithm not in ALGORITHMS:
        raise UsageError(f"unknown algorithm '{algorithm}' (expected one of: {', '.join(ALGORITHMS)})")
    n = _arr(n)
    k = _min(n, float(hw.scale_up_size)) if k is None else _arr(k)
    if op == "p2p":
        cross = k < 2
        bw = _sel(cross, _out(hw, 2.0), _up(hw))
        t = _sel(cross, hw.scale_out_latency, hw.scale_up_latency) + size / bw
    elif op == "all_to_all":
        t = _all_to_all(hw, size, n, k)
    elif algorithm == "ring":
        t = _ring(hw, op, size, n, k)
    elif algorithm == "tree":
        t = _tree(hw, op, size, n, k) if op == "all_reduce" else _ring(hw, op, size, n, k)
    elif algorithm == "hierarchical":
        t = _hierarchical(hw, op, size, n, k)
    elif algorithm == "nvls":
        if not hw.in_network_reduction:
            raise UsageError(f"accelerator '{hw.accelerator}' has no in-network reduction (NVLS) in its scale-up "
                             "domain")
        t = _sel(k >= n, _nvls(hw, op, size, n, k), _hierarchical(hw, op, size, n, k))
    else:
        t = _min(_ring(hw, op, size, n, k), _hierarchical(hw, op, size, n, k))
        if op == "all_reduce":
            t = _min(t, _tree(hw, op, size, n, k))
        if hw.in_network_reduction:
            t = _min(t, _sel(k >= n, _nvls(hw, op, size, n, k), np.inf))
    return _sel(n > 1, t, 0.0)


def members_per_domain(hw: Hardware, n, stride):
    """Ranks of a group (size n, consecutive members `stride` ranks apart) that share one scale-up domain."""
    stride = _arr(stride)
    per = np.floor(hw.scale_up_size / stride) if isinstance(stride, np.ndarray) else float(hw.scale_up_size // stride)
    return _min(_max(_sel(stride < hw.scale_up_size, per, 1.0), 1.0), _arr(n))
