"""Reference cuts of one small fat-tree plane, by graph: a brute force over every side of every switch, and max flow.

`least_bisection` is the bisection by its definition, the least cut over every balanced split of the endpoints:
for each side of each switch, an endpoint costs its link (`speed`) when it sits on the other side from its leaf,
so the balanced split a switch assignment allows costs the switch links it cuts plus |t − endpoints on A's leaves|
endpoint links, t = ⌊N/2⌋ or ⌈N/2⌉. Every assignment is tried (2^(switches − 1), numpy), so it serves planes of up
to about 20 switches. `halves_flow` is networkx's max flow between the halves of the endpoints in leaf order.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np

from archgen import topology


def least_bisection(shape: topology.ClosShape, eps: Sequence[int], speed: float = 400.0,
                    lost: tuple[tuple[str, int], ...] = ()) -> float:
    """The least cut (one direction) over every balanced split of the endpoints, switches `lost` taken out."""
    g = topology.clos_graph(shape, eps, speed_gbps=speed)
    switches = sorted((v for v in g.nodes if v[0] != "ep" and v not in lost), key=str)
    assert len(switches) <= 22, "the brute force tries 2^(switches - 1) assignments"
    index = {v: i for i, v in enumerate(switches)}
    sides = np.arange(1 << (len(switches) - 1), dtype=np.int64)   # the last switch sits on side B
    cost = np.zeros(sides.size)
    on_a = np.zeros(sides.size, dtype=np.int64)
    for u, v, data in g.edges(data=True):
        if u in index and v in index:
            cost += data["capacity"] * (((sides >> index[u]) ^ (sides >> index[v])) & 1)
    for i, e in enumerate(eps):
        if e and ("leaf", i) in index:
            on_a += e * ((sides >> index[("leaf", i)]) & 1)
    n = sum(eps)
    return min(float((cost + speed * np.abs(t - on_a)).min()) for t in {n // 2, n - n // 2})


def halves_flow(shape: topology.ClosShape, eps: Sequence[int], speed: float = 400.0) -> float:
    """Max flow from the first ⌊N/2⌋ endpoints (leaves in order, the leaf at the middle split) to the others."""
    g = topology.clos_graph(shape, eps, speed_gbps=speed)
    d = nx.DiGraph()
    for u, v, data in g.edges(data=True):
        if "ep" not in (u[0], v[0]):
            d.add_edge(u, v, capacity=data["capacity"])
            d.add_edge(v, u, capacity=data["capacity"])
    left = sum(eps) // 2
    for i, e in enumerate(eps):
        a = min(left, e)
        left -= a
        if a:
            d.add_edge("s", ("leaf", i), capacity=a * speed)
        if e - a:
            d.add_edge(("leaf", i), "t", capacity=(e - a) * speed)
    return float(nx.maximum_flow_value(d, "s", "t"))
