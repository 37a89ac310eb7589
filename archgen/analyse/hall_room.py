"""What a cluster's hall leaves for its IT power: the most a sweep point's cluster may draw there (sites31).

A sweep's `tdp` or `accelerator` axis moves a cluster's IT power by the difference on every accelerator
(`perf.explore.point_axes.at_tdp`); before, no point was held to its hall, so a point drawing more than the hall's
critical IT power, cooling, UPS or generator sets leave was feasible without a word. The room is the least of the
cluster's headroom metrics (`analyse.facility.facility_metrics`), each in watts of IT power at the rack feeds: a watt
there adds a watt to the feeds' and the cooling's load, 1 / the distribution's efficiency to the UPS's (`ups_factor`)
and the facility's generator PUE to the generator sets' (`generator_pue`), as `checks.power_figures` counts them.

Which headrooms, as `archgen check`'s errors judge the hall (PWR010, COOL009, PWR011): a cluster its hall's
`deployed` lists is held to the hall's (`hall_headrooms`: with the other clusters and clusters' halls listed); any
other to its hall alone, since the run's other clusters naming the hall may be alternatives for it (their sum is a
warning in `check`, not a point's misfit). The other end of a headroom beside another cluster's hall
(`headroom_ends`, the unsplit rest) is not applied: in `check` that is a warning too. A cluster whose halls name
facilities of their own (`floor.halls[].facility`) has no headroom of its cluster facility (`facility_metrics`), so
no room here: its points are not held to a hall (docs/sweeps.md says so).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from archgen.analyse.facility import generator_pue, hall_headrooms, ups_factor
from archgen.analyse.hall_groups import deployed, fellows, halls_with
from archgen.display import kw
from archgen.units import Q

#: Each headroom metric and the capacity it is the room of, in words.
CAPACITIES = {"it_capacity_headroom": "critical IT power", "cooling_headroom": "cooling capacity",
              "ups_headroom": "usable UPS capacity", "generator_headroom": "usable generator capacity"}


@dataclass(frozen=True)
class HallRoom:
    """The most IT power a cluster's hall takes for it (`limit`), and which hall and headroom set it (`words`)."""

    limit: Q
    words: str


def hall_rooms(clusters: Mapping[str, Any]) -> dict[str, HallRoom]:
    """By cluster path, the room its hall leaves for its IT power (`hall_room`), where it states a capacity."""
    together = hall_headrooms(clusters)
    out = {}
    for path, c in clusters.items():
        others = [f"'{o.cluster.spec.id}'" for p, o in fellows(clusters, path).items() if p != path] + [
            f"'{o.cluster.spec.id}' hall '{o.cluster.spec.floor.halls[j].id}'" for o, j in halls_with(clusters, path)]
        if (room := hall_room(c, together.get(path), ", ".join(others))) is not None:
            out[path] = room
    return out


def hall_room(c: Any, together: Mapping[str, Q | None] | None = None, others: str = "") -> HallRoom | None:
    """The room cluster `c`'s hall leaves for its IT power; None where it states no capacity or the power is unknown.

    `together`: the hall's headrooms with its other occupants (`hall_headrooms`' entry for `c`), read where the hall's
    `deployed` lists `c` (module docstring), `others` naming them; a headroom None there (an occupant's load not
    provided) is `c`'s alone.
    """
    fac, it = c.cluster.facility, c.metrics.get("it_power")
    if fac is None or it is None or any(c.cluster.hall_facilities):
        return None
    shared = together if together is not None and deployed(c) else {}
    rooms = []
    for name, capacity in CAPACITIES.items():
        hall, own = shared.get(name), c.metrics.get(name)
        value = hall if hall is not None else own
        factor = ups_factor(fac) if name == "ups_headroom" else \
            generator_pue(fac) if name == "generator_headroom" else 1.0
        if value is None or factor is None:
            continue
        room = (value / factor).to("kW")
        per = "" if factor == 1.0 else f", {kw(room)} of IT power at {factor:.3g} W a watt"
        whose = f", with {others} deployed there" if hall is not None and others else ""
        rooms.append((room, f"facility '{fac.id}' (its {capacity} leaves {kw(value)} beside the cluster's own "
                      f"{kw(it)}{whose}{per})"))
    if not rooms:
        return None
    room, words = min(rooms, key=lambda r: r[0].m_as("kW"))
    return HallRoom((it + room).to("kW"), words)
