"""Each hall's own facility (`floor.halls[].facility`): COOL009's air side and PWR011's units, hall by hall.

PWR010 and COOL009's cooling capacity hold each hall that names a facility to that facility (`hall_load.by_hall`); the
air side and the UPS modules, generator sets and utility feeds are judged the same way here. A hall's racks (their
draw `hall_power.<hall>`, their heat to air `analyse.rack_heat.hall_rack_heat`) are a floor under the hall's share;
the cluster's draw outside its racks' own figures (optics outside systems, switches in no rack, storage, shelf loss;
the in-row CDUs' pumps where the hall puts them on its UPS) is not split by hall, so the floor plus all of it is a
ceiling. Floor over the hall's facility: an error; ceiling within it: a pass; between: a warning that the split
decides. A figure the hall's facility does not state (its air side, a PUE, a derating row covering its site) leaves
that hall not judged on it, an info finding: never judged against another hall's facility or the cluster's.
A hall within its facility's air side or units alone is judged with the run's other occupants of it too, as PWR010
and COOL009's capacity are (`occupants.over_facility`; power30: before, each hall against its facility alone).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from archgen.analyse.cdu_power import cluster_cdu_power
from archgen.analyse.facility import (
    generator_pue,
    unsplit_rest,
    ups_output,
    ups_recharge,
    usable_units,
)
from archgen.analyse.rack_heat import hall_rack_heat
from archgen.checks.hall_words import SWING_UNJUDGED
from archgen.checks.occupants import StageLoads, over_facility
from archgen.checks.registry import Violation
from archgen.checks.unit_rating import load_pf
from archgen.display import kw
from archgen.units import Q_, Q

#: The cluster's draw outside its racks' own figures, not split by hall; None where not provided.
Rest = Q | None
#: The run's clusters, the judged cluster's path, and what each other occupant puts on the facility's stage
#: (`occupants.StageLoads`); None: the hall judged alone.
Peers = tuple[Mapping[str, Any], str, StageLoads] | None


def outside_racks(c: Any, pumps: bool = False) -> Rest:
    """The cluster's feed load less its racks' own draw (`unsplit_rest`), with the in-row CDUs' `pumps`."""
    rest = unsplit_rest(c)
    if rest is None:
        return None
    extra = cluster_cdu_power(c) if pumps else Q_(0, "kW")
    return None if extra is None else (rest + extra).to("kW")


def _judge(path: str, c: Any, k: int, own: str, floor: Q, ceiling: Q | None, limit: Q, against: str,
           unsplit: str, peers: Peers = None) -> Iterator[Violation]:
    """Floor over `limit`: an error; `ceiling` within it: nothing; between: a warning, or info where not provided.

    `peers`: where given, the facility's other occupants (`Peers`): the floor with theirs over the limit is that
    sum's finding, as PWR010's `hall_load.by_hall` gives it (power30: before, each hall was judged alone here).
    """
    at, cid = ("floor", "halls", k, "facility"), c.cluster.spec.id
    over = None
    if peers is not None and floor <= limit:
        clusters, judged, stage = peers
        over = over_facility(clusters, judged, k, c.cluster.hall_facilities[k], floor, stage, limit, against)
    if floor > limit:
        yield Violation(path, cid, at, f"{own} {kw(floor)} exceeds {against} by {kw(floor - limit)}, before the "
                        "cluster's share not split by hall", floor.to("kW"), limit.to("kW"))
    elif over is not None and over.severity != "info":
        yield Violation(path, cid, at, f"{own} {kw(floor)}: {over.message}", over.total, limit.to("kW"),
                        severity=over.severity)
    elif ceiling is None or ceiling > limit:
        most = f"its share of {unsplit} is not provided" if ceiling is None else (
            f"with all of {unsplit}, which is not split by hall, it would be {kw(ceiling)}")
        yield Violation(path, cid, at, f"{own} {kw(floor)} is within {against}, but {most}: the hall is not judged "
                        "past its racks", floor.to("kW"), limit.to("kW"),
                        severity="info" if ceiling is None else "warning")
    elif over is not None:   # within it, but another occupant's draw is not provided (or a candidate's): said
        yield Violation(path, cid, at, f"{own} {kw(floor)}: {over.message}", over.total, limit.to("kW"),
                        severity="info")


def _not_expanded(path: str, c: Any, k: int, what: str) -> Violation:
    """The info finding where a hall's racks are not expanded (NET015): its draw, its heat, are not provided."""
    hid = c.cluster.spec.floor.halls[k].id
    return Violation(path, c.cluster.spec.id, ("floor", "halls", k, "facility"), f"not judged: the racks are not "
                     f"expanded (NET015), so hall '{hid}''s {what} is not provided", None, severity="info")


def air_by_hall(path: str, c: Any, racks: Mapping[str, Any], feed: Q | None,
                peers: tuple[Mapping[str, Any], StageLoads] | None = None) -> Iterator[Violation]:
    """COOL009's air side for each hall naming its own facility: its racks' heat to air within its air side.

    The heat of the cluster's parts in no rack (its `feed` power less all its racks' heat), whose medium no spec
    states, is the rest not split by hall: counted as air where it would tip the balance, an info finding. `peers`:
    the run's clusters and each other occupant's heat to air (a cluster's, a hall's), summed with the hall's where
    it fits alone (`occupants.over_facility`, no storage: it is no heat to air; the heat of their clusters' parts in
    no rack, this cluster's with them, the rest not split by hall, as `hall_figures.air_side` gives it).
    """
    halls, heats = c.cluster.spec.floor.halls, None
    for k, fac in enumerate(c.cluster.hall_facilities):
        if fac is None or (fac.cooling_capacity is None and fac.air_cooling_capacity is None):
            continue
        heats = hall_rack_heat(c, racks) if heats is None else heats
        if k not in heats:
            if c.cluster.too_large:
                yield _not_expanded(path, c, k, "heat to air")
            continue
        heat, cap, hid = heats[k], fac.air_cooling_capacity, halls[k].id
        if cap is None:
            if heat.air.magnitude > 0:
                yield Violation(path, c.cluster.spec.id, ("floor", "halls", k, "facility"), f"not judged: the heat "
                                f"to air of hall '{hid}''s racks {kw(heat.air)}; its facility '{fac.id}' states its "
                                "cooling capacity (liquid and air together) but no air-side cooling capacity, so "
                                "whether its air side takes that heat is not known", heat.air.to("kW"),
                                severity="info")
            continue
        total = sum((h.total for h in heats.values()), Q_(0, "kW"))
        rest = None if feed is None else max(feed - total, Q_(0, "kW"))
        yield from _judge(path, c, k, f"heat to air of hall '{hid}''s racks", heat.air,
                          None if rest is None else heat.air + rest, cap.to("kW"),
                          f"its facility '{fac.id}''s air-side cooling capacity {kw(cap)}",
                          "the heat of the cluster's parts in no rack (taken as air)",
                          None if peers is None else (peers[0], path, peers[1]))


def units_by_hall(path: str, c: Any, clusters: Mapping[str, Any] | None = None,
                  shares: Callable[[str, Any], StageLoads] | None = None) -> Iterator[Violation]:
    """PWR011 for each hall naming its own facility: its racks' UPS and generator loads within the facility's units.

    The UPS load is the hall's racks' draw over the facility's `feeds.distribution_efficiency` (`ups_output`); the
    generator and utility load that draw x the facility's `peak_pue` (else its annual PUE, said to be optimistic),
    with its UPS battery recharge (`ups_recharge`). A facility stating no PUE, or units with no real power at its
    site (kVA without a power factor, no derating row), leaves the hall not judged on them: an info finding (the
    cluster's path makes generator sets with no row covering the site an error). The hall's draw holds its racks'
    in-rack cooling units, which the cluster's generator load (IT power x PUE) leaves to the PUE's overhead: x the
    PUE here they count twice, on the safe side, where a hall has in-rack CDUs (none in the shipped GB200 racks).
    With the run's `clusters` and `shares` (key, facility: each other occupant's load on that stage), a hall within
    its units alone is judged with the facility's other occupants too (`occupants.over_facility`).
    """
    halls, m = c.cluster.spec.floor.halls, c.metrics
    for k, fac in enumerate(c.cluster.hall_facilities):
        feeds = fac.feeds if fac is not None else None
        if feeds is None:
            continue
        stages = [s for s in (("UPS", "modules", feeds.ups, feeds.ups_units),
                              ("generator", "sets", feeds.generators, feeds.generator_units),
                              ("utility", "feeds", feeds.utility, feeds.utility_units)) if s[3] is not None]
        draw, hid = m.get(f"hall_power.{halls[k].id}"), halls[k].id
        if not stages:
            continue
        if draw is None:
            if c.cluster.too_large:
                yield _not_expanded(path, c, k, "draw")
            continue
        pue = generator_pue(fac)
        optimistic = "" if fac.peak_pue is not None or pue is None else (
            f" (x the annual PUE {float(pue):g}: the facility states no `peak_pue`, so this is optimistic)")
        pumps = bool(feeds.cdus_on_ups)
        for label, kind, redundancy, units in stages:
            ups = label == "UPS"
            rest = outside_racks(c, pumps=ups and pumps)
            each, usable = (None, None) if units.real(load_pf(fac)) is None else usable_units(units, redundancy, fac)
            if usable is None or each is None or not ups and pue is None:
                why = ("the facility states no `peak_pue` or annual PUE" if usable is not None else "its units "
                       "state no real power at the site (kVA without a power factor, or no derating row covering "
                       "its outdoor conditions)")
                yield Violation(path, c.cluster.spec.id, ("floor", "halls", k, "facility"), f"not judged: hall "
                                f"'{hid}''s racks draw {kw(draw)}, and facility '{fac.id}''s {label} {kind}: {why}",
                                draw.to("kW"), severity="info")
                continue
            basis = f"({redundancy or 'N, not stated,'} of {units.count} x {kw(each)} {label} {kind})"
            unsplit = ("the cluster's draw outside its racks' own figures (optics outside systems, switches in no "
                       "rack, storage, shelf loss" + (", in-row CDU pumps)" if ups and pumps else ")"))
            key = "ups" if ups else "generators"
            peers = None if clusters is None or shares is None else (clusters, path, shares(key, fac))
            yield from _judge(path, c, k, f"{label} load of hall '{hid}''s racks{'' if ups else optimistic}",
                              unit_load(fac, draw, ups, pue), None if rest is None else
                              unit_load(fac, draw + rest, ups, pue), usable.to("kW"),
                              f"its facility '{fac.id}''s usable {label} capacity {kw(usable)} {basis}", unsplit,
                              peers)


def unit_load(fac: Any, draw: Q, ups: bool, pue: Any) -> Q:
    """What a hall's `draw` at the rack feeds puts on its UPS (`ups_output`), else on its generators and utility.

    The latter: x `pue` (the facility's `peak_pue`, else its annual PUE) with its UPS battery recharge.
    """
    if ups:
        return ups_output(draw, fac)
    return (draw * float(pue) + (ups_recharge(fac) or Q_(0, "kW"))).to("kW")


def swing_by_hall(path: str, c: Any) -> Iterator[Violation]:
    """PWR022 for each hall naming its own facility with units or a swing limit: its swing is not judged, said.

    PWR011 holds the hall's units to its racks' maximum draw held steady (`units_by_hall`); the swing against the
    facility's `load_step_limit` or `ramp_rate_limit` is judged on a cluster's whole load (`hall_swing`), not on a
    hall's share of it, so a hall's limit is named, not judged, and its units' judgement is not read as covering it.
    """
    halls, m = c.cluster.spec.floor.halls, c.metrics
    for k, fac in enumerate(c.cluster.hall_facilities):
        feeds, hid = fac.feeds if fac is not None else None, halls[k].id
        draw = m.get(f"hall_power.{hid}")
        if feeds is None or draw is None:
            continue
        limits = [f"`feeds.{n}`" for n in ("load_step_limit", "ramp_rate_limit") if getattr(feeds, n) is not None]
        units = any(u is not None for u in (feeds.ups_units, feeds.generator_units, feeds.utility_units))
        if limits:
            text = (f"not judged: hall '{hid}''s swing against facility '{fac.id}''s {' and '.join(limits)}: a "
                    "training step's swing is judged on a cluster's whole load against its `facility`, not on a "
                    f"hall's share of it (its racks draw {kw(draw)} at maximum)")
        elif units:
            text = (f"facility '{fac.id}''s units of hall '{hid}' judged on its racks' maximum draw held steady "
                    f"({kw(draw)}): {SWING_UNJUDGED}")
        else:
            continue
        yield Violation(path, c.cluster.spec.id, ("floor", "halls", k, "facility"), text, severity="info")
