"""NET032: the power parts a management fabric takes (`endpoints.power`) whose management ports no spec states.

A power shelf's or PDU's `management_ports` left out counts none, and the fabric's leaves, cables and port map
are sized without them: an operator reading "power shelf and PDU management" ports in the fabric's text cannot
tell a PDU with no network card from one nobody described. newuser82's two-SU GB200 trial counted the 128 power
shelves' ports and none of its 12 network-rack PDUs', though the metered rack PDUs of this class carry a network
management card. The finding names each such part, how many stand in the cluster's racks and in which rack types;
`management_ports: 0` states a part without one. A fabric taking the CDUs' ports (`endpoints.cooling`) is held to
the same: each in-rack CDU placed and each in-row CDU bought whose part states none is named, with where it stands.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from archgen.analyse.network import count
from archgen.analyse.rack_ports import unstated_cdus, unstated_power_parts
from archgen.checks.registry import Context, Violation


def unstated_power_ports(ctx: Context) -> Iterator[Violation]:
    """NET032: per management fabric taking `endpoints.power`, the power parts whose ports no spec states.

    Each placed power shelf and PDU whose part leaves `management_ports` out, with its count by rack type; then,
    on a fabric taking them, each CDU's likewise (`unstated_cdus`).
    """
    for c in ctx.clusters.values():
        for fa in c.fabrics:
            spec = fa.fabric.spec
            yield from _unstated_cdus(c, fa) if spec.role == "management" else ()
            unstated = unstated_power_parts(c.cluster, spec.endpoints) if spec.role == "management" else {}
            if not unstated:
                continue
            parts = "; ".join(f"{pid} x{sum(by.values())} ({', '.join(f'{n} in {rid}' for rid, n in by.items())})"
                              for pid, by in sorted(unstated.items()))
            total = sum(sum(by.values()) for by in unstated.values())
            yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.owner_path + ("endpoints", "power"),
                            f"{total} power part(s) state no management_ports, so none of theirs is counted, "
                            f"cabled or given a leaf port: {parts}; state each part's `management_ports` "
                            "(0 where it has none)", count(total), None,
                            public=f"{total} power parts have no stated management port count; their management "
                                   f"ports are not provided: {parts}")


def _unstated_cdus(c: Any, fa: Any) -> Iterator[Violation]:
    """NET032 at `endpoints.cooling`: the CDUs the fabric takes whose part states no `management_ports`."""
    cluster, fabric = c.cluster, fa.fabric
    unstated = unstated_cdus(cluster, fabric.spec.endpoints)
    if not unstated:
        return
    parts = "; ".join(f"{pid} x{sum(by.values())} ({', '.join(f'{n} in {rid}' for rid, n in by.items())})"
                      for pid, by in sorted(unstated.items()))
    total = sum(sum(by.values()) for by in unstated.values())
    yield Violation(fabric.path, cluster.spec.id, fabric.owner_path + ("endpoints", "cooling"),
                    f"{total} CDU(s) state no management_ports, so none of theirs is counted, cabled or given a leaf "
                    f"port: {parts}; state each CDU part's `management_ports` (0 where it has only a serial "
                    "building-management link)", count(total), None,
                    public=f"{total} CDUs have no stated management port count; their management ports are not "
                           f"provided: {parts}")
