"""The power and cooling sections of the rack document (`archgen.render.rack`).

Numbers come from `archgen.analyse.rack.RackAnalysis` and the COOL004 coolant supply (`checks.scope`); this module
selects, orders and labels them. The only arithmetic is presentation: utilisation, headroom, and a temperature plus
the rise the spec states (return = supply + ΔT, exhaust = inlet + ΔT).
"""

from __future__ import annotations

from typing import Any

from archgen.analyse.facility_water import GroupWater, facility_water
from archgen.analyse.feed_load import TYPICAL_POWER_FACTOR, assumed_power_factor, feed_loads
from archgen.analyse.power_chain import ARRANGEMENTS, Power, Stage
from archgen.analyse.rack import RackAnalysis
from archgen.analyse.rear_door import RearDoor
from archgen.checks.power_figures import feed_loss_with_shelves
from archgen.checks.scope import coolant_supply
from archgen.model import CoolingUnit
from archgen.model.base import MarkedFigures
from archgen.model.cooling import Conditions
from archgen.model.facility import AIR_CLASS_RANGE, LIQUID_CLASS_MAX
from archgen.model.rack import Feeds
from archgen.render import alt_text, fmt
from archgen.render.blocks import Column, Figure, Para, Section, Table
from archgen.units import Q


def ratio(value: Any, limit: Any) -> float | None:
    """The ratio value / limit as a plain number; None where either is missing or the limit is 0."""
    if value is None or limit is None or limit.magnitude == 0:
        return None
    return float((value / limit).to("").magnitude)


def _stage_row(name: str, stage: Stage, load: Any) -> tuple:
    return (name, stage.count, stage.unit_capacity, stage.redundancy, stage.unit_capacity * stage.count,
            stage.usable, stage.after_one_loss, load, fmt.pct(ratio(load, stage.usable), 1))


def _failure_rows(name: str, stage: Stage, load: Any) -> list[tuple]:
    cases = [("all units healthy", 0, stage.unit_capacity * stage.count)]
    if stage.spare:
        cases.append((f"{stage.spare} unit(s) lost ({stage.redundancy})", stage.spare, stage.usable))
    if stage.spare != 1 and stage.count > 1:
        cases.append(("any one unit lost", 1, stage.after_one_loss))
    rows = []
    for case, lost, capacity in cases:
        headroom = capacity - load
        rows.append((name, case, f"{lost} of {stage.count}" if lost else "nothing",
                     f"{stage.count - lost} × {fmt.q(stage.unit_capacity, 'kW', 1)}", capacity, load, headroom,
                     fmt.pct(ratio(headroom, capacity), 1), "pass" if headroom.magnitude >= 0 else "fail"))
    return rows


def _feed_takes_shelves_rows(a: RackAnalysis) -> list[tuple]:
    """The case PWR003 judges beside the stages': one feed lost with the power shelves on it (one AC input each)."""
    loss = feed_loss_with_shelves(a)
    if loss is None:
        return []
    sh, headroom = loss.shelves, loss.left - loss.shelves.load
    word = "shelf" if loss.lost == 1 else "shelves"
    return [("Power shelves", f"one feed lost, with the {loss.lost} {word} on it (⌈{sh.count} / {loss.feeds.count}⌉, "
             "one AC input each; PWR003)", f"1 of {loss.feeds.count} feeds, {loss.lost} of {sh.count} shelves",
             f"{sh.count - loss.lost} × {fmt.q(sh.unit_capacity, 'kW', 1)}", loss.left, sh.load, headroom,
             fmt.pct(ratio(headroom, loss.left), 1), "pass" if headroom.magnitude >= 0 else "fail")]


def typical_text(typical: Q | None, fell_back: tuple[str, ...], at_feeds: bool = False) -> str:
    """The typical-draw figure and its rule, naming the parts whose maximum stood in (`at_feeds`: shelf loss)."""
    feeds = ", and the power shelves' loss on them: at the rack feeds" if at_feeds else ""
    rule = (f"At typical draw the IT equipment takes {fmt.q(typical, 'kW', 1)} (metric it_power_typical: each system's "
            f"and switch's typical draw where its datasheet states one, else its maximum, plus the optics{feeds}); it "
            "is for average power and energy, and every budget above uses the maximum.")
    return rule + (f" No typical draw is published for {', '.join(fell_back)}: their maximum is used." if fell_back
                   else " Every part states a typical draw.")


def _chain_text(p: Power) -> str:
    """How the load reaches the feeds, in words: 'The power shelves deliver 131.6 kW;' and the like."""
    if len(p.stages) < 2:
        return f"The {p.conversion_kind} deliver {fmt.q(p.stages[0].load if p.stages else p.load, 'kW', 1)};"
    shelves, pdus = p.stages
    if p.arrangement == "pdus-shelves":
        return (f"The power shelves deliver {fmt.q(shelves.load, 'kW', 1)} to the busbar and plug into the PDUs, "
                f"which carry {fmt.q(pdus.load, 'kW', 1)};")
    return (f"The power shelves deliver {fmt.q(shelves.load, 'kW', 1)} to the busbar and the PDUs beside them "
            f"{fmt.q(pdus.load, 'kW', 1)} to the parts they serve, each path on its own feeds;")


def _external_text(p: Power) -> str:
    """' The sn2201 (0.2 kW) are fed from outside …' where `power.external` names parts, else ''."""
    if not p.external_parts:
        return ""
    return (f" {', '.join(p.external_parts)} ({fmt.q(p.external, 'kW', 2)}) are fed from outside the rack's "
            f"shelves, PDUs and feeds (power.external), so no budget below carries them; the rack's input power, "
            f"{fmt.q(p.input_power, 'kW', 1)}, and its heat count them.")


def _busbar_rows(a: RackAnalysis) -> tuple[tuple[str, str], ...]:
    """The busbar's voltage, current (I = P / V) and its rating against it, where stated (PWR014)."""
    p, shelves = a.power, a.rack.spec.power.shelves
    load, current = p.stages[0].load, p.busbar_current
    rating = shelves.busbar_rating if shelves is not None else None
    return (("Busbar voltage (power shelves' output)", fmt.q(p.busbar_voltage, "V", 0)),
            ("Busbar current (shelves' load / voltage)", f"{fmt.q(load, 'kW', 1)} / {fmt.q(p.busbar_voltage, 'V', 0)} "
                                                         f"= {fmt.q(current, 'A', 0)}"),
            ("Busbar rating", f"{fmt.q(rating, 'A', 0)} ({fmt.pct(ratio(current, rating), 1)} used; PWR014)"
             if rating is not None else "not stated (power.shelves.busbar_rating); the current is not checked"))


def air(flow: Q | None) -> str:
    """An air flow in SI with CFM beside it: '8,170 m³/h (4,808 CFM)'; '—' for None."""
    return "—" if flow is None else f"{fmt.q(flow, 'm**3/h', 0)} ({fmt.q(flow, 'ft**3/min', 0)})"


def _plus(temperature: Q, rise: Q) -> Q:
    """A temperature raised by a difference (supply + ΔT), in °C."""
    return (temperature.to("K") + rise.to("K")).to("degC")


def power_factor_text(feeds: Feeds) -> str:
    """The feeds' power factor, marked assumed where the spec leaves it to the default (1.00, `Feeds.power_factor`)."""
    return _stated_or_assumed(feeds, "power_factor", f"{feeds.power_factor:.2f}")


def derating_text(feeds: Feeds) -> str:
    """The feeds' continuous-load derating, marked assumed where left to the default (80 %, NEC 210.20(A))."""
    return _stated_or_assumed(feeds, "derating", fmt.pct(feeds.derating), ", NEC 210.20(A) continuous load")


def _stated_or_assumed(feeds: Feeds, name: str, shown: str, why: str = "") -> str:
    """`shown` as stated, or marked assumed where `power.feeds.<name>` is left to its default."""
    if name in feeds.model_fields_set:
        return shown
    return f"{shown} (assumed: not stated in power.feeds.{name}, the default{why})"


def per_feed(a: RackAnalysis) -> tuple[Para, Table]:
    """Each feed's load and current, normally and with the spares of its redundancy lost (`analyse.feed_load`).

    Against one feed's continuous rating (breaker x derating); at the feeds' power factor, and where that is the
    assumed 1.00, the current at `TYPICAL_POWER_FACTOR` beside it (PWR002's info finding gives the same).
    """
    feeds = a.rack.spec.power.feeds
    assumed = assumed_power_factor(feeds)
    at = feed_loads(a.power, feeds, TYPICAL_POWER_FACTOR) if assumed else []
    rows = []
    for i, fl in enumerate(feed_loads(a.power, feeds)):
        g, typical = fl.group, at[i] if at else None
        cases: list[tuple[str, str, int, Q, Q | None, Q | None]] = [
            ("normal operation", "nothing", g.count, fl.per_feed, fl.current, typical.current if typical else None)]
        if fl.per_feed_lost is not None:
            cases.append((f"the spares lost ({g.redundancy})", f"{fl.lost} of {g.count}", g.count - fl.lost,
                          fl.per_feed_lost, fl.current_lost, typical.current_lost if typical else None))
        for case, lost, left, load, current, at_typical in cases:
            rows.append((fmt.sentence(g.kind), case, lost, left, load, current, fl.rating,
                         fmt.pct(ratio(current, fl.rating), 1))
                        + ((fmt.q(at_typical, "A", 1),) if assumed else ()))
    cols = (Column("Feeds"), Column("Case"), Column("Lost"), Column("In service", digits=0, align="right"),
            Column("Load per feed", "kW", 1, "right"), Column("Current per feed", "A", 1, "right"),
            Column("Continuous rating", "A", 1, "right"), Column("Used", align="right")) + \
        ((Column(f"Current at PF {TYPICAL_POWER_FACTOR:.2f}", align="right"),) if assumed else ())
    pf = (f"the assumed power factor 1.00 (none stated; the last column at {TYPICAL_POWER_FACTOR:.2f}, the 80 PLUS "
          "Platinum and Titanium PSUs' minimum at 50 % load)" if assumed else
          f"the stated power factor {feeds.power_factor:.2f}")
    return (Para(f"What one feed carries: the load divided equally among the feeds in service (a shared busbar or "
                 "load-sharing PSUs; an uneven split is not modelled), and its current per phase, P / (phase factor "
                 f"x V x PF), at {pf}, against the feed's continuous rating (breaker x derating). The loss case "
                 "drops every spare the redundancy holds back (N+1 one feed, N+N a side)."),
            Table("per-feed", "Load and current per feed", cols, tuple(rows)))


def rated_at_text(rated: Conditions | None) -> str:
    """The conditions a CDU's capacity is stated at, or that they are not stated (COOL010 says so too)."""
    if rated is None:
        return "not stated (rated_at): the capacity is not known to hold at this hall's water and air (COOL010)"
    stated = [f"facility water {fmt.q(rated.water, 'degC', 1)}" if rated.water is not None else "",
              f"air {fmt.q(rated.ambient, 'degC', 1)}" if rated.ambient is not None else "",
              f"altitude {fmt.q(rated.altitude, 'm', 0)}" if rated.altitude is not None else ""]
    return ", ".join(t for t in stated if t) or "not stated (rated_at names no condition)"


def water_text(fw: GroupWater | None) -> str:
    """Facility water flow and return of a CDU group (`analyse.facility_water`), or why they are not provided."""
    if fw is None:
        return "—"
    if fw.flow is None or fw.delta_t is None:
        return f"not provided ({fw.missing})"
    flow = (f"{fmt.q(fw.flow, 'L/min', 0)} for {fmt.q(fw.heat, 'kW', 1)} at ΔT {fmt.q(fw.delta_t, 'K', 1)} "
            "(Q / (ρ c_p ΔT), water)")
    if fw.back is None or fw.supply is None:
        return f"{flow}; return not provided ({fw.missing})"
    return f"{flow}; return {fmt.q(fw.back, 'degC', 1)} (supply {fmt.q(fw.supply, 'degC', 1)} + ΔT)"


def water_rows(racks: list[tuple[RackAnalysis, int]]) -> list[tuple[str, str]]:
    """A cluster's facility water per rack type with a CDU: `n` racks' liquid heat at its CDU's facility ΔT."""
    out = []
    for r, n in racks:
        fw = facility_water(r, r.cooling.heat_liquid * n)
        if fw is not None and r.cooling.heat_liquid.magnitude:
            out.append((f"Facility water, {n} × {r.rack.spec.id}", water_text(fw)))
    return out


def door_rows(door: RearDoor | None) -> list[tuple[str, str]]:
    """The air path's rear-door rows: the unit, its capacity at the hall, the air heat it takes and leaves (COOL014)."""
    if door is None:
        return []
    unit = door.unit
    rated = (f"rated at {rated_at_text(unit.rated_at)}" if unit.rated_at is not None else
             "rated at: not stated (rated_at), counted as stated")
    draw = (f"{fmt.q(unit.power, 'kW', 2)}, shown, not in the rack's power chain (where the door is fed from is not "
            "modelled)" if unit.power is not None else "not provided (no `power` stated)")
    return [("Rear door", f"{unit.name or unit.id} ({unit.type}), capacity {fmt.q(door.capacity, 'kW', 1)} at the "
                          f"hall's conditions ({rated})"),
            ("Air heat before the door / into its water / to the hall",
             f"{fmt.q(door.air_heat, 'kW', 1)} / {fmt.q(door.taken, 'kW', 1)} / {fmt.q(door.excess, 'kW', 1)}"
             + (" (COOL014)" if door.excess.magnitude > 0 else "")),
            ("Rear door's own draw", draw)]


def _other_text(a: RackAnalysis) -> str:
    """The draw of the rack's other equipment (placed CDUs); 'not provided' for the units that state no `power`."""
    unstated = sorted({p.part.id for p in a.rack.items if isinstance(p.part, CoolingUnit) and p.part.power is None})
    if not unstated:
        return fmt.q(a.power.other_power, "kW", 1)
    named = ", ".join(unstated)
    if a.power.other_power.magnitude:
        return (f"{fmt.q(a.power.other_power, 'kW', 1)} and, for {named}, not provided (no `power` stated: not in "
                f"the load, feeds or heat below)")
    return f"not provided ({named} states no `power`: not in the load, feeds or heat below)"


def power(a: RackAnalysis, dist: Section | None = None) -> Section:
    """Feeds, derating, conversion stages, redundancy and failure cases; the PDU distribution when given."""
    p, feeds = a.power, a.rack.spec.power.feeds
    section = Section("power", "Power").add(
        Para(f"IT equipment draws {fmt.q(p.it_power, 'kW', 1)} at maximum: the catalog maximum draws "
             f"({fmt.q(p.equipment, 'kW', 1)}) and the transceivers and active cable ends no part's figure holds, in "
             f"its switches' ports and in the NICs of systems whose maximum leaves them out "
             f"({fmt.q(p.optics, 'kW', 2)}, the most loaded rack of this type in the clusters); other "
             f"equipment in the rack {_other_text(a)}. {_chain_text(p)} the feeds supply "
             f"{fmt.q(p.feeds.load, 'kW', 1)} including conversion losses.{_external_text(p)}"),
        Para(typical_text(p.it_typical, p.typical_from_max)),
        Figure("fig-power", "power", "Power budget: load against nameplate, usable (with redundancy) and "
                                     "one-unit-lost capacity of the conversion stage and the feeds", alt_text.power(a)))
    stages = [_stage_row(fmt.sentence(st.kind), st, st.load) for st in p.stages]
    stages += [_stage_row(f"{fmt.sentence(g.kind)} (after derating)", g, g.load) for g in p.feed_groups]
    cols = (Column("Stage"), Column("Units", digits=0, align="right"), Column("Unit capacity", "kW", 1, "right"),
            Column("Redundancy"), Column("Nameplate", "kW", 1, "right"), Column("Usable", "kW", 1, "right"),
            Column("One unit lost", "kW", 1, "right"), Column("Load", "kW", 1, "right"),
            Column("Utilisation of usable", align="right"))
    section.add(Table("power-budget", "Power budget", cols, tuple(stages)))
    phase = {1: "1-phase: V × A", 3: "3-phase: √3 × V(L-L) × A" if feeds.basis == "line-to-line"
             else "3-phase: 3 × V(L-N) × A"}[feeds.phases]
    feed_rows: tuple[tuple[str, str], ...]
    feed_rows = (("Feeds", f"{feeds.count} × {fmt.q(feeds.voltage, 'V', 0)} {feeds.basis}, {feeds.phases}-phase, "
                           f"{fmt.q(feeds.current, 'A', 0)} breaker"),
                 ("Apparent power per feed", f"{phase} (factor {p.phase_factor:.3f})"),
                 ("Continuous-load derating", derating_text(feeds)),
                 ("Power factor", power_factor_text(feeds)),
                 ("Usable power per feed", fmt.q(p.feed_capacity, "kW", 1)),  # as the budget table
                 ("Feed redundancy", f"{feeds.redundancy} ({p.feeds.spare} feed(s) held in reserve)"))
    if len(p.stages) > 1:  # shelves and PDUs: say how they connect (ARRANGEMENTS) and how the feeds divide
        split = ", ".join(f"{g.count} {g.kind}" for g in p.feed_groups)
        feed_rows += (("Arrangement", ARRANGEMENTS[p.arrangement] + (f" ({split})" if len(p.feed_groups) > 1
                                                                      else "")),)
    section.sub("feeds", "Feeds and derating",
                Table("feeds", "Feeds and derating", (Column("Item"), Column("Value")), feed_rows), *per_feed(a))
    if p.busbar_current is not None:
        section.sub("busbar", "DC busbar", Table("busbar", "DC busbar", (Column("Item"), Column("Value")),
                                                 _busbar_rows(a)))
    failure = [row for st in p.stages + p.feed_groups for row in _failure_rows(fmt.sentence(st.kind), st, st.load)]
    failure += _feed_takes_shelves_rows(a)
    case_cols = (Column("Stage"), Column("Case"), Column("Lost"), Column("Carried by"),
                 Column("Capacity", "kW", 1, "right"), Column("Load", "kW", 1, "right"),
                 Column("Headroom", "kW", 1, "right"), Column("Margin", align="right"), Column("Status"))
    section.sub("failure-cases", "Redundancy and failure cases",
                Para("What each case loses, what still carries the load, and the capacity left against that load "
                     "(margin = headroom / capacity). PWR001–PWR004 in the validation report check the same "
                     "figures."),
                Table("failure-cases", "Failure cases", case_cols, tuple(failure), status_column=8))
    if dist is not None:
        section.sections.append(dist)
    return section


def cooling(a: RackAnalysis) -> Section:
    """Heat split, liquid loop and CDU, air path."""
    c, spec = a.cooling, a.rack.spec
    liquid, air_path = spec.cooling.liquid, spec.cooling.air
    share, door = ratio(c.heat_liquid, c.heat) or 0.0, c.rear_door
    to_door = (f", {fmt.q(door.taken, 'kW', 1)} ({fmt.pct(ratio(door.taken, c.heat))}) through the rear door's "
               "water") if door is not None else ""
    air_share, medium = ratio(c.heat_air, c.heat) or 0.0, "the hall's air" if door is not None else "the air"
    section = Section("cooling", "Cooling").add(
        Para(f"All {fmt.q(c.heat, 'kW', 1)} drawn from the feeds becomes heat: {fmt.q(c.heat_liquid, 'kW', 1)} "
             f"({fmt.pct(share)}) leaves through the liquid loop{to_door} and {fmt.q(c.heat_air, 'kW', 1)} "
             f"({fmt.pct(air_share)}) through {medium}."),
        Figure("fig-cooling", "cooling", "Cooling split: heat to liquid and air, and the CDU group's load against "
                                         "its usable capacity", alt_text.cooling(a)))
    rows = [("Liquid", c.heat_liquid, fmt.pct(share),
             f"{liquid.coolant}, ΔT {fmt.q(liquid.delta_t, 'K', 0)}" if liquid else "—",
             fmt.q(c.coolant_flow, "L/min", 1),
             fmt.q(c.coolant_flow / c.heat_liquid, "L/min/kW", 2) if liquid and c.heat_liquid.magnitude else "—"),
            ("Air", c.heat_air, fmt.pct(air_share), f"air, ΔT {fmt.q(air_path.delta_t, 'K', 0)}",
             air(c.air_flow), "—")]
    if door is not None:  # the air flow above is the equipment's, before the door cools it
        rows[-1] = (*rows[-1][:4], f"{air(c.air_flow)} through the equipment, for its "
                                   f"{fmt.q(door.air_heat, 'kW', 1)} before the door", "—")
        rows.insert(1, ("Rear door", door.taken, fmt.pct(ratio(door.taken, c.heat)), f"water of {door.unit.id}",
                        "not provided (the door states no water flow or ΔT)", "—"))
    cols = (Column("Path"), Column("Heat", "kW", 1, "right"), Column("Share", align="right"), Column("Medium"),
            Column("Flow required", align="right"), Column("Flow per kW", align="right"))
    section.add(Table("heat-split", "Heat split and flows", cols, tuple(rows)))
    if liquid:
        facility, cdu = a.rack.facility, a.rack.cdu
        water = facility.water if facility is not None else None
        delivered = coolant_supply(water, cdu) if water is not None and cdu is not None and cdu.approach else None
        supply = (fmt.q(delivered, "degC", 1) + f" (facility water {fmt.q(water.supply, 'degC', 1)} + CDU approach "
                  f"{fmt.q(cdu.approach, 'K', 1)}; COOL004)" if delivered is not None and water and cdu
                  else "not computed: no facility water or CDU approach given")
        back = (f"{fmt.q(_plus(delivered, liquid.delta_t), 'degC', 1)} (supply + ΔT)" if delivered is not None else
                f"at most {fmt.q(_plus(liquid.supply, liquid.delta_t), 'degC', 1)} (accepted supply + ΔT)")
        lrows = [("ASHRAE liquid class", f"{liquid.class_} (facility water ≤ {LIQUID_CLASS_MAX[liquid.class_]:g} °C)"
                  + assumed_tag(liquid, "class")),
                 ("Secondary supply accepted by the trays",
                  fmt.q(liquid.supply, "degC", 0) + assumed_tag(liquid, "supply")),
                 ("Secondary supply delivered", supply),
                 ("Secondary return",
                  back + assumed_tag(liquid, "delta_t", *(() if delivered is not None else ("supply",)))),
                 ("Coolant and ΔT", f"{liquid.coolant}, {fmt.q(liquid.delta_t, 'K', 0)}"
                  + assumed_tag(liquid, "coolant", "delta_t")),
                 ("Coolant flow per rack",
                  fmt.q(c.coolant_flow, "L/min", 1) + assumed_tag(liquid, "coolant", "delta_t"))]
        if c.cdu is not None and cdu is not None:
            lrows += [("CDU", f"{c.cdu.count} × {cdu.name or cdu.id} ({cdu.type}), {c.cdu.redundancy}"
                       + assumed_tag(liquid, "cdu_count", "cdu_redundancy")),
                      ("CDU capacity: unit / usable", f"{fmt.q(c.cdu.unit_capacity, 'kW', 0)} / "
                                                      f"{fmt.q(c.cdu.usable, 'kW', 0)}"
                                                      + assumed_tag(liquid, "cdu_count", "cdu_redundancy")),
                      ("CDU capacity rated at", rated_at_text(cdu.rated_at)),
                      ("Racks sharing the CDU group", str(liquid.racks_per_cdu) + assumed_tag(liquid, "racks_per_cdu")),
                      ("Group liquid load / utilisation", f"{fmt.q(c.cdu_load, 'kW', 1)} / "
                                                          f"{fmt.pct(ratio(c.cdu_load, c.cdu.usable))}"
                                                          + assumed_tag(liquid, *GROUP)),
                      ("Group flow needed / CDU flow usable", f"{fmt.q(c.cdu_flow_needed, 'L/min', 0)} / " + (
                          fmt.q(c.cdu_flow, "L/min", 0) if c.cdu_flow is not None else
                          "not provided (the CDU states no flow; COOL002)")
                       + assumed_tag(liquid, *GROUP, "coolant", "delta_t"))]
            if cdu.approach is not None:
                lrows.append(("CDU approach", fmt.q(cdu.approach, "K", 1)))
            lrows.append(("Facility water per CDU group", water_text(facility_water(a))))
        said = (Para(f"The loop's {', '.join(liquid.assumed())} are assumed: no public source gives them (COOL016; "
                     f"the rack's cooling.liquid.notes). Values that rest on them are tagged (assumed)."),
                ) if liquid.assumed() else ()
        section.sub("liquid", "Liquid loop and CDU", *said,
                    Table("liquid", "Liquid loop and CDU", (Column("Item"), Column("Value")), tuple(lrows)))
    lo, hi = AIR_CLASS_RANGE[air_path.class_]
    arows = [("ASHRAE air class", f"{air_path.class_} (allowable inlet {lo:g}–{hi:g} °C)"
              + assumed_tag(air_path, "class")),
             ("Air ΔT", fmt.q(air_path.delta_t, "K", 0) + (dt_tag := assumed_tag(air_path, "delta_t"))),
             ("Air flow required", air(c.air_flow) + dt_tag),
             ("Air flow rated (sum of systems)", air(c.declared_air_flow)
              if c.declared_air_flow is not None else "not published")]
    if c.rated is not None and c.rated_needed is not None:   # COOL007's like-for-like figure
        arows.append((f"Air flow required by the systems stating one ({fmt.q(c.rated.heat, 'kW', 1)})",
                      air(c.rated_needed) + dt_tag + (f"; not judged: {', '.join(c.rated.unstated)}"
                                                       if c.rated.unstated else "")))
    arows += door_rows(door)
    facility = a.rack.facility
    if facility is not None:
        arows += [("Facility inlet air", fmt.q(facility.air.supply, "degC", 1)),
                  ("Exhaust air (inlet + ΔT)" + (", before the rear door" if door is not None else ""),
                   fmt.q(_plus(facility.air.supply, air_path.delta_t), "degC", 1) + dt_tag)]
        if facility.water is not None:
            arows.append(("Facility water supply", fmt.q(facility.water.supply, "degC", 1)))
    section.sub("air", "Air path", Table("air", "Air path", (Column("Item"), Column("Value")), tuple(arows)))
    return section


#: The loop's figures a CDU group's load and utilisation rest on (COOL001).
GROUP = ("racks_per_cdu", "cdu_count", "cdu_redundancy")


def assumed_tag(group: MarkedFigures | None, *names: str) -> str:
    """' (assumed)' where a rack's figure group (loop, air path, enclosure) marks one of `names` unconfirmed."""
    return " (assumed)" if group is not None and any(group.is_unconfirmed(n) for n in names) else ""
