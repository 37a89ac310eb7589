"""Folded-Clos fat-tree fabrics in closed form: endpoints, rails, tiers, switch counts, bandwidth, failure domains.

Every count comes from a formula over the spec's counts, never from enumerating nodes, so a 100k-accelerator
cluster costs the same as a small one. Formulas (k = switch radix at the fabric's line rate, d/u = leaf down/up
ports, o = down:up oversubscription):

* tier split (leaf and spine, one rule, `archgen.analyse.tiers.split`): u = ⌊k / (1 + o)⌋, d = k − u (1:1 on
  a 64-port switch → 32/32), unless the tier fixes `up` ports or `uplinks`, or fixes `down` alone (u = ⌊d/o⌋
  beside them); the top tier has no up ports.
* rail-optimized leaves per group of G scale-up domains and R rails: G ≤ d → ⌈R / ⌊d/G⌋⌉, else R·⌈G/d⌉
  (NVIDIA DGX SuperPOD: one leaf per rail per 32-node SU). A fixed `leaf.count` below that is an error; above it,
  the extra leaves are spares: placed, powered and uplinked (the spines take their uplinks), with no endpoints,
  so they count in switches, ports, links and power but not in oversubscription, bisection or failure shares.
* 2 tiers: spines S = the smallest divisor of u with S ≥ ⌈L·u / k_spine⌉, so every leaf spreads its uplinks evenly
  (NVIDIA's 3-SU row has 16 spines, not 12, because 32 uplinks do not divide by 12). Largest size L ≤ k_spine,
  k·d endpoints = k²/2 at 1:1.
* 3 tiers: pods of S spines (the fewest dividing u that take a pod's uplinks: u for full pods, one link per
  leaf-spine pair) and P = d_spine / (u/S) leaves (d_spine from the spine's own split); cores in S groups, each
  core taking l = ⌊k_core / pods⌋ links from its spine in every pod (or the l a fixed `core.count` gives).
  Largest size k_core·P·d = k³/4 at 1:1.
* bisection (one direction) = the least cut over the balanced splits of the endpoints (`archgen.analyse.bisection`):
  min over the tiers of half the capacity entering that tier (the cores only with two pods or more) where pods and
  leaves hold equal endpoints, found from the pods and leaves where a last one is part full; hops = 2·tiers − 1.

The tiers of one plane are sized in `archgen.analyse.tiers`; this module adds endpoints, rails, bandwidth and
failure domains.

Sources: C. Leiserson, "Fat-trees", IEEE Trans. Computers C-34(10), 1985; M. Al-Fares et al., "A scalable,
commodity data center network architecture", SIGCOMM 2008 (k³/4 hosts of a 3-tier fat tree of k-port switches);
NVIDIA DGX SuperPOD B200 RA, "DGX SuperPOD Architecture" and "Network Fabrics" (rail-optimized SUs, UFM ports).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from archgen.analyse.bisection import fat_tree_pods, least_balanced_cut
from archgen.analyse.fabric_nodes import node_management_ports, node_ports
from archgen.analyse.leaf_loads import filled, leaf_loads
from archgen.analyse.nodes import NodeType, compute_node, count
from archgen.analyse.ports import Problem
from archgen.analyse.rack_ports import (
    cdu_ports,
    device_ports,
    rack_groups,
    rack_leaf_problems,
    unstated_cdus,
    unstated_power_parts,
)
from archgen.analyse.tier_problems import radix_problems, top_tier_ports, unbuilt_counts
from archgen.analyse.tiers import PlaneDemand, TierCount, leaf_tier
from archgen.analyse.upper_tiers import Upper, fullest_pod, spine_core_tiers, spine_tier
from archgen.build import BoundFabric, ClusterDesign, Design
from archgen.errors import InternalError
from archgen.model.cluster import FatTree, RailOnly
from archgen.topology import ClosShape, pod_leaves
from archgen.units import Q

__all__ = ["FabricAnalysis", "Problem", "TierCount", "analyse_fabric"]


@dataclass(frozen=True)
class FabricAnalysis:
    """Closed-form figures of one fabric (per plane where noted, and totals over planes)."""

    fabric: BoundFabric
    tiers_used: int
    planes: int
    ports_per_node: dict[str, int]
    node_ports: int
    endpoint_ports: int
    reserved_ports: int
    rails: int
    rails_per_leaf: int
    group: str
    group_domains: int
    groups: int
    leaves_per_group: int
    pods: int
    spines_per_pod: int
    core_links_per_spine_pair: int
    tiers: tuple[TierCount, ...]
    links: dict[str, int]
    injection: Q
    bisection: Q
    oversubscription: dict[str, float]
    hops: int
    max_endpoints: int
    max_accelerators: int
    accelerators: int
    failure: dict[str, Q]
    problems: tuple[Problem, ...]
    metrics: dict[str, Q] = field(default_factory=dict)
    topology: str = "fat-tree"
    figures: dict[str, Q] = field(default_factory=dict)
    #: Of `endpoint_ports`, the compute nodes' management ports (`endpoints.node_management`), placed at the nodes.
    node_mgmt_ports: int = 0
    #: Of `endpoint_ports`, the power shelves' and PDUs' management ports (`endpoints.power`).
    power_mgmt_ports: int = 0
    #: Power shelves and PDUs on `endpoints.power` whose part states no `management_ports`: none counted (NET032).
    power_mgmt_unstated: int = 0
    #: Of `endpoint_ports`, the CDUs' management ports (`endpoints.cooling`): in-rack CDUs' and in-row CDUs'.
    cdu_mgmt_ports: int = 0
    #: CDUs on `endpoints.cooling` whose part states no `management_ports`: none counted (NET032).
    cdu_mgmt_unstated: int = 0
    #: Access links over all planes, where ports at no node (reserved, extra) do not split evenly; else None.
    access_total: int | None = None
    #: Access ports on each leaf of one plane (`leaf_endpoints`): a rail plane's as wired (`analyse.leaf_loads`).
    leaf_loads: tuple[int, ...] = ()
    #: Why a rail plane's bisection is the even share's over leaves wired otherwise (NET034), or '' where it is not.
    even_share: str = ""
    #: Spines of a pod whose core links go to one core group (`analyse.upper_tiers._cores`; `ClosShape.core_group`).
    core_group: int = 1

    def level_links(self, name: str) -> int:
        """Links at level `name` over all planes: each plane's, but the stated access ports once (3 over 2 planes)."""
        if name == "access" and self.access_total is not None:
            return self.access_total
        return self.links[name] * self.planes

    def tier(self, name: str) -> TierCount | None:
        """The tier named `name`, if the fabric has it."""
        return next((t for t in self.tiers if t.name == name), None)

    def tier_at(self, name: str) -> TierCount:
        """The tier named `name`, which the fabric must have (every fat tree has a leaf tier)."""
        t = self.tier(name)
        if t is None:
            raise InternalError(f"fabric '{self.fabric.spec.id}' has no {name} tier")
        return t

    @property
    def served(self) -> int:
        """Accelerators its injection and bisection are over: a torus slice's chips, else all the cluster's.

        A torus through OCSes may be a slice of a larger pod (`ocs.cubes`, TPU v5p: a 16x16x24 slice of 8,960 chips):
        its figures are one slice's, so a figure per accelerator is over the slice's chips, not the pod's.
        """
        return min(self.accelerators, self.endpoint_ports) if self.topology == "torus" else self.accelerators

    @property
    def buildable(self) -> bool:
        """Whether its switches can build it as specified: no NET001 (radix short) and no NET003 (tiers short).

        An unbuildable fabric is counted but not wired (`analyse.cabling`), and NET013 checks no graph of it.
        """
        return not any(p.check in ("NET001", "NET003") for p in self.problems)

    @property
    def shape(self) -> ClosShape:
        """The numbers that fix one plane's wiring (see `archgen.topology.tier_pairs`)."""
        leaf, spine, core = self.tier_at("leaf"), self.tier("spine"), self.tier("core")
        return ClosShape(self.tiers_used, leaf.switches, spine.switches if spine else 0,
                         core.switches if core else 0, leaf.up, self.spines_per_pod, spine.down if spine else 0,
                         spine.up if spine else 0, self.core_links_per_spine_pair, self.core_group)

    def leaf_endpoints(self) -> list[int]:
        """Access ports per leaf of one plane, as the bisection takes them (`leaf_loads`)."""
        leaf = self.tier_at("leaf")
        return list(self.leaf_loads or filled(self.links["access"], leaf.switches, leaf.down,
                                              leaf.used_switches if self.leaves_per_group else 0))


def analyse_fabric(design: Design, cluster: ClusterDesign, fabric: BoundFabric, nodes: tuple[NodeType, ...],
                   accelerators: int) -> FabricAnalysis:
    """Closed-form sizing of one fat-tree fabric."""
    spec = fabric.spec
    assert isinstance(spec, FatTree), "analyse_fabric sizes fat trees (network.analyse_cluster dispatches on topology)"
    planes = spec.planes
    # endpoints: node NIC ports of the role, switch management ports, extra and reserved ports
    ports_per_node, n_node_ports, node_problems = node_ports(design, fabric, nodes)
    switch_ports = device_ports(cluster, spec.endpoints)   # switch, power-shelf, PDU and CDU management ports
    reserved = sum(r.ports for r in spec.reserved)
    node_mgmt = node_management_ports(spec, nodes)   # BMC ports at the nodes (`endpoints.node_management`)
    endpoint_ports = n_node_ports + switch_ports + spec.endpoints.extra + node_mgmt
    # rails: fabric ports per scale-up domain of the compute node type, one rail each, per plane
    compute = compute_node(nodes)
    ppn = ports_per_node.get(compute.part.id, 0) if compute else 0
    nodes_per_domain, n_rails, rail_problems = rails(cluster, fabric, compute, ppn)
    # group (scalable unit) used to size the leaves, and the ports one plane's leaves take
    group, group_domains, groups = _group(cluster, spec, compute, nodes_per_domain)
    unit_ports = sum(cluster.unit_counts.get(u, 0) * n * nt.per_rack.get(rid, 0) * ports_per_node.get(nt.part.id, 0)
                     for u, members in cluster.unit_racks.items() for rid, n in members for nt in nodes)
    demand = PlaneDemand(spec.rail_optimized, math.ceil(endpoint_ports / planes), math.ceil(n_node_ports / planes),
                          unit_ports // planes, math.ceil((switch_ports + spec.endpoints.extra + node_mgmt) / planes),
                          math.ceil(reserved / planes), n_rails, groups, group_domains,
                          rack_groups(cluster, spec, nodes, ports_per_node), group)
    access = demand.endpoints + demand.reserved
    # leaf tier, then the spine and core tiers above it (per plane)
    tiers_used, leaf, per_group, rpl, leaf_problems = leaf_tier(fabric, demand, access)
    upper = (spine_tier(fabric, leaf, access, demand) if tiers_used == 2
             else spine_core_tiers(fabric, leaf, access, demand) if tiers_used == 3
             else Upper(leaf.assigned if tiers_used == 1 else 0))
    counts = (leaf, *upper.tiers)
    problems = (*node_problems, *rail_problems, *leaf_problems, *upper.problems, *unbuilt_counts(fabric, tiers_used),
                *rack_leaf_problems(cluster, fabric, demand.racks, leaf.down),
                *(top_tier_ports(fabric, tiers_used) if spec.tiers == "auto" else ()))
    problems += tuple(radix_problems(fabric, counts, {p.path for p in problems if p.check == "NET018"}))
    # bandwidth and reach, over all planes
    loads, even_share = leaf_loads(cluster, ports_per_node, (n_rails, planes, group_domains, per_group
                                   if spec.rail_optimized else 0), counts, access, upper.spines_per_pod)
    injection, bisection, oversub = _bandwidth(spec, tiers_used, counts, n_node_ports, demand.nodes, access,
                                               demand.busiest_leaf(leaf.down, access, rpl), upper.spines_per_pod,
                                               loads, upper.core_group)
    max_endpoints = upper.max_endpoints * planes
    max_acc = max_endpoints // ppn * compute.part.accelerators if compute is not None and ppn else 0
    # failure domains
    failure = _failure(spec, tiers_used, leaf, access, upper.spines_per_pod, group_domains, rpl, n_rails, n_node_ports,
                       ppn, accelerators, compute.part.accelerators if compute else 0)
    failure |= failure_bisection(spec, tiers_used, counts, demand.nodes, access, upper.spines_per_pod, accelerators,
                                 loads, upper.core_group)
    return FabricAnalysis(fabric, tiers_used, planes, ports_per_node, n_node_ports, endpoint_ports, reserved, n_rails,
                          rpl, group, group_domains, groups, per_group, upper.pods, upper.spines_per_pod,
                          upper.pair_links, counts, {"access": access, **upper.links}, injection,
                          bisection.to("Gbit/s"), oversub, 2 * tiers_used - 1, max_endpoints, max_acc, accelerators,
                          failure, problems, node_mgmt_ports=node_mgmt, even_share=even_share,
                          power_mgmt_ports=device_ports(cluster, spec.endpoints, power_only=True),
                          power_mgmt_unstated=sum(sum(by.values())
                                                  for by in unstated_power_parts(cluster, spec.endpoints).values()),
                          cdu_mgmt_ports=cdu_ports(cluster, spec.endpoints),
                          cdu_mgmt_unstated=sum(sum(by.values())
                                                for by in unstated_cdus(cluster, spec.endpoints).values()),
                          access_total=min(endpoint_ports + reserved, leaf.down_used * planes), leaf_loads=loads,
                          core_group=upper.core_group)


def rails(cluster: ClusterDesign, fabric: BoundFabric, compute: NodeType | None, ppn: int) -> tuple[int, int, list]:
    """Compute nodes per scale-up domain and rails per plane, with a problem if the rails miss the domain's ports."""
    spec, su, problems = fabric.spec, cluster.spec.scale_up, []
    assert isinstance(spec, FatTree | RailOnly), "rails are sized for fat-tree and rail-only fabrics"
    planes = spec.planes
    nodes_per_domain = 1
    if su is not None and su.domain == "rack" and compute is not None:  # the most compute nodes in any rack
        nodes_per_domain = max((compute.per_rack.get(r, 0) for r in compute.per_rack), default=1) or 1
        nodes_per_domain *= su.racks   # a multi-rack domain (NVL36x2): the nodes of all its racks
    ports_per_domain = ppn * nodes_per_domain
    n_rails = spec.rails if spec.rails is not None else max(ports_per_domain // planes, 1)
    if getattr(spec, "rail_optimized", True) and ports_per_domain and n_rails * planes != ports_per_domain:
        problems.append(Problem("NET004", fabric.owner_path + ("rails",),
                                f"{n_rails} rails x {planes} plane(s) != {ports_per_domain} fabric ports per scale-up "
                                f"domain ({nodes_per_domain} node(s) x {ppn} NIC ports)",
                                count(n_rails * planes), count(ports_per_domain)))
    return nodes_per_domain, n_rails, problems


def _bandwidth(spec: FatTree, tiers_used: int, tiers: tuple[TierCount, ...], node_ports: int, node_plane: int,
               access: int, busiest: int, spines_per_pod: int = 0, loads: tuple[int, ...] = (),
               group: int = 1) -> tuple[Q, Q, dict[str, float]]:
    """Injection and bisection bandwidth over all planes, and the oversubscription at each tier.

    Every tier's oversubscription is the down:up bandwidth of the ports in use, not of its port split: the leaf's,
    the access ports of its fullest leaf (`busiest`, `PlaneDemand.busiest_leaf`) over that leaf's uplinks (leaves
    fill in order: 128 ports on 3:1 leaves of 48 down are 48 + 48 + 32, so 3.00, not 128 / 48 = 2.67, a ratio no
    leaf has; review47); the spine's, its fullest pod's (`fullest_pod`): that pod's used leaves' uplinks over its
    spines' core links (a spine split 42:21 whose pod fills 32 of the 42 down ports is 32:21 = 1.52, not 2; Meta's
    CTSWs of 192:27 in 7 full pods and a half one are 7.11, where the uplinks of all pods' leaves over all core
    links, 6.67, is no spine's ratio; spine31); a spare leaf's uplinks carry no traffic.
    The bisection is `_plane_cut`'s least cut over balanced splits: in one pod every spine reaches every leaf, so the
    halves of its leaves meet at the spines and no traffic between them climbs to the cores.
    """
    speed, up_speed, uplinks = spec.speed, tiers[0].up_speed, tiers[0].used_switches * tiers[0].up
    injection = (node_ports * speed).to("Gbit/s")
    bisection = (_plane_cut(spec, tiers_used, tiers, node_plane, access, spines_per_pod, loads, group=group)
                 * spec.planes).to("Gbit/s")
    oversub: dict[str, float] = {}
    if tiers_used >= 2 and uplinks:
        oversub["leaf"] = float(((busiest * speed) / (tiers[0].up * up_speed)).to("").magnitude)
    if tiers_used == 3 and tiers[1].up_used:  # like the leaf's: the ports in use, the used leaves' uplinks below
        leaves, spines = fullest_pod(tiers[0], tiers[1], spines_per_pod)
        oversub["spine"] = float((leaves * tiers[0].up * up_speed
                                  / (spines * tiers[1].up * tiers[1].up_speed)).to("").magnitude)
    return injection, bisection, oversub


def _plane_cut(spec: FatTree, tiers_used: int, tiers: tuple[TierCount, ...], node_plane: int, access: int,
               spines_per_pod: int, loads: tuple[int, ...] = (), lost_spine: bool = False,
               lost_core: bool = False, group: int = 1) -> Q:
    """One plane's bisection, one direction: the least cut over the balanced splits of its endpoints.

    `analyse.bisection.least_balanced_cut` over the plane's pods and leaves as they hold its `access` ports (in
    order where `loads` does not give them: a rail-optimized fabric's as its cabling wires them, `analyse.leaf_loads`),
    capped at half its node ports. The cut's endpoints are every access port, the ports at no node too (storage
    appliances, UFM, management), but the figure is the nodes' traffic: a half of the nodes injects at most half the
    node ports, so full bisection is half the injection, as the documents and NET006 print it, and a fabric of
    management ports only carries no node's traffic. Where ports at no node lift the least cut above that, the cap
    sets the figure (tidy34, pods34's doubt): the DGX B200 SuperPOD's 1:1 storage fabric, 254 node ports and 32
    storage appliance ports at 100 Gb/s, has a least cut of 14.3 Tb/s and is given 254 x 100 / 2 = 12.7. Where pods and
    leaves hold equal endpoints it is half the narrowest tier's links (node ports, used leaves' uplinks, and with two
    pods or more the spines' core links); where a last pod or leaf is part full it is the real least cut, which that
    rule missed either way (pods of 36 and 28 endpoints: 3,200 Gb/s, not 1,600; leaves of 48, 48 and 2: 17 uplinks,
    not 24; pods34). `lost_spine`: a full pod's spine lost (2 tiers: every leaf's links to it; 3 tiers: the first
    pod's leaves' links to it and its core links); `lost_core`: a core lost, with its links from every pod
    (`failure_bisection`); `group`, the spines of a pod per core group (`analyse.upper_tiers._cores`).
    """
    cut = node_plane * spec.speed / 2
    if tiers_used < 2:
        return cut
    leaf, spine, gbps = tiers[0], tiers[1], "Gbit/s"
    up, s_up = leaf.up_speed.m_as(gbps), spine.up_speed.m_as(gbps)
    if tiers_used == 2:
        per_pod, core, share = leaf.switches, 0.0, ((leaf.up / spine.switches if spine.switches else 0.0) * up, 0.0)
        lost = "spine" if lost_spine and spine.switches else ""
    else:
        per_pod, core = pod_leaves(spine.down, leaf.up, spines_per_pod), spines_per_pod * spine.up * s_up
        share = (max(leaf.up // max(spines_per_pod, 1), 1) * up, spine.up * s_up)
        lost = "spine" if lost_spine and spines_per_pod else "core" if lost_core and tiers[2].switches else ""
    core_lost = spine.up_used / tiers[2].switches / max(spine.switches // max(spines_per_pod, 1), 1) * s_up \
        if lost == "core" else 0.0
    pods = fat_tree_pods(access, leaf.switches, leaf.down, leaf.up * up, per_pod, core, lost, share, core_lost,
                         loads=loads, group=group)
    return min(cut, Q(least_balanced_cut(pods, spec.speed.m_as(gbps)), gbps))


def failure_bisection(spec: FatTree, tiers_used: int, tiers: tuple[TierCount, ...], node_plane: int, access: int,
                      spines_per_pod: int, accelerators: int, loads: tuple[int, ...] = (),
                      group: int = 1) -> dict[str, Q]:
    """Bisection per accelerator with one spine, one core or one plane lost, by the bisection's own rule.

    A lost spine takes its leaf links (2 tiers: each leaf's links to it; 3 tiers: a full pod's spine, its pod's
    leaves' links to it) and its core links; a lost core, its links from every pod; a plane, its whole share. The
    other planes keep theirs. The least cut over balanced splits is found again without the switch
    (`_plane_cut`): one spine of 144 under 1:1 leaves loses 1/144 of that plane's bisection, a spine of a tapered
    fabric whose narrowest cut is elsewhere may lose none. With 3 tiers the lost switch's group (spine j of every
    pod, core group j) is no longer like the others and may sit apart from them (`analyse.bisection`, step 1).
    """
    whole = _plane_cut(spec, tiers_used, tiers, node_plane, access, spines_per_pod, loads, group=group)
    if not accelerators or not whole.magnitude:   # no node ports (an OOB fabric): no bisection to lose
        return {}
    rest = whole * (spec.planes - 1)

    def per_accelerator(plane: Q) -> Q:
        return ((rest + plane) / accelerators).to("Gbit/s")

    out = {"failure.plane.bisection_per_accelerator": per_accelerator(whole * 0)}
    if tiers_used >= 2 and tiers[1].switches:
        out["failure.spine.bisection_per_accelerator"] = per_accelerator(
            _plane_cut(spec, tiers_used, tiers, node_plane, access, spines_per_pod, loads, True, group=group))
    if tiers_used == 3 and tiers[2].switches:
        out["failure.core.bisection_per_accelerator"] = per_accelerator(
            _plane_cut(spec, tiers_used, tiers, node_plane, access, spines_per_pod, loads, False, True, group))
    return out


def _failure(spec: FatTree, tiers_used: int, leaf: TierCount, access: int, spines_per_pod: int, group_domains: int,
             rails_per_leaf: int, n_rails: int, node_ports: int, ppn: int, accelerators: int,
             acc_per_node: int) -> dict[str, Q]:
    """What one leaf holding endpoints (its ports, accelerators, bandwidth), one spine's uplinks and one plane take.

    The accelerators one leaf affects are those whose own NIC ports it carries: its busiest node ports (a rail
    leaf: its rails of every scale-up domain in the group; else its down ports, filled in order) times the
    accelerators behind one port, ⌈accelerators per node / ports per node⌉. A GB200 SU's rail leaf carries 4 of 72
    rails of 8 racks, 32 ports, one GPU each: 32 accelerators, not the 576 of the 8 racks.
    """
    used = leaf.used_switches
    if spec.rail_optimized and group_domains and rails_per_leaf:  # its rails of every domain in the group
        ports = min(rails_per_leaf, n_rails) * group_domains if group_domains <= leaf.down else leaf.down
    else:
        ports = leaf.down
    ports = min(ports, math.ceil(node_ports / spec.planes))
    per_port = math.ceil(acc_per_node / ppn) if ppn else 0
    failure = {
        "failure.leaf.ports_lost": count(min(leaf.down, access)),
        "failure.leaf.accelerators_affected": count(min(ports * per_port, accelerators)),
        "failure.leaf.bandwidth_lost": count(1 / used / spec.planes if used else 0),
        "failure.plane.bandwidth_lost": count(1 / spec.planes),
    }
    if tiers_used >= 2 and spines_per_pod:
        failure["failure.spine.uplink_bandwidth_lost"] = count(1 / spines_per_pod / spec.planes)
    return failure


def _group(cluster: ClusterDesign, spec, compute: NodeType | None, nodes_per_domain: int) -> tuple[str, int, int]:
    """The unit that sizes the leaves, its scale-up domains, and how many unit instances hold compute nodes.

    Every instance of a unit holding compute nodes gets the leaves of a full group (NVIDIA: "the fabric should be
    designed to support the full SU"), so a short SU (31 nodes and the UFM) is cabled like a full one.
    """
    if compute is None:
        return "", 0, 0

    def domains(unit: str) -> int:
        nodes = sum(compute.per_rack.get(rid, 0) * n for rid, n in cluster.unit_racks.get(unit, ()))
        return math.ceil(nodes / nodes_per_domain)

    holding = [u for u in cluster.unit_counts if domains(u)]
    name = spec.group
    if name is None:
        ranked = sorted(holding, key=lambda u: (-domains(u), u))
        name = ranked[0] if ranked else ""
    if not name or name not in cluster.unit_counts:
        return name or "", 0, 0
    return name, domains(name), sum(cluster.unit_counts[u] for u in holding)
