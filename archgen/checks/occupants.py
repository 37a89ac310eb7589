"""A facility's occupants summed once: the run's clusters naming it and the halls of `floor.halls` naming it.

PWR010, COOL009 (its capacity and its air side) and PWR011 judge a cluster, or a hall of one, against a facility,
and where it fits alone, against that facility with the run's other occupants of it (`over_facility`). An occupant
is a cluster that names the facility as its `facility` and whose halls name none of their own (its whole load:
`whole`), or a hall of a cluster's floor that names it and holds racks (its racks' figure: `hall`, a floor under the
hall's share, since the cluster's rest is not split by hall). A checkpoint storage that clusters counted whole state
with one `storage.id` counts once (`shared_storage`). power30: before, two mechanisms summed them,
`hall_figures.shared_hall` (clusters naming the facility, the storage once) and `own_halls.peers_over` (halls naming
it), with a special case between them against a double count, so a cluster naming a building with another such
cluster and another cluster's hall in it was told of one or the other, never their sum (402.9 kW judged as 271.4
and 267.3 kW in tests/checks/test_facility_occupants.py), and a hall beside two clusters sharing a storage counted
it twice.

Where the facility lists `deployed`, only the clusters it lists count, summed as deployed together (an error), and
a cluster it does not list is a candidate judged alone, with an info finding on what the facility would carry
beside the deployed ones; without the list, each is judged as if it had the facility to itself and the sum over it
is a warning (they may be alternatives), an error where the cluster's own halls in it exceed it alone. An occupant
whose load is not provided (no IT power, racks not expanded) is named, never skipped (hall29fix): within the
capacity without it, an info finding, not judged past it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from archgen.analyse.facility import unsplit_rest
from archgen.analyse.hall_groups import places
from archgen.analyse.storage_cost import shared_storage
from archgen.checks.registry import Severity
from archgen.display import kw
from archgen.open_item import Worded, customer_text
from archgen.units import Q_, Q

#: A cluster's load on the facility (its feed power, its heat to air, its UPS load), None where not provided.
Whole = Callable[[Any], Q | None]
#: A hall's load on it: (the cluster analysis, the hall's index in `floor.halls`), None where not provided.
HallLoad = Callable[[Any, int], Q | None]


@dataclass(frozen=True)
class Over:
    """`over_facility`'s verdict: the message (a `Worded` where it has customer words), the sum, its severity.

    `halls`: whether a hall is among the occupants summed, the sum then a floor ("at least"), its racks' figure.
    """

    message: str
    total: Q
    severity: Severity
    halls: bool


def hall_draw(o: Any, j: int) -> Q | None:
    """A hall's racks' draw at the rack feeds (`hall_power.<hall>`, with their in-rack cooling units)."""
    return o.metrics.get(f"hall_power.{o.cluster.spec.floor.halls[j].id}")


def hall_rest(o: Any, j: int) -> Q | None:
    """A hall's cluster's feed load outside its racks (`unsplit_rest`): the most of it the hall may hold."""
    return unsplit_rest(o)


@dataclass(frozen=True)
class StageLoads:
    """What each of a facility's other occupants puts on the stage `over_facility` judges, and how it is summed.

    `whole`: a cluster counted whole; `hall`: another cluster's hall, its racks' figure. `factor`: what a watt at the
    rack feeds adds to the stage (1 for the feeds, the plant and the air side; 1 / the distribution's efficiency for
    the UPS, `ups_factor`; the PUE for generator sets and utility feeds), by which a checkpoint storage counted once
    and `rest` are taken. `rest`: a hall's cluster's load outside its racks, not split by hall (`hall_rest`, at the
    feeds; on the air side the heat of its parts in no rack, `hall_figures.air_side`); None: not summed. `storage`:
    whether `whole` holds the clusters' checkpoint storage (not so the racks' heat to air). sites31: these were five
    of `over_facility`'s eleven parameters, the storage's factor doubling as the rest's, so the air side, whose
    storage factor was 0, took no rest and passed silently where it decides.
    """

    whole: Whole
    hall: HallLoad
    factor: float = 1.0
    rest: HallLoad | None = None
    storage: bool = True
    #: The rest in words, after "with all <kW> ": what `rest` is.
    rest_words: str = "their clusters draw outside their racks"


def over_facility(clusters: Mapping[str, Any], path: str, k: int, fac: Any, own: Q, stage: StageLoads, limit: Q,
                  against: str) -> Over | None:
    """Where `path`'s cluster (`k` -1) or its hall `k` fits facility `fac` alone but not with its other occupants.

    `own` is its load, `stage` what each other occupant puts on that stage of `fac` (module docstring), `limit` the
    capacity `against` names ("facility 'h''s critical IT power 1500.0 kW", a `Worded` for the customer's words). A
    checkpoint storage the clusters counted whole state with one `storage.id` counts once, its draw x `stage.factor`
    (none where the load holds no storage, as the racks' heat to air). None where nothing else stands in `fac` or the
    sum fits. `stage.rest`: a hall's cluster's load outside its racks (`hall_rest`), not split by hall, x the factor:
    where the halls' racks fit with the rest and all of it, each cluster's once, would not, a warning that the split
    decides (review45: before, a silent pass; the headroom metrics give that range, `headroom_ends`); where some other
    cluster's rest is not provided, an info finding naming it, not judged past the racks (sites31: was a pass).
    """
    cid = clusters[path].cluster.spec.id
    listed = fac.deployed
    trial = listed is not None and cid not in listed   # a candidate: what the facility would carry beside the deployed
    others: list[tuple[str, Q | None]] = []
    counted, halls = [clusters[path]] if k < 0 else [], k >= 0
    rest = stage.rest
    rests: dict[str, Q | None] = {path: rest(clusters[path], k)} if k >= 0 and rest is not None else {}
    for p, o in clusters.items():
        oid = o.cluster.spec.id
        if listed is not None and oid not in listed:
            continue
        for j in places(o, fac.id):
            if (p, j) == (path, k):
                continue
            if j < 0:
                q = stage.whole(o)
                others.append((f"'{oid}'", q))
                counted += [o] if q is not None else []
            else:
                others.append((f"'{oid}' hall '{o.cluster.spec.floor.halls[j].id}'", stage.hall(o, j)))
                halls, rests[p] = True, rest(o, j) if rest is not None else None
    unknown = [n for n, q in others if q is None]   # a peer's load not provided: named, never skipped silently
    known = [(n, q) for n, q in others if q is not None]
    twice, once = shared_storage(counted, stage.factor) if stage.storage and len(counted) > 1 else (Q_(0, "kW"), "")
    total = (sum((q for _, q in known), own) - twice).to("kW")
    once = f" ({once})" if once else ""
    if unknown and total <= limit:
        return Over(f"with the other racks the run places in facility '{fac.id}' it carries at least {kw(total)}"
                    f"{once}, within {against}, but the draw of {', '.join(unknown)} standing in it is not provided: "
                    "not judged past them", total, "info", halls)
    spread = sum((q for q in rests.values() if q is not None), Q_(0, "kW")) * stage.factor   # per watt at the feeds
    if rest is not None and known and total <= limit < total + spread and None not in rests.values():
        named = ", ".join(f"{n} {kw(q)}" for n, q in known)
        return Over(f"with the other racks the run places in facility '{fac.id}' ({named}) it carries at least "
                    f"{kw(total)}{once}, within {against}, but with all {kw(spread)} {stage.rest_words}, "
                    f"which is not split by hall, it would be {kw(total + spread)}: the split decides",
                    total, "info" if trial else "warning", True)
    vague = [f"'{clusters[p].cluster.spec.id}''s" for p, q in rests.items() if q is None and p != path]
    if rest is not None and known and total <= limit and vague:   # sites31: was a silent pass (review45's item 3)
        named = ", ".join(f"{n} {kw(q)}" for n, q in known)
        return Over(f"with the other racks the run places in facility '{fac.id}' ({named}) it carries at least "
                    f"{kw(total)}{once}, within {against}, but {', '.join(vague)} draw outside its racks, which "
                    "is not split by hall, is not provided: not judged past their racks", total, "info", True)
    if not known or total <= limit:
        return None
    named = ", ".join([f"{n} {kw(q)}" for n, q in known] + [f"{n} (draw not provided)" for n in unknown])
    if trial or not halls:
        texts = [shared_text(fac, trial, own, named, total, once, limit, named_as, words)
                 for named_as, words in ((against, False), (customer_text(against), True))]
        return Over(Worded(*texts), total, "info" if trial else "error" if listed is not None else "warning", halls)
    alone = sum((q for n, q in known if n.startswith(f"'{cid}' ")), own).to("kW") > limit   # its own halls
    tail = ("the cluster's own halls in it exceed it alone" if alone else "they are listed together among its deployed "
            "clusters" if listed is not None else "each cluster is judged as if it had the facility to itself, so if "
            "they share it the facility does not carry them (alternatives: check each in a run of its own; clusters "
            "deployed together: list them in the facility's deployed clusters)")
    return Over(f"with the other racks the run places in facility '{fac.id}' ({named}) it carries at least "
                f"{kw(total)}{once}, over {against} by {kw(total - limit)}; {tail}", total,
                "error" if alone or listed is not None else "warning", halls)


def shared_text(fac: Any, trial: bool, own: Q, others: str, total: Q, once: str, limit: Q, against: str,
                words: bool) -> str:
    """`over_facility`'s message on whole clusters, or a candidate's, in the team's words or (`words`) the customer's.

    The customer's leave out the facility's `deployed` key and the advice on what to list there.
    """
    over = f"{kw(total)}{once}, over {against} by {kw(total - limit)}"
    if trial:
        return (f"a candidate design ({kw(own)}) within {against} alone: the hall's "
                + ("deployed clusters do not include it" if words else "`deployed` does not list it")
                + f", so it is judged alone; beside the clusters deployed there ({others}) the hall would carry "
                f"{kw(total)}{once}, over it by {kw(total - limit)}")
    if fac.deployed is not None:
        return (f"the clusters deployed together in facility '{fac.id}' ({'' if words else 'its `deployed`: '}this "
                f"one {kw(own)}, {others}) draw {over}")
    text = (f"with the other clusters that name facility '{fac.id}' ({others}) the hall carries {over}; this "
            f"cluster alone ({kw(own)}) fits: each cluster is judged as if it had the hall to itself, "
            "so if they share it the hall does not carry them")
    return text if words else (f"{text} (alternatives for one hall: check each in a run of its own; clusters "
                               "deployed together: list them in the hall's `deployed`)")
