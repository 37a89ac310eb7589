"""NET013's single points of failure on a fat tree's switch graph, and NET027's core tier that carries no traffic.

`checks/network.py` registers both checks; this module holds what they find.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen import topology
from archgen.analyse.network import count, withheld_tiers
from archgen.checks.registry import Context, Violation
from archgen.display import kw

#: Graphs larger than this (switch vertices per plane) are not built for the failure check.
MAX_GRAPH_SWITCHES = 20_000
#: Above this many switches per plane the failure check uses the closed form instead of the graph.
MAX_CLOSED_FORM = 2_000


def single_points(ctx: Context) -> Iterator[Violation]:
    """NET013: the spine or core switches whose loss disconnects part of a fat tree (see the check's docstring)."""
    for c in ctx.clusters.values():
        for fa in c.fabrics:
            if fa.topology != "fat-tree":
                continue
            shape = fa.shape
            switches = shape.leaves + shape.spines + shape.cores
            if fa.tiers_used < 2 or switches > MAX_GRAPH_SWITCHES or not fa.buildable:
                continue                                 # an unbuildable fabric's graph says nothing (NET001/NET003)
            spof = topology.clos_single_points(shape) if switches > MAX_CLOSED_FORM and \
                not fa.tier("leaf").spare else None      # no spare leaf: every leaf holds endpoints
            if spof is None:
                g = topology.clos_links(shape, fa.leaf_endpoints())
                if not topology.connected(g):
                    yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.owner_path,
                                    "the fabric graph is not connected")
                    continue
                spof = topology.single_points_of_failure(g)
            if spof:
                names = ", ".join(f"{t} {i}" for t, i in spof[:5])
                yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.owner_path,
                                f"{len(spof)} switch(es) whose loss disconnects node groups: {names}",
                                count(len(spof)), count(0))


def idle_core(ctx: Context) -> Iterator[Violation]:
    """NET027: a 3-tier fat tree whose leaves all fit in one pod, so its core tier and spine-core links idle.

    In one pod every spine links every leaf, so any two leaves meet at a spine and no path climbs to a core (the
    bisection counts no spine-core cut for one pod: `analyse.fabric`). The finding gives the core switches, the
    spine-core links with their transceivers, and the power of both that the cluster's IT power counts. Not where an
    infeasible topology's errors withheld the wiring (`network.withheld_tiers`): its one pod is of leaves too few to
    hold the endpoints (NET018), and the cores it calls idle are the ones the leaves it needs would climb to.
    """
    for c in ctx.clusters.values():
        for fa in c.fabrics:
            core, spine = fa.tier("core"), fa.tier("spine")
            if fa.topology != "fat-tree" or fa.tiers_used != 3 or fa.pods != 1 or core is None or spine is None \
                    or core.switch is None or not core.switches or withheld_tiers(fa):   # one pod of too few leaves
                continue
            cores = core.switches * fa.planes
            links = next((t for t in c.cabling.tiers if t.fabric == fa.fabric.spec.id and t.tier == "spine_core"),
                         None) if c.cabling is not None else None
            switch_power = (core.switch.power.max * cores).to("kW")
            optics = links.optics_power.to("kW") if links is not None else 0 * switch_power
            wired = (f", {links.links:,} spine-core links with {links.transceivers:,} transceivers "
                     f"({kw(optics)})" if links is not None else "")
            leaves = fa.tier_at("leaf").switches
            per_plane = " per plane" if fa.planes > 1 else ""
            said = (f"3 tiers over one pod: its {leaves} leaves{per_plane} fit under the pod's spines "
                    f"({spine.down} leaf ports each), so every leaf reaches every other through a spine and the core "
                    f"tier carries no traffic: {cores:,} x {core.switch.id} ({kw(switch_power)}){wired}, "
                    f"{kw(switch_power + optics)} of IT power in all")
            yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.owner_path + ("tiers",),
                            f"{said}; `tiers: 2` joins these leaves through spines alone", count(fa.pods), count(2),
                            public=f"{said}; two tiers would join these leaves through spines alone")
