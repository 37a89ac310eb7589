"""Unequal pods' bisection against networkx (review50): the closed form never claims more than a balanced split.

`analyse.fabric._plane_cut` takes the least of half the node ports, half the used leaves' uplinks and (3 tiers, two
pods or more) half the spines' core links. Half the links is exact where pods (and leaves) hold equal endpoints;
where they do not (a last pod or leaf part full, a pod with no endpoints), no balanced split of the endpoints cuts
exactly half of them. The reference here is networkx's max flow across balanced splits of the endpoints (whole pods,
then a pod's leaves in order, the last leaf's endpoints split), the least over the splits tried. The closed form
must not exceed it (a bisection claims at least that much across every balanced split); where pods and leaves are
equal it equals it. Where they are not it is below it, a lower bound: 3 tiers of 8-port switches at 3:1, pods of
36 and 28 endpoints: half the 4 spines' 8 core links is 1,600 Gb/s, every balanced split tried carries 3,200 Gb/s.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import pytest

from archgen import topology
from archgen.pipeline import run
from tests.data.clusters.small import files

SPEED = 400.0


def _flow(g: nx.Graph, side_a: dict[int, int]) -> float:
    """Max flow from side A (`side_a[leaf]` endpoints of that leaf) to the other endpoints."""
    d = nx.DiGraph()
    for u, v, data in g.edges(data=True):
        if "ep" in (u[0], v[0]):
            ep, leaf = (u, v) if u[0] == "ep" else (v, u)
            a = side_a.get(ep[1], 0)
            if a:
                d.add_edge("s", leaf, capacity=a * SPEED)
            if data["links"] - a:
                d.add_edge(leaf, "t", capacity=(data["links"] - a) * SPEED)
        else:
            d.add_edge(u, v, capacity=data["capacity"])
            d.add_edge(v, u, capacity=data["capacity"])
    return float(nx.maximum_flow_value(d, "s", "t"))


def _balanced_least(shape: topology.ClosShape, eps: list[int]) -> float:
    """The least max flow over balanced splits: whole pods on side A, then the leaves of one more pod in order."""
    g = topology.clos_graph(shape, eps, speed_gbps=SPEED)
    half = sum(eps) // 2
    pods = [range(p, min(p + shape.pod_leaves, shape.leaves)) for p in range(0, shape.leaves, shape.pod_leaves)]
    best = math.inf
    for r in range(len(pods)):
        for whole in itertools.combinations(range(len(pods)), r):
            side = {i: eps[i] for p in whole for i in pods[p]}
            for q in (q for q in range(len(pods)) if q not in whole):
                share, need = dict(side), half - sum(side.values())
                for i in pods[q]:
                    share[i] = min(max(need, 0), eps[i])
                    need -= share[i]
                if sum(side.values()) <= half and need == 0:
                    best = min(best, _flow(g, share))
    return best


@pytest.mark.parametrize(("kw", "equal"), [
    (dict(sus=1, racks=2, over="1:1"), True),          # 4 pods of 16: equal
    (dict(sus=1, racks=2, over="3:1"), False),         # pods of 36 and 28
    (dict(sus=2, racks=2, over="3:1"), False),         # pods of 36, 36, 36, 20
    (dict(sus=3, racks=1, over="3:1"), False),         # pods of 36, 36, 24
    (dict(sus=1, racks=2, over="3:1", rail=True), False),   # pods of 36, 28 and an empty one
], ids=["equal", "36-28", "36-36-36-20", "36-36-24", "rail-36-28-0"])
def test_closed_form_bisection_is_at_most_every_balanced_split(spec_tree, kw, equal) -> None:
    fa = run([spec_tree(files(switch="sw8", tiers=3, **{"rail": False, **kw}))]).clusters["cluster/c"].fabrics[0]
    assert fa.shape.tiers == 3 and fa.pods > 1
    closed = fa.bisection.m_as("Gbit/s") / fa.planes
    least = _balanced_least(fa.shape, fa.leaf_endpoints())
    assert closed <= least + 1e-6
    assert (closed == pytest.approx(least)) == equal


def test_pods_of_36_and_28_by_hand(spec_tree) -> None:
    """2 pods of 2 spines at 3:1: 4 spines x 2 core links x 400G / 2 = 1,600 Gb/s; a balanced split carries 3,200."""
    fa = run([spec_tree(files(sus=1, racks=2, switch="sw8", tiers=3, rail=False, over="3:1"))]).clusters[
        "cluster/c"].fabrics[0]
    spine = fa.tier("spine")
    assert (fa.pods, spine.switches, spine.up) == (2, 4, 2)
    assert fa.bisection.m_as("Gbit/s") / fa.planes == pytest.approx(4 * 2 * SPEED / 2)
    assert _balanced_least(fa.shape, fa.leaf_endpoints()) == pytest.approx(3200)
