"""NET032: the power parts a management fabric takes (`endpoints.power`) whose management ports no spec states.

A power shelf's or PDU's `management_ports` left out counts none, and the fabric's leaves, cables and port map
are sized without them: an operator reading "power shelf and PDU management" ports in the fabric's text cannot
tell a PDU with no network card from one nobody described. newuser82's two-SU GB200 trial counted the 128 power
shelves' ports and none of its 12 network-rack PDUs', though the metered rack PDUs of this class carry a network
management card. The finding names each such part, how many stand in the cluster's racks and in which rack types;
`management_ports: 0` states a part without one.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.network import count
from archgen.checks.registry import Context, Violation
from archgen.model import PDU, PowerShelf


def unstated_power_ports(ctx: Context) -> Iterator[Violation]:
    """NET032: per management fabric taking `endpoints.power`, the power parts whose ports no spec states.

    Each placed power shelf and PDU whose part leaves `management_ports` out, with its count by rack type.
    """
    for c in ctx.clusters.values():
        design = c.cluster
        unstated: dict[str, dict[str, int]] = {}   # part id -> rack type -> parts placed there
        for rid, n in sorted(design.rack_counts.items()):
            rack = design.rack_types.get(rid)
            for item in rack.items if rack is not None else ():
                part = item.part
                if isinstance(part, PowerShelf | PDU) and part.management_ports is None:
                    racks = unstated.setdefault(part.id, {})
                    racks[rid] = racks.get(rid, 0) + n
        if not unstated:
            continue
        for fa in c.fabrics:
            spec = fa.fabric.spec
            if spec.role != "management" or not getattr(spec.endpoints, "power", False):
                continue
            parts = "; ".join(f"{pid} x{sum(by.values())} ({', '.join(f'{n} in {rid}' for rid, n in by.items())})"
                              for pid, by in sorted(unstated.items()))
            total = sum(sum(by.values()) for by in unstated.values())
            yield Violation(fa.fabric.path, design.spec.id, fa.fabric.owner_path + ("endpoints", "power"),
                            f"{total} power part(s) state no management_ports, so none of theirs is counted, "
                            f"cabled or given a leaf port: {parts}; state each part's `management_ports` "
                            "(0 where it has none)", count(total), None,
                            public=f"{total} power parts have no stated management port count; their management "
                                   f"ports are not provided: {parts}")
