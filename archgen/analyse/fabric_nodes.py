"""A fabric's ports at its nodes: how many each node type attaches, and what is wrong with them.

NET011 (a node or a listed system with too few NIC ports of the fabric's role, a listed system the cluster does not
place), NET005 (planes that do not divide the ports per node), NET016 (a NIC port slower than the fabric, or a
breakout its part does not list) and NET026 (a port faster than the fabric runs at the fabric's rate). The fabric's
sizing (`analyse.fabric.analyse_fabric`) counts its endpoints from these ports.
"""

from __future__ import annotations

from archgen.analyse.nodes import NodeType, count, nic_ports, nic_split, split_accelerators, split_technologies
from archgen.analyse.ports import Problem
from archgen.build import BoundFabric, Design
from archgen.display import figure
from archgen.model import NIC
from archgen.model.network import parse_breakout


def node_management_ports(spec: object, nodes: tuple[NodeType, ...]) -> int:
    """Management ports at the compute nodes (`endpoints.node_management` per system with accelerators)."""
    per = getattr(getattr(spec, "endpoints", None), "node_management", 0)
    return per * sum(nt.count for nt in nodes if nt.part.accelerators) if per else 0


def node_ports(design: Design, fabric: BoundFabric, nodes: tuple[NodeType, ...]) -> tuple[dict[str, int], int, list]:
    """Fabric ports per node type and in all, with problems for missing NIC ports and planes that do not divide."""
    spec, here, planes = fabric.spec, fabric.owner_path, getattr(fabric.spec, "planes", 1)
    role = spec.nic_role or spec.role
    problems, ports_per_node, total = [], {}, 0
    listed = spec.endpoints.systems
    problems += unplaced_systems(fabric, nodes)
    for nt in nodes:
        have = nic_ports(design, nt.part, role, spec.nic_breakout)
        want = spec.ports_per_node if spec.ports_per_node is not None else have
        if not spec.endpoints.nodes or (listed is not None and nt.part.id not in listed):
            continue
        if listed is not None and have == 0:
            problems.append(Problem("NET011", here + ("endpoints", "systems", listed.index(nt.part.id)),
                                    f"{nt.part.id} is listed to attach, but has no NIC port of role '{role}' (its "
                                    f"roles: {', '.join(sorted({s.role for s in nt.part.nics})) or 'none'})",
                                    count(want), count(0)))
            continue
        if not (nt.part.accelerators or listed is not None):
            want = min(want, have)  # `ports_per_node` is the compute nodes'; another system attaches what it has
        if want == 0:
            continue
        if want > have:
            problems.append(Problem("NET011", here + ("ports_per_node",),
                                    f"{nt.part.id} has {have} NIC port(s) of role '{role}', the fabric uses {want}",
                                    count(want), count(have)))
        problems += nic_speed_problems(design, fabric, nt)
        ports_per_node[nt.part.id] = want
        total += want * nt.count
    # with `endpoints.systems`, each name that attaches nothing is reported above
    if spec.endpoints.nodes and not total and listed is None and any(nt.part.accelerators for nt in nodes):
        roles = sorted({s.role for nt in nodes for s in nt.part.nics})
        key = "nic_role" if spec.nic_role else "role"
        problems.append(Problem("NET011", here + (key,), f"no node has NIC ports of role '{role}' (their roles: "
                                f"{', '.join(roles) or 'none'}), so the fabric attaches no node: its switches, "
                                "links and bandwidth would describe nothing", count(0), None))
    if total % planes or any(p % planes for p in ports_per_node.values()):
        problems.append(Problem("NET005", here + ("planes",),
                                f"{planes} planes do not divide the NIC ports per node "
                                f"({', '.join(f'{k}: {v}' for k, v in ports_per_node.items()) or 'none'})",
                                count(planes), None))
    return ports_per_node, total, problems


def nic_speed_problems(design: Design, fabric: BoundFabric, nt: NodeType) -> list[Problem]:
    """NET016 and NET026: a node's NIC ports of the fabric's role against its line rate, after `nic_breakout`.

    A port slower than the fabric is an error (its nodes would inject at a rate it cannot carry), a NIC that does not
    list the fabric's `nic_breakout` too, and one whose part allows that split only beside other accelerators
    (`breakout_accelerators`: ConnectX-8's Quad-Plane 4x200G is B300 only); a port faster than the fabric runs at
    the fabric's rate (NET026).
    """
    spec, here = fabric.spec, fabric.owner_path
    role, out = spec.nic_role or spec.role, []
    nics = sorted({nic.id: nic for slot in nt.part.nics
                   if slot.role == role and isinstance(nic := design.specs.get(slot.part), NIC)}.items())
    for nic_id, nic in nics:
        split = nic_split(nic, spec.nic_breakout)
        if split is None:
            said = (f"{nt.part.id}'s {nic_id} ports ({nic.ports.speed:~P}) cannot be split {spec.nic_breakout}: its "
                    f"part lists {', '.join(nic.ports.breakouts) or 'no breakout'}")
            out.append(Problem("NET016", here + ("nic_breakout",), f"{said}; leave nic_breakout out, or fit NICs that "
                               "make the split", None, None, public=said))
            continue
        if (only := split_accelerators(nic, spec.nic_breakout)) is not None and nt.part.accelerator not in only:
            beside = nt.part.accelerator or "no accelerator"
            out.append(Problem("NET016", here + ("nic_breakout",), f"{nt.part.id}'s {nic_id} ports cannot be split "
                               f"{spec.nic_breakout} beside {beside}: its part's source allows that split only with "
                               f"{', '.join(only)}; use another breakout or node", None, None))
        leaf = fabric.tiers["leaf"].switch if "leaf" in fabric.tiers else None
        if (on := split_technologies(nic, spec.nic_breakout)) is not None and leaf is not None \
                and leaf.technology not in on:
            said = (f"{nt.part.id}'s {nic_id} ports cannot be split {spec.nic_breakout} on {leaf.id}'s "
                    f"{leaf.technology}: its part's source gives that split on {', '.join(on)} only")
            out.append(Problem("NET016", here + ("nic_breakout",), f"{said}; leave nic_breakout out (each port one "
                               f"fabric port at {nic.ports.speed:~P}), or use {', '.join(on)} switches", None, None,
                               public=said))
        rate = (nic.ports.speed / split).to("Gbit/s")
        if rate < spec.speed:   # a port cannot run faster than its NIC: the injection would be the fabric's
            out.append(Problem("NET016", here + ("speed",), f"{nt.part.id}'s {nic_id} ports run at "
                               f"{figure(rate)}, slower than the fabric's {spec.speed:~P}", spec.speed, rate))
        elif rate > spec.speed:
            n = round(float((rate / spec.speed).to("")))
            fits = [b for b in nic.ports.breakouts if n > 1 and parse_breakout(b) == (n, spec.speed.m_as("Gbit/s"))]
            hint = (f"; its part lists {fits[0]}: `nic_breakout: {fits[0]}` uses the whole port as {n} fabric ports "
                    f"(over {n} planes)" if fits else "; it lists no split at the fabric's speed")
            said = (f"; its part lists {fits[0]}, which would use the whole port as {n} fabric ports (over {n} planes)"
                    if fits else hint)
            text = (f"{nt.part.id}'s {nic_id} ports run at {figure(rate)} on a {spec.speed:~P} fabric: each runs at "
                    f"{spec.speed:~P}, {float((spec.speed / rate).to('')):.0%} of its rate")
            out.append(Problem("NET026", here + ("speed",), text + hint, rate, spec.speed, public=text + said))
    return out


def unplaced_systems(fabric: BoundFabric, nodes: tuple[NodeType, ...]) -> list[Problem]:
    """NET011: the systems a fabric's `endpoints.systems` names that the cluster does not place (they attach none)."""
    placed = sorted(nt.part.id for nt in nodes)
    return [Problem("NET011", fabric.owner_path + ("endpoints", "systems", j), f"'{sid}' is not a system the "
                    f"cluster's racks hold (they hold: {', '.join(placed) or 'none'}), so it attaches nothing",
                    None, None)
            for j, sid in enumerate(fabric.spec.endpoints.systems or ()) if sid not in placed]
