"""Closed-form fabric figures cross-checked against networkx graphs of small instances."""

from __future__ import annotations

import pytest

from archgen import topology
from archgen.pipeline import run
from tests.clos_cuts import halves_flow, least_bisection
from tests.data.clusters.small import files


def _fabric(spec_tree, **kw):
    result = run([spec_tree(files(**kw))])
    return result.clusters["cluster/c"].fabrics[0]


CASES = [
    dict(sus=2, rail=True),                                 # 2 tiers, rail-optimized, 1:1
    dict(sus=3, racks=1, rail=False, over="3:1"),           # 2 tiers, plain, oversubscribed leaves
    dict(sus=2, switch="sw8", tiers=3, rail=False),         # 3 tiers of 8-port switches, 1:1
    dict(sus=1, racks=2, switch="sw8", tiers=3, rail=False, over="3:1"),  # 3 tiers, 3:1 at leaf and spine
]


@pytest.mark.parametrize("kw", CASES, ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
def test_bisection_matches_min_cut(spec_tree, kw) -> None:
    """Closed-form bisection equals the max flow between the two halves of the endpoints (leaves in order, the leaf at
    the middle split), the definition docs/clusters.md states, and the least cut over every balanced split where the
    plane is small enough to try every switch's side. The 3-tier 3:1 case's pods hold 36 and 28 endpoints: it was
    checked against the cut between its pods (1,600 Gb/s), which splits 36/28, no bisection; its halves carry 3,200
    (pods34)."""
    fa = _fabric(spec_tree, **kw)
    shape, eps = fa.shape, fa.leaf_endpoints()
    closed = fa.bisection.m_as("Gbit/s") / fa.planes
    assert halves_flow(shape, eps) == pytest.approx(closed)
    if shape.leaves + shape.spines + shape.cores <= 20:
        assert least_bisection(shape, eps) == pytest.approx(closed)


def test_pods_of_36_and_28_are_not_halves(spec_tree) -> None:
    """The cut between the 3:1 case's pods is 1,600 Gb/s, below its bisection: it is no balanced split."""
    fa = _fabric(spec_tree, **CASES[3])
    shape, eps = fa.shape, fa.leaf_endpoints()
    assert (sum(eps[:shape.pod_leaves]), sum(eps[shape.pod_leaves:])) == (36, 28)
    g = topology.clos_graph(shape, eps, speed_gbps=400)
    assert topology.cut_capacity(g, range(shape.pod_leaves), range(shape.pod_leaves, shape.leaves)) == 1600
    assert fa.bisection.m_as("Gbit/s") / fa.planes == pytest.approx(3200)


@pytest.mark.parametrize("kw", CASES, ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
def test_hops_and_connectivity(spec_tree, kw) -> None:
    """The graph is connected, has no spine/core single point of failure, and its diameter is 2·tiers − 1."""
    fa = _fabric(spec_tree, **kw)
    g = topology.clos_graph(fa.shape, fa.leaf_endpoints())
    assert topology.connected(g)
    assert topology.single_points_of_failure(g) == []
    assert topology.max_switch_hops(g) == fa.hops


@pytest.mark.parametrize("kw", CASES, ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
def test_wiring_uses_every_uplink_within_radix(spec_tree, kw) -> None:
    """Every leaf sends exactly its uplinks, and no upper switch takes more links than its radix."""
    fa = _fabric(spec_tree, **kw)
    g = topology.clos_graph(fa.shape, fa.leaf_endpoints())
    leaf = fa.tier("leaf")
    for i in range(leaf.switches):
        ups = sum(d["links"] for n, d in g[("leaf", i)].items() if n[0] == "spine")
        assert ups == leaf.up
    for t in fa.tiers[1:]:
        for i in range(t.switches):
            assert sum(d["links"] for d in g[(t.name, i)].values()) <= t.radix


def test_single_spine_is_a_single_point_of_failure() -> None:
    """A 2-tier fabric with one spine has that spine as a single point of failure."""
    shape = topology.ClosShape(2, 3, 1, 0, 4, 1, 0, 0, 0)
    g = topology.clos_graph(shape, [4, 4, 4])
    assert topology.single_points_of_failure(g) == [("spine", 0)]


SHAPES = [topology.ClosShape(2, 3, 1, 0, 4, 1, 0, 0, 0), topology.ClosShape(2, 8, 4, 0, 8, 4, 0, 0, 0),
          topology.ClosShape(2, 1, 1, 0, 4, 1, 0, 0, 0), topology.ClosShape(3, 8, 8, 4, 2, 2, 4, 4, 2),
          topology.ClosShape(3, 8, 2, 2, 1, 1, 4, 4, 2), topology.ClosShape(3, 8, 2, 1, 1, 1, 4, 4, 4),
          topology.ClosShape(3, 4, 1, 1, 1, 1, 4, 4, 4), topology.ClosShape(3, 16, 8, 4, 4, 2, 8, 8, 4)]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"t{s.tiers}-l{s.leaves}-s{s.spines}-c{s.cores}")
def test_closed_form_single_points_match_the_graph(shape) -> None:
    """The closed form NET013 uses above 2,000 switches agrees with the graph's articulation points."""
    closed = topology.clos_single_points(shape)
    g = topology.clos_graph(shape, [4] * shape.leaves)
    if closed is not None:
        assert closed == topology.single_points_of_failure(g)


def test_one_pod_bisection_is_not_cut_at_the_cores(spec_tree) -> None:
    """3 tiers forced on 2 SUs: 4 rail leaves of 32 uplinks make one pod of 4 spines, tapered 3:1 (48 down, 16 up).
    Every spine reaches every leaf, so the halves of the leaves meet at the spines: the max flow between them is the
    leaves' 128 uplinks x 400G / 2 = 25.6 Tb/s, full bisection. Before, the spines' 64 core links cut it to half."""
    tree = files(sus=2, tiers=3)
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("spine: {rack: net}",
                                                            'spine: {rack: net, oversubscription: "3:1"}')
    fa = run([spec_tree(tree)]).clusters["cluster/c"].fabrics[0]
    shape = fa.shape
    assert (fa.pods, shape.leaves, fa.tier("spine").switches, fa.tier("spine").up) == (1, 4, 4, 16)
    g = topology.clos_graph(shape, fa.leaf_endpoints(), speed_gbps=400)
    cut = topology.cut_capacity(g, range(2), range(2, 4))
    assert cut == pytest.approx(fa.bisection.m_as("Gbit/s")) == pytest.approx(128 * 400 / 2)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"t{s.tiers}-l{s.leaves}-s{s.spines}-c{s.cores}")
@pytest.mark.parametrize("endpoints", ["all", "gaps"])
def test_plain_graph_algorithms_match_networkx(shape, endpoints) -> None:
    """NET013's neighbour sets (`clos_links`) hold `clos_graph`'s nodes and edges, and its articulation points and
    connectivity are networkx's, on every leaf with endpoints and with every third leaf empty (spare)."""
    import networkx as nx
    ends = [4] * shape.leaves if endpoints == "all" else [0 if i % 3 == 2 else 4 for i in range(shape.leaves)]
    g, links = topology.clos_graph(shape, ends), topology.clos_links(shape, ends)
    assert set(links) == set(g) and {frozenset(e) for e in g.edges} == {frozenset((a, b)) for a in links
                                                                       for b in links[a]}
    assert topology._articulation_points(links) == set(nx.articulation_points(g))
    groups = {v for v in g if v[0] == "ep"}
    by_nx = sorted(v for v in nx.articulation_points(g) if v[0] in ("spine", "core") and sum(
        1 for c in nx.connected_components(g.subgraph(u for u in g if u != v)) if c & groups) > 1)
    assert topology.single_points_of_failure(links) == topology.single_points_of_failure(g) == by_nx
    assert topology.connected(links) == (len(groups) < 2 or nx.node_connected_component(
        g, min(groups)) >= groups)


def test_articulation_points_of_a_path_and_a_cycle() -> None:
    """On a path a-b-c-d the inner nodes are articulation points; on a cycle none is (Hopcroft & Tarjan 1973)."""
    path = {"a": {"b"}, "b": {"a", "c"}, "c": {"b", "d"}, "d": {"c"}}
    cycle = {"a": {"b", "d"}, "b": {"a", "c"}, "c": {"b", "d"}, "d": {"c", "a"}}
    assert topology._articulation_points(path) == {"b", "c"}
    assert topology._articulation_points(cycle) == set()


def test_the_pods_the_tiers_count_are_those_the_shape_wires(spec_tree) -> None:
    """`analyse.upper_tiers` counts the pods with `topology.pod_leaves`, the rule the plane's wiring (`ClosShape`)
    and its bisection read: a 3-tier plane has ⌈leaves / pod leaves⌉ pods (review52: the tiers had a spelling of
    their own, apart from the one home at S = 0)."""
    planes = [_fabric(spec_tree, **kw) for kw in CASES if kw.get("tiers") == 3]
    assert len(planes) == 2
    for fa in planes:
        assert fa.pods == -(-fa.shape.leaves // fa.shape.pod_leaves)
