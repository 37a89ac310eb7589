"""One fat-tree plane's bisection: the least cut over every balanced split of its endpoints, in closed form.

The bisection (one direction) is the least, over the splits of the N endpoints into halves (⌊N/2⌋ and ⌈N/2⌉), of
the min cut between the halves (Leiserson, "Fat-trees", IEEE Trans. Computers C-34(10), 1985). Half the links of
the narrowest tier is that least cut only where every pod and leaf holds equal endpoints; with a last pod or leaf
filled in part it may be below (pods of 36 and 28 endpoints: 1,600 Gb/s against 3,200) or above (leaves of 48, 48
and 2 on 16 uplinks each: 24 links against 17). This module finds the least cut itself, from the plane's pods and
leaves, without a graph. Derivation (one plane; a leaf i holds e_i endpoints of speed s and uplinks of capacity
λ_i, spread evenly over its pod's S spines; spine j of every pod meets core group j; K_p is pod p's core capacity,
its spines' core links; 2 tiers are one pod with K = 0):

1. The cores of a group are alike, so for fixed leaf sides each group's cores and spines choose sides the same way:
   in a least cut all cores sit on one side (call it B), and a pod's S spines sit together, since the cut is
   linear in the number of a pod's spines on each side for fixed leaves, so its least is at all or none.
2. A pod whose spines sit on B costs Σ_i min(a_i·s, b_i·s + λ_i) (a_i, b_i: leaf i's endpoints on A and B); a pod
   whose spines sit on A ("leans A", the set T) costs K_p + Σ_i min(b_i·s, a_i·s + λ_i). A leaf placed wholly
   against its pod's side ("flipped") costs φ_i = min(e_i·s, λ_i); a leaf flipped in part by a endpoints costs
   min(a·s, (e_i − a)·s + λ_i), concave in a, so a least cut flips at most one leaf in part.
3. The least cut is the least over T and over t = ⌊N/2⌋, ⌈N/2⌉ of Σ_{p∈T} K_p + F(|t − Σ_{p∈T} n_p|): F flips that
   many endpoints, from pods outside T when T holds too few endpoints, from pods in T when it holds too many, as
   whole leaves (a knapsack over leaf sizes) and at most one leaf in part.

Where pods and leaves are equal this is the old rule, min(N·s, Σλ, ΣK)/2. Leaves fill in order
(`FabricAnalysis.leaf_endpoints`), so a plane has leaves of d endpoints, at most one leaf in part and spares with
none; pods, full pods, at most one pod in part and pods of spares: the search runs over a few classes of alike pods
and leaves, not over switches. Checked against a brute force over every side of every switch on small planes
(tests/test_bisection_exact.py).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

#: One kind of leaf: its endpoints and its uplinks' capacity.
Leaf = tuple[int, float]
#: One pod: its spines' core capacity and its kinds of leaf, each with how many the pod holds.
Pod = tuple[float, tuple[tuple[Leaf, int], ...]]


def leaf_fill(ports: int, leaves: int, down: int, spread: int = 0) -> list[tuple[int, int]]:
    """Endpoints per leaf as (endpoints, leaves) runs in leaf order: `ports` filling leaves of `down` in order.

    `spread`: the leaves a rail-optimized fabric's groups use, which share the ports evenly (a rail leaf holds its
    rails of every node of its group: the DGX B200 SuperPOD's 1,016 GPU ports on 32 leaves are 24 of 32 and 8 of 31,
    not 31 of 32 and one of 24); the rest are spares with none.
    """
    if spread and down:
        used = min(spread, leaves)
        q, r = divmod(min(ports, used * down), used)
        runs = [(q + 1, r), (q, used - r), (0, leaves - used)]
    else:
        full = min(ports // down, leaves) if down else 0
        part = ports - full * down if full < leaves else 0
        runs = [(down, full), (part, int(bool(part))), (0, leaves - full - int(bool(part)))]
    return [(e, n) for e, n in runs if n]


def fat_tree_pods(ports: int, leaves: int, down: int, uplink: float, pod_leaves: int, core: float,
                  first_pod_lost: tuple[float, float] = (0.0, 0.0), core_lost: float = 0.0,
                  spread: int = 0, loads: Sequence[int] = ()) -> list[tuple[Pod, int]]:
    """One plane's pods, alike pods counted once, its leaves holding `ports` as `leaf_fill` shares them.

    Pods of `pod_leaves` leaves, each pod's spines with `core` capacity to the cores (2 tiers: one pod, `core` 0).
    `first_pod_lost`: the uplink capacity each leaf of the first pod, and the core capacity that pod, lost with a
    spine; `core_lost`: the core capacity each pod lost with a core. `loads`: each leaf's endpoints as the cabling
    wires them (`analyse.leaf_loads`), in place of `leaf_fill`'s.
    """
    per_leaf = list(loads) or [e for e, n in leaf_fill(ports, leaves, down, spread) for _ in range(n)]
    out: Counter[Pod] = Counter()
    step = max(pod_leaves, 1)
    for first in range(0, leaves, step):
        lost_leaf, lost_core = first_pod_lost if first == 0 else (0.0, 0.0)
        kinds = Counter((e, uplink - lost_leaf) for e in per_leaf[first:first + step])
        out[(core - lost_core - core_lost, tuple(sorted(kinds.items())))] += 1
    return sorted(out.items())


def least_balanced_cut(pods: Sequence[tuple[Pod, int]], speed: float) -> float:
    """The least cut, one direction, over the balanced splits of the endpoints of `pods` (endpoint speed `speed`)."""
    return _least(tuple(pods), speed)


@lru_cache(maxsize=256)
def _least(classes: tuple[tuple[Pod, int], ...], speed: float) -> float:
    sizes = [sum(e * c for (e, _), c in leaves) for (_, leaves), _ in classes]
    n = sum(size * m for size, (_, m) in zip(sizes, classes, strict=True))
    if n < 2:
        return 0.0
    best = math.inf
    # no endpoint moves for less than the cheapest leaf's share of its flip: a bound that skips most choices of T
    cheapest = min((min(speed, lam / e) for (_, leaves), _ in classes for (e, lam), _ in leaves if e), default=speed)
    for t in sorted({n // 2, n - n // 2}):
        for taus in itertools.product(*(range(m + 1) for _, m in classes)):
            core = sum(tau * k for tau, ((k, _), _) in zip(taus, classes, strict=True))
            short = t - sum(tau * size for tau, size in zip(taus, sizes, strict=True))
            if core + abs(short) * cheapest >= best:
                continue
            pool: Counter[Leaf] = Counter()
            for tau, ((_, leaves), m) in zip(taus, classes, strict=True):
                for leaf, c in leaves:   # flip from the pods outside T when T is short of t, else from those in T
                    pool[leaf] += c * ((m - tau) if short > 0 else tau)
            best = min(best, core + _flips(abs(short), pool, speed))
    return best


def _flips(need: int, pool: Counter[Leaf], speed: float) -> float:
    """The least cost of moving `need` endpoints across: whole leaves of `pool` and at most one leaf in part."""
    if need == 0:
        return 0.0
    leaves = {leaf: c for leaf, c in pool.items() if leaf[0] and c}
    if need > sum(e * c for (e, _), c in leaves.items()):
        return math.inf
    best = need * speed   # every endpoint's own link
    for part in (None, *leaves):
        rest = Counter(leaves)
        if part is not None:
            rest[part] -= 1
        by_size: dict[int, list[tuple[float, int]]] = {}
        for (e, lam), c in rest.items():
            if c:   # whole flips of a size, cheapest first
                by_size.setdefault(e, []).append((min(e * speed, lam), c))
        steps = {e: sorted(v) for e, v in by_size.items()}
        free = max(steps, key=lambda e: sum(c for _, c in steps[e]), default=0)
        others = [e for e in steps if e != free]
        for counts in itertools.product(*(range(sum(c for _, c in steps[e]) + 1) for e in others)):
            moved = sum(k * e for k, e in zip(counts, others, strict=True))
            cost = sum(_cheapest(steps[e], k) for k, e in zip(counts, others, strict=True))
            best = min(best, cost + _fill(need - moved, part, free, steps.get(free, []), speed))
    return best


def _cheapest(steps: list[tuple[float, int]], k: int) -> float:
    """The cost of the `k` cheapest whole flips of one size (`steps`: cost and how many, cheapest first)."""
    total = 0.0
    for cost, c in steps:
        take = min(k, c)
        total, k = total + take * cost, k - take
    return total if k == 0 else math.inf


def _fill(left: int, part: Leaf | None, size: int, steps: list[tuple[float, int]], speed: float) -> float:
    """The cost of `left` endpoints from whole leaves of `size` (`steps`) and the leaf `part` flipped in part."""
    if left < 0:
        return math.inf
    have = sum(c for _, c in steps)
    if part is None:   # whole leaves only
        k, r = divmod(left, size) if size else (0, left)
        return _cheapest(steps, k) if not r and k <= have else math.inf
    e, lam = part
    best = math.inf
    lo = max(0, -(-(left - e + 1) // size)) if size else 0
    hi = min(have, (left - 1) // size) if size else 0
    for k in range(lo, hi + 1):
        a = left - k * size
        if 0 < a < e:
            best = min(best, _cheapest(steps, k) + min(a * speed, (e - a) * speed + lam))
    return best
