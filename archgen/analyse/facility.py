"""What a cluster's IT power means for the hall it stands in: facility power and the hall's headroom."""

from __future__ import annotations

from archgen.analyse.network import ClusterAnalysis
from archgen.units import Q


def facility_metrics(a: ClusterAnalysis, it_power: Q) -> dict[str, Q]:
    """Facility power (IT x PUE) and the headroom of the hall's critical IT power and cooling, where given."""
    hall, out = a.cluster.facility, {}
    if hall is None:
        return {}
    if hall.cost is not None:
        out["facility_power"] = (it_power * hall.cost.energy.pue).to("kW")
    if hall.critical_it_power is not None:
        out["it_capacity_headroom"] = (hall.critical_it_power - it_power).to("kW")
    cooling = hall.cooling_at_site()  # derated for the site where stated; None where no rating covers it (COOL011)
    if cooling is not None:
        out["cooling_headroom"] = (cooling - it_power).to("kW")
    return out
