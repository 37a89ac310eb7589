"""A cluster's racks' heat by medium, each rack instance with its own optics: the count its IT power is made of.

A rack type's analysis carries the optics of its most loaded instance (`analyse.optics.optics_by_rack`), which is
what its budgets need; summing that figure over every instance counted the optics of the less loaded ones too
(the shipped DGX B200 SuperPOD: 0.87 kW more heat than feed power). Here each instance is analysed with its own
optics (`analyse.optics.instance_optics`, the count the shelf loss and the cluster's IT power use), so the racks'
heat plus the heat of the parts in no rack (`unracked_heat`) is the cluster's feed power.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from archgen.analyse.bom import unplaced_power
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.optics import instance_optics, unracked_optics
from archgen.analyse.rack import analyse_rack
from archgen.analyse.storage_cost import storage_draw
from archgen.units import Q_, Q


@dataclass(frozen=True)
class RackHeat:
    """A cluster's rack heat by medium, over every rack instance: what the rack analyses split (`CoolingSplit`)."""

    liquid: Q   # to the racks' liquid loops
    doors: Q    # to the rear doors' water
    air: Q      # to the hall's air, after the rear doors
    total: Q    # all the racks' heat (their input power)
    it_power: Q = Q_(0, "kW")   # the racks' IT power at the equipment (before the shelves' losses)


def rack_heat(a: ClusterAnalysis, racks: Mapping[str, Any]) -> RackHeat:
    """`a`'s racks' heat by medium over its rack instances, each analysed with the optics it holds.

    `racks`: the rack types' analyses by 'rack/<id>'. A rack type whose instances are not expanded (a cluster too
    large, NET015) counts its analysis times its count. Parts in no rack are `unracked_heat`.
    """
    sums = {f: Q_(0, "kW") for f in RackHeat.__dataclass_fields__}
    for one in rack_heat_by_type(a, racks).values():
        sums = {f: (q + getattr(one, f)).to("kW") for f, q in sums.items()}
    return RackHeat(**sums)


def rack_heat_by_type(a: ClusterAnalysis, racks: Mapping[str, Any]) -> dict[str, RackHeat]:
    """`rack_heat` per rack type id: the type's instances, each with the optics it holds.

    The cluster document's power table, so that its total is the figure COOL009 and the data-centre requirements give.
    """
    by_type: dict[str, Counter[float]] = {}
    for inst, w in zip(a.cluster.instances, instance_optics(a).tolist(), strict=True):
        by_type.setdefault(inst.rack.spec.id, Counter())[round(w, 6)] += 1
    out: dict[str, RackHeat] = {}
    for rid, n in a.cluster.rack_counts.items():
        r = racks.get(f"rack/{rid}")
        if r is None:
            continue
        sums = {f: Q_(0, "kW") for f in RackHeat.__dataclass_fields__}
        seen = by_type.get(rid, Counter())
        shares = seen.items() if seen.total() == n else ((None, n),)
        for w, k in shares:
            one = r if w is None else analyse_rack(r.rack, Q_(w, "W"), r.space)
            c = one.cooling
            for key, q in (("liquid", c.heat_liquid), ("doors", one.metrics.get("heat_to_rear_door", Q_(0, "kW"))),
                           ("air", c.heat_air), ("total", c.heat), ("it_power", one.power.it_power)):
                sums[key] = (sums[key] + q * k).to("kW")
        out[rid] = RackHeat(**sums)
    return out


def unracked_heat(a: ClusterAnalysis) -> Q:
    """Heat of `a`'s parts in no rack: switches placed nowhere, its checkpoint storage, optics at ends in no rack.

    Each at its draw: the switches' BOM lines (`unplaced_power`), the storage's stated draw (`storage_draw`) and
    `analyse.optics.unracked_optics`.
    """
    unplaced = unplaced_power(a.cabling.bom) if a.cabling is not None else Q_(0, "kW")
    return (unplaced + storage_draw(a) + unracked_optics(a)).to("kW")


def hall_rack_heat(a: ClusterAnalysis, racks: Mapping[str, Any]) -> dict[int, RackHeat]:
    """`rack_heat` by hall (index in `floor.halls`) over the racks each hall holds; {} where no instance is expanded.

    COOL009's air side on a floor whose halls name their own facility (`checks.own_halls`). Each instance with the
    optics it holds, as `rack_heat_by_type` counts them; the parts in no rack are the cluster's (`unracked_heat`).
    """
    groups: Counter[tuple[int, str, float]] = Counter()
    for inst, w in zip(a.cluster.instances, instance_optics(a).tolist(), strict=True):
        groups[(inst.hall, inst.rack.spec.id, round(w, 6))] += 1
    out: dict[int, dict[str, Q]] = {}
    for (hall, rid, w), k in sorted(groups.items()):
        r = racks.get(f"rack/{rid}")
        if r is None:
            continue
        one = analyse_rack(r.rack, Q_(w, "W"), r.space)
        sums = out.setdefault(hall, {f: Q_(0, "kW") for f in RackHeat.__dataclass_fields__})
        doors = one.metrics.get("heat_to_rear_door", Q_(0, "kW"))
        for key, q in (("liquid", one.cooling.heat_liquid), ("doors", doors), ("air", one.cooling.heat_air),
                       ("total", one.cooling.heat), ("it_power", one.power.it_power)):
            sums[key] = (sums[key] + q * k).to("kW")
    return {hall: RackHeat(**sums) for hall, sums in sorted(out.items())}
