"""Unequal pods' bisection against networkx (review50, pods34): the least cut over balanced splits, not a lower bound.

Half the links of the narrowest tier is the bisection only where pods (and leaves) hold equal endpoints; where they do
not (a last pod or leaf part full, a pod with no endpoints), no balanced split of the endpoints cuts exactly half of
them: review50 showed that rule below the bisection (3 tiers of 8-port switches at 3:1, pods of 36 and 28 endpoints:
half the 4 spines' 8 core links is 1,600 Gb/s, every balanced split tried carries 3,200), and it can be above it too
(leaves of 48, 48 and 2: tests/test_bisection_exact.py). `analyse.bisection` now finds the least cut itself. The reference here is networkx's max flow across balanced splits of the endpoints (whole
pods, then a pod's leaves in order, the last leaf's endpoints split), the least over the splits tried, and where the
plane is small the brute force over every switch's side (`tests/clos_cuts.least_bisection`): both equal it.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import pytest

from archgen import topology
from archgen.pipeline import run
from tests.clos_cuts import least_bisection
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


@pytest.mark.parametrize("kw", [
    dict(sus=1, racks=2, over="1:1"),          # 4 pods of 16: equal
    dict(sus=1, racks=2, over="3:1"),          # pods of 36 and 28
    dict(sus=2, racks=2, over="3:1"),          # pods of 36, 36, 36, 20
    dict(sus=3, racks=1, over="3:1"),          # pods of 36, 36, 24
    dict(sus=1, racks=2, over="3:1", rail=True),   # rail groups: 64 ports on 16 leaves as wired, 6 and 2 a rail
], ids=["equal", "36-28", "36-36-36-20", "36-36-24", "rail-24-24-16"])
def test_bisection_is_the_least_balanced_split(spec_tree, kw) -> None:
    """Equal pods or not, the bisection is the least over the balanced splits tried, and over every split where small."""
    fa = run([spec_tree(files(switch="sw8", tiers=3, **{"rail": False, **kw}))]).clusters["cluster/c"].fabrics[0]
    assert fa.shape.tiers == 3 and fa.pods > 1
    closed = fa.bisection.m_as("Gbit/s") / fa.planes
    assert closed == pytest.approx(_balanced_least(fa.shape, fa.leaf_endpoints()))
    if fa.shape.leaves + fa.shape.spines + fa.shape.cores <= 20:
        assert closed == pytest.approx(least_bisection(fa.shape, fa.leaf_endpoints()))


def test_pods_of_36_and_28_by_hand(spec_tree) -> None:
    """2 pods of 2 spines at 3:1, 64 endpoints: half the 4 spines x 2 core links x 400G is 1,600 Gb/s, but no split
    of 32 and 32 cuts only that. The least keeps the cores with the pod of 28 and its spines, the pod of 36 with its
    spines on the other side (its 2 x 2 core links cut, 1,600) and moves 4 of its endpoints across (4 x 400 = 1,600;
    a leaf's 2 uplinks, 800, carry 6): 3,200 Gb/s."""
    fa = run([spec_tree(files(sus=1, racks=2, switch="sw8", tiers=3, rail=False, over="3:1"))]).clusters[
        "cluster/c"].fabrics[0]
    spine = fa.tier("spine")
    assert (fa.pods, spine.switches, spine.up) == (2, 4, 2)
    assert fa.bisection.m_as("Gbit/s") / fa.planes == pytest.approx(2 * 2 * SPEED + 4 * SPEED) == 3200
    assert _balanced_least(fa.shape, fa.leaf_endpoints()) == pytest.approx(3200)


@pytest.mark.parametrize(("need", "fails"), [(40, False), (50, False), (51, True)])
def test_a_bisection_requirement_is_judged_on_the_least_split(spec_tree, need, fails) -> None:
    """The pods of 36 and 28 carry 3,200 Gb/s over 64 GPUs, 50 Gb/s each: a requirement of 40 or 50 Gb/s is met.
    Half the core links, 25 Gb/s, failed both (NET006) though every balanced split carries 50; 51 still fails."""
    tree = files(sus=1, racks=2, switch="sw8", tiers=3, rail=False, over="3:1")
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace(
        '  oversubscription: "3:1"\n', f'  oversubscription: "3:1"\n  min_bisection_per_accelerator: {need} Gb/s\n')
    result = run([spec_tree(tree)])
    assert result.metrics["cluster/c/fabric/f"]["bisection_per_accelerator"].m_as("Gbit/s") == pytest.approx(50)
    found = [f.message for f in result.findings if f.id == "NET006"]
    assert bool(found) == fails, found
