"""Which clusters of a run are counted together in the hall they name: the hall's `deployed` set, or every one.

A directory of specs may hold alternatives for one hall (the shipped GB200, MI355X and TPU clusters all name
`hall-liquid`) as well as clusters that stand in it side by side (a brownfield hall with two generations). The hall's
`deployed` list says which: the clusters it names are summed, and a cluster naming the hall but not listed is a
candidate design, judged alone against it. A hall that states no `deployed` keeps the reading archgen had before:
its headrooms and the shared-hall warnings count every cluster of the run naming it, and it has no totals.

A facility's occupants are also other clusters' halls (`floor.halls[].facility`): how a cluster stands in a facility,
whole or by some of its halls, is `places`, read by PWR010, COOL009 and PWR011's one sum (`checks.occupants`) and by
the headroom metrics (`analyse.facility.hall_headrooms`, `halls_with`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def deployed(c: Any) -> bool:
    """Whether cluster `c` (a `ClusterAnalysis`) stands in a hall whose `deployed` list names it."""
    hall = c.cluster.facility
    return hall is not None and hall.deployed is not None and c.cluster.spec.id in hall.deployed


def candidate(c: Any) -> bool:
    """Whether `c` names a hall that lists its `deployed` clusters, and is not among them: judged alone."""
    hall = c.cluster.facility
    return hall is not None and hall.deployed is not None and c.cluster.spec.id not in hall.deployed


def naming(clusters: Mapping[str, Any], hall_id: str) -> dict[str, Any]:
    """The clusters of `clusters` (by path) that name the hall `hall_id`."""
    return {p: c for p, c in clusters.items() if c.cluster.facility is not None and c.cluster.facility.id == hall_id}


def by_halls(clusters: Mapping[str, Any], hall_id: str) -> dict[str, Any]:
    """The clusters of `clusters` (by path) one of whose `floor.halls` names the facility `hall_id` as its own."""
    return {p: c for p, c in clusters.items() if any(f is not None and f.id == hall_id
                                                     for f in c.cluster.hall_facilities)}


def standing(clusters: Mapping[str, Any], hall_id: str) -> dict[str, Any]:
    """The clusters that name the hall `hall_id` (`naming`) or stand in it by one of their halls (`by_halls`)."""
    return naming(clusters, hall_id) | by_halls(clusters, hall_id)


def places(o: Any, fac_id: str) -> list[int]:
    """How cluster `o` stands in facility `fac_id`: [-1] as a whole, else the indices of its halls naming it.

    A whole cluster names it as its `facility` and none of its halls names a facility of its own; a hall counts
    where it holds racks (its `hall_power`, or the racks are not expanded, its draw then not provided).
    """
    if any(o.cluster.hall_facilities):
        halls = o.cluster.spec.floor.halls
        return [j for j, f in enumerate(o.cluster.hall_facilities) if f is not None and f.id == fac_id and
                (f"hall_power.{halls[j].id}" in o.metrics or o.cluster.too_large)]
    return [-1] if o.cluster.facility is not None and o.cluster.facility.id == fac_id else []


def halls_with(clusters: Mapping[str, Any], path: str) -> list[tuple[Any, int]]:
    """The other clusters' halls (cluster, index in `floor.halls`) counted with `path`'s cluster in its facility.

    Those naming the facility `path`'s cluster names as a whole (`places`); where the facility lists `deployed`, only
    the listed clusters' halls, and none for a candidate it does not list (judged alone, as `fellows`).
    """
    c = clusters[path]
    hall = c.cluster.facility
    if hall is None or any(c.cluster.hall_facilities) or candidate(c):
        return []
    return [(o, j) for o in clusters.values() if hall.deployed is None or o.cluster.spec.id in hall.deployed
            for j in places(o, hall.id) if j >= 0]


def fellows(clusters: Mapping[str, Any], path: str) -> dict[str, Any]:
    """The clusters (by path, `path`'s own included) that `path`'s cluster is counted with in its hall.

    In a hall that lists `deployed`: a deployed cluster's fellows are the run's clusters that name the hall and are
    listed; a candidate has none but itself. Otherwise every cluster of the run naming the hall. {} where the cluster
    names no hall.
    """
    c = clusters[path]
    hall = c.cluster.facility
    if hall is None:
        return {}
    if candidate(c):
        return {path: c}
    return {p: o for p, o in naming(clusters, hall.id).items() if hall.deployed is None or deployed(o)}

