"""The hall's side of PWR010, COOL009 and PWR011: clusters sharing a hall, and generator sets at the site.

A directory of specs may hold alternatives for one hall (the shipped GB200, MI355X and TPU clusters all name
`hall-liquid`) as well as clusters that share it (a brownfield hall with two generations side by side); the hall's
`deployed` list tells the two apart (`analyse.hall_groups`). Where it is stated, the clusters it lists are judged on
their sum, an error above a capacity, and a cluster naming the hall but not listed is a candidate judged alone.
Where it is not, each cluster is judged as if it had the hall to itself, and where the clusters of one run that name
the hall exceed its capacity together while the cluster judged fits alone, the check says so in a warning, so a
shared hall is never passed on each cluster's share. That sum, of clusters and of other clusters' halls naming the
facility alike, is `occupants.over_facility`'s (power30: was `shared_hall` here and `own_halls.peers_over`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from archgen.analyse.cdu_power import cluster_cdu_power
from archgen.analyse.facility import generator_power, ups_output
from archgen.analyse.hall_groups import candidate
from archgen.analyse.rack_heat import hall_rack_heat, rack_heat
from archgen.checks.hall_words import CAMPUS_UNJUDGED, CAMPUS_WORDS, SWING_UNJUDGED, SWING_WORDS
from archgen.checks.occupants import StageLoads, Whole, over_facility
from archgen.checks.own_halls import air_by_hall
from archgen.checks.registry import Violation
from archgen.checks.unit_rating import load_pf, rating_words
from archgen.checks.ups_recharge import recharge_words
from archgen.display import kva, kw
from archgen.model.base import spare_units
from archgen.model.cooling import Rated, counted, describe, stated_only, unstated
from archgen.model.facility import OUTDOOR_KEYS
from archgen.open_item import Worded, customer_text
from archgen.units import Q_, Q


def alone(c: Any) -> str:
    """A phrase for a finding on a candidate cluster (`hall_groups.candidate`) judged alone; "" for any other."""
    if not candidate(c):
        return ""
    return (f" (a candidate design: facility '{c.cluster.facility.id}''s `deployed` does not list it, so it is "
            "judged alone against the hall)")


def steady_only(path: str, c: Any, judged: list[tuple[str, str, Q]]) -> Violation:
    """PWR022's info finding beside PWR011's judgement of the hall's units: each was held to a steady maximum draw.

    `judged` is (what the load is, the units, load) of each stage judged on a load. The finding is on every such
    cluster, pass or fail, so PWR011's pass and the document's UPS, generator and utility rows are never read as
    covering the swing (`SWING_UNJUDGED`); where the utility feeds are among them, nor as covering a connection
    other halls share (`CAMPUS_UNJUDGED`).
    """
    stages = "; ".join(f"{what} {load.to('kW').magnitude:,.1f} kW on the {units}" for what, units, load in judged)
    campus = c.cluster.facility.feeds.shared_utility is None and any(units == "utility feeds" for _, units, _ in judged)
    head = f"facility '{c.cluster.facility.id}''s units judged on the maximum draw held steady ({stages}): "
    return Violation(path, c.cluster.spec.id, ("facility",),
                     head + SWING_UNJUDGED + (f"; {CAMPUS_UNJUDGED}" if campus else ""), severity="info",
                     public=head + SWING_WORDS + (f"; {CAMPUS_WORDS}" if campus else ""))


def generators_at_site(path: str, c: Any, units: Any, rated: Rated) -> Iterator[Violation]:
    """PWR011's findings on the generator sets' rating at the site's outdoor conditions (`Units.at_site`).

    Rated at conditions the site exceeds with no `derating` row covering them: an error, the sets have no stated
    capacity there. Rated at conditions the site does not state, or at none while the site states its outdoor
    design or altitude: an info finding, the capacity counted as stated is not known to hold (as COOL010, COOL011).
    """
    hall, cid = c.cluster.facility, c.cluster.spec.id
    nominal = units.real(load_pf(hall))   # kVA x power factor where rated in kVA (PWR011 skips these where None)
    stated = f"generator sets of {kw(nominal)}"
    if rated.capacity is None:
        _, limit, value = rated.unmet[0]
        rows = f"; its {len(units.derating)} derating row(s) do not cover them" if units.derating else ""
        yield Violation(path, cid, ("facility",), f"facility '{hall.id}''s {stated} are rated at conditions the site "
                        f"does not meet ({describe(rated.unmet, 'outdoor air')}){rows}: their capacity there is not "
                        "stated, so they are not counted", value, limit)
    elif missing := unstated(units.rated_at, hall.outdoor()):
        head, tail = f"not judged: facility '{hall.id}''s {stated} are rated at ", \
            f": each set's {counted(rated.capacity, nominal)}, not known to hold at the site"
        yield Violation(path, cid, ("facility",), head + stated_only(missing, 'outdoor air', OUTDOOR_KEYS, 'the hall')
                        + tail, severity="info",
                        public=head + stated_only(missing, 'outdoor air', OUTDOOR_KEYS, 'the hall', True) + tail)
    elif units.rated_at is None and (site := [f"{n} {q:~P}" for n, q in hall.outdoor().items() if q is not None]):
        where = ", ".join(s.replace("ambient", "outdoor design dry-bulb") for s in site)
        said = (f" each is counted as stated, not known to hold at the site's {where} (a set's output falls with "
                "hotter and thinner intake air")
        yield Violation(path, cid, ("facility",), f"not judged: facility '{hall.id}''s {stated} state no `rated_at`:"
                        f"{said}; state the datasheet's rating conditions and derating rows)", severity="info",
                        public=f"not judged: facility '{hall.id}''s {stated} state no rated conditions:{said})")


def redundancy_not_stated(path: str, c: Any, key: str, label: str, kind: str, units: Any) -> Violation:
    """PWR011's info finding where the hall states units (`feeds.ups_units`) but not their redundancy (`feeds.ups`).

    The units are judged as N, every one carrying the load and none held back: the least conservative reading, an
    assumption the finding names (as the annual PUE taken for a design-day one), so the pass does not read as one on
    a stated scheme.
    """
    hall, field = c.cluster.facility, {"ups": "ups_units", "generators": "generator_units"}.get(key, f"{key}_units")
    rest = (f"they are judged as N, all {units.count} carrying the load and none held back for a failure or "
            "maintenance, the least conservative reading (an assumption)")
    head = f"not stated: facility '{hall.id}' gives its {label} {kind} ("
    return Violation(path, c.cluster.spec.id, ("facility",), f"{head}`feeds.{field}`, {units.count} x "
                     f"{rating_words(units, hall)}) but no redundancy (`feeds.{key}`): {rest}; state `feeds.{key}` "
                     "(N, N+1, N+N)", severity="info",
                     public=f"{head}{units.count} x {rating_words(units, hall, True)}) but no redundancy: {rest}")


def ups_pumps(c: Any, load: Q | None, words: str) -> tuple[Q | None, str, Violation | None]:
    """PWR011's UPS load (`load`, the feed power, named `words`), with the in-row CDUs' pumps where on the UPS.

    `feeds.cdus_on_ups: true` adds the cluster's `cdu_power` (each in-row CDU's stated draw x the CDUs it buys).
    Where one of its in-row CDUs states no draw, the load stays the feed power and an info finding says the UPS is
    judged without the pumps (an optimistic margin).
    """
    hall = c.cluster.facility
    if load is None or not hall.feeds.cdus_on_ups:
        return _lossy(load, hall), _lossy_words(words, hall), None
    pumps = cluster_cdu_power(c)
    if pumps is None:
        tail = ": the UPS is judged on the feed power without them, so its margin is optimistic"
        return _lossy(load, hall), _lossy_words(words, hall), Violation(
            c.cluster.path, c.cluster.spec.id, ("facility",), f"facility '{hall.id}' puts its in-row CDUs' pumps "
            f"on the UPS (`feeds.cdus_on_ups`), but a CDU the cluster buys states no `power`{tail}", severity="info",
            public=f"facility '{hall.id}' puts its in-row CDUs' pumps on the UPS, but a CDU the cluster buys states "
            f"no power draw{tail}")
    if not pumps.m:
        return _lossy(load, hall), _lossy_words(words, hall), None
    return (_lossy((load + pumps).to("kW"), hall),
            _lossy_words(f"{words} and the in-row CDUs' pumps ({pumps:.1f~P}, on the UPS)", hall), None)


def _lossy(load: Q | None, hall: Any) -> Q | None:
    """`load` at the rack feeds as the UPS output carries it (`ups_output`), None kept."""
    return None if load is None else ups_output(load, hall)


def _lossy_words(words: str, hall: Any) -> str:
    """`words` naming a UPS load, with the distribution efficiency it was divided by where the hall states one.

    A `Worded` there: a customer reads the efficiency without its key.
    """
    eff = hall.feeds.distribution_efficiency
    said = f"{words} over the distribution's efficiency {float(eff):g}" if eff is not None and words else words
    return Worded(f"{said} (`feeds.distribution_efficiency`)", said) if said != words else words


def generator_load(c: Any) -> tuple[Q | None, str]:
    """What PWR011 holds generator sets and utility feeds to, and its name: IT power x `peak_pue`, else x the PUE.

    With the hall's UPS battery recharge where stated (`generator_power`, `ups_recharge.recharge_words`).
    """
    hall = c.cluster.facility
    words = "facility power at design conditions" if hall.peak_pue is not None else "facility power"
    return generator_power(c.metrics, hall), words + recharge_words(hall)


def utility_unjudged(feeds: Any) -> bool:
    """Whether `feeds` states a utility count, voltage or redundancy but no capacity (`utility_units`).

    PWR011's info finding (`utility_not_stated`). A hall that says nothing of its utility gets none: its document's
    row reads "not provided", as for any figure not stated.
    """
    return feeds is not None and feeds.utility_units is None and any(v is not None for v in (
        feeds.utility_feeds, feeds.utility_voltage, feeds.utility))


def utility_not_stated(path: str, c: Any) -> Violation:
    """PWR011's info finding where the hall states its upstream `feeds` but no utility capacity (`utility_units`).

    The utility is then not judged: `utility_feeds` (a count) and `utility_voltage` say nothing of what a feed
    delivers, so any utility would pass. The finding names the keys that would let PWR011 judge it.
    """
    hall = c.cluster.facility
    feeds = hall.feeds
    said = [f"`feeds.{k}: {v:~P}`" if hasattr(v, "units") else f"`feeds.{k}: {v}`"
            for k, v in (("utility_feeds", feeds.utility_feeds), ("utility_voltage", feeds.utility_voltage),
                         ("utility", feeds.utility)) if v is not None]
    words = [w.format(v) for w, v in (("{} feeds", feeds.utility_feeds), ("at {:~P}", feeds.utility_voltage),
                                       ("{}", feeds.utility)) if v is not None]   # the customer's: no key
    text = (f"not judged: facility '{hall.id}''s utility feeds ({{}}): no capacity per feed, so whether they carry "
            "the facility power is not known")
    return Violation(path, c.cluster.spec.id, ("facility",), text.format(', '.join(said) if said else 'none stated')
                     + "; state `feeds.utility_units` ({count, capacity})"
                     + ("" if feeds.utility else " and `feeds.utility` (N, N+1, N+N)"), severity="info",
                     public=text.format(", ".join(words) if words else "none stated"))


#: The heat of a hall's cluster's parts in no rack in `over_facility`'s words (`StageLoads.rest_words`): counted as
#: air, as a cluster's own is where it would tip the balance.
REST_TO_AIR = "of heat their clusters' parts in no rack give (its medium no spec states: taken as air)"


def air_side(clusters: dict[str, Any], racks: dict[str, Any], feed_power: Whole) -> Iterator[Violation]:
    """COOL009's air side: the racks' heat to air (`rack_heat`, after rear doors) within the hall's air capacity.

    `cooling_capacity` holds liquid and air together, so a water-only plant passed the heat the racks put in the
    room air (newuser35: 252.7 kW in hall A). Where the hall states `air_cooling_capacity`: the racks' heat to air
    above it is an error; with the facility's other occupants above it a warning (`occupants.over_facility`: the
    run's clusters naming it, other clusters' halls naming it by their racks' heat to air), as it is where those
    halls' clusters' parts in no rack (their heat, not split by hall, taken as air) decide (sites31: before, passed
    silently: their rest was summed on PWR010 and PWR011, not here); and the
    heat of parts in no rack (the cluster's `feed_power` less its racks' heat), whose medium no spec states, is
    counted as air where it would tip the balance: an info finding, not judged, as where the feed power is not
    provided. Where the hall states a `cooling_capacity` but no air side, an info finding says it is not judged.
    Each cluster's `rack_heat` (which analyses its racks again with their optics) is found once, its own or a peer's,
    as is a peer's `hall_rack_heat`.
    """
    heats: dict[int, Any] = {}
    by_hall: dict[int, Any] = {}

    def heat_of(c: Any) -> Any:
        if id(c) not in heats:
            heats[id(c)] = rack_heat(c, racks)
        return heats[id(c)]

    def hall_air(c: Any, j: int) -> Q | None:   # another cluster's hall in the facility: its racks' heat to air
        if id(c) not in by_hall:
            by_hall[id(c)] = hall_rack_heat(c, racks)
        heat = by_hall[id(c)].get(j)
        return None if heat is None else heat.air.to("kW")

    def hall_rest(c: Any, j: int) -> Q | None:   # a hall's cluster's parts in no rack: their heat, not split by hall
        fed = feed_power(c)
        if fed is None:
            return None
        hall_air(c, j)
        return max(fed - sum((h.total for h in by_hall[id(c)].values()), Q_(0, "kW")), Q_(0, "kW")).to("kW")

    to_air = StageLoads(lambda p: heat_of(p).air, hall_air, rest=hall_rest, storage=False, rest_words=REST_TO_AIR)
    for path, c in clusters.items():
        if any(c.cluster.hall_facilities):   # each hall against its own facility, the cluster's judging none
            yield from air_by_hall(path, c, racks, feed_power(c), (clusters, to_air))
            continue
        hall, cid = c.cluster.facility, c.cluster.spec.id
        if hall is None or (hall.cooling_capacity is None and hall.air_cooling_capacity is None):
            continue
        heat, cap = heat_of(c), hall.air_cooling_capacity
        air = f"the racks' heat to air {heat.air:.1f~P}"
        if cap is None:
            if heat.air.magnitude > 0:
                yield Violation(path, cid, ("facility",), f"not judged: {air}; facility '{hall.id}' states its "
                                "`cooling_capacity` (liquid and air together) but no `air_cooling_capacity`, so "
                                "whether its air side takes that heat is not known", heat.air, severity="info",
                                public=f"not judged: {air}; facility '{hall.id}' states its cooling capacity (liquid "
                                       "and air together) but no air-side capacity, so whether its air side takes "
                                       "that heat is not known")
            continue
        against = f"facility '{hall.id}''s air-side cooling capacity {kw(cap)}"
        fed = feed_power(c)
        rest = None if fed is None else max(fed - heat.total, 0 * heat.total)
        if heat.air > cap:
            yield Violation(path, cid, ("facility",), f"{air} exceeds {against} by {kw(heat.air - cap)}"
                            f"{alone(c)}",
                            heat.air, cap.to("kW"))
        elif over := over_facility(clusters, path, -1, hall, heat.air, to_air, cap, against):   # the others
            yield Violation(path, cid, ("facility",), f"heat to air: {over.message}", over.total, cap.to("kW"),
                            severity=over.severity, public=f"heat to air: {customer_text(over.message)}")
        elif rest is None or heat.air + rest > cap:
            why = ("the cluster's IT power is not provided, so the heat of its parts in no rack is not known"
                   if rest is None else f"its parts in no rack (switches, storage, optics the cabling adds) give "
                   f"{kw(rest)} of heat whose medium no spec states, over it if it goes to air")
            yield Violation(path, cid, ("facility",), f"not judged: {air} is within {against}, but {why}",
                            heat.air, cap.to("kW"), severity="info")


def wasted_units(fac: Any) -> Iterator[Violation]:
    """PWR017: a hall's UPS modules, generator sets or utility feeds whose redundancy leaves a unit adding nothing.

    N+N with an odd count: the smaller side is what PWR011 counts (`spare_units` holds back the larger half), the
    same as one unit fewer gives, so the odd unit adds nothing. N+k with k at least the count: no unit is left to
    carry the load. Units without a stated redundancy are PWR011's info finding, not this.
    """
    feeds = fac.feeds
    if feeds is None:
        return
    for field, label, red, units in (("ups_units", "UPS modules", feeds.ups, feeds.ups_units),
                                     ("generator_units", "generator sets", feeds.generators, feeds.generator_units),
                                     ("utility_units", "utility feeds", feeds.utility, feeds.utility_units)):
        if units is None or red is None:
            continue
        real = units.real(load_pf(fac))   # utility feeds in kVA with no power factor: in kVA (PWR011 warns)
        n, each = units.count, real.to("kW") if real is not None else units.capacity.to("kVA")
        size = kw if real is not None else kva
        usable = max(n - spare_units(red, n), 0)
        if red == "N+N" and n % 2:
            side = (n + 1) // 2
            message = (f"N+N (2N) with an odd number of {label} ({n} x {size(each)}): the sides cannot be equal, so "
                       f"the smaller, {usable} x {size(each)}, is what PWR011 counts, as {n - 1} would give: the "
                       f"{nth(n)} adds no usable capacity ({n + 1} give {side} a side, {size(side * each)}; N+1 of {n}"
                       f" gives {size((n - 1) * each)})")
        elif usable == 0:
            message = (f"{red} of {n} {label} holds every one back as a spare: none is left to carry the load "
                       "(PWR011 counts 0 kW)")
        else:
            continue
        yield Violation(f"facility/{fac.id}", fac.id, ("feeds", field, "count"), message, Q_(usable, ""), Q_(n, ""))


def nth(n: int) -> str:
    """'3rd', '5th', '21st': the ordinal of a unit count."""
    tail = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{tail}"


#: Uptime Institute, "Data Center Site Infrastructure Tier Standard: Topology" (2009-2012 edition), the clauses
#: PWR018 judges a tier claim by, as transcribed at http://www.dpair.com/design-data-center/data-center-tier/tier-iii/
#: (Tier III) and http://www.gpxglobal.net/gpx-differentials/uptime-institute-tier-iv-fault-tolerance/teir-iv-requirements/
#: (Tier IV); the Uptime PDF itself (copies: scribd.com/document/239880895, studylib.net/doc/25866472) was not read
#: in full. Tier III: "a concurrently maintainable data center has redundant capacity components and multiple
#: independent distribution paths serving the computer equipment" and "Each and every capacity component and element
#: in the distribution paths can be removed from service on a planned basis without impacting any of the computer
#: equipment". Tier IV: "multiple, independent, physically isolated systems that provide redundant capacity components".
#: Utility feeds are not judged: "Tier III and IV engine-generator systems are considered the primary power source for
#: the data center. The local power utility is an economic alternative." (the same Tier III transcription).
TIER_CLAUSES = {3: "\"redundant capacity components\", each of which \"can be removed from service on a "
                   "planned basis without impacting any of the computer equipment\"",
                4: "\"multiple, independent, physically isolated systems that provide redundant capacity "
                   "components\""}
_MAINTAINABLE = ("{} (\"Each and every capacity component ... can be removed from service on a planned basis "
                 "without impacting any of the computer equipment\")")


def tier_contradictions(fac: Any) -> Iterator[Violation]:
    """PWR018: a hall claiming Uptime Tier III or IV, or `concurrently_maintainable`, whose stated redundancy is N.

    A capacity component (UPS module, generator set, the cooling plant's chillers and pumps) at N has no redundant
    one, so taking one out takes capacity from the load. Only what the hall states is compared: an unstated
    redundancy, utility feeds (the Standard takes the generator sets as the primary source), distribution paths,
    TIA-942 and EN 50600 ratings are not (docs/facility.md).
    """
    feeds, tier = fac.feeds, fac.tier
    level = tier.level if tier is not None and tier.standard == "Uptime Institute" and tier.level >= 3 else None
    if feeds is None or (level is None and fac.concurrently_maintainable is not True):
        return
    at_n = [(key, what) for key, what in (("ups", "UPS"), ("generators", "generator sets"),
                                          ("cooling", "cooling plant")) if getattr(feeds, key) == "N"]
    if not at_n:
        return
    tiered = [f"Uptime Institute Tier {'III' if level == 3 else 'IV'} ({TIER_CLAUSES[level]})"] if level else []
    text = (f"facility '{fac.id}' claims {{}}, but states no redundant capacity components for its {{}}: with N, a "
            "unit taken out of service leaves less than the load needs (Uptime Institute, Tier Standard: Topology)")
    said = [text.format(" and ".join(tiered + ([_MAINTAINABLE.format(claim)] if fac.concurrently_maintainable else [])),
                        ", ".join(f"{what} ({n.format(key)})" for key, what in at_n))
            for claim, n in (("`concurrently_maintainable`", "`feeds.{}: N`"), ("concurrent maintainability", "N"))]
    yield Violation(f"facility/{fac.id}", fac.id, ("tier",) if level else ("concurrently_maintainable",), said[0],
                    public=said[1])
