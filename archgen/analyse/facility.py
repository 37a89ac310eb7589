"""What a cluster's IT power means for the hall it stands in: facility power and the hall's headroom."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from archgen.analyse.cdu_power import cluster_cdu_power
from archgen.analyse.hall_groups import fellows, halls_with
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.storage_cost import shared_storage
from archgen.model.base import spare_units
from archgen.model.unsettled import OTHER_END, VALUE_END
from archgen.units import Q_, Q


def facility_metrics(a: ClusterAnalysis, it_power: Q) -> dict[str, Q]:
    """Facility power (IT x annual PUE; x `peak_pue`: at design conditions) and the hall's headrooms, where given.

    The headrooms (of its critical IT power and cooling) are against what the rack feeds carry (`feed_load`): the
    IT power and the racks' own cooling units (in-rack CDUs), which draw from the same critical feeds and whose
    draw ends up as heat. Facility power is IT power x PUE: the PUE's overhead holds every CDU's pumps, in-rack and
    in-row (docs/facility.md). On a floor some of whose halls name their own facility (`floor.halls[].facility`)
    the cluster's facility holds none of them, so its headrooms are not provided (hall29: `it_capacity_headroom`
    was the cluster's facility's capacity less every hall's load); each hall is judged against its own
    (`checks.hall_load.by_hall`, `checks.own_halls`).
    """
    hall, out = a.cluster.facility, {}
    if any(a.cluster.hall_facilities):
        return site_facility_power(a, it_power)
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
    return out | _unit_headrooms(a, {**a.metrics, "it_power": it_power, **out})


def site_facility_power(a: ClusterAnalysis, it_power: Q) -> dict[str, Q]:
    """`facility_power` (and `_peak`) of a cluster whose halls name their own facilities: IT power x their one PUE.

    Each hall holding racks (`hall_power.<hall>`) draws through its own facility's PUE; the cluster's draw outside
    its racks (optics outside systems, switches in no rack, storage, shelf loss) is not split by hall, so the sum
    over halls is known only where every such hall names a facility and all state the same PUE: IT power x that
    PUE. Otherwise not provided (a hall naming none, a facility stating none, two PUEs), never the cluster
    facility's PUE, which holds none of the halls (hall29fix: it was x the cluster facility's PUE).
    """
    halls, facs, out = a.cluster.spec.floor.halls, a.cluster.hall_facilities, {}
    used = [facs[k] if k < len(facs) else None for k, h in enumerate(halls) if f"hall_power.{h.id}" in a.metrics]
    for name, pue_of in (("facility_power", lambda f: f.cost.energy.pue if f.cost is not None else None),
                         ("facility_power_peak", lambda f: f.peak_pue)):
        pues = {None if f is None else pue_of(f) for f in used}
        if len(pues) == 1 and (pue := pues.pop()) is not None:
            out[name] = (it_power * pue).to("kW")
    return out


def _unit_headrooms(a: ClusterAnalysis, metrics: dict[str, Q]) -> dict[str, Q]:
    """PWR011's margins as metrics: the hall's usable UPS and generator capacity less what each carries.

    `ups_headroom`: the usable UPS modules (`usable_units`) less the UPS load (`ups_load`); `generator_headroom`:
    the usable generator sets at the site's outdoor conditions less the generator load (`generator_power`). Left
    out (not provided) where the hall states no such units, no row covers the site, or the load is not known.
    """
    hall, out = a.cluster.facility, {}
    feeds = hall.feeds if hall is not None else None
    if feeds is None:
        return {}
    for name, units, redundancy, load in (("ups_headroom", feeds.ups_units, feeds.ups, ups_load(a, metrics)),
                                          ("generator_headroom", feeds.generator_units, feeds.generators,
                                           generator_power(metrics, hall))):
        usable = usable_units(units, redundancy, hall)[1] if units is not None else None
        if usable is not None and load is not None:
            out[name] = (usable - load).to("kW")
    return out


def usable_units(units: Any, redundancy: str | None, hall: Any) -> tuple[Q | None, Q | None]:
    """PWR011's (each unit at the hall's site, usable capacity): `count` less the spares of `redundancy` (N unstated).

    Each unit counts at the hall's outdoor conditions (`Units.at_site`: only generator sets state any; a UPS module
    or utility feed is its stated capacity); (None, None) where no derating row covers the site.
    """
    each = units.at_site(hall.feeds.power_factor if hall.feeds is not None else None, hall.outdoor()).capacity
    if each is None:
        return None, None
    return each, each * max(units.count - spare_units(redundancy or "N", units.count), 0)


def ups_load(a: ClusterAnalysis, metrics: Mapping[str, Q]) -> Q | None:
    """What the UPS carries for the cluster: its feed load, with the in-row CDUs' pumps where the hall puts them on it.

    Both over the distribution's efficiency where the hall states it (`ups_output`).

    None where the IT power is not provided, or where `feeds.cdus_on_ups` and an in-row CDU states no draw.
    """
    hall = a.cluster.facility
    if "it_power" not in metrics or hall is None:
        return None
    load = feed_load(metrics["it_power"], dict(metrics))
    if hall.feeds is None or not hall.feeds.cdus_on_ups:
        return ups_output(load, hall)
    pumps = cluster_cdu_power(a)
    return None if pumps is None else ups_output((load + pumps).to("kW"), hall)


def ups_output(load: Q, hall: Any) -> Q:
    """What the UPS modules deliver for `load` at the rack feeds: over `feeds.distribution_efficiency` where stated.

    The PDU transformers, busway and panels between the UPS output and the rack feeds lose power the UPS supplies;
    unstated, the distribution is taken as lossless (PWR011 says so, `checks.power_figures.lossless_distribution`).
    """
    eff = hall.feeds.distribution_efficiency if hall.feeds is not None else None
    return load if eff is None else (load / float(eff)).to("kW")


def generator_power(metrics: Mapping[str, Q], hall: Any) -> Q | None:
    """What the generator sets carry: IT power x `peak_pue` where stated, else x the annual PUE; and the recharge.

    The UPS batteries' recharge after a ride-through (`ups_recharge`) is the hall's, added once to each cluster's
    load here; a sum over a hall's clusters takes the excess back out (`recharge_excess`).
    """
    load = metrics.get("facility_power_peak" if hall.peak_pue is not None else "facility_power")
    recharge = ups_recharge(hall)
    return load if load is None or recharge is None else (load + recharge).to("kW")


def ups_recharge(hall: Any) -> Q | None:
    """The hall's UPS battery recharge: `ups_units.count` x each module's `feeds.ups_recharge`; None: not stated.

    After a ride-through every module's battery recharges at once (each carried a share of the load), drawing from
    the generator sets or the utility on top of the facility power, so the term is the hall's, counted once.
    """
    feeds = hall.feeds if hall is not None else None
    if feeds is None or feeds.ups_recharge is None or feeds.ups_units is None:
        return None
    return (feeds.ups_units.count * feeds.ups_recharge).to("kW")


def recharge_excess(group: Iterable[ClusterAnalysis]) -> tuple[Q, str]:
    """What summing `group`'s generator loads (`generator_power`) counts more than once of a hall's recharge, and why.

    Each cluster's load holds its hall's `ups_recharge`; the hall draws it once, as a checkpoint storage shared by
    its clusters is counted once (`storage_cost.shared_storage`). The note is "" where nothing is counted twice.
    """
    halls: dict[str, tuple[Any, int]] = {}
    for c in group:
        hall = c.cluster.facility
        if hall is not None and ups_recharge(hall) is not None:
            halls[hall.id] = (hall, halls.get(hall.id, (hall, 0))[1] + 1)
    excess, notes = Q_(0, "kW"), []
    for hid, (hall, n) in sorted(halls.items()):
        once = ups_recharge(hall)
        if n > 1 and once is not None:
            excess = excess + (n - 1) * once
            notes.append(f"facility '{hid}''s UPS battery recharge counted once at {once.to('kW'):.1f~P}")
    return excess.to("kW"), "; ".join(notes)


#: The metrics of a cluster that are its hall's capacity less a load (`facility_metrics`), and that load.
HEADROOMS: dict[str, Callable[[ClusterAnalysis], Q | None]] = {
    "it_capacity_headroom": lambda c: _feeds(c), "cooling_headroom": lambda c: _feeds(c),
    "ups_headroom": lambda c: ups_load(c, c.metrics),
    "generator_headroom": lambda c: generator_power(c.metrics, c.cluster.facility)}


def _feeds(c: ClusterAnalysis) -> Q | None:
    """The cluster's feed load (`feed_load`); None where its IT power is not provided."""
    return feed_load(c.metrics["it_power"], c.metrics) if "it_power" in c.metrics else None


def hall_headrooms(clusters: Mapping[str, ClusterAnalysis]) -> dict[str, dict[str, Q | None]]:
    """By cluster path, its headroom metrics as its hall's, where other occupants of the hall are counted with it.

    Each is the hall's capacity less the load of the occupants counted together in it, as PWR010, COOL009 and PWR011
    sum them (`checks.occupants.over_facility`): the clusters naming it (`hall_groups.fellows`: those its `deployed`
    lists, else every cluster of the run naming it) and other clusters' halls naming it (`hall_groups.halls_with`,
    their racks' draw, a floor under their share: review45, before left out, so d beside c's hall a read 164.3 kW
    of IT capacity headroom where PWR010 sums 267.3 kW of 300 kW). A requirement on a headroom is judged on the
    hall's. A checkpoint storage several of them state with one `storage.id` is counted once (`shared_storage`), as
    is the hall's UPS battery recharge in `generator_headroom` (`recharge_excess`). Only clusters counted with
    another are listed; a headroom is None (not provided) where some occupant's load is not provided, so the hall's
    load is not known. A cluster alone in its hall, or a candidate its hall's `deployed` does not list, keeps its
    own figures (`facility_metrics`). Where a hall is among them, the headroom is an upper end: `headroom_ends`.
    """
    return {path: {name: value for name, (value, _, _) in sums.items()} for path, sums in _headroom_sums(clusters)}


def headroom_ends(clusters: Mapping[str, ClusterAnalysis]) -> dict[str, dict[str, tuple[Q | None, str]]]:
    """By cluster path, the other end of each headroom beside another cluster's hall, and why (`Operations.unsettled`).

    A hall's share of its cluster's load outside its racks (optics outside systems, switches in no rack, storage,
    shelf loss) is not split by hall (`checks.own_halls`): with none of it the headroom is `hall_headrooms`'s, with
    all of it this end, lower; None where that rest is not provided (an upper bound). A requirement met at one end
    only is not provided (`model.unsettled.unsettled_note`).
    """
    return {path: {name: (other, why) for name, (value, other, why) in sums.items() if value is not None and why}
            for path, sums in _headroom_sums(clusters)}


def _headroom_sums(clusters: Mapping[str, ClusterAnalysis]) -> Iterator[tuple[str, dict[str, tuple[Any, Any, str]]]]:
    """Each cluster counted with another occupant: by headroom, (its value, the other end, why "" where settled)."""
    for path, c in clusters.items():
        group, halls, fac = fellows(clusters, path), halls_with(clusters, path), c.cluster.facility
        if fac is None or len(group) + len(halls) < 2:
            continue
        named = ", ".join(f"'{o.cluster.spec.id}' hall '{o.cluster.spec.floor.halls[j].id}'" for o, j in halls)
        out: dict[str, tuple[Any, Any, str]] = {}
        for name, load in HEADROOMS.items():
            if name not in c.metrics:
                continue
            loads, shares = [load(o) for o in group.values()], [_hall_load(name, o, j, fac) for o, j in halls]
            twice = shared_storage(list(group.values()), _storage_factor(name, fac))[0] + \
                (recharge_excess(group.values())[0] if name == "generator_headroom" else Q_(0, "kW"))
            own = load(c)
            value = other = None
            if own is not None and None not in loads and None not in shares:
                total = sum((q for q in loads if q is not None), Q_(0, "kW")) - twice + \
                    sum((h[0] for h in shares if h is not None), Q_(0, "kW"))
                value = (c.metrics[name] + own - total).to("kW")
                rests = [h[1] for h in shares if h is not None]
                other = None if None in rests else (value - sum((q for q in rests if q is not None), Q_(0, "kW")))
            why = "" if not halls or value is None or other == value else (
                f"{named} of another cluster stand{'s' if len(halls) == 1 else ''} in facility '{fac.id}' too: "
                "the racks' load there is counted, their cluster's load outside its racks (not split by hall) at "
                f"none of it ({VALUE_END}) and all of it ({'not provided' if other is None else OTHER_END})")
            out[name] = (value, other, why)
        yield path, out


def _hall_load(name: str, o: ClusterAnalysis, j: int, fac: Any) -> tuple[Q, Q | None] | None:
    """Hall `j` of cluster `o` in facility `fac`: its racks' load behind headroom `name` (`hall_load`), and its rest.

    The rest is the cluster's feed load less all its racks' draw, with the in-row CDUs' pumps on the UPS where the
    facility puts them on it, x the same factor; None where not provided. The whole is None where the hall's load is.
    """
    stage = STAGES.get(name, "")
    whole = hall_load(stage, o, j, fac)
    if whole is None:
        return None
    rest = unsplit_rest(o)
    if stage == "ups" and rest is not None and fac.feeds is not None and fac.feeds.cdus_on_ups:
        pumps = cluster_cdu_power(o)
        rest = None if pumps is None else rest + pumps
    factor = stage_factor(stage, fac)
    return whole, None if rest is None or factor is None else (rest * factor).to("kW")


#: The stage of a facility behind a headroom metric, as `hall_load` names it ("" for the feeds and the plant).
STAGES = {"ups_headroom": "ups", "generator_headroom": "generators"}


def hall_load(stage: str, o: ClusterAnalysis, j: int, fac: Any) -> Q | None:
    """Hall `j` of cluster `o` standing in facility `fac`: its racks' load on `stage` of it, a floor under its share.

    The draw at its racks' feeds (`hall_power.<hall>`, their in-rack cooling units with them): as it is for the
    feeds, the cooling and the plant (`stage` ""); over the distribution's efficiency for the UPS ("ups",
    `ups_factor`); x `fac`'s `peak_pue`, else its annual PUE, for the generator sets ("generators"), without the
    recharge the judged cluster's load holds once. None where the draw is not provided, or on the generator sets
    where `fac` states no PUE (docs/facility.md: without either PUE the generators are not judged; split30: the
    headrooms took it x1 there, PWR011 None). The one share PWR011 (`checks.power_figures`) and the headrooms
    (`hall_headrooms`) read.
    """
    draw = o.metrics.get(f"hall_power.{o.cluster.spec.floor.halls[j].id}")
    factor = stage_factor(stage, fac)
    return None if draw is None or factor is None else (draw * factor).to("kW")


def stage_factor(stage: str, fac: Any) -> float | None:
    """What a watt at the rack feeds adds to `stage` of facility `fac` (`hall_load`); None: generators, no PUE."""
    if stage == "ups":
        return ups_factor(fac)
    return generator_pue(fac) if stage == "generators" else 1.0


def generator_pue(fac: Any) -> float | None:
    """The PUE facility `fac`'s generator sets are sized on: its `peak_pue`, else its annual PUE; None: neither."""
    pue = fac.peak_pue if fac.peak_pue is not None else fac.cost.energy.pue if fac.cost is not None else None
    return None if pue is None else float(pue)


def unsplit_rest(o: ClusterAnalysis) -> Q | None:
    """Cluster `o`'s feed load outside its racks' own draw, which is not split by hall; None where not provided.

    Its optics outside systems, switches in no rack, storage and shelf loss: a hall's share of it lies between none
    and all (`checks.own_halls.outside_racks`, the same with the in-row CDUs' pumps where a UPS carries them).
    """
    feed = _feeds(o)
    racks = o.metrics["it_power_racks"] + o.metrics.get("rack_cooling_power", Q_(0, "kW"))
    return None if feed is None else max(feed - racks, Q_(0, "kW")).to("kW")


def _storage_factor(name: str, hall: Any) -> float:
    """What a watt of checkpoint storage adds to the hall's load behind headroom `name`: its PUE for generator sets."""
    return generator_factor(hall) if name == "generator_headroom" else ups_factor(hall) if name == "ups_headroom" \
        else 1.0


def ups_factor(hall: Any) -> float:
    """What a watt at the rack feeds adds to the UPS load (`ups_output`): 1 / the distribution's efficiency, else 1."""
    eff = hall.feeds.distribution_efficiency if hall.feeds is not None else None
    return 1.0 if eff is None else 1 / float(eff)


def generator_factor(hall: Any) -> float:
    """What a watt of IT load adds to what `generator_power` counts: the hall's `peak_pue`, else its PUE, else 1."""
    pue = generator_pue(hall)
    return 1.0 if pue is None else pue


def feed_load(it_power: Q, metrics: Mapping[str, Q]) -> Q:
    """What the cluster's rack feeds carry: its IT power plus its racks' own cooling units (`rack_cooling_power`)."""
    return (it_power + metrics.get("rack_cooling_power", Q_(0, "kW"))).to("kW")

