"""A checkpoint storage that several clusters of one hall state under one `storage.id`: one system, priced once.

An expansion's clusters share the site's file system (docs/clusters.md): each states it, with its price and draw,
so that each cluster's capex, TCO and cost per token stand as the cluster's own (as `analyse.cost` prices every
cluster alone). Where a total over the hall is formed it is counted once: its draw in the hall's load
(`storage_cost.shared_storage`), its price in the hall's capex here. Each cluster's capex line says so
(`CapexLine.shared`) and gives that hall total; archgen splits no price between clusters (no source says how the
system's cost is shared), so each cluster's capex holds all of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from archgen.analyse.bom_line import CapexLine
from archgen.analyse.cost import Cost
from archgen.analyse.hall_groups import candidate, fellows
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.storage_cost import STORAGE_KIND
from archgen.model.field_words import said
from archgen.open_item import Worded
from archgen.units import Q


def storage_groups(clusters: Mapping[str, ClusterAnalysis]) -> dict[tuple[str, str], list[str]]:
    """By (hall id, `storage.id`): the paths of the clusters naming that hall that state a storage with that id."""
    out: dict[tuple[str, str], list[str]] = {}
    for path, c in clusters.items():
        storage, hall = c.cluster.spec.storage, c.cluster.facility
        if storage is not None and storage.id is not None and hall is not None:
            out.setdefault((hall.id, storage.id), []).append(path)
    return out


def share_storage(clusters: Mapping[str, ClusterAnalysis], costs: dict[str, Cost]) -> None:
    """Mark in `costs` (by cluster path, replaced in place) each storage line that other clusters' capex holds too.

    The note names the other clusters and the hall's capex over the clusters counted together in the hall (its
    `deployed`, else every cluster naming it; a candidate the list leaves out shares nothing) with the storage once
    (each cluster's capex summed, less every stated price of the storage but the largest, as its draw is counted at
    its largest); where one of them has
    no capex, or another currency, the hall's capex is not provided and the note says why.
    """
    for (hall, sid), paths in storage_groups(clusters).items():
        priced = [p for p in paths if p in costs and _line(costs[p]) is not None and not candidate(clusters[p])]
        if len(priced) < 2:
            continue
        total = _hall_capex(clusters, costs, hall, priced)
        for path in priced:
            others = ", ".join(f"'{clusters[p].cluster.spec.id}'" for p in priced if p != path)
            note = (f"shared with cluster {others} (one system, storage.id '{sid}' in facility '{hall}'): its whole "
                    f"price is in each of these clusters' capex; the hall's capex counts it once: {total}")
            cost = costs[path]
            costs[path] = replace(cost, lines=tuple(replace(line, shared=note) if line.kind == STORAGE_KIND else line
                                                    for line in cost.lines))


def _line(cost: Cost) -> CapexLine | None:
    return next((line for line in cost.lines if line.kind == STORAGE_KIND and line.total is not None), None)


def _hall_capex(clusters: Mapping[str, ClusterAnalysis], costs: Mapping[str, Cost], hall: str,
                priced: list[str]) -> str:
    """The hall's capex in words: the clusters counted together in `hall`, the storage priced in `priced` once.

    Those clusters are `hall_groups.fellows`: the ones its `deployed` lists, else every cluster naming it.
    """
    named = list(fellows(clusters, priced[0]))
    capex = [costs[p].capex if p in costs else None for p in named]
    lacking = [clusters[p].cluster.spec.id for p, q in zip(named, capex, strict=True) if q is None]
    if lacking:
        return "not provided (no capex for " + ", ".join(f"'{cid}'" for cid in lacking) + ")"
    known: list[Q] = [q for q in capex if q is not None]
    if len({str(q.units) for q in known}) > 1:
        return "not provided (capex in several currencies)"
    prices = [line.total for p in priced if (line := _line(costs[p])) is not None and line.total is not None]
    total = sum(known[1:], known[0]) - (sum(prices[1:], prices[0]) - max(prices))   # the largest price once
    return f"{total.m:,.0f} {total.units:~P} ({len(named)} clusters)"


#: The figures of a checkpoint storage that one system states once: (words, how a `Storage` gives it).
FIGURES = (("capacity", lambda s: s.capacity), ("write_bandwidth", lambda s: s.write_bandwidth),
           ("read_bandwidth", lambda s: s.read_bandwidth), ("price", lambda s: s.price.capex if s.price else None),
           ("power.max", lambda s: s.power.max if s.power else None),
           ("power.typical", lambda s: s.power.typical if s.power else None),
           ("power.idle", lambda s: s.power.idle if s.power else None))


def differing(clusters: Mapping[str, ClusterAnalysis]) -> dict[str, tuple[str, Worded]]:
    """By cluster path: (storage id, the figures it states differently from other clusters of its hall, in words).

    The words are a `Worded`: each figure by its key ("power.max 100 kW ('c'), 120 kW ('d')"), and for a customer in
    words ("maximum power 100 kW ('c'), ...").

    Clusters of one hall stating a storage under one `storage.id` state one system (`share_storage`); where their
    figures differ, at most one is that system's: the hall's load takes the largest draw, its capex the largest price.
    """
    out: dict[str, tuple[str, Worded]] = {}
    for (_, sid), paths in storage_groups(clusters).items():
        stated = {p: clusters[p].cluster.spec.storage for p in paths}
        words: list[tuple[str, str]] = []
        for name, get in FIGURES:
            values = {p: get(s) for p, s in stated.items()}
            if len({str(v) for v in values.values()}) > 1:
                words.append((name, ", ".join(f"{'not given' if v is None else f'{v:~P}'} "
                                              f"('{clusters[p].cluster.spec.id}')" for p, v in values.items())))
        for p in paths if words and len(paths) > 1 else ():
            out[p] = (sid, Worded("; ".join(f"{name} {v}" for name, v in words),
                                  "; ".join(f"{said(name)} {v}" for name, v in words)))
    return out
