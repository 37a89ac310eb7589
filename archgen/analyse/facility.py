"""What a cluster's IT power means for the hall it stands in: facility power and the hall's headroom."""

from __future__ import annotations

from collections.abc import Mapping

from archgen.analyse.network import ClusterAnalysis
from archgen.units import Q_, Q


def facility_metrics(a: ClusterAnalysis, it_power: Q) -> dict[str, Q]:
    """Facility power (IT x annual PUE; x `peak_pue`: at design conditions) and the hall's headrooms, where given.

    The headrooms (of its critical IT power and cooling) are against what the rack feeds carry (`feed_load`): the
    IT power and the racks' own cooling units (in-rack CDUs), which draw from the same critical feeds and whose
    draw ends up as heat. Facility power is IT power x PUE: the PUE's overhead holds every CDU's pumps, in-rack and
    in-row (docs/facility.md).
    """
    hall, out = a.cluster.facility, {}
    if hall is None:
        return {}
    load = feed_load(it_power, a.metrics)
    if hall.cost is not None:
        out["facility_power"] = (it_power * hall.cost.energy.pue).to("kW")
    if hall.peak_pue is not None:   # design day, full IT load: what generators are sized on (PWR011)
        out["facility_power_peak"] = (it_power * hall.peak_pue).to("kW")
    if hall.critical_it_power is not None:
        out["it_capacity_headroom"] = (hall.critical_it_power - load).to("kW")
    cooling = hall.cooling_at_site()  # derated for the site where stated; None where no rating covers it (COOL011)
    if cooling is not None:
        out["cooling_headroom"] = (cooling - load).to("kW")
    return out


#: The metrics of a cluster that are its hall's capacity less a load (`facility_metrics`), by the capacity's field.
HEADROOMS = {"it_capacity_headroom": "critical_it_power", "cooling_headroom": "cooling_capacity"}


def hall_headrooms(clusters: Mapping[str, ClusterAnalysis]) -> dict[str, dict[str, Q | None]]:
    """By cluster path, its headroom metrics as its hall's, where other clusters of the run name the hall too.

    Each is the hall's capacity less the feed load of every cluster of the run that names it, as PWR010 and COOL009
    judge them together (`checks.hall_figures.shared_hall`): a requirement on a headroom is judged on the hall's.
    Only clusters whose hall another cluster of the run names are listed; a headroom is None (not provided) where some
    such cluster's IT power is not provided, so the hall's load is not known. A cluster alone in its hall keeps its
    own figures (`facility_metrics`).
    """
    halls: dict[str, list[ClusterAnalysis]] = {}
    for c in clusters.values():
        if c.cluster.facility is not None:
            halls.setdefault(c.cluster.facility.id, []).append(c)
    out: dict[str, dict[str, Q | None]] = {}
    for group in (g for g in halls.values() if len(g) > 1):
        loads = [feed_load(c.metrics["it_power"], c.metrics) if "it_power" in c.metrics else None for c in group]
        total = None if None in loads else sum((q for q in loads if q is not None), Q_(0, "kW"))
        for c in group:
            got = {name: total if total is None else (c.metrics[name] + feed_load(c.metrics["it_power"], c.metrics)
                                                      - total).to("kW")
                   for name in HEADROOMS if name in c.metrics}
            if got:
                out[c.cluster.path] = got
    return out


def feed_load(it_power: Q, metrics: dict[str, Q]) -> Q:
    """What the cluster's rack feeds carry: its IT power plus its racks' own cooling units (`rack_cooling_power`)."""
    return (it_power + metrics.get("rack_cooling_power", Q_(0, "kW"))).to("kW")

