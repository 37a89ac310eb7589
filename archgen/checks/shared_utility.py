"""PWR011's campus side: the halls that share one utility connection (`feeds.shared_utility`), summed against it.

A hall's `utility_units` are its own feeds; a campus's halls may each fit theirs and still exceed the connection they
share (a substation, the site's grid interconnection). Each hall of the run naming the same connection id adds the
load PWR011 holds its generator sets and utility feeds to (`generator_load`: IT power x `peak_pue`, else x the
annual PUE) over the clusters its `deployed` list names, as the hall totals do (`analyse.hall_totals`); a hall
without `deployed` has no load to add (its clusters may be alternatives), so the connection is then not judged and
the finding says which hall is missing it. A checkpoint storage that deployed clusters of these halls state under one
`storage.id` is one system, counted once (`storage_cost.shared_storage`, at its largest stated draw x its hall's
PUE), as the hall totals and PWR010 count it; so is a hall's UPS battery recharge (`facility.recharge_excess`).
The connection is counted at its stated capacity: no redundancy is held back (none is stated). A cluster whose halls
name their own facilities puts its racks on each such facility's connection (`own_halls_connection`), and a
connection one of those halls shares is not judged for the run's other clusters on it (the cluster's draw outside
its racks is not split by hall), an info finding.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from archgen.analyse.facility import generator_factor, generator_pue, recharge_excess, ups_recharge
from archgen.analyse.hall_groups import candidate, deployed, naming
from archgen.analyse.storage_cost import shared_storage, storage_draw
from archgen.checks.hall_figures import generator_load
from archgen.checks.registry import Context, Violation
from archgen.display import kw
from archgen.units import Q_


def shared_connection(ctx: Context) -> Iterator[Violation]:
    """Each cluster whose hall names a `shared_utility`: every naming hall's deployed load summed against it."""
    halls: dict[str, dict[str, Any]] = {}
    split = {f.feeds.shared_utility.id: c.cluster.spec.id for c in ctx.clusters.values()
             for f in c.cluster.hall_facilities if f is not None and f.feeds is not None and f.feeds.shared_utility}
    for c in ctx.clusters.values():
        hall = c.cluster.facility
        if hall is not None and hall.feeds is not None and hall.feeds.shared_utility is not None and \
                not any(c.cluster.hall_facilities):
            halls.setdefault(hall.feeds.shared_utility.id, {})[hall.id] = hall
    for path, c in ctx.clusters.items():
        if any(c.cluster.hall_facilities):   # each hall's own facility, the cluster's holding none of them
            yield from own_halls_connection(path, c)
            continue
        hall = c.cluster.facility
        conn = hall.feeds.shared_utility if hall is not None and hall.feeds is not None else None
        if conn is None:
            continue
        named, subject = halls[conn.id], c.cluster.spec.id
        where = f"utility connection '{conn.id}' ({kw(conn.capacity)}, facility '{hall.id}''s feeds.shared_utility)"
        said = f"utility connection '{conn.id}' ({kw(conn.capacity)}, as facility '{hall.id}' states it)"
        other = {h.id: h.feeds.shared_utility.capacity for h in named.values()
                 if h.feeds.shared_utility.capacity != conn.capacity}
        if other:
            states = ", ".join(f"facility '{h}' states {kw(q)}" for h, q in sorted(other.items()))
            yield Violation(path, subject, ("facility",), f"{where}: {states} for the same connection: state one "
                            "capacity in every hall that shares it",
                            public=f"{said}: {states} for the same connection, so its capacity is not known")
            continue
        if conn.id in split:
            yield Violation(path, subject, ("facility",), f"not judged: {where}: cluster '{split[conn.id]}' has "
                            "halls on it naming their own facilities, whose draw outside their racks is not split "
                            "by hall, so the connection's load is not known", severity="info",
                            public=f"not judged: {said}: cluster '{split[conn.id]}' has halls on it with facilities "
                            "of their own, whose draw outside their racks is not split by hall, so the connection's "
                            "load is not known")
            continue
        if candidate(c):
            yield Violation(path, subject, ("facility",), f"not judged: {where}: a candidate design (facility "
                            f"'{hall.id}''s `deployed` does not list it); the connection is summed over the "
                            "deployed clusters", severity="info", public=f"not judged: {said}: a candidate design "
                            f"(not among facility '{hall.id}''s deployed clusters); the connection is summed over "
                            "the deployed clusters")
            continue
        missing = sorted(h.id for h in named.values() if h.deployed is None)
        if missing:
            who = (f"facilit{'y' if len(missing) == 1 else 'ies'} " + ", ".join(f"'{h}'" for h in missing)
                   + (" names" if len(missing) == 1 else " name") + " the connection but lists no ")
            yield Violation(path, subject, ("facility",), f"not judged: {where}: {who}`deployed`, so its load is not "
                            "known (its clusters may be alternatives): list the clusters deployed in each hall",
                            severity="info", public=f"not judged: {said}: {who}deployed clusters, so its load is "
                            "not known (its clusters may be alternatives)")
            continue
        groups = [(h.id, [o for o in naming(ctx.clusters, h.id).values() if deployed(o)])
                  for h in sorted(named.values(), key=lambda h: h.id)]
        parts = [(h, [generator_load(o) for o in group]) for h, group in groups]
        if any(load is None for _, loads in parts for load, _ in loads):
            yield Violation(path, subject, ("facility",), f"not judged: {where}: a deployed cluster's facility power "
                            "is not provided", severity="info",
                            public=f"not judged: {said}: a deployed cluster's facility power is not provided")
            continue
        sums = [(h, sum((load for load, _ in loads if load is not None), Q_(0.0, "kW")) - recharge_excess(group)[0])
                for (h, loads), (_, group) in zip(parts, groups, strict=True)]
        recharged = "; ".join(n for _, group in groups if (n := recharge_excess(group)[1]))
        twice, once = shared_storage([o for _, group in groups for o in group], draw=lambda o: storage_draw(o) *
                                     generator_factor(o.cluster.facility))
        total = (sum((q for _, q in sums), Q_(0.0, "kW")) - twice).to("kW")
        each = "; ".join([f"facility '{h}' {kw(q)}" for h, q in sums] + [n for n in (recharged, once) if n])
        what = f"the facility power of the clusters deployed in the {len(sums)} hall(s) of the run naming it ({each})"
        if total > conn.capacity:
            yield Violation(path, subject, ("facility",), f"{what}: {kw(total)} exceeds {where}, counted at its "
                            "stated capacity", total, conn.capacity.to("kW"),
                            public=f"{what}: {kw(total)} exceeds {said}, counted at its stated capacity")
        else:
            rest = ", counted at its stated capacity with no redundancy held back, at the maximum draw held steady " \
                "(PWR022)"
            yield Violation(path, subject, ("facility",), f"{what}: {kw(total)} within {where}{rest}", total,
                            conn.capacity.to("kW"), severity="info", public=f"{what}: {kw(total)} within {said}{rest}")


def own_halls_connection(path: str, c: Any) -> Iterator[Violation]:
    """PWR011's campus side for a cluster whose halls name their own facilities: its racks on each connection.

    Each hall holding racks whose facility names a `shared_utility` adds its racks' draw (`hall_power.<hall>`) x that
    facility's `peak_pue` (else its annual PUE), and each such facility its UPS recharge once: a floor, since the
    cluster's draw outside its racks is not split by hall and the run's other clusters on the connection are not
    summed with it. Over the capacity: an error at the first such hall's key; within it, an info finding, not judged
    past the racks (hall29fix: the cluster's own `facility`, which holds none of the halls, was read).
    """
    halls, m = c.cluster.spec.floor.halls, c.metrics
    conns: dict[str, list[tuple[int, Any, Any]]] = {}
    for k, fac in enumerate(c.cluster.hall_facilities):
        conn = fac.feeds.shared_utility if fac is not None and fac.feeds is not None else None
        if conn is not None and f"hall_power.{halls[k].id}" in m:
            conns.setdefault(conn.id, []).append((k, fac, conn))
    for cid, members in sorted(conns.items()):
        k, fac, conn = members[0]
        at, subject = ("floor", "halls", k, "facility"), c.cluster.spec.id
        where = f"utility connection '{cid}' ({kw(conn.capacity)}, as facility '{fac.id}' states it)"
        if len({f.feeds.shared_utility.capacity for _, f, _ in members}) > 1:
            states = ", ".join(f"facility '{f.id}' states {kw(n.capacity)}" for _, f, n in members)
            yield Violation(path, subject, at, f"{where}: {states} for the same connection: state one capacity in "
                            "every hall that shares it")
            continue
        pues = [(j, f, generator_pue(f)) for j, f, _ in members]
        if any(p is None for *_, p in pues):
            yield Violation(path, subject, at, f"not judged: {where}: a hall's facility on it states no PUE, so "
                            "its racks' facility power is not provided", severity="info")
            continue
        loads = [(j, f, (m[f"hall_power.{halls[j].id}"] * float(p or 0)).to("kW")) for j, f, p in pues]
        recharge = sum((ups_recharge(f) or Q_(0, "kW") for f in {f.id: f for _, f, _ in members}.values()),
                       Q_(0.0, "kW"))
        floor = (sum((q for *_, q in loads), Q_(0.0, "kW")) + recharge).to("kW")
        each = "; ".join(f"hall '{halls[j].id}' (facility '{f.id}') {kw(q)}" for j, f, q in loads) + (
            f"; UPS recharge {kw(recharge)}" if recharge.magnitude else "")
        what = f"the facility power of the racks of the cluster's {len(loads)} hall(s) on it ({each}): {kw(floor)}"
        if floor > conn.capacity:
            yield Violation(path, subject, at, f"{what} exceeds {where} by {kw(floor - conn.capacity)}, before the "
                            "cluster's draw outside its racks (not split by hall)", floor, conn.capacity.to("kW"))
        else:
            yield Violation(path, subject, at, f"{what} within {where}, but the cluster's draw outside its racks (not "
                            "split by hall) and the run's other clusters on it are not summed: not judged past its "
                            "racks", floor, conn.capacity.to("kW"), severity="info")
