"""A cluster's load against its hall's stated capacities (PWR010, COOL009) and the feed figures PWR011 reads.

Moved out of `checks/scope.py` (which keeps which checks apply to which objects) for its size, when hall29fix told a
cluster naming a facility of the other clusters' halls standing in it; a facility's occupants, clusters and halls
alike, are summed once by `occupants.over_facility` (power30).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from archgen.analyse.conversion import unpowered
from archgen.analyse.facility import feed_load
from archgen.checks.hall_figures import alone, generator_load, ups_pumps
from archgen.checks.occupants import StageLoads, hall_draw, hall_rest, over_facility
from archgen.checks.own_halls import outside_racks
from archgen.checks.registry import Severity
from archgen.display import kw


def over_hall(clusters: Any, capacity: str, label: str, what: str = "IT power"
              ) -> Iterator[tuple[str, Any, Any, str, Any, Any, Severity | None]]:
    """Each cluster whose IT power exceeds what its hall states as `capacity`, or cannot be compared with it.

    (path, cluster analysis, the hall's location, message, value, limit, severity): PWR010 for `critical_it_power`,
    COOL009 for `cooling_capacity` (all IT power becomes heat) at the site's conditions (`hall_capacity`), `label`
    naming it in the message. A cluster within the capacity alone whose hall the run's other clusters, or other
    clusters' halls, also occupy, and which exceeds it with them, is a warning (`occupants.over_facility`); where the
    hall lists them as `deployed` together, an error, and a candidate the list leaves out is judged alone (its
    message says so, `alone`). The IT power here is
    what the rack feeds carry (`feed_power`): with the racks' own cooling units, as the headroom metrics count it.
    Where it is not provided (a fabric tier names no link media, so its transceivers' draw is unknown:
    `analyse.conversion.unpowered`), the racks' own IT power (`it_power_racks`) is a floor under it, since
    everything else only adds: above the capacity, the cluster fails on the floor alone (an error); within it, the
    check cannot judge and says so (an info finding), never a silent pass. A cluster some of whose halls
    (`floor.halls`) name their own facility is judged hall by hall instead (`by_hall`), each hall with the run's other
    occupants of its facility (`over_facility`).
    """
    for path, c in clusters.items():
        if any(c.cluster.hall_facilities):
            yield from by_hall(clusters, path, c, capacity, label, what)
            continue
        hall, it, at = c.cluster.facility, feed_power(c.metrics), ("facility",)
        limit = hall_capacity(hall, capacity) if hall is not None else None
        if limit is None:
            continue
        against = f"facility '{hall.id}''s {label} {kw(limit)}"
        if it is not None:
            if it > limit:
                yield (path, c, at, f"{feed_words(c.metrics, what)} {kw(it)} exceeds {against} by "
                       f"{kw(it - limit)}{alone(c)}", it.to("kW"), limit.to("kW"), None)
            elif over := over_facility(clusters, path, -1, hall, it, FEEDS, limit, against):
                yield (path, c, at, f"{feed_words(c.metrics, what)} {kw(it)}: {over.message}" if over.halls else
                       over.message, over.total, limit.to("kW"), over.severity)   # the facility's other occupants
            continue
        floor, why = it_floor(c, what)
        if floor is None:
            continue
        if floor > limit:
            yield (path, c, at, f"{what} of the racks alone {kw(floor)} exceeds {against} by "
                   f"{kw(floor - limit)}, before the rest ({why}){alone(c)}", floor.to("kW"),
                   limit.to("kW"), None)
        else:
            yield (path, c, at, f"not judged: {why}; the racks alone draw {kw(floor)} of {against}",
                   floor.to("kW"), limit.to("kW"), "info")


def by_hall(clusters: Any, path: str, c: Any, capacity: str, label: str, what: str
            ) -> Iterator[tuple[str, Any, tuple, str, Any, Any, Severity | None]]:
    """`over_hall` for each hall of a cluster's floor that names its own facility (`Hall.facility`).

    A hall's racks' draw (`hall_power.<hall>`, with their in-rack cooling units) is a floor under its share of the
    rack feeds' load; the rest of it (optics outside systems, switches in no rack, storage, shelf loss) is not split
    by hall, so the floor plus all of it is a ceiling. Floor above the capacity: an error; ceiling within it: a pass;
    between: a warning that the split decides; the rest not provided (no IT power): an info finding, not judged.
    """
    m, halls = c.metrics, c.cluster.spec.floor.halls
    rest = outside_racks(c)
    for k, hall in enumerate(c.cluster.hall_facilities):
        draw, limit = m.get(f"hall_power.{halls[k].id}"), hall_capacity(hall, capacity) if hall is not None else None
        if limit is None or draw is None and not c.cluster.too_large:   # a hall holding no racks: nothing to judge
            continue
        at = ("floor", "halls", k, "facility")
        if draw is None:
            yield (path, c, at, f"not judged: the racks are not expanded (NET015), so hall '{halls[k].id}''s draw is "
                   "not provided", None, limit.to("kW"), "info")
            continue
        own = f"{what} of hall '{halls[k].id}''s racks {kw(draw)}"
        against = f"its facility '{hall.id}''s {label} {kw(limit)}"
        if draw > limit:
            yield (path, c, at, f"{own} exceeds {against} by {kw(draw - limit)}, before the cluster's "
                   "share not split by hall", draw.to("kW"), limit.to("kW"), None)
            continue
        peers = over_facility(clusters, path, k, hall, draw, FEEDS, limit, against)
        if peers and peers.severity != "info":   # its facility's other occupants
            yield (path, c, at, f"{own}: {peers.message}", peers.total, limit.to("kW"), peers.severity)
        elif rest is None or draw + rest > limit:
            most = "its share of the rest is not provided" if rest is None else (
                f"with all {kw(rest)} the cluster draws outside its racks' own figures (optics outside "
                f"systems, switches in no rack, storage, shelf loss), which is not split by hall, it would be "
                f"{kw(draw + rest)}")
            yield (path, c, at, f"{own} is within {against}, but {most}: the hall is not judged past its racks",
                   draw.to("kW"), limit.to("kW"), "info" if rest is None else "warning")
        elif peers:   # within it, but another occupant's draw is not provided (or a candidate's): said
            yield (path, c, at, f"{own}: {peers.message}", peers.total, limit.to("kW"), peers.severity)


def _feed_or_floor(c: Any) -> Any:
    """A cluster's `feed_power`, or the racks' own IT power (a floor under it) where that is not provided."""
    it = feed_power(c.metrics)
    return it if it is not None else c.metrics.get("it_power_racks")


#: The feeds' and the plant's stage of a facility (`occupants.StageLoads`): each occupant's feed power (or its
#: racks' floor), a hall's racks' draw and its cluster's rest, x 1.
FEEDS = StageLoads(_feed_or_floor, hall_draw, rest=hall_rest)


def it_floor(c: Any, what: str = "IT power") -> tuple[Any, str]:
    """A floor under a cluster's IT power where it is not provided, and why it is not: (None, "") where none.

    The racks' own IT power (`it_power_racks`): transceivers, unplaced switches, shelf loss and storage only add to
    it. The reason names the links without media (`analyse.conversion.unpowered`) where those are the cause.
    """
    floor = c.metrics.get("it_power_racks")
    return floor, (unpowered(c) or f"{c.cluster.spec.id}'s {what} is not provided") if floor is not None else ""


def feed_power(metrics: Any) -> Any:
    """A cluster's IT power plus its racks' cooling units (`rack_cooling_power`, in-rack CDUs); None: no IT power."""
    it = metrics.get("it_power")
    return None if it is None else feed_load(it, metrics)


def feed_words(metrics: Any, what: str = "IT power") -> str:
    """How a message names `feed_power`: `what`, with the racks' cooling units where they draw."""
    return what if "rack_cooling_power" not in metrics else f"{what} with the racks' cooling units (in-rack CDUs)"


def feed_stages(c: Any) -> tuple[tuple[str, str, str, Any, Any, Any, str], ...]:
    """PWR011's stages of a cluster whose hall states `feeds`: (key, label, kind, redundancy, units, load, its words).

    The UPS modules carry the feed power (`ups_pumps`: with the in-row CDUs' pumps where on the UPS), the generator
    sets and the utility feeds the facility power (`generator_load`). The one list PWR011 judges and the cluster
    document's UPS, generator and utility rows show (`render.datacentre`).
    """
    feeds, m = c.cluster.facility.feeds, c.metrics
    ups, ups_what, _ = ups_pumps(c, feed_power(m), feed_words(m))
    gen, gen_what = generator_load(c)
    return (("ups", "UPS", "modules", feeds.ups, feeds.ups_units, ups, ups_what),
            ("generators", "generator", "sets", feeds.generators, feeds.generator_units, gen, gen_what),
            ("utility", "utility", "feeds", feeds.utility, feeds.utility_units, gen, gen_what))


def hall_capacity(hall: Any, capacity: str) -> Any:
    """A hall's stated `capacity`; its cooling at the site's outdoor conditions (None where no rating covers them)."""
    return hall.cooling_at_site() if capacity == "cooling_capacity" else getattr(hall, capacity)
