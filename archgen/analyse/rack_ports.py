"""Access ports per rack of a management fabric, and its leaves sized per group of racks (`leaf.serves_racks`).

A management (OOB) fabric takes the management ports of what stands in the racks: the compute nodes' BMC ports
(`endpoints.node_management`), each switch's `management_ports` (`endpoints.switches`; three on a GB200 NVLink switch
tray), each power shelf's and PDU's (`endpoints.power`) and each CDU's (`endpoints.cooling`: an in-rack CDU's in its
rack, an in-row CDU's at no rack, one set per CDU the cluster buys by `analyse.cdu_units`). Counted per rack type,
they are closed forms over the rack counts. With `leaf.serves_racks: N` the leaves stand in every N racks of the
leaves' rack type and each group gets ⌈its ports / leaf down ports⌉ (`archgen.analyse.tiers.PlaneDemand.leaves`);
NET028 compares that with the leaf switches the rack type's slots hold, so a rack type with more (unused) or fewer
(ports left without a leaf in their rack) is reported. GB200 NVL72 rack: 18 BMC + 9 x 3 NVLink tray + 2 SN2201 +
8 power-shelf ports = 55 on 48-port SN2201s, 2 per rack, the two management ToR switches of NVIDIA's DGX GB200 user
guide.
"""

from __future__ import annotations

import math

from archgen.analyse.cdu_units import cdu_units
from archgen.analyse.nodes import NodeType, count
from archgen.analyse.ports import Problem
from archgen.build import BoundFabric, ClusterDesign, RackDesign
from archgen.model import PDU, CoolingUnit, PowerShelf, Switch
from archgen.model.fabrics import FatTree


def part_ports(part: object, ends: object) -> int:
    """Management ports of one placed part that a fabric's `endpoints` take (`switches`, `power`, `cooling`)."""
    if isinstance(part, Switch):
        return part.management_ports if getattr(ends, "switches", False) else 0
    if isinstance(part, PowerShelf | PDU):
        return (part.management_ports or 0) if getattr(ends, "power", False) else 0   # not stated: none (NET032)
    if isinstance(part, CoolingUnit):
        return (part.management_ports or 0) if getattr(ends, "cooling", False) else 0   # not stated: none (NET032)
    return 0


def rack_device_ports(rack: RackDesign, ends: object) -> int:
    """Management ports of the switches, power shelves and PDUs in one rack of a type that `ends` takes."""
    return sum(part_ports(p.part, ends) for p in rack.items)


def device_ports(cluster: ClusterDesign, ends: object, power_only: bool = False) -> int:
    """Management ports of the parts placed in the cluster's racks that `ends` takes: Σ racks x ports per rack.

    With `power_only`, those of the power shelves and PDUs alone (`endpoints.power`); else with the in-row CDUs' too
    (`row_cdu_ports`), which stand in no rack.
    """
    return sum(n * sum(part_ports(p.part, ends) for p in cluster.rack_types[rid].items
                       if not power_only or isinstance(p.part, PowerShelf | PDU))
               for rid, n in cluster.rack_counts.items()) + (0 if power_only else row_cdu_ports(cluster, ends))


def row_cdus(cluster: ClusterDesign) -> dict[str, tuple[CoolingUnit, int]]:
    """The CDUs the cluster buys outside its racks' slots (`analyse.cdu_units`): part id -> (part, units)."""
    out: dict[str, tuple[CoolingUnit, int]] = {}
    for rid, n in sorted(cluster.rack_counts.items()):
        rack = cluster.rack_types.get(rid)
        units = cdu_units(rack, n) if rack is not None else 0
        if units and rack is not None and rack.cdu is not None:
            out[rack.cdu.id] = (rack.cdu, out.get(rack.cdu.id, (rack.cdu, 0))[1] + units)
    return out


def row_cdu_ports(cluster: ClusterDesign, ends: object) -> int:
    """Management ports of the CDUs bought outside the racks' slots that `ends` takes (`endpoints.cooling`).

    Each such CDU's `management_ports` x the units bought; none where the part states none (NET032).
    """
    if not getattr(ends, "cooling", False):
        return 0
    return sum((part.management_ports or 0) * units for part, units in row_cdus(cluster).values())


def cdu_ports(cluster: ClusterDesign, ends: object) -> int:
    """All CDU management ports `ends` takes: the in-rack CDUs' placed in the racks and the in-row CDUs'."""
    if not getattr(ends, "cooling", False):
        return 0
    return row_cdu_ports(cluster, ends) + sum(n * sum(part_ports(p.part, ends) for p in cluster.rack_types[rid].items
                                                      if isinstance(p.part, CoolingUnit))
                                              for rid, n in cluster.rack_counts.items())


def unstated_cdus(cluster: ClusterDesign, ends: object) -> dict[str, dict[str, int]]:
    """The CDUs `ends` takes (`endpoints.cooling`) whose part states no `management_ports` (NET032).

    Part id -> where they stand (a rack type, or 'the rows' for those bought outside the racks' slots) -> how many.
    """
    found: dict[str, dict[str, int]] = {}
    if not getattr(ends, "cooling", False):
        return found
    for rid, n in sorted(cluster.rack_counts.items()):
        rack = cluster.rack_types.get(rid)
        for item in rack.items if rack is not None else ():
            if isinstance(item.part, CoolingUnit) and item.part.management_ports is None:
                by_rack = found.setdefault(item.part.id, {})
                by_rack[rid] = by_rack.get(rid, 0) + n
    for pid, (part, units) in sorted(row_cdus(cluster).items()):
        if part.management_ports is None:
            found.setdefault(pid, {})["the rows"] = units
    return found


def unstated_power_parts(cluster: ClusterDesign, ends: object) -> dict[str, dict[str, int]]:
    """The power parts `ends` takes (`endpoints.power`) whose part states no `management_ports` (NET032).

    Part id -> rack type -> how many stand in the racks of that type; empty where `ends` takes no power ports.
    """
    found: dict[str, dict[str, int]] = {}
    if not getattr(ends, "power", False):
        return found
    for rid, n in sorted(cluster.rack_counts.items()):
        rack = cluster.rack_types.get(rid)
        for item in rack.items if rack is not None else ():
            if isinstance(item.part, PowerShelf | PDU) and item.part.management_ports is None:
                by_rack = found.setdefault(item.part.id, {})
                by_rack[rid] = by_rack.get(rid, 0) + n
    return found


def rack_ports(cluster: ClusterDesign, spec: FatTree, rid: str, nodes: tuple[NodeType, ...],
               ports_per_node: dict[str, int]) -> int:
    """Access ports one rack of type `rid` brings to the fabric: its nodes' NIC and management ports, its parts'."""
    if rid not in cluster.rack_types:
        return 0
    per_node = spec.endpoints.node_management
    nics = sum(nt.per_rack.get(rid, 0) * ports_per_node.get(nt.part.id, 0) for nt in nodes)
    bmcs = per_node * sum(nt.per_rack.get(rid, 0) for nt in nodes if nt.part.accelerators)
    return nics + bmcs + rack_device_ports(cluster.rack_types[rid], spec.endpoints)


def rack_groups(cluster: ClusterDesign, spec: FatTree, nodes: tuple[NodeType, ...],
                ports_per_node: dict[str, int]) -> tuple[int, ...]:
    """Per plane, the access ports of each group of `leaf.serves_racks` racks of the leaves' rack type; () if unset.

    The racks of the type are taken N at a time in floor order; the last group may hold fewer.
    """
    n, rid = spec.leaf.serves_racks, spec.leaf.rack
    if n is None or rid is None:
        return ()
    per = rack_ports(cluster, spec, rid, nodes, ports_per_node)
    return tuple(math.ceil(k * per / spec.planes) for k in group_sizes(cluster.rack_counts.get(rid, 0), n))


def group_sizes(racks: int, n: int) -> list[int]:
    """The sizes of `racks` racks taken `n` at a time in floor order: the last group may hold fewer."""
    return [n] * (racks // n) + ([racks % n] if racks % n else [])


def rack_leaf_problems(cluster: ClusterDesign, fabric: BoundFabric, racks: tuple[int, ...],
                       down: int) -> list[Problem]:
    """NET028: leaves the rack type's slots hold per group of `leaf.serves_racks` racks against those its ports need.

    Args:
        cluster: the cluster, for the rack type's slots.
        fabric: the fabric, a fat tree with `leaf.serves_racks` and `leaf.rack`.
        racks: access ports of each group of racks, per plane (`rack_groups`).
        down: down ports per leaf.
    """
    spec, sw = fabric.spec, fabric.tiers["leaf"].switch
    assert isinstance(spec, FatTree), "only a fat tree's leaves are sized per rack"
    rid, n = spec.leaf.rack, spec.leaf.serves_racks
    if not racks or down <= 0 or sw is None or rid not in cluster.rack_types or n is None:
        return []
    held = sum(1 for p in cluster.rack_types[rid].items if p.part.id == sw.id)
    stated = [held * k * spec.planes for k in group_sizes(cluster.rack_counts.get(rid, 0), n)]
    need = [math.ceil(p / down) * spec.planes for p in racks]
    short = [(s, w, p) for s, w, p in zip(stated, need, racks, strict=True) if s != w]
    if not short:
        return []
    s, w, p = short[0]
    what = (f"cannot serve its ports: {w - s} more are needed in each, or the ports past {s * down} go to leaves in "
            "other racks" if s < w else f"leaves {s - w} of them unused in each (the fabric needs {w})")
    return [Problem("NET028", fabric.owner_path + ("leaf", "serves_racks"), (
        f"the '{rid}' racks hold {held} x {sw.id} each, {s} per group of {n} rack(s); the group's {p} management "
        f"and access ports need {w} ({p} / {down} down ports, rounded up): the stated count {what}"
        + (f"; {len(short)} of {len(racks)} groups differ" if len(short) > 1 else "")), count(s), count(w))]
