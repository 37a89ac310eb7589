"""Cluster network analyses: scale-up domains (`analyse.scale_up`), each fabric (`analyse.fabric`), network metrics.

The fat-tree formulas and their sources are in `archgen/analyse/fabric.py`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from archgen.analyse.fabric import FabricAnalysis, Problem, TierCount, analyse_fabric  # re-exported
from archgen.analyse.nodes import (  # re-exported
    NodeType,
    compute_node,
    count,
    nic_bandwidth,
    nic_ports,
    nic_transport,
    node_types,
)
from archgen.analyse.scale_up import ScaleUpAnalysis, analyse_scale_up  # re-exported
from archgen.analyse.topologies import analyse_topology
from archgen.build import ClusterDesign, Design
from archgen.model.cluster import Dragonfly, FatTree, Torus
from archgen.model.network import nic_split_of
from archgen.topology import INFEASIBLE, ScaleOutPath, TorusPath
from archgen.units import Q_, Q

if TYPE_CHECKING:   # above `network` in the layers (it holds `tier_cabling`'s types): for the annotation only
    from archgen.analyse.cabling_result import Cabling

__all__ = ["ClusterAnalysis", "FabricAnalysis", "NodeType", "Problem", "ScaleUpAnalysis", "TierCount",
           "analyse_cluster", "analyse_fabric", "analyse_scale_up", "compute_torus", "count", "fabric_metrics",
           "failed_node_takes", "infeasible", "nic_bandwidth", "nic_path", "nic_ports", "node_types", "scale_out_path",
           "spare_domain_nodes", "withheld_tiers"]


@dataclass(frozen=True)
class ClusterAnalysis:
    """Everything computed for one cluster (cabling and BOM are added by `archgen.analyse.cabling`)."""

    cluster: ClusterDesign
    nodes: tuple[NodeType, ...]
    node_count: int
    accelerators: int
    scale_up: ScaleUpAnalysis | None
    fabrics: tuple[FabricAnalysis, ...]
    problems: tuple[Problem, ...]
    metrics: dict[str, Q] = field(default_factory=dict)
    cabling: Cabling | None = None
    scale_out: ScaleOutPath | None = None
    typical_from_max: tuple[str, ...] = ()


def analyse_cluster(design: Design, cluster: ClusterDesign, racks: dict) -> ClusterAnalysis:
    """Closed-form network analysis of a cluster, with its totals as metrics."""
    nodes = node_types(cluster, design)
    accelerators = sum(nt.part.accelerators * nt.count for nt in nodes)
    node_count = sum(nt.count for nt in nodes if nt.part.accelerators)
    problems: list[Problem] = [Problem("NET014", path, str(msg), public=getattr(msg, "public", ""))
                               for path, msg in cluster.problems]   # a `Worded` each, with the customer's words
    if cluster.too_large:
        problems.append(Problem("NET015", ("layout",), f"{cluster.rack_total} racks exceed the {_max_racks()} a "
                                "cluster is expanded into; counts are derived, cable lengths are not",
                                count(cluster.rack_total), count(_max_racks())))
    scale_up = analyse_scale_up(design, cluster, nodes, accelerators)
    if scale_up is not None and cluster.spec.scale_up and accelerators % cluster.spec.scale_up.size:
        problems.append(Problem("NET010", ("scale_up", "size"),
                                f"{accelerators} accelerators are not a whole number of {cluster.spec.scale_up.size}-"
                                "accelerator domains", count(accelerators), None))
    fabrics = tuple(analyse_fabric(design, cluster, f, nodes, accelerators) if f.spec.topology == "fat-tree"
                    else analyse_topology(design, cluster, f, nodes, accelerators) for f in cluster.fabrics)
    it_power = typical = cooling = Q_(0, "kW")
    for rid, n in cluster.rack_counts.items():
        a = racks.get(f"rack/{rid}")
        if a is not None:
            it_power = it_power + a.power.equipment * n  # switch-end optics are counted once, by the cabling
            typical = typical + a.power.equipment_typical * n
            cooling = cooling + a.power.other_power * n  # in-rack CDUs: on the rack feeds, not IT (`rack_load`)
    metrics: dict[str, Q] = {
        "accelerators": count(accelerators), "nodes": count(node_count), "racks": count(cluster.rack_total),
        "it_power_racks": it_power.to("kW"), "it_power_typical_racks": typical.to("kW"),
    }
    if cooling.m:
        metrics["rack_cooling_power"] = cooling.to("kW")
    metrics |= hall_draws(cluster, racks)
    for rid, n in sorted(cluster.rack_counts.items()):
        metrics[f"racks.{rid}"] = count(n)
    if scale_up is not None:
        metrics["scale_up.domains"] = count(scale_up.domains)
        metrics["scale_up.links_per_accelerator"] = count(scale_up.links_per_accelerator)
        metrics["scale_up.bandwidth"] = scale_up.bandwidth_total
        if (su := cluster.spec.scale_up) is not None:   # what a requirement on the domain's shape reads (`gap`)
            metrics["scale_up.size"] = count(su.size)
            metrics["scale_up.switch_hops"] = count(0 if su.topology in ("mesh", "torus") else   # a pod: one stage
                                                    2 if su.racks > 1 and su.switch_rack is None else 1)
        if cluster.spec.scale_up and cluster.spec.scale_up.topology == "torus":   # each link once, every domain
            metrics |= {f"scale_up.{k}": count(n * scale_up.domains) for k, n in (
                ("links", scale_up.links_needed), ("board_links", scale_up.board_links), ("cables", scale_up.cables))}
        if scale_up.trunk_links:
            metrics["scale_up.trunk_links"] = count(scale_up.trunk_links * scale_up.domains)
    for fa in fabrics:
        fa.metrics.update(fabric_metrics(fa))
    i = cluster.spec.compute_fabric_index()   # `fabrics` in the spec's order (`build.clusters`)
    compute_fabric = fabrics[i] if i is not None else None
    domain = cluster.spec.scale_up.size if cluster.spec.scale_up else 0
    scale_out = scale_out_path(compute_fabric, nodes, domain) if compute_fabric else nic_path(design, nodes)
    if compute_fabric is not None and compute_fabric.topology == "torus":
        scale_out = torus_path(compute_fabric)
    elif scale_out is not None and (compute := compute_node(nodes)) is not None:   # the transport the NICs run
        spec = compute_fabric.fabric.spec if compute_fabric else None
        latency, transport = nic_transport(design, compute.part, (spec.nic_role or spec.role) if spec else "compute")
        scale_out = replace(scale_out, latency=latency, transport=transport)
    if scale_out is not None and compute_fabric is not None and \
            (why := infeasible(compute_fabric, "whose topology")[1]):   # its tiers count ports their switches lack
        scale_out = replace(scale_out, withheld=f"its traffic between scale-up domains runs on fabric "
                            f"{compute_fabric.fabric.spec.id}, {why}",
                            withheld_by=compute_fabric.fabric.path)
    return ClusterAnalysis(cluster, nodes, node_count, accelerators, scale_up, fabrics, tuple(problems), metrics,
                           scale_out=scale_out)


def scale_out_path(fa: FabricAnalysis, nodes: tuple[NodeType, ...], domain: int) -> ScaleOutPath | None:
    """What traffic between scale-up domains of `domain` accelerators (0: one node each) meets on fabric `fa`.

    Bandwidth per accelerator: the compute node's ports on the fabric at the fabric rate, over its accelerators.
    Taper and non-blocking pod: a tapered leaf tier leaves a flow non-blocking only under one leaf (a rail-optimized
    leaf reaches its rail of every domain in its group; a plain leaf, the nodes wired to it); a tapered spine tier
    of a 3-tier fabric, only inside one pod (a full pod's accelerators, not the average over pods, which a partly
    filled last pod lowers: Meta's 24K with 7.5 pods, 3,072, not 2,880; spine31); rail-optimized, the whole rail
    groups whose leaves lie in one pod, at least one group (rail-aligned traffic stays on a group's rail leaves and
    crosses the core between groups whose rail-r leaves sit in different pods: 4-leaf groups in pods of 10 leaves
    are 2 groups, not 10/28 of the accelerators; review49). When both taper, a flow leaving
    the leaf is charged their product, which is exact above the pod and pessimistic between leaf and pod. A dragonfly
    is non-blocking inside a group and tapered by its global links, a·p / (g·m) under uniform traffic (Kim et al.
    2008); a rail-only fabric carries rail-aligned traffic (NCCL's rings) like a rail-optimized fat tree, and nothing
    between rails.
    """
    compute = compute_node(nodes)
    ppn = fa.ports_per_node.get(compute.part.id, 0) if compute else 0
    if compute is None or not ppn or not compute.part.accelerators:
        return None
    per_node = compute.part.accelerators
    if fa.topology == "dragonfly":  # non-blocking inside a group; its global links taper what leaves it
        spec = fa.fabric.spec
        assert isinstance(spec, Dragonfly)
        taper = max(1.0, fa.oversubscription.get("global", 1.0))
        pod = spec.group_size * spec.terminals // ppn * per_node if taper > 1.0 else 0
        return ScaleOutPath((ppn * spec.speed / per_node).to("Gbit/s"), taper, pod, fa.tiers_used)
    leaf_taper, spine_taper = (max(1.0, fa.oversubscription.get(t, 1.0)) for t in ("leaf", "spine"))
    if leaf_taper > 1.0:
        down = fa.tier_at("leaf").down
        if fa.topology == "rail-only":   # a rail leaf holds its rail of `down` scale-up domains
            pod = down * (domain or per_node)
        elif isinstance(fa.fabric.spec, FatTree) and fa.fabric.spec.rail_optimized and fa.group_domains:
            pod = min(fa.group_domains, down) * (domain or per_node)
        else:
            pod = down // max(ppn // fa.planes, 1) * per_node
    elif spine_taper > 1.0 and fa.pods and _rail_groups(fa):   # whole rail groups of one pod (at least one)
        groups = min(max(fa.shape.pod_leaves // fa.leaves_per_group, 1), fa.groups)
        pod = min(groups * fa.group_domains * (domain or per_node), fa.accelerators)
    elif spine_taper > 1.0 and fa.pods:   # a full pod's: P of the used leaves, each holding its share alike
        used = fa.tier_at("leaf").used_switches
        pod = fa.accelerators * min(fa.shape.pod_leaves, used) // used if used else fa.accelerators // fa.pods
    else:
        pod = 0
    sharp = bool(fa.tiers) and all(t.switch is not None and t.switch.in_network_reduction for t in fa.tiers)
    return ScaleOutPath((ppn * fa.fabric.spec.speed / per_node).to("Gbit/s"), leaf_taper * spine_taper, pod,
                        fa.tiers_used, sharp, planes=min(fa.planes, nic_split_of(fa.fabric.spec)))


def torus_path(fa: FabricAnalysis) -> TorusPath:
    """The torus as the performance model sees it: every chip's links at the fabric rate, no taper."""
    spec = fa.fabric.spec
    assert isinstance(spec, Torus), "torus_path reads a torus"
    link = (spec.speed * spec.links_per_neighbour).to("Gbit/s")
    per_chip = (fa.injection / max(fa.endpoint_ports, 1)).to("Gbit/s")
    cube = tuple(spec.ocs.cube) if spec.ocs is not None and spec.wraparound else ()
    return TorusPath(per_chip, 1.0, 0, 0, dims=tuple(spec.dims), link=link, wraparound=spec.wraparound, cube=cube)


def nic_path(design: Design, nodes: tuple[NodeType, ...]) -> ScaleOutPath | None:
    """Without a compute fabric: the compute node's compute-NIC line rate over its accelerators, non-blocking."""
    compute = compute_node(nodes)
    if compute is None or not compute.part.accelerators:
        return None
    bw = (nic_bandwidth(design, compute.part, "compute") / compute.part.accelerators).to("Gbit/s")
    return ScaleOutPath(bw, 1.0, 0, 0, assumed=True) if bw.magnitude > 0 else None


def _max_racks() -> int:
    from archgen.build import MAX_RACKS
    return MAX_RACKS


#: A fabric's figures out of the cluster (`north_south`): not provided, with why, where it states no way out.
NORTH_SOUTH = ("north_south_bandwidth", "north_south_oversubscription")


def compute_torus(a: ClusterAnalysis) -> Torus | None:
    """The torus a cluster's jobs run on (its compute fabric, else a converged one), or None."""
    i = a.cluster.spec.compute_fabric_index()
    fabric = a.cluster.spec.fabrics[i] if i is not None else None
    return fabric if isinstance(fabric, Torus) else None


def failed_node_takes(a: ClusterAnalysis, per_node: int) -> int:
    """Nodes a failed node takes out of its job: the failure-domain table's unit and the unit hot spares come in.

    One node, except in a torus through OCSes, which is re-formed cube by cube: a failed tray's cube leaves the slice
    and the OCSes join an idle cube in its place (TPU v4: 4x4x4 chips, 16 trays of 4; Jouppi et al., ISCA 2023,
    section 2; Zu et al., "Resiliency at Scale: Managing Google's TPUv4 Machine Learning Supercomputer", NSDI 2024:
    OCS reconfiguration routes around machine failures).
    """
    torus = compute_torus(a)
    if torus is not None and torus.ocs is not None and per_node:
        return max(math.prod(torus.ocs.cube) // per_node, 1)
    return 1


def spare_domain_nodes(a: ClusterAnalysis, per_node: int) -> int:
    """Nodes that a failed node takes out with it: the unit a hot spare must come in (1: any idle node).

    A scale-up domain of several nodes (an NVL72 rack of 18 trays) is spared by an idle tray inside it or a whole
    idle domain; a torus through OCSes by a whole idle cube (`failed_node_takes`).
    """
    su = a.cluster.spec.scale_up
    if su is not None and per_node and su.size > per_node:
        return su.size // per_node
    return failed_node_takes(a, per_node)


def wired_rails(fa: FabricAnalysis) -> int | None:
    """The rails a fabric wires (rail-optimized fat tree, rail-only), or None: a plain fabric has none to count."""
    rails = fa.topology == "rail-only" or bool(getattr(fa.fabric.spec, "rail_optimized", False))
    return fa.rails if rails else None


def north_south(fa: FabricAnalysis) -> tuple[dict[str, Q], dict[str, str]]:
    """A fabric's bandwidth out of the cluster and its node ports' bandwidth over it; why each is not provided.

    The north-south ports are the `reserved` entries marked `north_south` (links to the site core). Each port counts
    at the rate it runs at: a node port at the fabric's `speed` (a slower NIC port is NET016, a faster one runs at
    it: NET026), a reserved port at it too, being a leaf access port. The ratio is bandwidth over bandwidth, and is
    not provided where the fabric attaches no node ports (review43: a count ratio read 0 there, which met any `<=`
    target) or states no north-south ports; the second dict gives why, by metric (`Operations.withheld`).
    """
    spec = fa.fabric.spec
    north = sum(r.ports for r in spec.reserved if r.north_south)
    if not north:
        why = (f"fabric {spec.id} marks no `reserved` ports `north_south`, so its links out of the cluster are not "
               "stated")
        return {}, dict.fromkeys(NORTH_SOUTH, why)
    out = (spec.speed * north).to("Gbit/s")
    if not fa.node_ports:
        return {"north_south_bandwidth": out}, {"north_south_oversubscription": (
            f"fabric {spec.id} attaches no node ports (`endpoints.nodes` false, or no node with NIC ports of its "
            f"role), so no node bandwidth is weighed against its {north:,} north-south port(s)")}
    nodes = (spec.speed * fa.node_ports).to("Gbit/s")
    return {"north_south_bandwidth": out, "north_south_oversubscription": count(float((nodes / out).to("")))}, {}


def infeasible(fa: FabricAnalysis, topology: str = "") -> tuple[tuple[str, ...], str]:
    """The figures of fabric `fa` that its `INFEASIBLE` errors make meaningless, and why; ((), "") where it has none.

    They are the wiring of the tiers those errors name (a tier's fixed count: that tier; NET003: the top tier, whose
    ports per plane fall short; NET001: the tier short of ports, `Problem.tier` where the path names none) and every
    tier above them, or of every tier where none is named: their ports used and free, breakout cages,
    oversubscription as used (the ports used over the up ports), the links into them, what a switch of theirs lost
    takes away, and the bisection, which their links carry (72 links counted on 64 ports, newuser101).
    The tiers' switch counts and radix, the spec's or derived, stay. `Operations.withheld` gives the reason, which
    opens "the topology of fabric f", or `topology` where the caller has named the fabric ("whose topology").
    """
    checks = sorted({p.check for p in fa.problems if p.check in INFEASIBLE})
    if not checks:
        return (), ""
    order = [t.name for t in fa.tiers]
    named = [i for i, name in enumerate(order)
             if any(name == p.tier or name in p.path for p in fa.problems if p.check in checks)]
    tiers = order[min(named, default=0):]
    links = [name for name in fa.links if any(t in name.split("_") for t in tiers)]
    wiring = tuple(f"{t}.{k}" for t in tiers for k in ("ports_used", "ports_free", "max_ports_used_per_switch",
                                                          "breakout_cages", "oversubscription"))
    names = tuple(n for n in fa.metrics if n in wiring or n.startswith(tuple(f"failure.{t}." for t in tiers))
                  or n.startswith(tuple(f"links.{k}" for k in links)) or "bisection" in n.split(".")[-1])
    if not names:
        return (), ""
    said = topology or f"the topology of fabric {fa.fabric.spec.id}"
    return names, (f"{said} is infeasible ({', '.join(checks)}): its figures of tier(s) {', '.join(tiers)} would "
                   "count links on ports its switches do not have")


def withheld_tiers(fa: FabricAnalysis) -> list[str]:
    """The tiers of fabric `fa` whose wiring `infeasible` withheld: their `<tier>.ports_used` is gone from its metrics.

    `operations_stage` pops them, so this reads them once it has run (the documents' cells, NET027, NET031), not the
    raw counts and ratios, which stay on `fa`. The bisection is withheld with them; its readers test its metric.
    """
    return [t.name for t in fa.tiers if f"{t.name}.ports_used" not in fa.metrics]


def fabric_metrics(fa: FabricAnalysis) -> dict[str, Q]:
    """The fabric's figures as named quantities (counts are totals over planes)."""
    p = fa.planes
    m: dict[str, Q] = {
        "tiers": count(fa.tiers_used), "planes": count(p),
        "endpoint_ports": count(fa.endpoint_ports), "reserved_ports": count(fa.reserved_ports),
        "injection_bandwidth": fa.injection, "bisection_bandwidth": fa.bisection, "hops_max": count(fa.hops),
        "max_endpoints": count(fa.max_endpoints), "max_accelerators": count(fa.max_accelerators),
    }
    if wired_rails(fa):
        m["rails"] = count(fa.rails)
    m |= north_south(fa)[0]
    if fa.served:
        m["injection_per_accelerator"] = (fa.injection / fa.served).to("Gbit/s")
        m["bisection_per_accelerator"] = (fa.bisection / fa.served).to("Gbit/s")
    unlinked = fa.links.get("access", 0) * p - fa.level_links("access") if "access" in fa.links else 0
    for t in fa.tiers:   # the leaves' down ports of each plane's rounded-up share of ports at no node: unlinked
        cut = unlinked if t.name == "leaf" else 0
        m[f"{t.name}.switches"] = count(t.switches * p)
        m[f"{t.name}.ports_used"] = count(t.ports_used * p - cut)
        m[f"{t.name}.ports_free"] = count(max(t.ports_total - t.ports_used, 0) * p + cut)
        m[f"{t.name}.max_ports_used_per_switch"] = count(t.max_used_per_switch)
        m[f"{t.name}.radix"] = count(t.radix)
        if t.spare:
            m[f"{t.name}.spare_switches"] = count(t.spare * p)
        if t.breakout > 1:   # physical ports in use: down ports split `breakout` ways, uplinks `up_split` ways
            m[f"{t.name}.breakout"] = count(t.breakout)
            m[f"{t.name}.breakout_cages"] = count((math.ceil(t.down_used / t.breakout) +
                                                   math.ceil(t.up_used / t.up_split)) * p)
    for name in fa.links:
        m[f"links.{name}"] = count(fa.level_links(name))
    for name, ratio in fa.oversubscription.items():
        m[f"{name}.oversubscription"] = count(ratio)
    m.update(fa.failure)
    m.update(fa.figures)
    return m


def hall_draws(cluster: ClusterDesign, racks: dict) -> dict[str, Q]:
    """On a floor of halls, each hall's racks' own draw at their feeds (`hall_power.<hall>`) and the largest.

    A hall's racks at their maximum with their in-rack cooling units, as `it_power_racks` and `rack_cooling_power`
    count them over every hall: the optics no system's figure holds, the switches in no rack, the storage and the
    power shelves' loss are the cluster's, not split by hall (`checks.site.hall_facilities` says so).
    """
    halls = cluster.spec.floor.halls
    if not halls or not cluster.instances:
        return {}
    draw: dict[int, Q] = {}
    for i in cluster.instances:
        a = racks.get(f"rack/{i.rack.spec.id}")
        own = a.power.equipment + a.power.other_power if a is not None else Q_(0, "kW")
        draw[i.hall] = draw.get(i.hall, Q_(0, "kW")) + own
    out = {f"hall_power.{halls[k].id}": draw[k].to("kW") for k in sorted(draw)}
    return out | {"hall_power_max": max(out.values())}


def _rail_groups(fa: FabricAnalysis) -> bool:
    """Whether a fat tree's leaves are taken by rail groups, each domain of a group on each of its rail leaves."""
    spec = fa.fabric.spec
    return (isinstance(spec, FatTree) and spec.rail_optimized and bool(fa.group_domains and fa.leaves_per_group
                                                                         and fa.groups)
            and fa.group_domains <= fa.tier_at("leaf").down)
