"""Fabric wiring patterns and graphs at switch and node-group granularity.

`tier_pairs` is the closed-form wiring of a folded Clos (which leaf meets which spine, which spine which core, with
how many parallel links); cabling and graphs both use it, so they cannot disagree. `clos_graph` turns one plane
into a networkx graph: one vertex per switch and one per node group (the endpoints behind one leaf), edges weighted
by capacity; `clos_links` gives the same nodes and edges as neighbour sets, on which NET013 finds connectivity and
single points of failure without importing networkx (0.08 s CPU, a tenth of `archgen check specs/`). Graphs are
built only where a check or a test needs them (connectivity, single points of failure, min-cut bisection); the
figures themselves come from closed forms in `archgen.analyse.network`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # networkx costs ~0.1 s to import; only graph-building calls load it
    import networkx as nx

import numpy as np

from archgen.units import Q

#: A fabric's errors that make its topology impossible (`analyse.network.infeasible`), here so that the error cascade
#: (`checks.cascade`) reads them in `archgen validate`, which imports no network analysis.
INFEASIBLE = ("NET001", "NET003", "NET018")


@dataclass(frozen=True)
class ScaleOutPath:
    """What traffic between scale-up domains meets on a cluster's compute fabric, from the sized fat tree.

    The performance model reads it (`perf.workload.cluster.cluster_hardware`); the network analysis derives it
    (`analyse.network.scale_out_path`).

    Attributes:
        bandwidth: Fabric bandwidth per accelerator per direction (node fabric ports x fabric rate / accelerators).
        oversubscription: Taper a flow meets once it leaves the non-blocking part (1 = non-blocking).
        pod: Accelerators reachable without meeting the taper (0 when it applies to every flow between domains).
        tiers: Switch tiers of the fabric.
        in_network_reduction: Every tier's switch reduces in the network (SHARP), so a collective may use it.
        latency: Per-step latency the NICs' network transport declares (`NIC.transport`); None when no NIC on the
            path states one (NCCL's own InfiniBand/RoCE transport: 0), or when `transport` leaves it unset.
        transport: Who declares `latency`, for the estimate's notes ("aws-ofi-nccl on NIC 'efa-v4'").
        assumed: No compute fabric is declared: the path is the compute NICs' line rate, taken as non-blocking
            (`analyse.network.nic_path`), and the estimate says so.
        trunk_run: The longest trunk run of the cluster's multi-rack scale-up domain (`analyse.cabling.longest_trunk`),
            which its second switch hop adds the flight time of (`perf.workload.cluster`); None without one.
        planes: Planes one NIC port is split over (`nic_breakout` across a fat tree's `planes`; 1 where each NIC
            sits on one plane), whose links `bandwidth` sums: every flow is taken to use them all, as NCCL's merged
            multi-port NIC does, and the estimate says so (`perf.workload.network_notes.planes_note`).
        withheld: Why this path is not provided ("" where it is): the compute fabric's topology is infeasible
            (`INFEASIBLE`, `analyse.network.infeasible`), so the tiers and bisection it crosses count links on ports
            their switches do not have; no job across domains is estimated on it (`perf.workload.cluster`).
    """

    bandwidth: Q
    oversubscription: float
    pod: int
    tiers: int
    in_network_reduction: bool = False
    latency: Q | None = None
    transport: str = ""
    assumed: bool = False
    planes: int = 1
    trunk_run: Q | None = None
    withheld: str = ""
    withheld_by: str = ""  # that fabric's object path, which a job it refuses carries (`WorkloadError.fabric`)


@dataclass(frozen=True)
class TorusPath(ScaleOutPath):
    """A torus the performance model runs its collectives on (`perf.comm.torus`), beside the `ScaleOutPath` figures.

    Attributes:
        dims: Chips along each dimension.
        link: Bandwidth of one link per direction (all parallel links to a neighbour together).
        wraparound: Whether each ring closes.
        cube: Chips along each dimension of one OCS cube (empty: no OCSes). A job of whole cubes is its own slice,
            whose rings close through the OCSes (Jouppi et al., ISCA 2023).
    """

    dims: tuple[int, ...] = ()
    link: Q | None = None
    wraparound: bool = True
    cube: tuple[int, ...] = ()


@dataclass(frozen=True)
class ClosShape:
    """The numbers that fix one plane's wiring (per plane, at the fabric rate)."""

    tiers: int
    leaves: int
    spines: int
    cores: int
    leaf_up: int
    spines_per_pod: int
    spine_down: int
    spine_up: int
    core_pair_links: int
    #: Spines of a pod whose core links go to one core group (`analyse.upper_tiers._cores`): 1, spine j of every pod
    #: to core group j; G, spines jG .. jG + G − 1 of every pod to core group j.
    core_group: int = 1

    @property
    def pod_leaves(self) -> int:
        """Leaves per pod (3 tiers): `pod_leaves` of this plane's spine down ports, leaf uplinks and spines per pod."""
        return pod_leaves(self.spine_down, self.leaf_up, self.spines_per_pod)


def pod_leaves(spine_down: int, leaf_up: int, spines_per_pod: int) -> int:
    """Leaves per pod, P = ⌊d_spine / (u / S)⌋: spine down ports over the links each leaf sends to each spine."""
    return max(spine_down // max(leaf_up // max(spines_per_pod, 1), 1), 1)


def tier_pairs(shape: ClosShape, tier: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lower switch index, upper switch index, parallel links) of every switch pair of `tier` in one plane.

    `tier` is 'leaf_spine' or 'spine_core'. Two tiers: every leaf meets every spine with u/S links. Three tiers:
    leaf l meets the `spines_per_pod` spines of pod ⌊l / P⌋; spine j of every pod meets core group ⌊j / G⌋ (G the
    `core_group`), each of its cores with `core_pair_links` links: a spine's uplinks spread evenly over its group's
    spine_up / core_pair_links cores, so one core lost takes that share of them (`upper_tiers.core_groups`).
    """
    if tier == "leaf_spine":
        if shape.tiers == 2:
            m = max(shape.leaf_up // max(shape.spines, 1), 1)
            lo, hi = np.meshgrid(np.arange(shape.leaves), np.arange(shape.spines), indexing="ij")
            return lo.ravel(), hi.ravel(), np.full(lo.size, m, dtype=np.int64)
        sp = max(shape.spines_per_pod, 1)
        m = max(shape.leaf_up // sp, 1)
        lo, j = np.meshgrid(np.arange(shape.leaves), np.arange(sp), indexing="ij")
        hi = (lo // shape.pod_leaves) * sp + j
        return lo.ravel(), np.minimum(hi.ravel(), max(shape.spines - 1, 0)), np.full(lo.size, m, dtype=np.int64)
    sp, pl = max(shape.spines_per_pod, 1), max(shape.core_pair_links, 1)
    group = max(shape.spine_up // pl, 1)
    lo, j = np.meshgrid(np.arange(shape.spines), np.arange(group), indexing="ij")
    hi = (lo % sp) // max(shape.core_group, 1) * group + j
    return lo.ravel(), np.minimum(hi.ravel(), max(shape.cores - 1, 0)), np.full(lo.size, pl, dtype=np.int64)


def _clos_edges(shape: ClosShape, leaf_endpoints: Sequence[int]) -> Iterator[tuple[tuple, tuple, int]]:
    """One plane's edges as (node, node, links): node groups to their leaves, then each tier's `tier_pairs`.

    A pair of switches may come more than once (their links add); `clos_graph` and `clos_links` both read it.
    """
    for i, n in enumerate(leaf_endpoints):
        if n:
            yield ("ep", i), ("leaf", i), int(n)
    tiers = [("leaf_spine", "leaf", "spine")] + ([("spine_core", "spine", "core")] if shape.tiers == 3 else [])
    if shape.tiers >= 2:
        for tier, low, up in tiers:
            lo, hi, w = tier_pairs(shape, tier)
            for a, b, m in zip(lo.tolist(), hi.tolist(), w.tolist(), strict=True):
                yield (low, a), (up, b), m


def clos_graph(shape: ClosShape, leaf_endpoints: Sequence[int], speed_gbps: float = 1.0) -> nx.Graph:
    """One plane as a graph: ('ep', i) node groups, ('leaf', i), ('spine', j), ('core', c); edge 'capacity' in Gb/s."""
    import networkx as nx
    g = nx.Graph()
    for a, b, m in _clos_edges(shape, leaf_endpoints):
        if g.has_edge(a, b):
            g.edges[a, b]["links"] += m
            g.edges[a, b]["capacity"] += m * speed_gbps
        else:
            g.add_edge(a, b, capacity=m * speed_gbps, links=m)
    g.add_nodes_from(("leaf", i) for i in range(shape.leaves))
    return g


def clos_links(shape: ClosShape, leaf_endpoints: Sequence[int]) -> dict[tuple, set[tuple]]:
    """The nodes and edges of `clos_graph` as neighbour sets, without networkx (whose import costs 0.08 s CPU).

    What NET013 needs (`connected`, `single_points_of_failure`); capacities and flows stay on `clos_graph`.
    """
    adj: dict[tuple, set[tuple]] = {}
    for a, b, _ in _clos_edges(shape, leaf_endpoints):
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    for i in range(shape.leaves):
        adj.setdefault(("leaf", i), set())
    return adj


def cut_capacity(g: nx.Graph, side_a: Sequence[int], side_b: Sequence[int]) -> float:
    """Max flow (= min cut) from the node groups behind leaves `side_a` to those behind `side_b`."""
    import networkx as nx
    d = nx.DiGraph()
    for u, v, data in g.edges(data=True):
        d.add_edge(u, v, capacity=data["capacity"])
        d.add_edge(v, u, capacity=data["capacity"])
    for i in side_a:
        if d.has_node(("ep", i)):
            d.add_edge("source", ("ep", i), capacity=float("inf"))
    for i in side_b:
        if d.has_node(("ep", i)):
            d.add_edge(("ep", i), "sink", capacity=float("inf"))
    if not d.has_node("source") or not d.has_node("sink"):
        return 0.0
    return float(nx.maximum_flow_value(d, "source", "sink"))


def single_points_of_failure(g: Mapping[Any, Iterable[Any]]) -> list[tuple[str, int]]:
    """Spine and core switches whose loss alone disconnects some node groups from others.

    An articulation point that only cuts off switches without endpoints (the one core above a spine of a one-pod
    fabric) disconnects no node group, so it is not one: each candidate is removed in turn and the node groups
    reached from one of them compared with all. `g` maps each node to its neighbours: `clos_links`, or a networkx
    graph (`clos_graph`), on which this agrees with `networkx.articulation_points` (tests/test_topology.py).
    """
    groups = [v for v in g if v[0] == "ep"]
    out = [v for v in _articulation_points(g) if v[0] in ("spine", "core") and groups
           and not all(u in _reached(g, groups[0], v) for u in groups)]
    return sorted(out)


def _reached(g: Mapping[Any, Iterable[Any]], start: Any, without: Any = None) -> set:
    """The nodes `start` reaches in `g` without passing through `without`."""
    seen, todo = {start}, [start]
    while todo:
        for w in g[todo.pop()]:
            if w != without and w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def _articulation_points(g: Mapping[Any, Iterable[Any]]) -> set:
    """Nodes whose removal splits their component: Tarjan's low-link depth-first search, without recursion.

    A root is one when it has two or more search-tree children; another node v when some child's subtree has no
    edge back above v (low[child] >= disc[v]). Hopcroft & Tarjan, "Efficient algorithms for graph manipulation",
    CACM 16(6), 1973.
    """
    disc: dict[Any, int] = {}
    low: dict[Any, int] = {}
    out = set()
    for root in g:
        if root in disc:
            continue
        disc[root] = low[root] = len(disc)
        children = 0
        stack = [(root, None, iter(g[root]))]
        while stack:
            v, parent, edges = stack[-1]
            for w in edges:
                if w not in disc:
                    disc[w] = low[w] = len(disc)
                    children += v == root
                    stack.append((w, v, iter(g[w])))
                    break
                if w != parent:
                    low[v] = min(low[v], disc[w])
            else:
                stack.pop()
                if parent is not None:
                    low[parent] = min(low[parent], low[v])
                    if parent != root and low[v] >= disc[parent]:
                        out.add(parent)
        if children > 1:
            out.add(root)
    return out


def clos_single_points(shape: ClosShape) -> list[tuple[str, int]] | None:
    """Spine and core switches whose loss disconnects node groups, in closed form, when every leaf holds endpoints.

    Two tiers: every leaf spreads its uplinks over all S spines, so only S = 1 (with two leaves or more) leaves one.
    Three tiers: each leaf reaches the `spines_per_pod` spines of its pod, and spine j of every pod its core group
    j; with two spines per pod every pod has two ways up, so no switch is one. With one spine per pod, that spine
    joins its pod to the rest (every spine is one when there are two pods or more); a core is one only if it is
    alone in its group and no other group exists. Returns None where the rule does not decide (uneven pods):
    then the graph does (`single_points_of_failure`). Cross-checked against the graph in tests/test_topology.py.
    """
    if shape.tiers == 2:
        return [("spine", 0)] if shape.spines == 1 and shape.leaves >= 2 else []
    if shape.tiers != 3:
        return []
    if shape.spines_per_pod >= 2:
        return []
    pods = -(-shape.leaves // shape.pod_leaves)
    if pods < 2 or shape.leaves % shape.pod_leaves:
        return None
    return sorted([("spine", j) for j in range(shape.spines)] + ([("core", 0)] if shape.cores == 1 else []))


def connected(g: Mapping[Any, Iterable[Any]]) -> bool:
    """Whether every node group reaches every other (`g` as `single_points_of_failure` takes it)."""
    groups = [v for v in g if v[0] == "ep"]
    if len(groups) < 2:
        return True
    comp = _reached(g, groups[0])
    return all(v in comp for v in groups)


def max_switch_hops(g: nx.Graph) -> int:
    """Switches on the longest shortest path between two node groups (small graphs only)."""
    import networkx as nx
    groups = [v for v in g if v[0] == "ep"]
    worst = 0
    for src in groups:
        lengths = nx.single_source_shortest_path_length(g, src)
        worst = max([worst] + [lengths[t] - 1 for t in groups if t != src and t in lengths])
    return worst


def torus_degree(dims: Sequence[int]) -> int:
    """Links of a chip to its neighbours in a torus of `dims`: 2 per dimension of 3 or more, 1 per dimension of 2.

    N. P. Jouppi et al., ISCA 2023 (TPU v4: 6 links per chip of a 3D torus); AWS Trn2 (4 in a 4x4 2D torus).
    """
    return sum(2 if d >= 3 else 1 if d == 2 else 0 for d in dims)


def torus_graph(dims: Sequence[int], wrap: bool = True, capacity: float = 1.0) -> nx.Graph:
    """A torus (or mesh) of chips: vertices ('ep', i), i the chip's row-major index; one edge per neighbour pair."""
    import networkx as nx
    n = int(np.prod(dims))
    coords = np.array(np.unravel_index(np.arange(n), tuple(dims))).T
    g = nx.Graph()
    g.add_nodes_from(("ep", i) for i in range(n))
    for axis, d in enumerate(dims):
        if d < 2:
            continue
        nxt = coords.copy()
        nxt[:, axis] = (nxt[:, axis] + 1) % d
        keep = np.ones(n, dtype=bool) if wrap else coords[:, axis] + 1 < d
        other = np.ravel_multi_index(tuple(nxt.T), tuple(dims))
        g.add_edges_from(((("ep", int(i)), ("ep", int(j))) for i, j in zip(np.arange(n)[keep], other[keep],
                                                                          strict=True)), capacity=capacity, links=1)
    return g


def dragonfly_graph(a: int, p: int, h: int, groups: int, capacity: float = 1.0) -> nx.Graph:
    """A dragonfly: ('router', r) vertices, ('ep', r) terminal groups of p ports each, local and global edges.

    Router j of group i owns global ports j·h .. (j+1)·h − 1 of its group; port q of group i leads to group q (q < i)
    or q + 1 (q ≥ i), the next copy of that pairing once every other group has one (Kim et al. 2008, the
    "consecutive" arrangement), so each pair of groups gets ⌊a·h/(g − 1)⌋ links.
    """
    import networkx as nx
    g = nx.Graph()
    for grp in range(groups):
        for j in range(a):
            r = grp * a + j
            g.add_edge(("ep", r), ("router", r), capacity=p * capacity, links=p)
            for k in range(j + 1, a):
                g.add_edge(("router", r), ("router", grp * a + k), capacity=capacity, links=1)
    per_pair = (a * h) // (groups - 1) if groups > 1 else 0
    for grp in range(groups):
        for q in range(per_pair * (groups - 1)):
            other = q % (groups - 1)
            other = other if other < grp else other + 1
            if other < grp:
                continue                      # added from the other side
            copy = q // (groups - 1)
            mine, theirs = grp * a + q // h, other * a + (copy * (groups - 1) + grp) // h
            key = (("router", mine), ("router", theirs))
            if g.has_edge(*key):
                g.edges[key]["capacity"] += capacity
                g.edges[key]["links"] += 1
            else:
                g.add_edge(*key, capacity=capacity, links=1)
    return g


def rail_only_graph(domains: int, rails: int, per_rail: Sequence[tuple[int, int, int]],
                    capacity: float = 1.0) -> nx.Graph:
    """Rail-only: ('ep', d) scale-up domains, each with one port on every rail, and each rail its own tree.

    Per rail (leaves, spines, uplinks per leaf) from `per_rail`; the domains fill a rail's leaves in order, each
    leaf spreads its uplinks over the rail's spines. No edge joins two rails: only a domain does (its scale-up
    network).
    """
    import networkx as nx
    g = nx.Graph()
    for r, (leaves, spines, up) in enumerate(per_rail[:rails]):
        per_leaf = -(-domains // max(leaves, 1))
        for d in range(domains):
            g.add_edge(("ep", d), ("leaf", r, d // per_leaf), capacity=capacity, links=1)
        for lf in range(leaves):
            for s in range(spines):
                m = up // spines
                g.add_edge(("leaf", r, lf), ("spine", r, s), capacity=m * capacity, links=m)
    return g


def max_hops(g: nx.Graph, kinds: tuple[str, ...] = ("leaf", "spine", "core", "router")) -> int:
    """Switches (vertices of `kinds`) on the longest shortest path between two endpoint vertices ('ep', i)."""
    import networkx as nx
    eps = [v for v in g if v[0] == "ep"]
    sub = g.subgraph(v for v in g if v[0] in kinds or v[0] == "ep")
    worst = 0
    for src in eps:
        for t, path in nx.single_source_shortest_path(sub, src).items():
            if t[0] == "ep" and t != src:
                worst = max(worst, sum(1 for v in path if v[0] in kinds))
    return worst
