"""Access ports on each leaf of one rail-optimized plane, as the cabling wires them, for the bisection's least cut.

The bisection (`analyse.bisection`) needs the endpoints each leaf holds. A rail-optimized fabric gives every unit
instance holding nodes a full group's leaves (`analyse.tiers.PlaneDemand.leaves`), and the cabling puts port q of a
scale-up domain on rail r = q mod R and rail r on leaf r mod L of its group's L leaves, or, where a group's domains
outnumber a leaf's down ports, on leaf r·⌈G/d⌉ + ⌊domain / d⌋ (`analyse.placement.access_ports`). A short last
group's leaves therefore hold fewer ports than the full groups' leaves; sharing all the ports evenly over the used
leaves, as the bisection did, moved endpoints from full leaves onto them: newuser91's 31 Tomahawk 5 SUs of 64
eight-GPU nodes and one of 32 (16,128 GPUs, rail leaves of 64 x 400G down, 32 x 800G up, spines at 3:1) are wired
248 leaves of 64 and 8 of 32, and were cut as 256 leaves of 63: 1,625.6 Tb/s, where the wiring's least cut is
1,587.2 (two full pods of 3,072 apart from the cores, 819.2 Tb/s, and 1,920 endpoints moved over 30 leaves of 64,
768 Tb/s).

Here the same rule is counted per group, for plane 0 (the planes are alike), from the nodes of each unit instance in
floor order; alike groups are counted once. Node ports in no unit fill the leaves after the groups' in order, and
the ports at no node (reserved, switch and power management, `extra`) the free ports left, leaf by leaf, as
`analyse.other_ports` places them. A cluster analysed from counts only (NET015: no rack instances) is counted from
its layout, each entry's unit instances holding their unit's racks in order, as `build.clusters` would expand them
(topo36: it kept the even share, read 6,400 Gb/s on a plane whose wired least cut is 3,200, and NET034 fired). The
even share stands where a plane's wired leaves would make the least-cut search (`analyse.bisection`, step 3) larger
than the even share's and than `SEARCH_LIMIT` array steps: hundreds of alike pods each holding leaves of several
sizes (units of two sizes alternating within pods, or groups whose rails each take a full leaf and a part one:
tests/checks/cases/NET034.yml), which the search adds one by one, over seconds. Units of many sizes in few pods
are cut as wired: seven short units of 1-7 racks beside a full SU in 0.6 CPU-s (review53).
Where the even share stands for leaves wired otherwise, `leaf_loads` says why: NET034 reports it, and a
requirement the bisection meets is at risk (`checks.judgement.even_share_risks`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from archgen.analyse.bisection import leaf_fill
from archgen.analyse.tiers import TierCount
from archgen.build import ClusterDesign, RackDesign
from archgen.model import System
from archgen.topology import pod_leaves

#: Array steps (`_steps`) up to which the wired leaves are cut exactly: about half a CPU-second a search at the
#: 0.02-0.025 ns a step measured (review53), the intact plane and a spine or core lost five searches in all.
SEARCH_LIMIT = 2 * 10**10


def leaf_loads(cluster: ClusterDesign, ports_per_node: dict[str, int], rails: tuple[int, int, int, int],
               tiers: tuple[TierCount, ...], access: int, spines_per_pod: int) -> tuple[tuple[int, ...], str]:
    """Access ports per leaf of one plane for the bisection: as wired where the plane is rail-optimized, else in order.

    `rails`: rails per plane, planes, a full group's domains and leaves per group (0: not rail-optimized). The even
    share stands where the wired leaves cannot be counted or searched (module docstring); the second item then says
    why, in words for people, where the wiring is not known to be the even share (the least cut may lie below the
    even share's, NET034), else it is ''.
    """
    leaf = tiers[0]
    even = filled(access, leaf.switches, leaf.down, leaf.used_switches if rails[3] else 0)
    if not rails[3]:
        return even, ""
    wired = rail_leaf_loads(cluster, ports_per_node, *rails, leaf.down, leaf.switches, access)
    if not wired:
        return even, "its wired leaves could not be counted"
    pod = pod_leaves(tiers[1].down, leaf.up, spines_per_pod) if len(tiers) == 3 and spines_per_pod else leaf.switches
    return searched(wired, even, pod)


def searched(wired: tuple[int, ...], even: tuple[int, ...], pod: int) -> tuple[tuple[int, ...], str]:
    """The wired leaves where their least-cut search is within `SEARCH_LIMIT` or the even share's, else the even one.

    With why, for `leaf_loads`: '' where the wired leaves are taken or are the even share; pods of `pod` leaves.
    """
    steps = _steps(wired, pod)
    if steps <= max(SEARCH_LIMIT, _steps(even, pod)):
        return wired, ""
    return even, "" if wired == even else (f"its wired leaves would take the least-cut search past its limit "
                                           f"({steps:.2g} array steps, over {SEARCH_LIMIT:.2g})")


def _steps(loads: Sequence[int], pod: int) -> int:
    """The least-cut search's size in array steps (`analyse.bisection`, step 3).

    The endpoints N times, for each kind of pod, the endpoint counts one pod can put on A (E_p + 1): once per pod
    where its leaves are of several sizes (those pods are added one by one), else once and a shifted copy per pod.
    """
    kinds = Counter(tuple(sorted(Counter(e for e in loads[i:i + max(pod, 1)] if e).items()))
                    for i in range(0, len(loads), max(pod, 1)))
    ends = {kind: sum(e * c for e, c in kind) + 1 for kind in kinds}
    return sum(loads) * sum(m * ends[kind] if len(kind) > 1 else ends[kind] + m for kind, m in kinds.items())


def filled(access: int, leaves: int, down: int, spread: int = 0) -> tuple[int, ...]:
    """Access ports per leaf filling `leaves` of `down` in order, or shared evenly over `spread` used leaves.

    The even share is a rail fabric's where its leaves cannot be counted as wired (`analyse.bisection.leaf_fill`).
    """
    return tuple(e for e, n in leaf_fill(access, leaves, down, spread) for _ in range(n))


def rail_leaf_loads(cluster: ClusterDesign, ports_per_node: dict[str, int], rails: int, planes: int,
                    group_domains: int, per_group: int, down: int, leaves: int, access: int) -> tuple[int, ...]:
    """Access ports on each of one plane's `leaves` (in leaf order), or () where they cannot be counted here.

    Args:
        cluster: The cluster: its `instances` in floor order, or its layout where counted only (NET015).
        ports_per_node: The fabric's ports per system part (`FabricAnalysis.ports_per_node`).
        rails: Rails per plane.
        planes: The fabric's planes.
        group_domains: Scale-up domains of a full group.
        per_group: Leaves per group instance (L).
        down: Down ports of a leaf.
        leaves: Leaves of the plane.
        access: Its access ports (endpoints and reserved).
    """
    if not (per_group and down and rails):
        return ()
    per_domain_rack = cluster.spec.scale_up is not None and cluster.spec.scale_up.domain == "rack"
    groups, loose_runs = _floor_groups(cluster, ports_per_node)
    loose = _plane_zero(loose_runs, rails, planes, per_domain_rack)
    loads = [n for ppns in groups if ppns
             for n in _group_loads(ppns, rails, planes, per_domain_rack, group_domains, per_group, down)]
    if len(loads) > leaves:
        return ()
    loads += [0] * (leaves - len(loads))
    for i in range(len(groups) * per_group, leaves):   # node ports in no unit: the leaves after the groups, in order
        take = min(loose, down - loads[i])
        loads[i], loose = loads[i] + take, loose - take
    rest = access - sum(loads)
    for i in range(leaves):                            # ports at no node: the free ports left, leaf by leaf
        take = max(min(rest, down - loads[i]), 0)
        loads[i], rest = loads[i] + take, rest - take
    return tuple(loads)


def _floor_groups(cluster: ClusterDesign, ports_per_node: dict[str, int]
                  ) -> tuple[list[tuple[int, ...]], list[tuple[tuple[int, ...], int]]]:
    """Each unit instance's nodes' fabric ports (floor order), and the racks in no unit as runs (ports, racks).

    From the racks as expanded, or, for a cluster analysed from counts only (NET015), from its layout: each entry's
    unit instances in turn, each holding its unit's racks in order, as `build.clusters` expands them. The racks in
    no unit keep floor order: `placement.access_ports` numbers their nodes as one sequence.
    """
    def ports(rack: RackDesign) -> tuple[int, ...]:
        return tuple(n for item in rack.items
                     if isinstance(item.part, System) and (n := ports_per_node.get(item.part.id, 0)))

    groups: dict[tuple[str, int], list[int]] = {}
    loose: list[tuple[tuple[int, ...], int]] = []
    for inst in cluster.instances:
        if inst.unit:
            groups.setdefault((inst.unit, inst.unit_index), []).extend(ports(inst.rack))
        else:
            loose.append((ports(inst.rack), 1))
    if cluster.instances or not cluster.too_large:
        return [tuple(p) for p in groups.values()], loose
    out: list[tuple[int, ...]] = []
    for place in cluster.spec.layout:
        if place.unit in cluster.unit_racks:
            unit = tuple(p for rid, n in cluster.unit_racks[place.unit] for p in ports(cluster.rack_types[rid]) * n)
            out += [unit] * place.count
        elif place.rack in cluster.rack_types:
            loose.append((ports(cluster.rack_types[place.rack]), place.count))
    return out, loose


def _plane_zero(runs: Sequence[tuple[tuple[int, ...], int]], rails: int, planes: int, per_domain_rack: bool) -> int:
    """Of the ports of nodes in no unit (runs of racks, each rack's nodes' ports), those on plane 0.

    The nodes are numbered in one sequence, as `placement.access_ports` numbers them; node i's port p is
    q = (i mod nodes per domain)·ppn + p of its domain, on plane min(⌊q / R⌋, planes − 1): in a rack domain on two
    planes, the later trays' ports are plane B's (review54: every node's were counted as its domain's first). A run
    of many alike racks repeats with the period of the node numbering, so it is counted over one period.
    """
    def on_zero(i: int, ppn: int) -> int:
        within = i % max(1, rails * planes // ppn) if per_domain_rack else 0
        return sum(1 for p in range(ppn) if min((within * ppn + p) // rails, planes - 1) == 0)

    out, i = 0, 0
    for rack, count in runs:
        if not rack or not count:
            continue
        period = math.lcm(*(max(1, rails * planes // n) if per_domain_rack else 1 for n in rack))
        cycle = min(count, period // math.gcd(len(rack), period))   # racks after which the numbering repeats
        once = [sum(on_zero(i + k * len(rack) + j, n) for j, n in enumerate(rack)) for k in range(cycle)]
        out += sum(once) * (count // cycle) + sum(once[:count % cycle])
        i += count * len(rack)
    return out


@lru_cache(maxsize=64)
def _group_loads(ppns: tuple[int, ...], rails: int, planes: int, per_domain_rack: bool, group_domains: int,
                 per_group: int, down: int) -> tuple[int, ...]:
    """Ports of plane 0 on each of a group's `per_group` leaves: node i of the group (floor order) with ppns[i] ports.

    A node's port p is port q = (i mod nodes per domain)·ppn + p of its domain (one node per domain, or a rack's
    nodes where the domain is the rack), on rail q mod R of plane ⌊q / R⌋; the rail's leaf as the module docstring.
    """
    loads = [0] * per_group
    spans = -(-group_domains // down)
    for i, ppn in enumerate(ppns):
        per_domain = max(1, rails * planes // ppn) if per_domain_rack else 1
        domain, within = divmod(i, per_domain)
        for p in range(ppn):
            q = within * ppn + p
            if min(q // rails, planes - 1):
                continue
            rail = q % rails
            leaf = rail % per_group if group_domains <= down else rail * spans + domain // down
            if leaf < per_group:
                loads[leaf] += 1
    return tuple(loads)
