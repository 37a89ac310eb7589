"""The cluster document's data-centre requirements: what the design needs from its hall, and what the hall states.

The hall's rating, maintainability, feeds and capacities are printed as stated, "not provided" where absent; the
design's needs (IT power, heat by medium, floor load) come from the cluster's and its racks' analyses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from archgen.analyse.facility import usable_units
from archgen.analyse.hall_groups import candidate, fellows, halls_with, naming
from archgen.analyse.job_energy import upper_bound_words
from archgen.analyse.job_swing import parts_swing
from archgen.analyse.rack_heat import rack_heat
from archgen.analyse.site_cost import cost_facility
from archgen.analyse.unconfirmed_share import cluster_rack_shares, heat_share
from archgen.analyse.unracked import unracked_words
from archgen.checks.hall_load import feed_stages
from archgen.checks.unit_rating import load_pf
from archgen.open_item import Worded
from archgen.render import fmt
from archgen.render.blocks import Column, Para, Section, Table
from archgen.render.load_swing import NOT_PROVIDED, load_swing, training_periods
from archgen.render.own_hall_rows import NOT_THIS, hall_unit_rows, site_power_rows
from archgen.render.rack_cooling import water_rows
from archgen.render.tables import Mark, cluster_marks, marked, plain
from archgen.units import apparent_power

_ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV"}
ITEM_VALUE = (Column("Item"), Column("Value"))
#: The steady reading of a capacity row: PWR011 judged it on the maximum draw, and PWR022 says the swing is not.
STEADY = "at the maximum draw held steady, its swing not judged (PWR022)"
#: The utility row's judgement is this hall's alone (`checks.hall_words.CAMPUS_UNJUDGED`).
CAMPUS = ("; this hall's load alone: a utility connection shared with other halls not judged (none is stated: "
          "`feeds.shared_utility`)")
#: The same of the facility power rows, which no check judges: the needs table's load swing row says what is missing.
STEADY_POWER = "at the maximum draw held steady (its swing: the load swing row, not provided)"


def _yes_no(value: bool | None) -> str:
    return NOT_PROVIDED if value is None else ("yes" if value else "no")


def _stated(value: Any) -> str:
    return str(value) if value not in (None, "") else NOT_PROVIDED


def _tier_text(tier: Any) -> str:
    if tier is None:
        return NOT_PROVIDED
    name = {"Uptime Institute": f"Uptime Institute Tier {_ROMAN[tier.level]}", "TIA-942": f"TIA-942 Rated {tier.level}",
            "EN 50600": f"EN 50600 Availability Class {tier.level}"}[tier.standard]
    return f"{name} ({'certified' if tier.certified else 'design, not certified'})"


def _floor_load(rack: Any) -> str:
    """The heaviest rack's floor load, "at least" where its weight leaves installed parts out.

    With how much of it rests on weights listed unconfirmed (`Space.unconfirmed`, newuser106). review47: the hall's
    table printed the NVL72 rack's 2,114 kg/m² as the figure to carry, where its own document reads "at least".
    """
    if rack is None:
        return "—"
    load, s = fmt.q(rack.space.floor_load, "kg/m**2", 0), rack.space
    share = f"{fmt.q(s.unconfirmed / s.footprint, 'kg/m**2', 0)} of it unconfirmed" if s.unconfirmed.magnitude else ""
    if not s.lower_bound:
        return f"{load} ({share})" if share else load
    return (f"at least {load} ({rack.rack.spec.id}, a lower bound: its weight leaves out what Rack design names"
            + (f"; {share})" if share else ")"))


def datacentre(scope: Any, a: Any) -> Section:
    """What the hall must provide: rating, maintainability, feeds, power, cooling, floor; against what it states."""
    m, hall = scope.metrics, a.cluster.facility
    racks = [scope.run.racks.get(f"rack/{rid}") for rid in sorted(a.cluster.rack_counts)]
    racks = [r for r in racks if r is not None]
    heat = rack_heat(a, scope.run.racks)
    liquid, air, doors = heat.liquid, heat.air, heat.doors
    heaviest = max(racks, key=lambda r: r.space.floor_load.m_as("kg/m**2"), default=None)
    mark, shares = cluster_marks(a, scope.run.design.specs, scope.run.racks), cluster_rack_shares(a, scope.run.racks,
                                                                                  scope.run.design.specs)
    wet, dry = (marked(heat_share(a, racks, shares, kind, total, scope.run.design.specs))
                for kind, total in (("liquid", liquid), ("air", air)))
    need = [("IT power at the rack feeds (maximum)", fmt.cell(mark("it_power")(m.get("it_power")), "kW", 1)),
            ("Heat to liquid", fmt.cell(wet(liquid), "kW", 1)),
            *water_rows([(r, a.cluster.rack_counts[r.rack.spec.id]) for r in racks], shares),
            *((("Heat to the rear doors' water", fmt.cell(dry(doors), "kW", 1)),) if doors.magnitude else ()),
            ("Heat to air" + (" (after the rear doors)" if doors.magnitude else ""), fmt.cell(dry(air), "kW", 1)),
            ("Heaviest rack floor load", _floor_load(heaviest)),
            *((("Rack positions", f"{a.cluster.rack_total:,} racks of the layout; {loose}: the switches' rack "
                "space is not in the layout, floor plan or space cost"),) if (loose := unracked_words(m)) else ()),
            ("Load swing and ramp rate (MW, MW/s)", load_swing(m.get("it_power"),
                                                               training_periods(scope.run, a.cluster.spec.id, a),
                                                               _smoothing(a.cluster.facility),
                                                               parts_swing(scope.run.design.specs, a)))]
    section = Section("datacentre", "Data-centre requirements").add(
        Para("What the hall must provide for the design (power, heat by medium, floor load, from the rack "
             "analyses), and what the hall states: its availability rating, maintainability, the feeds upstream "
             "of the racks and its capacities."),
        Table("dc-needs", "What the design needs from the hall", ITEM_VALUE, tuple(need)))
    if hall is None:
        return section.add(Para(f"Facility: {NOT_PROVIDED}. The cluster names no facility, so its rating, feeds "
                                "and capacities are not compared."))
    feeds = hall.feeds
    peers = tuple(f"'{c.cluster.spec.id}'" for p, c in fellows(scope.run.clusters, a.cluster.path).items()
                  if p != a.cluster.path) + tuple(f"'{o.cluster.spec.id}' hall '{o.cluster.spec.floor.halls[j].id}'"
                                                  for o, j in halls_with(scope.run.clusters, a.cluster.path))
    own = any(a.cluster.hall_facilities)   # halls naming their own facilities: this one judges none of them
    ups, gens, utility = (NOT_THIS,) * 3 if own and feeds is not None else _carried(a, peers)
    rows: list[tuple[str, str]] = [
        ("Facility", hall.name or hall.id), ("Availability rating", _tier_text(hall.tier)),
        ("Concurrently maintainable", _yes_no(hall.concurrently_maintainable)),
        ("Utility feeds", _utility(feeds) + utility),
        ("Utility voltage", fmt.q(feeds.utility_voltage, "kV", 1) if feeds and feeds.utility_voltage else NOT_PROVIDED),
        ("UPS redundancy", _units(feeds.ups, feeds.ups_units, "modules") + ups if feeds else NOT_PROVIDED),
        ("UPS autonomy", fmt.q(feeds.ups_autonomy, "min", 1) if feeds and feeds.ups_autonomy else NOT_PROVIDED),
        ("Generator start and transfer", _ride_through(feeds)),
        ("Generator redundancy", _units(feeds.generators, feeds.generator_units, "sets", hall) + gens if feeds else
         NOT_PROVIDED),
        ("Cooling plant redundancy", _stated(feeds.cooling if feeds else None)),
        ("Distribution voltage", fmt.q(hall.voltage, "V", 0) if hall.voltage else NOT_PROVIDED)]
    rows += _capacity(hall, m, peers, a.typical_from_max, cost_facility(a),
                      scope.run.operations.unsettled.get(a.cluster.path, {}), mark)
    if hall.critical_it_power is None and (limits := _judged_limits(scope.run.requirements, a.cluster.path)):
        rows = [(label, limits if label == "Critical IT power" else value) for label, value in rows]
    if own:   # IT power x the halls' PUE (`site_facility_power`), not this facility's
        site = site_power_rows(a, m, STEADY_POWER)
        rows = [(label, site.get(label, value)) for label, value in rows]
    if totals := _totals(a, m, peers, scope.run.clusters):
        rows.append(("Hall totals (clusters deployed together)", totals))
    rows.append(("Air-side cooling capacity", NOT_PROVIDED if hall.air_cooling_capacity is None else
                 f"{fmt.q(hall.air_cooling_capacity, 'kW', 0)} for {fmt.q(air, 'kW', 1)} of heat to air (COOL009)"))
    if hall.water is not None:
        rows.append(("Facility water supply", fmt.q(hall.water.supply, "degC", 0)))
    elif liquid.m_as("kW") > 0:
        rows.append(("Facility water supply", f"{NOT_PROVIDED} (the racks reject heat to liquid)"))
    rows += [("Inlet air supply", fmt.q(hall.air.supply, "degC", 0)),
             ("Floor rating", fmt.q(hall.floor_rating, "kg/m**2", 0))]
    rows += [(label, fmt.q(q, unit, 0)) for label, q, unit in (
        ("Altitude", hall.altitude, "m"), ("Outdoor design dry-bulb", hall.outdoor_design, "degC")) if q is not None]
    section.add(Table("dc-hall", f"Facility {hall.id} (as stated) against the design", ITEM_VALUE, tuple(rows)))
    if own_rows := hall_unit_rows(a):
        section.add(Table("dc-own-halls", "Each hall's own facility: its racks against its UPS and generator sets",
                          ITEM_VALUE, own_rows))
    return section


def _totals(a: Any, m: dict, peers: tuple[str, ...], clusters: dict) -> str:
    """The hall's totals over its `deployed` clusters (`analyse.hall_totals`), or why they are not provided.

    "" (no row) for a cluster alone in a hall that states no `deployed`: its own figures are the hall's load.
    """
    hall, cid = a.cluster.facility, a.cluster.spec.id
    if hall.deployed is None:
        named = [c.cluster.spec.id for c in naming(clusters, hall.id).values()]
        return (f"{NOT_PROVIDED}: the hall states no `deployed`, so which of the clusters naming it "
                f"({', '.join(repr(n) for n in named)}) stand in it together is not said (PWR021)"
                if len(named) > 1 else "")
    if candidate(a):
        if not hall.deployed:   # `deployed: []`: no cluster stands in the hall yet (PWR021 says so)
            return (f"{NOT_PROVIDED}: a candidate design, the hall's `deployed` lists none (`deployed: []`); judged "
                    "alone against the hall (PWR021)")
        return (f"{NOT_PROVIDED} for this cluster: a candidate design, not in the hall's `deployed` "
                f"({', '.join(repr(n) for n in hall.deployed)}); judged alone against the hall")
    over = ", ".join(repr(n) for n in (cid, *peers))
    words = [f"{label} {fmt.q(m[key], unit, digits)}" if key in m else f"{label} {NOT_PROVIDED}"
             for label, key, unit, digits in (("IT power", "hall_it_power", "kW", 1),
                                               ("facility power", "hall_facility_power", "kW", 1),
                                               ("facility energy per year", "hall_facility_energy_per_year",
                                                "MWh", 0))]
    return f"{'; '.join(words)}, over {over} (`deployed`)"


def _ride_through(feeds: Any) -> str:
    """The generator sets' start and transfer time against the UPS autonomy, as PWR019 judges it."""
    transfer = feeds.generator_transfer if feeds else None
    if transfer is None:
        return f"{NOT_PROVIDED} (feeds.generator_transfer): the UPS autonomy is not compared with it (PWR019)"
    if feeds.ups_autonomy is None:
        return f"{fmt.q(transfer, 's', 0)}; UPS autonomy {NOT_PROVIDED}, so not compared (PWR019)"
    covered = feeds.ups_autonomy.to("s") >= transfer.to("s")
    return (f"{fmt.q(transfer, 's', 0)}: the UPS autonomy {'covers' if covered else 'does not cover'} it "
            f"({fmt.q(feeds.ups_autonomy, 's', 0)}; PWR019)")


#: A generator or utility row's load where the hall has UPS modules and states no charging power (PWR011's info).
_NO_RECHARGE = " (the UPS batteries' recharge after a ride-through left out: not provided)"


def _carried(a: Any, peers: tuple[str, ...]) -> tuple[str, str, str]:
    """What PWR011 compared for the UPS, generator and utility rows: usable capacity, load and headroom ('' unstated).

    The figures are PWR011's own (`usable_units`, `checks.hall_load.feed_stages`), so a pass shows the margin it rests
    on; with `peers` (other clusters of the run naming the hall) it is this cluster's alone, as PWR011 judges it.
    Generators and utility feeds judged on the annual PUE (the hall states no `peak_pue`) say so and that the margin
    is optimistic, as PWR011's info finding does; and where the hall's UPS modules state no charging power, that
    their recharge is left out (`checks.ups_recharge`).
    """
    hall = a.cluster.facility
    if hall.feeds is None:
        return "", "", ""
    alone = " (this cluster alone)" if peers else ""
    out = []
    for key, _, _, redundancy, units, load, what in feed_stages(a):   # PWR011's UPS, generators, utility, in order
        usable = None if units is None else usable_units(units, redundancy, hall)[1]
        annual = key != "ups" and hall.peak_pue is None   # PWR011's info: judged on the year's PUE, optimistic
        if usable is None:
            out.append("")
        elif load is None:
            out.append(f"; usable {fmt.q(usable, 'kW', 0)}, load {NOT_PROVIDED} ({what})")
        else:
            out.append(f"; usable {fmt.q(usable, 'kW', 0)} for {fmt.q(load, 'kW', 1)} of {what}"
                       + (" on the annual PUE (no `peak_pue`: optimistic)" if annual else "")
                       + (_NO_RECHARGE if key != "ups" and hall.feeds.ups_units is not None and
                          hall.feeds.ups_recharge is None else "")
                       + f", headroom {fmt.q(usable - load, 'kW', 1)}{alone} (PWR011), {STEADY}"
                       + (CAMPUS if key == "utility" and hall.feeds.shared_utility is None else ""))
    return out[0], out[1], out[2]


def _utility(feeds: Any) -> str:
    """'N+1 (3 x 2,500 kW feeds)' where the hall states each feed's capacity (PWR011), else the count as stated."""
    if feeds is None:
        return NOT_PROVIDED
    if feeds.utility_units is not None:
        return _units(feeds.utility, feeds.utility_units, "feeds")
    scheme = f" ({feeds.utility})" if feeds.utility else ""
    count = _stated(feeds.utility_feeds)
    return f"{count}{scheme}; capacity per feed not provided" if feeds.utility_feeds or feeds.utility else count


def _units(redundancy: str | None, units: Any, kind: str, hall: Any = None) -> str:
    """'N+1 (3 x 150 kW modules)': a stated redundancy with the units it holds, where the hall states them.

    With `hall`, generator sets' capacity at its outdoor conditions where that is not the stated one (PWR011).
    """
    if units is None:
        return _stated(redundancy)
    real = units.real(load_pf(hall))
    each = units.at_site(load_pf(hall), hall.outdoor()).capacity if hall is not None else real
    site = "" if each == real else "; stated at conditions the site does not meet (PWR011)" if each is \
        None else f"; {fmt.q(each, 'kW', 0)} each at the site's conditions"
    scheme = f"{redundancy} (" if redundancy else "not stated (judged as N; "   # PWR011's info finding says so
    if apparent_power(units.capacity):   # a kVA rating: its real power at the stated power factor, or not provided
        kw = f"{fmt.q(real, 'kW', 0)} at the stated power factor" if real is not None else "real power not provided"
        return f"{scheme}{units.count} x {fmt.q(units.capacity, 'kVA', 0)} {kind}, {kw}{site})"
    return f"{scheme}{units.count} x {fmt.q(units.capacity, 'kW', 0)} {kind}{site})"


def _smoothing(hall: Any) -> Any:
    """The hall's `feeds.power_smoothing`, or None."""
    return hall.feeds.power_smoothing if hall is not None and hall.feeds is not None else None


def _judged_limits(judgements: Any, path: str) -> Worded | None:
    """The Critical IT power row where the hall states none but requirements cap the cluster's IT power.

    It says whose limit is judged (newuser106, item 7: "not provided" beside REQ-HALL-PWR-002's "<= 2 MW ... met");
    None where no requirement caps it.
    """
    caps = [j for j in judgements if j.bound.subject == path and j.bound.req.metric == "it_power"
            and j.bound.req.target.op in ("<", "<=")]
    if not caps:
        return None
    said = "; ".join(f"{r.id} ({r.statement}) judges the IT power against its own {r.basis} target, "
                     f"{fmt.grouped_numbers(fmt.target_text(r.target, None))}{f' ({r.source})' if r.source else ''}"
                     f", not a figure of the hall: {j.outcome.status.value}" for j in caps for r in (j.bound.req,))
    return Worded(f"{NOT_PROVIDED}: the facility states none (`critical_it_power`); {said}",
                  f"{NOT_PROVIDED}: the facility states none; {said}")


def _headroom(value: Any, end: tuple[Any, str] | None = None) -> str:
    """A headroom, or the range from its other `end` to it (`headroom_ends`; "at most" where that end is None)."""
    if value is None:
        return NOT_PROVIDED
    if end is None:
        return fmt.q(value, "kW", 1)
    return f"at most {fmt.q(value, 'kW', 1)}" if end[0] is None else \
        f"{fmt.q(end[0], 'kW', 1)} to {fmt.q(value, 'kW', 1)} (the other cluster's load outside its racks decides)"


def energy_basis(cost: Any, m: dict, fell_back: tuple[str, ...] = ()) -> str:
    """What a hall's energy per year rests on: its utilisation, its PUE and the draw, each named where assumed.

    The figure is (average load x utilisation + idle load x (1 - utilisation)) x 8,766 h x PUE
    (`analyse.cost`); a reader must see which of those inputs are the hall's statement and which are defaults or
    assumptions (newuser48: "376,372 MWh at utilisation 1" read as a measured annual figure, where the
    utilisation was unstated, the PUE assumed and the load the parts' maximum draw).
    """
    stated = "utilisation" in cost.model_fields_set
    parts = [f"at utilisation {cost.utilisation:g}" + ("" if stated else " (not stated: every hour taken as used)"),
             f"PUE {cost.energy.pue:g}" + (" (assumed)" if cost.energy.basis == "assumed" else "")]
    average, peak = m.get("power_average"), m.get("it_power")
    # the average load sums the same parts in another order: equal to the peak within rounding when no part
    # states a typical draw (35,779,480.1770352 W against 35,779,480.177035205 W on the trial's cluster)
    at_max = average is not None and peak is not None and average.m_as("W") >= peak.m_as("W") * (1 - 1e-9)
    if at_max:
        parts.append("at the maximum draw (no part of the load states a typical draw)")
    if cost.utilisation < 1:
        parts.append("idle hours at each part's `power.idle`, else its average draw (a system's maximum with its "
                     "accelerators at their measured idle draw, where less)")
    if fell_back and not at_max:   # some parts at maximum draw: an upper bound too (`job_energy.upper_bounds`)
        return ", ".join(parts) + "; " + upper_bound_words(fell_back)
    bound = ": an upper bound" if at_max or cost.utilisation < 1 else ""
    return ", ".join(parts) + bound


def _site_rows(hall: Any, m: dict, why: dict[str, str], mark: Callable[[str], Mark] = lambda _: plain
               ) -> list[tuple[str, str]]:
    """The cluster's carbon and water per year at the hall's stated intensities, else why not provided.

    `why`: why the halls' own facilities give no one `sustainability:` (`analyse.site_cost.cost_facility`); `mark`:
    a metric's by name, how much of it is unconfirmed (`tables.cluster_marks`).
    """
    stated = hall.sustainability
    out = []
    for name, key, label, unit, words, per in (
            ("carbon_per_year", "carbon_intensity",
             "Carbon per year (scope 2, location-based: facility energy × grid intensity)", "t", "CO2e", "g/kWh"),
            ("market_carbon_per_year", "market_carbon_intensity",
             "Carbon per year (scope 2, market-based: facility energy × contracts' intensity)", "t", "CO2e",
             "g/kWh"),
            ("water_per_year", "wue", "Site water per year (IT energy × WUE)", "m**3", "", "L/kWh")):
        intensity = getattr(stated, key) if stated is not None else None
        if intensity is None:
            out.append((label, f"{NOT_PROVIDED}: {why.get('sustainability') or f'no `sustainability.{key}`'}"))
        elif name not in m:
            out.append((label, f"{NOT_PROVIDED}: no facility energy per year"))
        else:
            basis = " (assumed)" if stated.basis == "assumed" else ""
            out.append((label, f"{fmt.cell(mark(name)(m[name]), unit, 0)}{' ' + words if words else ''} at "
                               f"{intensity.m_as(per):g} {per}{basis}, on the energy above"))
    return out


def _capacity(hall: Any, m: dict, peers: tuple[str, ...] = (), fell_back: tuple[str, ...] = (),
              site: tuple[Any, dict[str, str]] | None = None, ends: Mapping[str, Any] | None = None,
              mark: Callable[[str], Mark] = lambda _: plain) -> list[tuple[str, str]]:
    """The hall's capacities with the headrooms; `peers`, the run's other occupants of the hall, share them.

    `ends`: a headroom's other end where another cluster's hall stands in it (`analyse.facility.headroom_ends`): the
    headroom is then a range, its cluster's load outside its racks not split by hall (review45).

    `fell_back`: the parts whose maximum draw stands in for a typical one (the energy is then an upper bound).
    `site`: the facility the energy and carbon rows read, and why a block of it is None (`cost_facility`: on a site
    of halls the halls' own, hall30); the hall itself where not given. `mark`: a metric's by name, how much of it
    is unconfirmed (`tables.cluster_marks`).
    """
    energy_hall, why = site if site is not None else (hall, {})
    out = []
    shared = f" (the hall's, with {', '.join(peers)})" if peers else ""
    for label, cap, headroom in (("Critical IT power", hall.critical_it_power, "it_capacity_headroom"),
                                 ("Cooling capacity", hall.cooling_capacity, "cooling_headroom")):
        room = _headroom(m.get(headroom), (ends or {}).get(headroom))
        at_site = hall.cooling_at_site() if headroom == "cooling_headroom" else cap
        if cap is None:
            out.append((label, NOT_PROVIDED))
        elif at_site is None:
            out.append((label, f"{fmt.q(cap, 'kW', 0)} stated at conditions the site does not meet (COOL011)"))
        elif at_site != cap:
            out.append((label, f"{fmt.q(at_site, 'kW', 0)} at the site's conditions ({fmt.q(cap, 'kW', 0)} as "
                               f"rated), headroom {room}{shared}"))
        else:
            out.append((label, f"{fmt.q(cap, 'kW', 0)}, headroom {room}{shared}"))
    if hall.cost is not None:
        out.append(("Facility power (IT power × PUE)",
                    f"{fmt.cell(mark('facility_power')(m.get('facility_power')), 'kW', 1)} at PUE "
                    f"{hall.cost.energy.pue:g}"
                    + (" (assumed)" if hall.cost.energy.basis == "assumed" else "") + f", {STEADY_POWER}"))
    gens = hall.feeds is not None and hall.feeds.generator_units is not None and hall.cost is not None
    out.append(("Facility power at design conditions (IT power × peak PUE)", f"{NOT_PROVIDED}: no `peak_pue` "
                "(design-day PUE)" + (", so PWR011 judged the generator sets on the annual PUE" if gens else "")
                if hall.peak_pue is None else
                f"{fmt.cell(mark('facility_power_peak')(m.get('facility_power_peak')), 'kW', 1)} at peak PUE "
                f"{hall.peak_pue:g}, {STEADY_POWER}"))
    energy, theirs = m.get("facility_energy_per_year"), "" if energy_hall is hall else \
        f"; its PUE and utilisation the halls' facilities' ({energy_hall.id})"
    no_cost = why.get("cost") or "no `cost:` (annual PUE, utilisation)"
    out.append(("Facility energy per year (IT energy × PUE)", f"{NOT_PROVIDED}: {no_cost}" if energy_hall.cost is
                None else NOT_PROVIDED if energy is None else
                f"{fmt.cell(mark('facility_energy_per_year')(energy), 'MWh', 0)} "
                f"{energy_basis(energy_hall.cost, m, fell_back)}{theirs}"))
    out += _site_rows(energy_hall, m, why, mark)
    if "facility_power" in m and "it_power" in m:   # CDUs' pumps, in-row and in-rack: in the PUE's overhead
        overhead = (m["facility_power"] - m["it_power"]).to("kW")
        for key, label in (("cdu_power", "In-row CDUs' draw (pumps, controls)"),
                           ("rack_cooling_power", "In-rack cooling units' draw (on the rack feeds)")):
            if key in m:
                out.append((label, f"{fmt.q(m[key], 'kW', 1)} of the {fmt.q(overhead, 'kW', 1)} the PUE adds to "
                                   "IT power" + ("" if m[key] <= overhead else
                                                 ": more than all of it, so the PUE is too low")))
    return out
