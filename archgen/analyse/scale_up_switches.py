"""The switches of a switched scale-up domain against the racks: trays placed, and a rack domain with none.

A switched domain puts every accelerator one switch hop from the others (`model.cluster.ScaleUp`). Its switches
are either parts of their own in the rack (`switch`, `switches` per domain: the 9 NVLink switch trays of an NVL72)
or chips inside the one system that holds the whole domain (the NVSwitch chips on a DGX/HGX baseboard, inside the
system's power and price). A `domain: rack` domain whose accelerators sit in several systems has no such system, so
with no `switch` part the switches that join its systems are nowhere in the design: no ports, power, price or
failures. A `domain: node` domain is always one system, and no part in the catalog says whether it holds switch
chips, so a node domain written as switched is taken at its word.
"""

from __future__ import annotations

from archgen.analyse.nodes import count
from archgen.analyse.ports import Problem
from archgen.build import ClusterDesign
from archgen.model import System
from archgen.model.cluster import ScaleUp

__all__ = ["placed_switches"]


def placed_switches(cluster: ClusterDesign, su: ScaleUp) -> list[Problem]:
    """Scale-up switch trays placed in each rack type against `switches` per domain times its domains.

    The ports check takes `switches` as written, and the racks' power, weight and BOM count the trays placed, so a
    count that differs from the racks (18 claimed for the 9 trays of an NVL72, or `domain: node` on an NVL72 rack,
    which would need 9 trays per tray of GPUs) would pass with figures from two different designs. A rack domain of
    several systems with no switch part is refused (module docstring).
    """
    problems = []
    for rid in sorted(cluster.rack_counts):
        items = cluster.rack_types[rid].items
        systems = sum(1 for p in items if isinstance(p.part, System) and p.part.accelerators)
        if not systems:
            continue
        if su.switch is None:
            if su.domain == "rack" and systems > 1:
                problems.append(Problem("NET010", ("scale_up", "switch"), f"a switched rack domain of {systems} "
                                        f"systems in {rid} names no switch part, so nothing joins its systems: "
                                        "expected `switch` and `switches` (the trays in the rack), or topology "
                                        "torus or mesh for direct links", count(0), count(1)))
            continue
        placed = sum(1 for p in items if p.part.id == su.switch)
        domains = 1 if su.domain == "rack" else systems
        if placed != domains * su.switches:
            problems.append(Problem("NET010", ("scale_up", "switches"),
                                    f"{rid} places {placed} {su.switch} for its {domains} {su.domain} domain(s); "
                                    f"{su.switches} per domain make {domains * su.switches}",
                                    count(placed), count(domains * su.switches)))
    return problems
