"""Closed forms of the torus, dragonfly and rail-only fabrics agree with networkx on small instances.

Each figure of `archgen.analyse.topologies` (links, links per chip or router, diameter, bisection) is recomputed on
the explicit graph of `archgen.topology` (edges counted, BFS diameter, max-flow between the two halves), as
tests/test_topology.py does for the fat tree. Sources of the closed forms: Kim, Dally, Scott, Abts, ISCA 2008
(dragonfly); Jouppi et al., ISCA 2023 (TPU v4 torus and OCS); Wang et al., arXiv 2307.12169, 2023 (rail-only).
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from archgen.analyse.topologies import dragonfly_figures, ocs_figures, rail_only_figures, torus_figures
from archgen.topology import cut_capacity, dragonfly_graph, max_hops, rail_only_graph, torus_graph

TORI = [([4, 4], True), ([4, 4, 4], True), ([2, 4, 6], True), ([8, 2], True), ([6, 4], True), ([4, 6], False),
        ([4, 4, 8], True), ([3, 4], True)]


@pytest.mark.parametrize(("dims", "wrap"), TORI, ids=lambda v: str(v))
def test_torus_closed_forms_match_the_graph(dims: list[int], wrap: bool) -> None:
    """Links, links per chip, diameter and the cut across the largest dimension."""
    f, g = torus_figures(dims, wrap), torus_graph(dims, wrap)
    assert f["chips"] == g.number_of_nodes()
    assert f["links"] == g.number_of_edges()
    assert f["degree"] == max(d for _, d in g.degree())
    assert f["diameter"] == nx.diameter(g)
    axis = dims.index(max(dims))
    coords = np.array(np.unravel_index(np.arange(f["chips"]), tuple(dims))).T
    half = coords[:, axis] < max(dims) // 2
    assert f["bisection_links"] == cut_capacity(g, np.flatnonzero(half).tolist(), np.flatnonzero(~half).tolist())


def test_tpu_v4_ocs_counts() -> None:
    """TPU v4: 64 cubes of 4x4x4 make a 16x16x16 torus through 48 OCSes, 128 ports each, 6,144 fibres (Jouppi et
    al. 2023: 4,096 chips, 64 racks, 48 optical circuit switches; HPCwire, 10 Apr 2023)."""
    o = ocs_figures([16, 16, 16], [4, 4, 4])
    assert (o["cubes"], o["ocs"], o["ocs_ports"], o["fibres"]) == (64, 48, 128, 6144)
    # the links that cross a cube face are those the OCSes carry: count them on the graph
    coords = np.array(np.unravel_index(np.arange(4096), (16, 16, 16))).T
    cube = [tuple(c // 4) for c in coords]
    g = torus_graph([16, 16, 16])
    assert sum(1 for (_, u), (_, v) in g.edges if cube[u] != cube[v]) == o["crossing"] == 3072


DRAGONFLIES = [(4, 2, 2, 9), (4, 2, 2, 5), (2, 1, 1, 3), (6, 3, 3, 10), (4, 2, 2, 2), (8, 4, 4, 33)]


@pytest.mark.parametrize(("a", "p", "h", "groups"), DRAGONFLIES, ids=lambda v: str(v))
def test_dragonfly_closed_forms_match_the_graph(a: int, p: int, h: int, groups: int) -> None:
    """Routers, local and global links, ports per router, routers on the longest path, and the group-halves cut."""
    f, g = dragonfly_figures(a, p, h, groups), dragonfly_graph(a, p, h, groups)
    routers = [v for v in g if v[0] == "router"]
    inter = [(u, v, d["links"]) for u, v, d in g.edges(data=True) if u[0] == v[0] == "router"]
    assert f["routers"] == len(routers)
    assert f["local"] == sum(n for u, v, n in inter if u[1] // a == v[1] // a)
    assert f["global"] == sum(n for u, v, n in inter if u[1] // a != v[1] // a)
    assert max(sum(d["links"] for *_, d in g.edges(r, data=True)) for r in routers) <= p + (a - 1) + h
    assert f["routers_on_path"] == max_hops(g)
    side = [r for r in range(a * groups) if r // a < groups // 2]
    other = [r for r in range(a * groups) if r // a >= groups // 2]
    assert min(f["bisection_links"], len(side) * p) == cut_capacity(g, side, other)


def test_balanced_dragonfly_maximum() -> None:
    """Kim et al.: a = 2p = 2h and g = a·h + 1 give one global link per group pair and N = a·p·(a·h + 1)."""
    f = dragonfly_figures(8, 4, 4, 33)
    assert f["pair_links"] == 1 and f["terminals"] == f["max_terminals"] == 8 * 4 * 33


@pytest.mark.parametrize(("domains", "rails", "k", "over"), [(8, 4, 8, 1.0), (16, 2, 8, 1.0), (12, 3, 8, 3.0),
                                                          (32, 8, 16, 1.0)])
def test_rail_only_closed_forms_match_the_graph(domains: int, rails: int, k: int, over: float) -> None:
    """Per-rail trees: switches, links, switch hops between domains, and the domain-halves cut over all rails."""
    f = rail_only_figures(domains, rails, k, k, over)
    g = rail_only_graph(domains, rails, [(f["leaves"], f["spines"], f["up"])] * rails)
    assert sum(1 for v in g if v[0] == "leaf") == rails * f["leaves"]
    assert sum(1 for v in g if v[0] == "spine") == rails * f["spines"]
    assert sum(d["links"] for u, v, d in g.edges(data=True) if u[0] == "ep" or v[0] == "ep") == rails * domains
    assert max_hops(g) == 2 * f["tiers"] - 1
    cut = rails * (min(domains / 2, f["leaves"] * f["up"] / 2) if f["tiers"] == 2 else domains / 2)
    assert cut == cut_capacity(g, list(range(domains // 2)), list(range(domains // 2, domains)))
    # no switch joins two rails: remove the domains and every rail is its own component
    rails_only = g.subgraph(v for v in g if v[0] != "ep")
    assert nx.number_connected_components(rails_only) == rails


def test_rail_only_with_a_leaf_part_full() -> None:
    """98 domains a rail on 64-port 3:1 leaves (48 down, 16 up) fill 48, 48 and 2: the halves of the domains cross
    one leaf of 48 (16 uplinks) and one domain (1 link), 17 links a rail, not half the 48 uplinks (pods34); the brute
    force over every switch's side of one rail agrees."""
    from archgen.analyse.bisection import fat_tree_pods, least_balanced_cut
    from archgen.topology import ClosShape
    from tests.clos_cuts import least_bisection

    f = rail_only_figures(98, 4, 64, 64, 3.0)
    assert (f["leaves"], f["down"], f["up"], f["spines"]) == (3, 48, 16, 2)
    one = least_balanced_cut(fat_tree_pods(98, f["leaves"], f["down"], f["up"], f["leaves"], 0.0), 1.0)
    assert one == 17 < min(98 / 2, 3 * 16 / 2)
    assert least_bisection(ClosShape(2, 3, 2, 0, 16, 2, 0, 0, 0), [48, 48, 2], 1.0) == 17
