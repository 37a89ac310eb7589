"""Collectives on a torus of chips (TPU-style ICI): rings along the torus and the multi-dimensional bucket algorithm.

`perf.comm.collectives.collective_time` hands a collective here when the hardware is a torus (`Hardware.torus`, set
from the cluster's torus fabric). A group of n ranks occupies a sub-torus: its size along each dimension is the
largest share of n that dimension divides (TP along the first axis, DP across the rest), and a dimension the
group spans whole keeps its wraparound link.

With B the link bandwidth per direction times the accelerator's measured link efficiency, α the per-hop latency
(the accelerator's `scale_up.latency`) and t_i the group's size along dimension i. B may differ by dimension
(`Hardware.torus_dim_factor`, from a torus scale-up domain's `dim_bandwidth`: a Trn2 UltraServer's links between its
four instances carry 256 GB/sec per chip on 2 links, those inside an instance 1,024 on 4); each formula below then
takes B_i of the dimension it runs on, a ring through several dimensions the slowest of theirs, and the bucket
algorithm also the dimensions in sequence (`_bucket`):

* a dimension carries 2B (a bidirectional ring: the group spans it whole, it has 3 or more chips and it wraps) or
  B (a line, the ring folded back onto it). Two chips, whether a dimension of 2 or 2 of a longer one, are joined
  by one link (the pair's one link of `analyse.topologies.torus_figures`, and Google's TPU v4 slices wrap only
  dimensions that are multiples of 4: https://cloud.google.com/tpu/docs/v4): B each way. Parallel links to a
  neighbour are the link's bandwidth (`links_per_neighbour`), not a second ring direction;
* **bucket** all-reduce (reduce-scatter along each dimension in turn, then all-gather back; E. Chan et al.,
  "Collective communication: theory, practice, and experience", Concurrency Computat. 19, 2007, section 6 on
  multi-dimensional tori): D copies, each on 1/D of the data, run the dimensions in rotated orders so every
  dimension's links work at once; dimension i carries 2·Σ_rotations (S/D)·(t_i − 1)/Π(t_j, j up to i in that
  order), and the time is the busiest dimension's load / its bandwidth + 2·Σ(t_i − 1)·α. For equal dimensions
  this approaches 2(n − 1)/n·S over all 2D links of a chip, the injection bound;
* **ring** all-reduce: one bidirectional ring through the sub-torus (2B, or B on a single line), 2(n − 1) steps:
  2(n − 1)/n·S / (2B) + 2(n − 1)·α;
* all-gather and reduce-scatter are one half of the above on the gathered size S; all-to-all is bounded by the
  chip's injection (S·(n − 1)/n over all its links) and by the bisection (n·S/4 across 2·n/t_max links, a torus
  cut), plus the diameter in hops; point-to-point is one neighbour hop.

`auto` takes the faster of bucket and ring, as XLA's collective choice would; the NCCL algorithms (tree, NVLS,
hierarchical) do not exist on a torus and fall back to the bucket algorithm.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math

import numpy as np

from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.numeric import maximum, minimum


def sub_torus(dims: tuple[int, ...], n: int) -> list[int]:
    """Chips per dimension of an n-rank group: each dimension in turn takes the largest share of n it divides."""
    out, left = [], max(int(n), 1)
    for d in dims:
        t = math.gcd(d, left)
        out.append(t)
        left //= t
    if left > 1:                 # n does not tile the torus: the rest as one more (folded) line
        out.append(left)
    return out


def slice_counts(dims: tuple[int, ...]) -> set[int]:
    """Every chip count that forms a sub-torus of `dims`: the products of a divisor of each side.

    Taking each dimension's largest share in turn (`sub_torus`) finds such a shape whenever one exists: a divisor m
    of d1·d2 splits as gcd(m, d1) times a divisor of d2.
    """
    return {math.prod(c) for c in itertools.product(*([t for t in range(1, d + 1) if d % t == 0] for d in dims))}


def cube_grid(cubes: int, ndims: int) -> list[int]:
    """Cubes along each dimension of a slice of `cubes` cubes, the shape closest to a cube (smallest side first).

    Cloud TPU's default topology for a chip count is the one most similar to a cube
    (https://cloud.google.com/tpu/docs/types-topologies, "Topology variants"): 60 cubes are 3x4x5.
    """
    def grids(k: int, n: int) -> list[tuple[int, ...]]:
        if n == 1:
            return [(k,)]
        return [(f, *rest) for f in range(1, k + 1) if k % f == 0 for rest in grids(k // f, n - 1) if f <= rest[0]]
    return list(min(grids(cubes, ndims), key=lambda g: (max(g) - min(g), max(g))))


def _link(hw: Hardware, i: int):
    """One link's bandwidth per direction along dimension i, times the link efficiency.

    A dimension past the torus' own (the folded rest of a group that does not tile it, `sub_torus`) takes the
    slowest dimension's links.
    """
    factors = hw.torus_dim_factor
    factor = (factors[i] if i < len(factors) else min(factors)) if factors else 1.0
    return hw.torus_link_bandwidth * factor * hw.scale_up_efficiency


def _dim_bandwidth(hw: Hardware, t: int, i: int):
    """Bandwidth dimension i of t chips gives a ring (both directions when it closes; a pair shares one link).

    It closes where the group spans the torus' dimension i whole; a dimension past the torus' own (`sub_torus`'s
    folded rest) never does.
    """
    b = _link(hw, i)
    closes = i < len(hw.torus) and t == hw.torus[i] and t >= 3 and hw.torus_wraparound
    return 2.0 * b if closes else b


def _bucket(hw: Hardware, op: str, size: float, sub: list[int]):
    """Multi-dimensional bucket algorithm: one rotated copy per dimension in use, or the dimensions in sequence.

    The rotated copies keep every dimension's links busy at once and end with the busiest dimension (its load over
    its own bandwidth). Where the dimensions' links differ, one copy through the dimensions in turn (reduce-scatter
    along each, then all-gather back; Chan et al. 2007, section 6, the unrotated form) may end sooner: its time is
    the sum over the dimensions of the bytes each carries, S·(t_i − 1)/Π_{j ≤ i} t_j per phase, over that
    dimension's bandwidth. There every order is timed and the fastest of them and the rotated copies kept; a torus
    whose dimensions' links are alike (`Hardware.torus_dim_factor` empty or all equal: every TPU torus) keeps the
    rotated copies alone, as before.
    """
    used = [(i, t) for i, t in enumerate(sub) if t > 1]
    if not used:
        return 0.0
    phases = 2.0 if op == "all_reduce" else 1.0
    load = dict.fromkeys((i for i, _ in used), 0.0)
    for r in range(len(used)):
        order = used[r:] + used[:r]
        shrink = 1.0
        for i, t in order:
            shrink *= t
            load[i] += phases * (size / len(used)) * (t - 1) / shrink
    best = functools.reduce(maximum, (load[i] / _dim_bandwidth(hw, t, i) for i, t in used))
    if hw.torus_dim_factor and len(set(hw.torus_dim_factor)) > 1:
        for turn in itertools.permutations(used):
            shrink, spent = 1.0, 0.0
            for i, t in turn:
                shrink *= t
                spent = spent + phases * size * (t - 1) / shrink / _dim_bandwidth(hw, t, i)
            best = minimum(best, spent)
    return best + phases * sum(t - 1 for _, t in used) * hw.scale_up_latency


def _ring(hw: Hardware, op: str, size: float, n: int, sub: list[int]) -> float:
    """One bidirectional ring through the whole sub-torus (a single open line folds it back onto itself)."""
    phases = 2.0 if op == "all_reduce" else 1.0
    lines = [(i, t) for i, t in enumerate(sub) if t > 1]
    if len(lines) == 1:
        bw = _dim_bandwidth(hw, lines[0][1], lines[0][0])
    else:                        # a cycle through a grid of two or more dimensions, as fast as its slowest links
        bw = 2.0 * functools.reduce(minimum, (_link(hw, i) for i, _ in lines))
    return phases * (n - 1) / n * size / bw + phases * (n - 1) * hw.scale_up_latency


def _all_to_all(hw: Hardware, size: float, n: int, sub: list[int]):
    """Injection over all of a chip's links (each at its dimension's bandwidth) or the cut across the longest side."""
    inject = size * (n - 1) / n / sum((2 if t >= 3 else 1) * _link(hw, i) for i, t in enumerate(sub) if t > 1)
    big = max(sub)
    cut_links = 2 * n // big if big >= 3 else n // max(big, 1)
    bisection = n * size / 4.0 / (cut_links * _link(hw, sub.index(big))) if cut_links else 0.0
    return maximum(inject, bisection) + sum(t // 2 for t in sub) * hw.scale_up_latency


def _one(hw: Hardware, op: str, size, n: float, algorithm: str):
    """One group of n ranks; `size` a number or an array of sizes (the same arithmetic element by element)."""
    n = int(round(n))
    if n <= 1:
        return 0.0
    sub = sub_torus(hw.torus, n)
    if op == "p2p":              # which neighbour a peer is is not modelled: the slowest dimension's link
        return size / functools.reduce(minimum, (_link(hw, i) for i in range(max(len(hw.torus), 1)))) \
            + hw.scale_up_latency
    if op == "all_to_all":
        return _all_to_all(hw, size, n, sub)
    if algorithm == "ring":
        return _ring(hw, op, size, n, sub)
    bucket = _bucket(hw, op, size, sub)
    return minimum(bucket, _ring(hw, op, size, n, sub)) if algorithm == "auto" else bucket


def collective_time(hw: Hardware, op: str, size, n, algorithm: str = "auto"):
    """Time of one collective on the torus (scalars or numpy arrays of size and n, as `perf.comm.collectives`).

    Arrays are worked out once per distinct group size, on all the message sizes that group meets.
    """
    figures = {f: v for f in _FIGURES if isinstance(v := getattr(hw, f), np.ndarray)}
    if not isinstance(size, np.ndarray) and not isinstance(n, np.ndarray) and not figures:
        return _one(hw, op, float(size), float(n), algorithm)
    sizes, groups, *each = np.broadcast_arrays(np.asarray(size, dtype=float), np.round(np.asarray(n, dtype=float)),
                                               *figures.values())
    out = np.empty(sizes.shape)
    # not np.unique, which imports numpy.ma (14 ms, issue 25); a batch of sweep points holds a few figures per field
    keys = set(zip(groups.ravel().tolist(), *(a.ravel().tolist() for a in each), strict=True)) if figures else \
        {(m,) for m in set(groups.ravel().tolist())}
    for key in sorted(keys):
        at = groups == key[0]
        for a, v in zip(each, key[1:], strict=True):
            at &= a == v
        one = dataclasses.replace(hw, **dict(zip(figures, key[1:], strict=True))) if figures else hw
        out[at] = _one(one, op, sizes[at], key[0], algorithm)   # one hardware of numbers per distinct figures
    return out


#: The hardware fields the torus' times read that a batch of sweep points may hold as arrays (a `scale_up_bandwidth`
#: axis moves the links, `Hardware._replaced`; a `latency` axis the step).
_FIGURES = ("scale_up_latency", "scale_up_efficiency", "torus_link_bandwidth")
