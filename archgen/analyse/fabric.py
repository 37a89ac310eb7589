"""Folded-Clos fat-tree fabrics in closed form: endpoints, rails, tiers, switch counts, bandwidth, failure domains.

Every count comes from a formula over the spec's counts, never from enumerating nodes, so a 100k-accelerator
cluster costs the same as a small one. Formulas (k = switch radix at the fabric's line rate, d/u = leaf down/up
ports, o = down:up oversubscription):

* leaf split: u = ⌊k / (1 + o)⌋, d = k − u (1:1 on a 64-port switch → 32/32), unless the tier fixes `uplinks`.
* rail-optimized leaves per group of G scale-up domains and R rails: G ≤ d → ⌈R / ⌊d/G⌋⌉, else R·⌈G/d⌉
  (NVIDIA DGX SuperPOD: one leaf per rail per 32-node SU). A fixed `leaf.count` below that is an error; above it,
  the extra leaves are spares: placed, powered and uplinked (the spines take their uplinks), with no endpoints,
  so they count in switches, ports, links and power but not in oversubscription, bisection or failure shares.
* 2 tiers: spines S = the smallest divisor of u with S ≥ ⌈L·u / k_spine⌉, so every leaf spreads its uplinks evenly
  (NVIDIA's 3-SU row has 16 spines, not 12, because 32 uplinks do not divide by 12). Largest size L ≤ k_spine,
  k·d endpoints = k²/2 at 1:1.
* 3 tiers: pods of P = d_spine leaves and u spines (one link per leaf-spine pair); cores in u groups, each core
  taking l = ⌊k_core / pods⌋ links from its spine in every pod (or the l a fixed `core.count` gives, `_cores`).
  Largest size k_core·P·d = k³/4 at 1:1.
* bisection (one direction) = min over the tiers of half the capacity entering that tier; hops = 2·tiers − 1.

Sources: C. Leiserson, "Fat-trees", IEEE Trans. Computers C-34(10), 1985; M. Al-Fares et al., "A scalable,
commodity data center network architecture", SIGCOMM 2008 (k³/4 hosts of a 3-tier fat tree of k-port switches);
NVIDIA DGX SuperPOD B200 RA, "DGX SuperPOD Architecture" and "Network Fabrics" (rail-optimized SUs, UFM ports).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from archgen.analyse.nodes import NodeType, compute_node, count, nic_ports
from archgen.build import BoundFabric, ClusterDesign, Design
from archgen.model import Switch
from archgen.model.cluster import FatTree
from archgen.topology import ClosShape
from archgen.units import Q

TIERS = ("leaf", "spine", "core")


@dataclass(frozen=True)
class TierCount:
    """Switches of one tier of one plane and how their ports are used."""

    name: str
    switch: Switch | None
    speed: Q
    radix: int
    breakout: int
    down: int
    up: int
    up_speed: Q
    switches: int
    down_used: int
    up_used: int
    spare: int = 0

    @property
    def ports_used(self) -> int:
        """Ports in use over the tier (down and up)."""
        return self.down_used + self.up_used

    @property
    def ports_total(self) -> int:
        """Ports the tier's switches have at the fabric rate (down ports, plus separate uplinks)."""
        extra = self.up if self.switch is not None and self.up and self.down == self.radix else 0
        return self.switches * (self.radix + extra)

    @property
    def used_switches(self) -> int:
        """Switches that carry traffic: all but the spares."""
        return self.switches - self.spare

    @property
    def max_used_per_switch(self) -> int:
        """Most ports used on any one switch of the tier (even spread, rounded up; spares' down ports left out)."""
        if self.spare and self.used_switches:
            return math.ceil(self.down_used / self.used_switches) + math.ceil(self.up_used / self.switches)
        return math.ceil(self.ports_used / self.switches) if self.switches else 0


@dataclass(frozen=True)
class Problem:
    """Something that makes a fabric unbuildable or inconsistent; turned into findings by the NET checks."""

    code: str
    path: tuple
    message: str
    measured: Q | None = None
    limit: Q | None = None


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

    def tier(self, name: str) -> TierCount | None:
        """The tier named `name`, if the fabric has it."""
        return next((t for t in self.tiers if t.name == name), None)

    @property
    def shape(self) -> ClosShape:
        """The numbers that fix one plane's wiring (see `archgen.topology.tier_pairs`)."""
        leaf, spine, core = self.tier("leaf"), self.tier("spine"), self.tier("core")
        return ClosShape(self.tiers_used, leaf.switches, spine.switches if spine else 0,
                         core.switches if core else 0, leaf.up, self.spines_per_pod, spine.down if spine else 0,
                         spine.up if spine else 0, self.core_links_per_spine_pair)

    def leaf_endpoints(self) -> list[int]:
        """Access ports per leaf of one plane, filling leaves in order."""
        leaf, left, out = self.tier("leaf"), self.links["access"], []
        for _ in range(leaf.switches):
            n = min(leaf.down, left)
            out.append(n)
            left -= n
        return out


def _smallest_divisor_at_least(n: int, low: int) -> int | None:
    """The smallest divisor of `n` that is ≥ `low`, or None."""
    return next((d for d in range(max(low, 1), n + 1) if n % d == 0), None)


def _largest_divisor_at_most(n: int, high: int) -> int:
    """The largest divisor of `n` that is ≤ `high` (at least 1)."""
    return next((d for d in range(min(high, n), 0, -1) if n % d == 0), 1)


def _radix(switch: Switch | None, speed: Q) -> tuple[int, int]:
    """Ports at the fabric rate and the breakout factor (native rate / fabric rate)."""
    if switch is None:
        return 0, 1
    ratio = float((switch.ports.speed / speed).to("").magnitude)
    breakout = max(1, round(ratio)) if ratio >= 1 else 0
    return switch.ports.count * breakout, breakout


def analyse_fabric(design: Design, cluster: ClusterDesign, fabric: BoundFabric, nodes: tuple[NodeType, ...],
                   accelerators: int) -> FabricAnalysis:
    """Closed-form sizing of one fat-tree fabric."""
    spec, planes = fabric.spec, fabric.spec.planes
    # endpoints: node NIC ports of the role, switch management ports, extra and reserved ports
    ports_per_node, node_ports, node_problems = _node_ports(design, fabric, nodes)
    switch_ports = _other_switches(design, cluster, fabric) if spec.endpoints.switches else 0
    reserved = sum(r.ports for r in spec.reserved)
    endpoint_ports = node_ports + switch_ports + spec.endpoints.extra
    # rails: fabric ports per scale-up domain of the compute node type, one rail each, per plane
    compute = compute_node(nodes)
    ppn = ports_per_node.get(compute.part.id, 0) if compute else 0
    nodes_per_domain, rails, rail_problems = _rails(cluster, fabric, compute, ppn)
    # group (scalable unit) used to size the leaves, and the ports one plane's leaves take
    group, group_domains, groups = _group(cluster, spec, compute, nodes_per_domain)
    unit_ports = sum(cluster.unit_counts.get(u, 0) * n * nt.per_rack.get(rid, 0) * ports_per_node.get(nt.part.id, 0)
                     for u, members in cluster.unit_racks.items() for rid, n in members for nt in nodes)
    demand = _PlaneDemand(spec.rail_optimized, math.ceil(endpoint_ports / planes), math.ceil(node_ports / planes),
                          unit_ports // planes, math.ceil((switch_ports + spec.endpoints.extra) / planes),
                          math.ceil(reserved / planes), rails, groups, group_domains)
    access = demand.endpoints + demand.reserved
    # leaf tier, then the spine and core tiers above it (per plane)
    tiers_used, leaf, per_group, rpl, leaf_problems = _leaf_tier(fabric, demand, access)
    upper = (_spine_tier(fabric, leaf, access) if tiers_used == 2
             else _spine_core_tiers(fabric, leaf, access) if tiers_used == 3
             else _Upper(leaf.radix if tiers_used == 1 else 0))
    counts = (leaf, *upper.tiers)
    problems = (*node_problems, *rail_problems, *leaf_problems, *upper.problems, *_unbuilt_counts(fabric, tiers_used))
    problems += tuple(_radix_problems(fabric.owner_path, counts, {p.path for p in problems if p.code == "count"}))
    # bandwidth and reach, over all planes
    injection, bisection, oversub = _bandwidth(spec, tiers_used, counts, node_ports, demand.nodes, access)
    max_endpoints = upper.max_endpoints * planes
    max_acc = max_endpoints // ppn * compute.part.accelerators if compute is not None and ppn else 0
    # failure domains
    failure = _failure(spec, tiers_used, leaf, access, upper.spines_per_pod, group_domains, nodes_per_domain, nodes,
                       ppn, compute.part.accelerators if compute else 0)
    return FabricAnalysis(fabric, tiers_used, planes, ports_per_node, node_ports, endpoint_ports, reserved, rails,
                          rpl, group, group_domains, groups, per_group, upper.pods, upper.spines_per_pod,
                          upper.pair_links, counts, {"access": access, **upper.links}, injection,
                          bisection.to("Gbit/s"), oversub, 2 * tiers_used - 1, max_endpoints, max_acc, accelerators,
                          failure, problems)


def _node_ports(design: Design, fabric: BoundFabric, nodes: tuple[NodeType, ...]) -> tuple[dict[str, int], int, list]:
    """Fabric ports per node type and in all, with problems for missing NIC ports and planes that do not divide."""
    spec, here, planes = fabric.spec, fabric.owner_path, fabric.spec.planes
    role = spec.nic_role or spec.role
    problems, ports_per_node, node_ports = [], {}, 0
    for nt in nodes:
        have = nic_ports(design, nt.part, role)
        want = spec.ports_per_node if spec.ports_per_node is not None else have
        if not spec.endpoints.nodes or (have == 0 and spec.ports_per_node is None):
            continue
        if want > have and nt.part.accelerators:
            problems.append(Problem("nic_ports", here + ("ports_per_node",),
                                    f"{nt.part.id} has {have} NIC port(s) of role '{role}', the fabric uses {want}",
                                    count(want), count(have)))
        ports_per_node[nt.part.id] = want
        node_ports += want * nt.count
    if node_ports % planes or any(p % planes for p in ports_per_node.values()):
        problems.append(Problem("planes", here + ("planes",),
                                f"{planes} planes do not divide the NIC ports per node "
                                f"({', '.join(f'{k}: {v}' for k, v in ports_per_node.items()) or 'none'})",
                                count(planes), None))
    return ports_per_node, node_ports, problems


def _rails(cluster: ClusterDesign, fabric: BoundFabric, compute: NodeType | None, ppn: int) -> tuple[int, int, list]:
    """Compute nodes per scale-up domain and rails per plane, with a problem if the rails miss the domain's ports."""
    spec, planes, su, problems = fabric.spec, fabric.spec.planes, cluster.spec.scale_up, []
    nodes_per_domain = 1
    if su is not None and su.domain == "rack" and compute is not None:  # the most compute nodes in any rack
        nodes_per_domain = max((compute.per_rack.get(r, 0) for r in compute.per_rack), default=1) or 1
    ports_per_domain = ppn * nodes_per_domain
    rails = spec.rails if spec.rails is not None else max(ports_per_domain // planes, 1)
    if spec.rail_optimized and ports_per_domain and rails * planes != ports_per_domain:
        problems.append(Problem("rails", fabric.owner_path + ("rails",),
                                f"{rails} rails x {planes} plane(s) != {ports_per_domain} fabric ports per scale-up "
                                f"domain ({nodes_per_domain} node(s) x {ppn} NIC ports)",
                                count(rails * planes), count(ports_per_domain)))
    return nodes_per_domain, rails, problems


@dataclass(frozen=True)
class _PlaneDemand:
    """Ports one plane's leaves take (endpoints, nodes, nodes in groups, others, reserved) and its rail groups."""

    rail_optimized: bool
    endpoints: int
    nodes: int
    grouped: int
    others: int
    reserved: int
    rails: int
    groups: int
    group_domains: int

    def leaves(self, down: int) -> tuple[int, int, int]:
        """Leaves, leaves per group instance and rails per leaf, for leaves of `down` access ports."""
        if down <= 0:
            return 0, 0, 0
        if not (self.rail_optimized and self.groups and self.group_domains):
            return math.ceil(self.endpoints / down), 0, 0
        rpl = max(down // self.group_domains, 1)  # 1 where a group's domains outnumber the down ports
        per_group = (math.ceil(self.rails / rpl) if self.group_domains <= down
                     else self.rails * math.ceil(self.group_domains / down))
        rest = max(self.nodes - self.grouped, 0) + self.others
        spare = self.groups * per_group * down - self.grouped - self.reserved
        extra_leaves = math.ceil(max(rest - max(spare, 0), 0) / down)
        return self.groups * per_group + extra_leaves, per_group, rpl

    def why(self, down: int) -> str:
        """How the leaves of `down` access ports are counted (for a message)."""
        need, per_group, _ = self.leaves(down)
        if not per_group:
            return f"{self.endpoints} endpoint ports / {down} down ports, rounded up"
        extra = need - self.groups * per_group
        return (f"{self.groups} group(s) of {self.group_domains} scale-up domains x {per_group} rail leaves for "
                f"{self.rails} rails" + (f", + {extra} for the ports outside the groups" if extra else ""))


def _leaf_split(spec: FatTree, k_leaf: int, tiers: int) -> tuple[int, int]:
    """Leaf down and up ports: all down in one tier, else the fixed uplinks or the oversubscription's split."""
    if tiers == 1:
        return k_leaf, 0
    if spec.leaf.uplinks is not None:
        return k_leaf, spec.leaf.uplinks
    up = int(k_leaf // (1 + (spec.leaf.oversubscription or spec.oversubscription)))
    return k_leaf - up, up


def _leaf_tier(fabric: BoundFabric, demand: _PlaneDemand, access: int) -> tuple[int, TierCount, int, int, list]:
    """Tiers used, one plane's leaves, leaves per group instance, rails per leaf, and the leaves' problems.

    The leaves are derived from the demand, or fixed by `leaf.count`: fewer than derived is a problem (the
    endpoints that do not fit are left out of the used ports), more are spare leaves.
    """
    spec, here, problems, fixed = fabric.spec, fabric.owner_path, [], fabric.spec.leaf.count
    leaf_sw = fabric.tiers["leaf"].switch
    k_leaf, b_leaf = _radix(leaf_sw, spec.speed)
    if leaf_sw is not None and b_leaf == 0:
        problems.append(Problem("speed", here + ("speed",), f"{leaf_sw.id} ports run at {leaf_sw.ports.speed:~P}, "
                                f"slower than the fabric's {spec.speed:~P}", spec.speed, leaf_sw.ports.speed))
    up_speed = spec.leaf.uplink_speed or spec.speed
    if spec.tiers == "auto":  # the fewest tiers that fit: one leaf, or no more leaves than a spine has ports
        k_spine = _radix(fabric.tiers["spine"].switch, up_speed)[0]
        one, two = (max(fixed or 0, demand.leaves(_leaf_split(spec, k_leaf, t)[0])[0]) for t in (1, 2))
        tiers_used = 1 if one <= 1 else 2 if 0 < two <= k_spine else 3
    else:
        tiers_used = int(spec.tiers)
    down, up = _leaf_split(spec, k_leaf, tiers_used)
    need, per_group, rpl = demand.leaves(down)
    leaves = need if fixed is None else fixed
    if leaves < need and tiers_used > 1:
        problems.append(Problem("count", here + ("leaf", "count"),
                                f"{fixed} leaves per plane are fewer than the {need} the endpoints need: "
                                f"{demand.why(down)}", count(fixed), count(need)))
    elif leaves and access > leaves * down:
        problems.append(Problem("reserved", here + (("reserved",) if demand.reserved else ()),
                                f"{access} access ports per plane ({demand.endpoints} endpoints + {demand.reserved}"
                                f" reserved) exceed the {leaves * down} leaf down ports",
                                count(access), count(leaves * down)))
    if tiers_used == 1 and need > 1:
        problems.append(Problem("tiers", here + ("tiers",), f"one tier holds {k_leaf} ports; {access} are needed",
                                count(access), count(k_leaf)))
    leaf = TierCount("leaf", leaf_sw, spec.speed, k_leaf, b_leaf, down, up, up_speed, leaves,
                     min(access, leaves * down), leaves * up if tiers_used > 1 else 0, max(leaves - need, 0))
    return tiers_used, leaf, per_group, rpl, problems


@dataclass(frozen=True)
class _Upper:
    """The tiers above one plane's leaves, the wiring numbers they fix, and the ports per plane they reach."""

    max_endpoints: int
    tiers: tuple[TierCount, ...] = ()
    links: dict[str, int] = field(default_factory=dict)
    pods: int = 0
    spines_per_pod: int = 0
    pair_links: int = 0
    problems: tuple[Problem, ...] = ()


def _spine_tier(fabric: BoundFabric, leaf: TierCount, access: int) -> _Upper:
    """Spines of a 2-tier plane: the smallest divisor of the leaf uplinks that takes them all."""
    spec, here, problems = fabric.spec, fabric.owner_path, []
    spine_sw, up_speed = fabric.tiers["spine"].switch, leaf.up_speed
    k_spine, b_spine = _radix(spine_sw, up_speed)
    leaves, up, uplinks = leaf.switches, leaf.up, leaf.switches * leaf.up
    max_endpoints = k_spine * leaf.down
    spare = f", {leaf.spare} of them spare," if leaf.spare else ""
    # at least two spines where the leaves have two uplinks: one spine would be a single point of failure
    need = max(math.ceil(uplinks / k_spine) if k_spine else 0, min(up, 2) if leaves > 1 else 1)
    fixed, derived = spec.spine.count, _smallest_divisor_at_least(up, need) or need
    spines = derived if fixed is None else fixed
    if fixed is not None and up % fixed:
        problems.append(Problem("divisible", here + ("spine", "count"),
                                f"{up} leaf uplinks do not divide evenly over {fixed} spines", count(up), count(fixed)))
    if fixed is not None and k_spine and leaves <= k_spine and uplinks > fixed * k_spine:  # too few, not too large
        problems.append(Problem("count", here + ("spine", "count"),
                                f"{fixed} spine(s) x {k_spine} ports take {fixed * k_spine} of the {uplinks} leaf "
                                f"uplinks; at least {derived} are needed", count(fixed), count(derived)))
    elif leaves > k_spine or (k_spine and uplinks > spines * k_spine):
        problems.append(Problem("tiers", here + ("tiers",),
                                f"2 tiers of {k_spine}-port spines reach {max_endpoints} ports per plane; "
                                f"{access} needed ({leaves} leaves{spare} > {k_spine} spine ports): use 3 tiers",
                                count(access), count(max_endpoints)))
    spine = TierCount("spine", spine_sw, up_speed, k_spine, b_spine, k_spine, 0, up_speed, spines, uplinks, 0)
    return _Upper(max_endpoints, (spine,), {"leaf_spine": uplinks}, 0, spines, 0, tuple(problems))


def _spine_core_tiers(fabric: BoundFabric, leaf: TierCount, access: int) -> _Upper:
    """Spines and cores of a 3-tier plane: pods of leaves and spines, cores in groups linking every pod."""
    spec, here, problems = fabric.spec, fabric.owner_path, []
    spine_sw, core_sw, up_speed = fabric.tiers["spine"].switch, fabric.tiers["core"].switch, leaf.up_speed
    k_spine, b_spine = _radix(spine_sw, up_speed)
    k_core, b_core = _radix(core_sw, up_speed)
    leaves, up, uplinks = leaf.switches, leaf.up, leaf.switches * leaf.up
    s_up = int(k_spine // (1 + (spec.spine.oversubscription or spec.oversubscription)))
    s_down = k_spine - s_up
    spines_per_pod = spec.spine.count or up
    if spines_per_pod and up % spines_per_pod:
        problems.append(Problem("divisible", here + ("spine", "count"),
                                f"{up} leaf uplinks do not divide evenly over {spines_per_pod} spines per pod",
                                count(up), count(spines_per_pod)))
    per_pair = max(up // spines_per_pod, 1) if spines_per_pod else 1
    pod_leaves = max(s_down // per_pair, 1)
    pods = math.ceil(leaves / pod_leaves) if leaves else 0
    spines = pods * spines_per_pod
    spine_up = spines * s_up
    cores, pair_links, core_problems = _cores(fabric, k_core, pods, spines_per_pod, s_up)
    problems += core_problems
    max_endpoints = k_core * pod_leaves * leaf.down
    if pods > k_core:
        problems.append(Problem("tiers", here + ("tiers",),
                                f"3 tiers of {k_core}-port cores reach {max_endpoints} ports per plane "
                                f"({k_core} pods); {access} needed in {pods} pods",
                                count(access), count(max_endpoints)))
    spine = TierCount("spine", spine_sw, up_speed, k_spine, b_spine, s_down, s_up, up_speed, spines, uplinks, spine_up)
    core = TierCount("core", core_sw, up_speed, k_core, b_core, k_core, 0, up_speed, cores, spine_up, 0)
    return _Upper(max_endpoints, (spine, core), {"leaf_spine": uplinks, "spine_core": spine_up}, pods, spines_per_pod,
                  pair_links, tuple(problems))


def _cores(fabric: BoundFabric, k_core: int, pods: int, spines_per_pod: int, s_up: int) -> tuple[int, int, list]:
    """Cores of a 3-tier plane, the links of each spine-core pair, and the problems of a fixed `core.count`.

    Spine j of every pod joins core group j (one group per spine of a pod); each core of a group takes l links from
    its spine in every pod, so a group holds s_up / l cores and a core uses pods·l ports. Derived: the largest l
    (a divisor of s_up) with pods·l ≤ k_core. A fixed count C fixes l = s_up·groups / C, so C must be a multiple of
    the groups whose quotient divides s_up, and pods·l must fit the core's ports.
    """
    here, fixed, problems = fabric.owner_path + ("core", "count"), fabric.spec.core.count, []
    pair_links = _largest_divisor_at_most(s_up, k_core // pods) if pods and k_core >= pods else 1
    cores = spines_per_pod * (s_up // pair_links) if s_up else 0
    if fixed is None or not (s_up and spines_per_pod):
        return cores, pair_links, problems
    per_group, rest = divmod(fixed, spines_per_pod)
    if rest or not per_group or s_up % per_group:
        valid = [spines_per_pod * g for g in range(s_up // pair_links, s_up + 1) if s_up % g == 0]
        shown = ", ".join(str(n) for n in valid[:4]) + (", ..." if len(valid) > 4 else "")
        problems.append(Problem("divisible", here, f"{fixed} cores do not make {spines_per_pod} equal core groups (one "
                                f"per spine of a pod) that split the {s_up} spine uplinks evenly; counts that do: "
                                f"{shown}", count(fixed), count(cores)))
        return fixed, pair_links, problems
    links = s_up // per_group
    if pods * links > k_core:
        core_sw = fabric.tiers["core"].switch
        problems.append(Problem("count", here, f"{fixed} cores are fewer than the {cores} the spines need: each core "
                                f"takes {links} links from its spine in each of the {pods} pods, {pods * links} "
                                f"ports, and {core_sw.id if core_sw else 'the core switch'} has {k_core}",
                                count(fixed), count(cores)))
    return fixed, links, problems


def _unbuilt_counts(fabric: BoundFabric, tiers_used: int) -> list[Problem]:
    """Counts on tiers that `tiers: auto` does not build (with a fixed `tiers` they fail validation)."""
    spec = fabric.spec
    return [Problem("count", fabric.owner_path + (name, "count"),
                    f"{getattr(spec, name).count} {name}s given, but tiers: auto builds this fabric with {tiers_used} "
                    f"tier(s), without a {name} tier: set tiers: {i + 1} to build it, or leave {name}.count out",
                    count(getattr(spec, name).count), None)
            for i, name in enumerate(TIERS) if i >= tiers_used and getattr(spec, name).count is not None]


def _radix_problems(here: tuple, tiers: tuple[TierCount, ...], counted: set[tuple]) -> list[Problem]:
    """Tiers whose busiest switch needs more ports than it has, but those whose count problem (in `counted`) says so."""
    return [Problem("radix", here + (t.name,) if t.name != "leaf" else here + ("switch",),
                    f"{t.name} switches need {t.max_used_per_switch} ports, {t.switch.id} has {t.radix} at "
                    f"{t.speed:~P}", count(t.max_used_per_switch), count(t.radix))
            for t in tiers if t.switch is not None and t.switches and here + (t.name, "count") not in counted
            and t.max_used_per_switch > t.radix + (t.up if t.down == t.radix else 0)]


def _bandwidth(spec: FatTree, tiers_used: int, tiers: tuple[TierCount, ...], node_ports: int, node_plane: int,
               access: int) -> tuple[Q, Q, dict[str, float]]:
    """Injection and bisection bandwidth over all planes, and the oversubscription at each tier.

    The leaf tier counts the uplinks of the leaves that hold endpoints: a spare leaf's uplinks carry no traffic.
    """
    speed, up_speed, uplinks = spec.speed, tiers[0].up_speed, tiers[0].used_switches * tiers[0].up
    injection = (node_ports * speed).to("Gbit/s")
    cuts = [node_plane * speed / 2]
    if tiers_used >= 2:
        cuts.append(uplinks * up_speed / 2)
    if tiers_used == 3:
        cuts.append(tiers[1].up_used * up_speed / 2)
    bisection = (min(cuts) * spec.planes).to("Gbit/s")
    oversub: dict[str, float] = {}
    if tiers_used >= 2 and uplinks:
        oversub["leaf"] = float(((access * speed) / (uplinks * up_speed)).to("").magnitude)
    if tiers_used == 3 and tiers[1].up_used:
        oversub["spine"] = tiers[1].down / tiers[1].up
    return injection, bisection, oversub


def _failure(spec: FatTree, tiers_used: int, leaf: TierCount, access: int, spines_per_pod: int, group_domains: int,
             nodes_per_domain: int, nodes: tuple[NodeType, ...], ppn: int, acc_per_node: int) -> dict[str, Q]:
    """What one leaf holding endpoints (its ports, accelerators, bandwidth), one spine's uplinks and one plane take."""
    used = leaf.used_switches
    if spec.rail_optimized and group_domains:  # a leaf serves its rail of every scale-up domain in the group
        leaf_nodes = min(group_domains, leaf.down) * nodes_per_domain
    else:
        leaf_nodes = min(math.ceil(leaf.down / ppn) if ppn else 0, sum(nt.count for nt in nodes))
    failure = {
        "failure.leaf.ports_lost": count(min(leaf.down, access)),
        "failure.leaf.accelerators_affected": count(leaf_nodes * acc_per_node),
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


def _other_switches(design: Design, cluster: ClusterDesign, fabric: BoundFabric) -> int:
    """Switches placed in the cluster's racks (one management port each), other than this fabric's own leaves."""
    n = 0
    for rid, racks in cluster.rack_counts.items():
        n += racks * sum(1 for p in cluster.rack_types[rid].items if isinstance(p.part, Switch))
    return n


