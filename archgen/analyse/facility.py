"""What a cluster's IT power means for the hall it stands in: facility power and the hall's headroom."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from archgen.analyse.cdu_power import cluster_cdu_power
from archgen.analyse.hall_groups import shared_halls
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.storage_cost import shared_storage
from archgen.model.base import spare_units
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
    each = units.at_site(hall).capacity
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
    """By cluster path, its headroom metrics as its hall's, where other clusters of the run name the hall too.

    Each is the hall's capacity less the feed load of the clusters counted together in it (`hall_groups.fellows`:
    those its `deployed` lists, else every cluster of the run naming it), as PWR010 and COOL009 judge them
    (`checks.occupants.over_facility`): a requirement on a headroom is judged on the hall's. A checkpoint storage
    several of them state with one `storage.id` is counted once (`shared_storage`), as is the hall's UPS battery
    recharge in `generator_headroom` (`recharge_excess`). Only clusters counted with
    another are listed; a headroom is None (not provided) where some such cluster's IT power is not provided, so the
    hall's load is not known. A cluster alone in its hall, or a candidate its hall's `deployed` does not list, keeps
    its own figures (`facility_metrics`).
    """
    out: dict[str, dict[str, Q | None]] = {}
    for group in shared_halls(clusters):
        for name, load in HEADROOMS.items():
            loads = [load(c) for c in group]
            twice = shared_storage(group, _storage_factor(name, group[0].cluster.facility))[0] + \
                (recharge_excess(group)[0] if name == "generator_headroom" else Q_(0, "kW"))
            total = None if None in loads else sum((q for q in loads if q is not None), Q_(0, "kW")) - twice
            for c, own in zip(group, loads, strict=True):
                if name in c.metrics:
                    out.setdefault(c.cluster.path, {})[name] = None if total is None or own is None else \
                        (c.metrics[name] + own - total).to("kW")
    return out


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
    pue = hall.peak_pue if hall.peak_pue is not None else hall.cost.energy.pue if hall.cost is not None else None
    return 1.0 if pue is None else float(pue)


def feed_load(it_power: Q, metrics: Mapping[str, Q]) -> Q:
    """What the cluster's rack feeds carry: its IT power plus its racks' own cooling units (`rack_cooling_power`)."""
    return (it_power + metrics.get("rack_cooling_power", Q_(0, "kW"))).to("kW")

