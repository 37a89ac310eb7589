"""The systems a cluster attaches to its fabrics: node types with their counts, and their NIC ports by role."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from archgen.build import ClusterDesign, Design
from archgen.model import NIC, Accelerator, System
from archgen.model.fabric_base import FabricBase
from archgen.model.network import parse_breakout
from archgen.model.pcie import pcie_rate
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


def nic_ports(design: Design | Specs, system: System, role: str, breakout: str | None = None) -> int:
    """Ports of a system's NICs of `role`; with a fabric's `nic_breakout`, a NIC that lists it gives n per port."""
    specs = design.specs if isinstance(design, Design) else design
    total = 0
    for slot in system.nics:
        nic = specs.get(slot.part)
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


def split_accelerators(nic: NIC, breakout: str | None) -> list[str] | None:
    """The accelerators `nic`'s part allows `breakout` beside (`breakout_accelerators`); None where it limits none."""
    if breakout is None:
        return None
    want = parse_breakout(breakout)
    return next((ids for text, ids in nic.breakout_accelerators.items() if parse_breakout(text) == want), None)


def split_technologies(nic: NIC, breakout: str | None) -> list[str] | None:
    """The fabric technologies `nic`'s part gives `breakout` on (`breakout_technologies`); None where it limits none."""
    if breakout is None:
        return None
    want = parse_breakout(breakout)
    return next(([str(x) for x in techs] for text, techs in nic.breakout_technologies.items()
                 if parse_breakout(text) == want), None)


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


def host_interface_rate(nic: NIC) -> float | None:
    """What a NIC's `host_interface` carries per direction (B/s): 'PCIe Gen5 x16' -> 63.0 GB/s.

    None where it is not a PCIe generation and width archgen knows (on-board, blank, another bus): then nothing
    bounds the card.
    """
    return pcie_rate(nic.host_interface)


def nic_ports_rate(design: Design | Specs, system: System, role: str, ports: int, speed: float | None,
                   breakout: str | None = None) -> float:
    """B/s (one direction) of `ports` fabric ports at `speed` B/s on a system's NICs of `role`.

    `speed` None: each card's port line rate. Which card each port is on is not stated: they are spread over the
    cards (each up to its own ports), the placement that carries most, and each card carries at most its
    `host_interface` (`host_interface_rate`): two 400G ports of one PCIe Gen5 x16 card give 63.0 GB/s, not
    100 GB/s. Ports beyond the cards' count (NET011) count at line rate.
    """
    specs = design.specs if isinstance(design, Design) else design
    cards: list[tuple[int, float, float]] = []   # (ports, B/s per port, B/s of its host interface)
    for slot in system.nics:
        nic = specs.get(slot.part)
        if slot.role == role and isinstance(nic, NIC):
            line = speed if speed is not None else nic.ports.speed.m_as("B/s")
            host = host_interface_rate(nic)
            cards += [(nic.ports.count * (nic_split(nic, breakout) or 1), line,
                       host if host is not None else math.inf)] * slot.count
    on = [0] * len(cards)
    left = ports
    while left and any(on[i] < cards[i][0] for i in range(len(cards))):
        i = min((i for i in range(len(cards)) if on[i] < cards[i][0]), key=lambda i: on[i])
        on[i] += 1
        left -= 1
    return left * (speed or 0.0) + sum(min(k * line, host) for k, (_, line, host) in zip(on, cards, strict=True))


def fabric_ports_rate(design: Design | Specs, system: System, fabric: FabricBase, ports: int) -> tuple[Q, Q]:
    """(line rate per port, what the ports carry) of a system's `ports` on `fabric`, one direction.

    A port runs at the lesser of its NIC's and the fabric's line rate; the ports carry that, each NIC card at most its
    `host_interface` (`nic_ports_rate`): four 400G ports on two PCIe Gen5 x16 cards carry 126 GB/s, not 200 GB/s.
    """
    role = fabric.nic_role or fabric.role
    have = nic_ports(design, system, role, fabric.nic_breakout)
    line = min(nic_bandwidth(design, system, role) / have if have else fabric.speed, fabric.speed)
    carried = Q_(nic_ports_rate(design, system, role, ports, line.m_as("B/s"), fabric.nic_breakout), "B/s")
    return line, min(carried.to(line.units), line * ports)
