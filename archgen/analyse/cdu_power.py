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


def no_cdu_power(a: ClusterAnalysis) -> str:
    """Why the cluster has no `cdu_power`, naming each in-row CDU that states no `power`; '' where it has one.

    A vendor's CDU whose datasheet leaves its draw out is what the partner must answer, so the reason names the part
    and how many the cluster buys ("odm-cdu-1.2mw (2 bought for 8 odm-nvl72 racks) states no `power`"), where it read
    "a CDU states no `power`" of any (newuser84's trial).
    """
    silent, bought = [], 0
    for rid, n in sorted(a.cluster.rack_counts.items()):
        rack = a.cluster.rack_types.get(rid)
        units = cdu_units(rack, n) if rack is not None else 0
        bought += units
        if units and rack is not None and rack.cdu is not None and rack.cdu.power is None:
            silent.append(f"{rack.cdu.id} ({units} bought for {n} {rid} rack{'s' * (n != 1)})")
    if silent:
        return (f"{', '.join(silent)} state{'s' * (len(silent) == 1)} no `power`, the electrical draw (pumps, "
                "controls) its datasheet gives; state it on the CoolingUnit")
    return "" if bought else "the cluster buys no in-row CDU (its racks name none, or place theirs in the rack)"

