"""The CDUs' electrical draw (pumps, controls), counted in the power it belongs to, and said where it is not stated.

An in-rack CDU is placed in the rack and draws from its power chain: its `power` is in the rack's load, input power
and heat (`analyse.rack`), like any placed part. An in-row CDU stands outside the racks and draws from the hall's
mechanical supply: a cluster's `cdu_power` is the CDUs it buys (`cdu_units.cdu_units`) × their `power`, part of what the
hall's PUE adds to the IT power (`facility_power` − `it_power`), never added to the IT power. Where a CDU's
catalog entry states no `power`, the figure that would hold it is said to leave it out (`fittings.cdu_power_gaps`): a
rack's power counts an in-rack CDU without one as drawing nothing, and a cluster's `cdu_power` is not provided.
"""

from __future__ import annotations

from archgen.analyse.cdu_units import cdu_units
from archgen.analyse.network import ClusterAnalysis
from archgen.units import Q_, Q


def cluster_cdu_power(a: ClusterAnalysis) -> Q | None:
    """Draw of the CDUs the cluster's racks name outside their slots; None where one of them states no `power`."""
    total = Q_(0, "kW")
    for rid, n in sorted(a.cluster.rack_counts.items()):
        rack = a.cluster.rack_types.get(rid)
        units = cdu_units(rack, n) if rack is not None else 0
        if not units or rack is None or rack.cdu is None:
            continue
        if rack.cdu.power is None:
            return None
        total = total + rack.cdu.power * units
    return total.to("kW")
