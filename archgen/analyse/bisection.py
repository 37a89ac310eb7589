"""One fat-tree plane's bisection: the least cut over every balanced split of its endpoints, found exactly.

The bisection (one direction) is the least, over the splits of the N endpoints into halves (⌊N/2⌋ and ⌈N/2⌉), of
the min cut between the halves (Leiserson, "Fat-trees", IEEE Trans. Computers C-34(10), 1985). Half the links of
the narrowest tier is that least cut only where every pod and leaf holds equal endpoints; with a last pod or leaf
filled in part it may be below (pods of 36 and 28 endpoints: 1,600 Gb/s against 3,200) or above (leaves of 48, 48
and 2 on 16 uplinks each: 24 links against 17). This module finds the least cut itself, from the plane's pods and
leaves, without a graph, with a spine or a core lost too. Derivation (one plane; leaves of e_i endpoints of speed
s; each leaf of pod p meets each of its S spines with links of capacity ν_p; spine j of every pod meets core group
j, whose cores each meet every pod's spine j, or spines jG .. jG + G − 1 for core groups of G spines
(`topology.ClosShape.core_group`, alike by the same argument, the brute force agreeing); 2 tiers are one pod whose
spines have no core links):

1. For fixed sides of the leaves, the cut is linear in each switch's side, so every switch takes its cheaper side
   and alike switches can take the same: a group's cores sit together, and the groups alike face the same choice.
   They are alike but for the lost switch's (a spine lost: its group has no spine in the first pod; a core lost:
   its group's spines have one core's links less), so the alike groups' cores sit on one side (B: the swap of sides
   is t ↔ N − t) and the lost switch's group's on B or on A, both tried; each pod's spine of that group takes its
   own side. A pod's spines of one kind (ν, k: each leaf's links to them, their core links) whose cores sit on B
   cost min(w·ν, (W − w)·ν + k), on A min(w·ν + k, (W − w)·ν), w of the pod's W leaves on A; an endpoint apart
   from its leaf costs s. So the cut is Σ_p C_p(w_p) + s·|t − E|, E the endpoints of the leaves on A, and C_p, a
   sum of minima of linear functions, is concave in w_p: a pod's spare leaves (no endpoints) sit all on one side.
2. Among m alike pods with leaves of one size e, for a given count of their leaves on A (so a given E), a least cut
   has every pod's leaves all on A or all on B but one pod's: of two pods with leaves on both sides, moving a leaf
   from one to the other, one way or the other, costs nothing more, as C is concave. So the m pods of L leaves put
   Q = τ·L + r leaves on A for τ·C(L) + (m − 1 − τ)·C(0) + C(r): m·L + 1 choices, not (L + 1)^m. A pod with leaves
   of several sizes (where a rail-optimized fabric's even share changes, `leaf_fill`, or a short unit's wired
   leaves sit, `analyse.leaf_loads`) tries every count of each size on A, the choices alike in (endpoints, leaves)
   on A kept once: at most (E_p + 1)·(W + 1) of them, not Π(c + 1) (eight sizes of 8 leaves: 9^8); its m alike
   pods are added one by one.
3. The least cut is the least over t = ⌊N/2⌋, ⌈N/2⌉ and over E of (the pods' least cost for E endpoints on A's
   leaves) + s·|t − E|: a min-plus convolution over the classes of alike pods (full pods, the pod part full, spare
   pods, the pod of the lost spine), m alike pods as L + 1 and then m shifted copies of an array over E, so
   O((L + m)·N) in numpy.

Where pods and leaves are equal this is the old rule, min(N·s, Σλ, ΣK)/2. Leaves fill in order
(`FabricAnalysis.leaf_endpoints`), so a plane has leaves of d endpoints, at most one leaf in part and spares with
none; pods, full pods, at most one pod in part and pods of spares: a few classes of alike pods. Checked against a
brute force over every side of every switch on small planes, intact and with a spine or a core lost
(tests/test_bisection_exact.py: review52's planes, where an earlier closed form kept every group alike and read
1,200 Gb/s for a least cut of 800, among them).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

#: Spines of one kind in a pod: each leaf's links to them, their core links, and whether they are of the lost
#: switch's group (whose cores may sit apart from the others').
Spines = tuple[float, float, bool]
#: One pod: its kinds of spine, and its leaves as (endpoints, how many leaves hold that many).
Pod = tuple[tuple[Spines, ...], tuple[tuple[int, int], ...]]


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
                  lost: str = "", share: tuple[float, float] = (0.0, 0.0), core_lost: float = 0.0,
                  spread: int = 0, loads: Sequence[int] = (), group: int = 1) -> list[tuple[Pod, int]]:
    """One plane's pods, alike pods counted once, its leaves holding `ports` as `leaf_fill` shares them.

    Pods of `pod_leaves` leaves, each leaf with `uplink` capacity to its pod's spines and the pod's spines with
    `core` capacity to the cores (2 tiers: one pod, `core` 0). `lost`: 'spine' takes one spine of the first pod
    out, 'core' one core, whose `core_lost` capacity from each pod's spine of its group goes with it; `share` is
    one spine's part of a pod (each leaf's links to it, its core links), and `group` the spines of a pod whose core
    links go to one core group (`topology.ClosShape.core_group`): the lost switch's group's spines, `core_lost` the
    lost core's links from all of them. `loads`: each leaf's endpoints as the cabling wires them
    (`analyse.leaf_loads`), in place of `leaf_fill`'s.
    """
    per_leaf = list(loads) or [e for e, n in leaf_fill(ports, leaves, down, spread) for _ in range(n)]
    out: Counter[Pod] = Counter()
    step = max(pod_leaves, 1)
    link, k = share
    for first in range(0, leaves, step):
        spines: tuple[Spines, ...] = ((uplink, core, False),)
        if lost:   # the lost spine's group has one spine less in the first pod
            g = group - (lost == "spine" and first == 0)
            odd = ((g * link, g * k - core_lost * (lost == "core"), True),) if g else ()
            spines = ((uplink - group * link, core - group * k, False), *odd)
        out[(spines, tuple(sorted(Counter(per_leaf[first:first + step]).items())))] += 1
    return sorted(out.items())


def least_balanced_cut(pods: Sequence[tuple[Pod, int]], speed: float) -> float:
    """The least cut, one direction, over the balanced splits of the endpoints of `pods` (endpoint speed `speed`)."""
    return _least(tuple(pods), speed)


@lru_cache(maxsize=256)
def _least(classes: tuple[tuple[Pod, int], ...], speed: float) -> float:
    n = sum(_endpoints(pod) * m for pod, m in classes)
    if n < 2:
        return 0.0
    apart = any(odd and k for (spines, _), _ in classes for _, k, odd in spines)   # its cores' side matters
    best = np.inf
    for odd_on_a in (False, True)[:1 + apart]:
        cut = np.zeros(1)   # the least cost of each count of endpoints on A's leaves, the pods so far
        for pod, m in sorted(classes, key=lambda c: _endpoints(c[0]) * c[1]):
            cut = _with(cut, pod, m, odd_on_a)
        best = min(best, *(_least_at(cut, t, speed) for t in {n // 2, n - n // 2}))
    return float(best)


def _least_at(cut: np.ndarray, t: int, speed: float) -> float:
    """The least over E of cut[E] + s·|t − E| (derivation, step 3) for one t.

    Computed in place: for a plane of ten million endpoints the expression made four arrays of that size, twice
    (⌊N/2⌋ and ⌈N/2⌉, one t where N is even).
    """
    moved = np.subtract(t, np.arange(cut.size))
    np.abs(moved, out=moved)
    cost = np.multiply(moved, speed, dtype=float)   # an int speed: each product as exact as int64 made it
    cost += cut
    return float(cost.min())


def _endpoints(pod: Pod) -> int:
    return sum(e * c for e, c in pod[1])


def _with(cut: np.ndarray, pod: Pod, m: int, odd_on_a: bool) -> np.ndarray:
    """`cut` with `m` alike pods added: the least cost of each count of endpoints on A (derivation, step 2)."""
    spines, leaves = pod
    sizes = [(e, c) for e, c in leaves if e]
    spare = sum(c for e, c in leaves if not e)
    total = spare + sum(c for _, c in sizes)

    def cost(w: np.ndarray) -> np.ndarray:   # w leaves holding endpoints on A, the spares on whichever side is cheaper
        return np.minimum(_pod_cut(spines, total, w, odd_on_a), _pod_cut(spines, total, w + spare, odd_on_a))

    if not sizes:
        return cut + m * float(cost(np.zeros(1))[0])
    if len(sizes) == 1 and m > 1:   # every pod's leaves on A or on B but one pod's
        (e, size), = sizes
        per = cost(np.arange(size + 1))
        part = _convolve(cut, e * np.arange(size + 1), per + (m - 1) * per[0])
        out = np.full(part.size + (m - 1) * e * size, np.inf)
        for tau in range(m):   # τ pods with every leaf on A
            seg = out[tau * e * size:tau * e * size + part.size]
            np.minimum(seg, part + tau * (per[size] - per[0]), out=seg)
        return out
    ends, least = _pod_counts(sizes, cost)
    for _ in range(m):   # one by one (alike pods with leaves of several sizes, rare: a short rail group's pods)
        cut = _convolve(cut, ends, least)
    return cut


def _pod_counts(sizes: list[tuple[int, int]],
                cost: Callable[[np.ndarray], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """One pod's least cost of each count of endpoints on A, over every count of its leaves of each size on A.

    Two exact ways, the smaller taken: every combination of counts (Π(c + 1), few leaves of many sizes would make it
    9^8 for eight sizes of 8 leaves) or the combinations alike in (endpoints, leaves) on A kept once (a table of
    (E + 1)·(W + 1), which a pod of 800,000 leaves of 32 endpoints would make 18.6 TiB; review53).
    """
    product = math.prod(c + 1 for _, c in sizes)
    if product <= (sum(e * c for e, c in sizes) + 1) * (sum(c for _, c in sizes) + 1):
        ends, on_a = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
        for e, c in sizes:
            ends = np.add.outer(ends, e * np.arange(c + 1)).ravel()
            on_a = np.add.outer(on_a, np.arange(c + 1)).ravel()
        costs = cost(on_a)
        order = np.lexsort((costs, ends))
        ends, costs = ends[order], costs[order]
        first = np.r_[True, ends[1:] != ends[:-1]]   # the least cost of each count
        return ends[first], costs[first]
    held = np.zeros((1, 1), dtype=bool)
    held[0, 0] = True   # held[x, w]: some choice of the pod's leaves puts x endpoints on A on w leaves
    for e, c in sizes:
        grown = np.zeros((held.shape[0] + e * c, held.shape[1] + c), dtype=bool)
        for j in range(c + 1):
            grown[j * e:j * e + held.shape[0], j:j + held.shape[1]] |= held
        held = grown
    least = np.where(held, cost(np.arange(held.shape[1]))[None, :], np.inf).min(axis=1)
    ends = np.flatnonzero(np.isfinite(least))
    return ends, least[ends]


def _pod_cut(spines: tuple[Spines, ...], total: int, w: np.ndarray, odd_on_a: bool) -> np.ndarray:
    """One pod's spine links cut with `w` of its `total` leaves on A: each kind of spine on its cheaper side."""
    out = np.zeros(w.shape)
    for link, k, odd in spines:
        on_a = k if odd and odd_on_a else 0.0   # the core links cut with the spines on B
        out += np.minimum(w * link + on_a, (total - w) * link + k - on_a)
    return out


def _convolve(cut: np.ndarray, ends: np.ndarray, costs: np.ndarray) -> np.ndarray:
    """out[x] = min over j of cut[x − ends_j] + costs_j (`ends` distinct and sorted), the shorter loop outside."""
    out = np.full(cut.size + int(ends[-1]), np.inf)
    held = np.flatnonzero(np.isfinite(cut))
    if held.size < ends.size:
        for i in held.tolist():
            out[i + ends] = np.minimum(out[i + ends], cut[i] + costs)
    else:
        for e, c in zip(ends.tolist(), costs.tolist(), strict=True):
            np.minimum(out[e:e + cut.size], cut + c, out=out[e:e + cut.size])
    return out
