"""A cable's end in the port map (`End`, a split cable's legs `Leg`), and what it names the end by.

A system, switch, power shelf or PDU is ``<part>-<k>``, the k-th of that part in its rack from the bottom U (worked
out once per rack type: `EndNames`); an access port that ends at no node is named by what it is for: a part's or a
switch's or node's management port, an extra endpoint, a reserved port (`extra_names`). A split cable (its legs at
several devices at one end or both) lists its legs at both ends, leg by leg in the same order, each leg's rack,
device, port and U; its ends' rack and device words are its legs' (`End.split`). Split from
`archgen.analyse.portmap`, which numbers the ports and cuts the links into cables.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from archgen.analyse.fabric import FabricAnalysis
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.placement import device_ends
from archgen.analyse.rack_ports import row_cdus
from archgen.build import ClusterDesign
from archgen.model import PDU, PowerShelf, Switch, System


class Leg(NamedTuple):
    """One leg of a split cable at one of its ends: the rack, device and port it reaches, and that device's U."""

    rack: str
    device: str
    port: str
    u: int | None   # None: the device is not placed at a U


class End(NamedTuple):
    """One end of a cable: rack instance name, U (None where not placed), device and port(s).

    A named tuple, not a frozen dataclass: the 131,072-GPU bench cluster's port map makes 786,432 of them, and a
    frozen dataclass's `__init__` (a `object.__setattr__` per field) took about twice a tuple's time.
    """

    rack: str
    u: int | None
    device: str
    port: str
    # a split cable's legs (its ends at several devices), each leg's rack, device, port and U at this end: both ends of
    # such a cable list them, leg by leg in the same order; `rack` and `device` are then theirs (`End.split`)
    legs: tuple[Leg, ...] = ()

    @classmethod
    def split(cls, legs: tuple[Leg, ...], port: str) -> End:
        """A split cable's end at its `legs`: its racks and devices theirs, each once, joined by " + ".

        Its U is its device's where all its legs are at one device; at several (nodes of one rack, or of two) it has
        no one U, and the port map shows each device's (`leg_u`), as it does each device's name.
        """
        devices = dict.fromkeys((leg.rack, leg.device) for leg in legs)
        return cls(" + ".join(dict.fromkeys(rack for rack, _ in devices)), legs[0].u if len(devices) == 1 else None,
                   " + ".join(d for _, d in devices), port, legs)

    @property
    def racks(self) -> tuple[str, ...]:
        """The racks at this end: its legs' where it is split, else its one rack."""
        return tuple(dict.fromkeys(leg.rack for leg in self.legs)) if self.legs else (self.rack,)

    @property
    def leg_u(self) -> tuple[int | None, ...]:
        """Each device's U at a split end, in its legs' order (a split end has one U only where it is at one)."""
        return tuple(dict(((leg.rack, leg.device), leg.u) for leg in self.legs).values())


class EndNames:
    """(rack instance, U) -> the name of the system, switch, power shelf or PDU there, read as a dict is (`get`).

    Racks of one type hold the same parts at the same U, so the names are worked out once per rack type (by its
    design, `RackInstance.rack`) and each instance looks up its type's: 90,000 racks of three types name three
    racks' parts, not 90,000 (issue 25).
    """

    def __init__(self, a: ClusterAnalysis) -> None:
        by_type: dict[int, dict[int, str]] = {}
        self._of: list[dict[int, str]] = [by_type.setdefault(id(inst.rack), {}) for inst in a.cluster.instances]
        done: set[int] = set()
        for inst in a.cluster.instances:
            if id(inst.rack) not in done:
                done.add(id(inst.rack))
                by_type[id(inst.rack)].update(_rack_names(inst.rack.items))

    def get(self, key: tuple[int, int], default: str) -> str:
        """The name at (rack instance index, U), or `default` where nothing named stands there."""
        rack, u = key
        return self._of[rack].get(u, default) if 0 <= rack < len(self._of) else default


def _rack_names(items: Sequence) -> dict[int, str]:
    """U of every system, switch, power shelf and PDU of one rack -> its name, ``<part>-<k>`` from the bottom.

    Systems and switches first: a power part never takes the name of a U one of them holds.
    """
    out: dict[int, str] = {}
    seen: dict[str, int] = {}
    for kinds in (System | Switch, PowerShelf | PDU):
        for item in sorted((i for i in items if isinstance(i.part, kinds)), key=lambda i: i.u):
            seen[item.part.id] = seen.get(item.part.id, 0) + 1
            out.setdefault(item.u, f"{item.part.id}-{seen[item.part.id]:02d}")
    return out


def extra_names(cluster: ClusterDesign, fa: FabricAnalysis, n: int) -> list[tuple[str, str, str]]:
    """What each of `n` access ports that end at no node is for, (name, why, port), in `placement.other_ends`' order.

    The parts' management ports the endpoints count (`placement.device_ends`), in-row CDUs', then switch and node
    management, extra endpoints and reserved ports.
    """
    spec = fa.fabric.spec
    switch_ports = max(fa.endpoint_ports - fa.node_ports - spec.endpoints.extra - fa.node_mgmt_ports, 0)
    label = {"Switch": "switch", "PowerShelf": "power shelf", "PDU": "PDU", "CoolingUnit": "CDU"}
    kinds = [(f"{label.get(kind, kind)} management port", f"a {label.get(kind, kind)}'s management port", port)
             for _, _, kind, port in device_ends(cluster, spec.endpoints)]
    kinds += [(f"{pid} management port", "an in-row CDU's management port", "mgmt")   # at no rack (`other_ends`)
              for pid, (part, units) in row_cdus(cluster).items()
              for _ in range(units * (part.management_ports or 0) if spec.endpoints.cooling else 0)]
    kinds = kinds[:switch_ports]
    kinds += [("switch management port", "a switch's management port", "mgmt")] * (switch_ports - len(kinds))
    kinds += [("node management port", "a node's management (BMC) port", "mgmt")] * fa.node_mgmt_ports
    kinds += [("other endpoint", "an endpoint other than a node, stated only as a count", "—")] * spec.endpoints.extra
    for r in spec.reserved:
        kinds += [(r.name, f"reserved for {r.name}", "—")] * r.ports
    kinds += [("reserved", "reserved port", "—")] * max(n - len(kinds), 0)
    return kinds[:n]
