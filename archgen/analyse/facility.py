"""What a cluster's IT power means for the hall it stands in: facility power and the hall's headroom."""

from __future__ import annotations

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


def feed_load(it_power: Q, metrics: dict[str, Q]) -> Q:
    """What the cluster's rack feeds carry: its IT power plus its racks' own cooling units (`rack_cooling_power`)."""
    return (it_power + metrics.get("rack_cooling_power", Q_(0, "kW"))).to("kW")
