"""The systems a cluster attaches to its fabrics: node types with their counts, and their NIC ports by role."""

from __future__ import annotations

from dataclasses import dataclass, field

from archgen.build import ClusterDesign, Design
from archgen.model import NIC, Accelerator, System
from archgen.model.network import parse_breakout
from archgen.units import Q_, Q
from archgen.validate import Specs


@dataclass(frozen=True)
class NodeType:
    """A system that attaches to fabrics, and how many of it the cluster holds."""

    part: System
    count: int
    per_rack: dict[str, int]
    per_cage: dict[str, int] = field(default_factory=dict)   # NIC ports per cage by role (see `cage_ports`)



def count(n: float) -> Q:
    """A dimensionless count as a quantity."""
    return Q_(n, "")


def cage_ports(design: Design, system: System) -> dict[str, int]:
    """NIC ports per cage of a system, by role: the NIC slot's `per_cage`, else the NIC part's own (`ports.per_cage`).

    The fewest over the slots of a role: one module then serves that many ports at the node end.
    """
    out: dict[str, int] = {}
    for slot in system.nics:
        nic = design.specs.get(slot.part)
        per = slot.per_cage or (nic.ports.per_cage if isinstance(nic, NIC) else 1)
        out[slot.role] = min(out.get(slot.role, per), per)
    return out


def node_types(cluster: ClusterDesign, design: Design | None = None) -> tuple[NodeType, ...]:
    """Systems of the cluster by part, with their counts (total and per rack type) and NIC ports per cage."""
    found: dict[str, tuple[System, dict[str, int]]] = {}
    for rid in sorted(cluster.rack_counts):
        for item in cluster.rack_types[rid].items:
            if isinstance(item.part, System):
                part, per_rack = found.setdefault(item.part.id, (item.part, {}))
                per_rack[rid] = per_rack.get(rid, 0) + 1
    return tuple(NodeType(p, sum(per[r] * cluster.rack_counts[r] for r in per), per,
                          cage_ports(design, p) if design is not None else {})
                 for _, (p, per) in sorted(found.items()))


def nic_ports(design: Design, system: System, role: str, breakout: str | None = None) -> int:
    """Ports of a system's NICs of `role`; with a fabric's `nic_breakout`, a NIC that lists it gives n per port."""
    total = 0
    for slot in system.nics:
        nic = design.specs.get(slot.part)
        if slot.role == role and isinstance(nic, NIC):
            total += slot.count * nic.ports.count * (nic_split(nic, breakout) or 1)
    return total


def nic_split(nic: NIC, breakout: str | None) -> int | None:
    """Fabric ports one port of `nic` gives under `breakout` ('2x400G': 2); None where its part lists no such split."""
    if breakout is None:
        return 1
    n, rate = parse_breakout(breakout)
    listed = {parse_breakout(b) for b in nic.ports.breakouts}
    return n if (n, rate) in listed else None


def nic_bandwidth(design: Design | Specs, system: System, role: str) -> Q:
    """Line rate of a system's NIC ports of `role`, summed (parts looked up in the design's specs, or `specs`)."""
    specs = design.specs if isinstance(design, Design) else design
    total = Q_(0, "Gbit/s")
    for slot in system.nics:
        nic = specs.get(slot.part)
        if slot.role == role and isinstance(nic, NIC):
            total = total + slot.count * nic.ports.count * nic.ports.speed
    return total


def nic_transport(design: Design, system: System, role: str) -> tuple[Q | None, str]:
    """The network latency the transport of a system's NICs of `role` declares, and who declares it.

    (None, "") when none of them states a `transport` (NCCL's own IB/RoCE transport, 0); (None, who) where the
    transport leaves its latency unset (`NetTransport.latency`: not provided). Where NICs of one role state
    different latencies, the greatest: a step waits for its slowest transport.
    """
    nics = [nic for slot in system.nics if slot.role == role for nic in [design.specs.get(slot.part)]]
    transports = [(nic.transport, f"{nic.transport.plugin} on NIC '{nic.id}'") for nic in nics
                  if isinstance(nic, NIC) and nic.transport]
    stated = sorted(((t.latency.to("us"), who) for t, who in transports if t.latency is not None),
                    key=lambda t: (t[0].magnitude, t[1]))
    unset = sorted(who for t, who in transports if t.latency is None)
    return stated[-1] if stated else (None, unset[0]) if unset else (None, "")


def compute_node(nodes: tuple[NodeType, ...]) -> NodeType | None:
    """The node type that holds most of the cluster's accelerators (ties: the lower part id)."""
    return max(nodes, key=lambda nt: (nt.part.accelerators * nt.count, nt.part.id)) if nodes else None


def compute_accelerator(design: Design, nodes: tuple[NodeType, ...]) -> Accelerator | None:
    """The accelerator part of the cluster's compute nodes, None where there is none or it is not in the specs."""
    compute = compute_node(nodes)
    acc = design.specs.get(compute.part.accelerator) if compute and compute.part.accelerator else None
    return acc if isinstance(acc, Accelerator) else None
