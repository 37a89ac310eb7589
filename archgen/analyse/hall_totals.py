"""The hall's totals over the clusters deployed together in it (its `deployed` list): IT power, facility power, energy.

A brownfield hall holds two generations side by side; what the hall draws is the sum over what is deployed there,
which no cluster gives alone. Only a hall that states `deployed` has totals: the clusters naming a hall may be
alternatives for it (the shipped GB200, MI355X and TPU clusters in `hall-liquid`), and a sum over alternatives is
no figure (PWR021 says the totals are not provided). A checkpoint storage the deployed clusters state under one
`storage.id` is one system, counted once (`storage_cost.shared_storage`), as PWR010 and the headrooms count it.
"""

from __future__ import annotations

from collections.abc import Mapping

from archgen.analyse.hall_groups import by_halls, deployed, fellows
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.opex import facility_energy
from archgen.analyse.storage_cost import shared_storage, storage_draw
from archgen.units import Q_, Q

#: The metrics `hall_totals` gives each deployed cluster: its hall's, over the clusters deployed there.
HALL_TOTALS = ("hall_it_power", "hall_facility_power", "hall_facility_energy_per_year")


def hall_totals(clusters: Mapping[str, ClusterAnalysis]) -> dict[str, dict[str, Q | None]]:
    """By cluster path, for each cluster its hall lists as `deployed`: the hall's totals over the deployed clusters.

    `hall_it_power`: each deployed cluster's `it_power` summed, a checkpoint storage they state under one
    `storage.id` once (`shared_storage`); `hall_facility_power`: that x the hall's annual PUE (`cost.energy.pue`,
    one for the hall, as each cluster's `facility_power` takes it); `hall_facility_energy_per_year`: each one's
    `facility_energy_per_year` summed, the storage once (`_hall_energy`). None (not provided) where one of them
    lacks the figure, or the hall states no `cost:`, or the list names a cluster standing in the hall by one of its
    `floor.halls` (`hall_groups.by_halls`: its share there is its hall's racks and a part of its rest not split by
    hall, so the sum is not known). Candidates (naming the hall, not listed) and clusters in a hall without
    `deployed` get none.
    """
    out: dict[str, dict[str, Q | None]] = {}
    for path, c in clusters.items():
        hall = c.cluster.facility
        if hall is None or not deployed(c):
            continue
        group = list(fellows(clusters, path).values())
        if any(o.cluster.spec.id in (hall.deployed or ()) for o in by_halls(clusters, hall.id).values()):
            out[path] = dict.fromkeys(HALL_TOTALS)   # a listed cluster's share by its halls: not split (hall29fix)
            continue
        powers = [g.metrics.get("it_power") for g in group]
        total = None if None in powers else \
            (sum((q for q in powers if q is not None), Q_(0, "kW")) - shared_storage(group)[0]).to("kW")
        pue = hall.cost.energy.pue if hall.cost is not None else None
        out[path] = {"hall_it_power": total,
                     "hall_facility_power": None if total is None or pue is None else (total * pue).to("kW"),
                     "hall_facility_energy_per_year": _hall_energy(group)}
    return out


def _hall_energy(group: list[ClusterAnalysis]) -> Q | None:
    """Every cluster's `facility_energy_per_year` summed, a storage they state under one id once; None: one lacks it.

    The storage's energy counted more than once is its excess typical draw for the hall's `utilisation` share of the
    year and its excess idle draw for the rest, x the PUE, as `analyse.cost` counts a cluster's energy (each
    excess the draws of every cluster stating it but the largest, `shared_storage`).
    """
    energies = [c.metrics.get("facility_energy_per_year") for c in group]
    hall = group[0].cluster.facility
    if None in energies or hall is None or hall.cost is None:
        return None
    u = hall.cost.utilisation
    typical = shared_storage(group, draw=lambda c: storage_draw(c, typical=True))[0]
    idle = shared_storage(group, draw=lambda c: storage_draw(c, idle=True))[0]
    twice = facility_energy(typical * u + idle * (1 - u), hall.cost)
    return (sum((q for q in energies if q is not None), Q_(0, "MWh")) - twice).to("MWh")


#: The metric of each deployed cluster a hall total sums: its inputs are those of that metric of every one of them.
_SUMMED = {"hall_it_power": "it_power", "hall_facility_power": "facility_power",
           "hall_facility_energy_per_year": "facility_energy_per_year"}


def add_total_inputs(assumed: dict[str, dict[str, tuple[str, ...]]], clusters: Mapping[str, ClusterAnalysis]) -> None:
    """Give each deployed cluster's hall totals the unconfirmed figures of what they sum, over every deployed cluster.

    `assumed` holds the clusters' own (`rack_power_inputs.add_power_inputs`): a requirement on `hall_it_power` met
    on a GB300 row's unconfirmed tray power reads so on the GB200 row deployed beside it too.
    """
    for path, c in clusters.items():
        if not deployed(c):
            continue
        group = list(fellows(clusters, path))
        for total, own in _SUMMED.items():
            words = tuple(dict.fromkeys(w for p in group for w in assumed.get(p, {}).get(own, ())))
            if words:
                assumed.setdefault(path, {})[total] = words
