"""The cooling section of the rack document (`archgen.render.rack`), split from `render.rack_power` (its power section).

Numbers come from `archgen.analyse.rack.RackAnalysis` and the COOL004 coolant supply (`checks.scope`); this module
selects, orders and labels them. The only arithmetic is presentation: utilisation, shares, and a temperature plus
the rise the spec states (return = supply + ΔT, exhaust = inlet + ΔT).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from archgen.analyse.air_direction import directions_text, slot_air
from archgen.analyse.cdu_loss import CduLoss, cdu_loss
from archgen.analyse.facility_water import ASSUMED_RISES, GroupWater, facility_water
from archgen.analyse.rack import RackAnalysis
from archgen.analyse.rear_door import RearDoor
from archgen.analyse.unconfirmed_share import NONE_UNCONFIRMED, RackShares
from archgen.checks.loop_pressure import loop_pressure
from archgen.checks.scope import coolant_supply
from archgen.model import field_words
from archgen.model.base import MarkedFigures
from archgen.model.cooling import Conditions
from archgen.model.facility import AIR_CLASS_RANGE, LIQUID_CLASS_MAX
from archgen.open_item import Worded, customer_text
from archgen.render import alt_text, fmt
from archgen.render.blocks import Column, Figure, Para, Section, Table
from archgen.render.rack_power import ratio
from archgen.render.tables import Mark, marked, plain
from archgen.units import Q


def rule_text(cdu: Any) -> str:
    """' (the rule 1.5 L/min/kW x capacity, not a pump rating)' of a CDU whose `flow_basis` is 'rule', else ''."""
    if cdu.flow_basis != "rule" or cdu.flow is None:
        return ""
    return f" (the rule {(cdu.flow / cdu.capacity).m_as('L/min/kW'):.2g} L/min/kW × capacity, not a pump rating)"


def air(flow: Q | fmt.Noted | None) -> str:
    """An air flow in SI with CFM beside it: '8,170 m³/h (4,808 CFM)'; '—' for None; a noted one with its word."""
    if isinstance(flow, fmt.Noted):
        return f"{air(flow.value)} ({flow.said(lambda v: fmt.q(v, 'm**3/h', 0))})"
    return "—" if flow is None else f"{fmt.q(flow, 'm**3/h', 0)} ({fmt.q(flow, 'ft**3/min', 0)})"


def _plus(temperature: Q, rise: Q) -> Q:
    """A temperature raised by a difference (supply + ΔT), in °C."""
    return (temperature.to("K") + rise.to("K")).to("degC")


def rated_at_text(rated: Conditions | None) -> str:
    """The conditions a CDU's capacity is stated at, or that they are not stated (COOL010 says so too)."""
    if rated is None:
        return Worded("not stated (rated_at): the capacity is not known to hold at this hall's water and air (COOL010)",
                      "not stated: the conditions the capacity is rated at are not given, so it is not known to hold "
                      "at this hall's water and air (COOL010)")
    stated = [f"facility water {fmt.q(rated.water, 'degC', 1)}" if rated.water is not None else "",
              f"air {fmt.q(rated.ambient, 'degC', 1)}" if rated.ambient is not None else "",
              f"altitude {fmt.q(rated.altitude, 'm', 0)}" if rated.altitude is not None else ""]
    return ", ".join(t for t in stated if t) or "not stated (rated_at names no condition)"


def water_text(fw: GroupWater | None, mark: Mark = plain) -> str:
    """Facility water flow and return of a CDU group (`analyse.facility_water`), or the assumed range and why.

    In the team's words (the spec keys not stated, the docs page the assumed range is from) with the customer's
    beside them (`Worded`: what is not stated in words, the formula as the method appendix writes it). `mark`: the
    liquid heat's (`tables.marked`), on the heat the flow carries.
    """
    if fw is None:
        return "—"
    team = _water_words(fw, fw.missing, fw.basis, "ρ c_p ΔT", ", docs/facility.md", mark)
    public = _water_words(fw, customer_text(fw.missing), customer_text(fw.basis), "ρ c ΔT", "", mark)
    return team if team == public else Worded(team, public)


def _water_words(fw: GroupWater, missing: str, basis: str, formula: str, docs: str, mark: Mark = plain) -> str:
    """`water_text` in one edition's words: `missing` and `basis` as that edition says them."""
    heat = fmt.cell(mark(fw.heat), "kW", 1)
    if fw.flow is None or fw.delta_t is None:
        if fw.span is None:
            return f"not provided ({missing})"
        lo, hi = ASSUMED_RISES
        return (f"{fmt.q(fw.span[1], 'L/min', 0)} to {fmt.q(fw.span[0], 'L/min', 0)} for {heat} "
                f"at an assumed ΔT of {fmt.q(hi, 'K', 0)} to {fmt.q(lo, 'K', 0)} (Q / ({formula}), water; chilled-"
                f"water practice{docs}); return not provided ({missing})")
    flow = (f"{fmt.q(fw.flow, 'L/min', 0)} for {heat} at ΔT {fmt.q(fw.delta_t, 'K', 1)} "
            f"(Q / ({formula}), water; {basis})")
    if fw.back is None or fw.supply is None:
        return f"{flow}; return not provided ({missing})"
    return f"{flow}; return {fmt.q(fw.back, 'degC', 1)} (supply {fmt.q(fw.supply, 'degC', 1)} + ΔT)"


def loss_text(loss: CduLoss | None, fw: GroupWater | None, mark: Mark = plain, rule: str = "") -> str:
    """The CDU group with one unit lost: what the rest are left with and what each carries (`analyse.cdu_loss`).

    `mark`: the liquid heat's (`tables.marked`), on the group's load and the heat each unit left carries. `rule`:
    where the CDU's flow is capacity x a rule of thumb (`rule_text`), said after it in place of "rated".
    """
    if loss is None:
        return "—"
    if not loss.left:
        return f"no CDU left ({loss.count}, {loss.redundancy}): the group's {fmt.q(loss.load, 'kW', 1)} is not cooled"
    rated = " (its rated flow not stated)" if loss.unit_flow is None else \
        f" of its {'' if rule else 'rated '}{fmt.q(loss.unit_flow, 'L/min', 0)}{rule}"
    each = "the one left carries" if loss.left == 1 else f"each of the {loss.left} left carries"
    water = ""
    if fw is not None and fw.flow is not None:
        water = f"; facility water {fmt.q(fw.flow / loss.left, 'L/min', 0)} through each"
    elif fw is not None and fw.span is not None:
        water = (f"; facility water {fmt.q(fw.span[1] / loss.left, 'L/min', 0)} to "
                 f"{fmt.q(fw.span[0] / loss.left, 'L/min', 0)} through each (assumed ΔT)")
    short = f"; short of {' and '.join(loss.short)}" if loss.short else ""
    load = fmt.cell(fmt.noted(mark(loss.load), fmt.pct(ratio(loss.load, loss.capacity))), "kW", 1)
    return (f"{fmt.q(loss.capacity, 'kW', 0)} left for {load}; {each} {fmt.cell(mark(loss.each_heat), 'kW', 1)} and "
            f"{fmt.q(loss.each_flow, 'L/min', 0)} of secondary flow{rated}{water}{short}")


def pressure_text(a: RackAnalysis) -> str:
    """'150 kPa at the design flow 95 L/min + 30 kPa = 180 kPa / 200 kPa at the CDU's rated flow 1,950 L/min'.

    Where the rack's drop is stated at another flow, both ends of its scaling (`loop_pressure.at_flow`); where a
    figure is not stated, which.
    """
    lp = loop_pressure(a)
    if lp is None:
        return "—"
    design = f" at the design flow {fmt.q(lp.flow, 'L/min', 0)}" if lp.flow is not None else ""
    if lp.rack is None:
        rack = "not stated (cooling.liquid.pressure_drop)"
    elif lp.stated is not None and lp.stated_at is not None and lp.low is not None:
        rack = (f"{fmt.q(lp.low, 'kPa', 0)}–{fmt.q(lp.rack, 'kPa', 0)}{design} (stated "
                f"{fmt.q(lp.stated, 'kPa', 0)} at {fmt.q(lp.stated_at, 'L/min', 0)}; flow ratio to the power 1 "
                f"to 2, the larger judged)")
    else:
        rack = f"{fmt.q(lp.rack, 'kPa', 0)}{design} (no flow stated for it: read as at the design flow)"
    piping = (fmt.q(lp.piping, "kPa", 0) if lp.piping is not None else
              "piping not stated (cooling.liquid.piping_pressure_drop)")
    needed = f" = {fmt.q(lp.needed, 'kPa', 0)}" if lp.needed is not None and lp.piping is not None else ""
    rated = f" {fmt.q(lp.rated, 'L/min', 0)}" if lp.rated is not None else " (not stated)"
    beyond = (f"; each CDU carries {fmt.q(lp.per_cdu, 'L/min', 0)}, beyond it: less pressure there (no pump "
              f"curve stated)" if lp.beyond_rated and lp.per_cdu is not None else "")
    available = (f"{fmt.q(lp.available, 'kPa', 0)} at the CDU's rated flow{rated}{beyond}"
                 if lp.available is not None else "not stated (the CDU's pressure)")
    judged = "" if lp.needed is not None and lp.available is not None else "; not judged"
    return f"{rack} + {piping}{needed} / {available}{judged}"


def water_rows(racks: list[tuple[RackAnalysis, int]], shares: Mapping[str, RackShares] | None = None
               ) -> list[tuple[str, str]]:
    """A cluster's facility water per rack type with a CDU: `n` racks' liquid heat at its CDU's facility ΔT.

    `shares`: by rack path, how much of its liquid heat is unconfirmed (`water_text`'s mark).
    """
    out = []
    for r, n in racks:
        fw = facility_water(r, r.cooling.heat_liquid * n)
        if fw is not None and r.cooling.heat_liquid.magnitude:
            mark = marked((shares or {}).get(r.rack.path, NONE_UNCONFIRMED).liquid)
            out.append((f"Facility water, {n} × {r.rack.spec.id}", water_text(fw, mark)))
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


def cooling(a: RackAnalysis, shares: RackShares = NONE_UNCONFIRMED) -> Section:
    """Heat split, liquid loop and CDU, air path.

    `shares` say how much of a figure that sums the placed parts' draws is unconfirmed (`tables.marked`, as in
    `rack_power.power`): the heat as the input power's, the heat to liquid, its flows and the CDU group's load and
    flow as the liquid heat's, the heat to air and its flows as the air's.
    """
    c, spec = a.cooling, a.rack.spec
    liquid, air_path = spec.cooling.liquid, spec.cooling.air
    share, door = ratio(c.heat_liquid, c.heat) or 0.0, c.rear_door
    wet, dry = marked(shares.liquid), marked(shares.air)

    def kw(value: Any, mark: Mark = dry) -> str:
        return fmt.cell(mark(value), "kW", 1)

    to_door = (f", {kw(door.taken)} ({fmt.pct(ratio(door.taken, c.heat))}) through the rear door's "
               "water") if door is not None else ""
    air_share, medium = ratio(c.heat_air, c.heat) or 0.0, "the hall's air" if door is not None else "the air"
    section = Section("cooling", "Cooling").add(
        Para(f"All {kw(c.heat, marked(shares.it))} drawn from the feeds becomes heat: {kw(c.heat_liquid, wet)} "
             f"({fmt.pct(share)}) leaves through the liquid loop{to_door} and {kw(c.heat_air)} "
             f"({fmt.pct(air_share)}) through {medium}."),
        Figure("fig-cooling", "cooling", "Cooling split: heat to liquid and air, and the CDU group's load against "
                                         "its usable capacity", alt_text.cooling(a)))
    coolant_flow = fmt.cell(wet(c.coolant_flow), "L/min", 1)
    air_flow = air(dry(c.air_flow))
    rows = [("Liquid", wet(c.heat_liquid), fmt.pct(share),
             f"{liquid.coolant}, ΔT {fmt.q(liquid.delta_t, 'K', 0)}" if liquid else "—",
             coolant_flow,
             fmt.q(c.coolant_flow / c.heat_liquid, "L/min/kW", 2) if liquid and c.heat_liquid.magnitude else "—"),
            ("Air", dry(c.heat_air), fmt.pct(air_share), f"air, ΔT {fmt.q(air_path.delta_t, 'K', 0)}",
             air_flow, "—")]
    if door is not None:  # the air flow above is the equipment's, before the door cools it
        rows[-1] = (*rows[-1][:4], f"{air_flow} through the equipment, for its "
                                   f"{kw(door.air_heat)} before the door", "—")
        rows.insert(1, ("Rear door", dry(door.taken), fmt.pct(ratio(door.taken, c.heat)), f"water of {door.unit.id}",
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
                  fmt.cell(assumed(liquid, "coolant", "delta_t")(wet(c.coolant_flow)), "L/min", 1))]
        if c.cdu is not None and cdu is not None:
            lrows += [("CDU", f"{c.cdu.count} × {cdu.name or cdu.id} ({cdu.type}), {c.cdu.redundancy}"
                       + assumed_tag(liquid, "cdu_count", "cdu_redundancy")),
                      ("CDU capacity: unit / usable", f"{fmt.q(c.cdu.unit_capacity, 'kW', 0)} / "
                                                      f"{fmt.q(c.cdu.usable, 'kW', 0)}"
                                                      + assumed_tag(liquid, "cdu_count", "cdu_redundancy")),
                      ("CDU capacity rated at", rated_at_text(cdu.rated_at)),
                      ("Racks sharing the CDU group", str(liquid.racks_per_cdu) + assumed_tag(liquid, "racks_per_cdu")),
                      ("Group liquid load / utilisation", f"{kw(c.cdu_load, wet)} / "
                                                          f"{fmt.pct(ratio(c.cdu_load, c.cdu.usable))}"
                                                          + assumed_tag(liquid, *GROUP)),
                      ("Group flow needed / CDU flow usable" + rule_text(cdu),
                       f"{fmt.cell(wet(c.cdu_flow_needed), 'L/min', 0)} / " + (
                          fmt.q(c.cdu_flow, "L/min", 0) if c.cdu_flow is not None else
                          "not provided (the CDU states no flow; COOL002)")
                       + assumed_tag(liquid, *GROUP, "coolant", "delta_t"))]
            if cdu.approach is not None:
                lrows.append(("CDU approach", fmt.q(cdu.approach, "K", 1)))
            lrows.append(("Coolant pressure drop: rack + piping / CDU available (COOL019)", pressure_text(a)))
            lrows.append(("Facility water per CDU group", water_text(fw := facility_water(a), wet)))
            lrows.append(("One CDU lost (COOL020)", loss_text(cdu_loss(a), fw, wet, rule_text(cdu))))
        said = (Para(Worded(f"The loop's {', '.join(liquid.assumed())} are assumed: no public source gives them "
                            f"(COOL016; the rack's cooling.liquid.notes). Values that rest on them are tagged "
                            "(assumed).",
                            f"The loop's {', '.join(map(field_words.said, liquid.assumed()))} are assumed: no public "
                            "source gives them (COOL016). Values that rest on them are tagged (assumed).")),
                ) if liquid.assumed() else ()
        section.sub("liquid", "Liquid loop and CDU", *said,
                    Table("liquid", "Liquid loop and CDU", (Column("Item"), Column("Value")), tuple(lrows)))
    lo, hi = AIR_CLASS_RANGE[air_path.class_]
    dt_mark = assumed(air_path, "delta_t")
    arows = [("ASHRAE air class", f"{air_path.class_} (allowable inlet {lo:g}–{hi:g} °C)"
              + assumed_tag(air_path, "class")),
             *((("Inlet air allowed where it stands", f"{fmt.q(a.metrics['air_inlet_max'], 'degC', 1)}, "
                 f"{a.inlet_note}"),) if a.inlet_note else ()),   # in halls naming their own facilities (hall30)
             ("Airflow in the rack (front on the cold aisle, rear on the hot; COOL018)",
              directions_text(slot_air(a.rack))),
             ("Air ΔT", fmt.q(air_path.delta_t, "K", 0) + (dt_tag := assumed_tag(air_path, "delta_t"))),
             ("Air flow required", air(dt_mark(dry(c.air_flow)))),
             ("Air flow rated (sum of systems)", air(c.declared_air_flow)
              if c.declared_air_flow is not None else "not published")]
    if c.rated is not None and c.rated_needed is not None:   # COOL007's like-for-like figure
        arows.append((f"Air flow required by the systems stating one, for {kw(c.rated.heat)}",
                      air(dt_mark(dry(c.rated_needed))) + (f"; not judged: {', '.join(c.rated.unstated)}"
                                                       if c.rated.unstated else "")))
    arows += door_rows(door)
    facility = a.rack.facility
    if facility is not None:
        per_rack = facility.air_cooling_per_rack
        arows += [("Hall air side per rack (COOL021)",
                   f"{kw(c.heat_air)} to air / {fmt.q(per_rack, 'kW', 1)}" if per_rack is not None else
                   f"{kw(c.heat_air)} to air / not provided (the hall states no air_cooling_per_rack)"),
                  ("Facility inlet air", fmt.q(facility.air.supply, "degC", 1)),
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


def assumed(group: MarkedFigures | None, *names: str) -> Mark:
    """The `Mark` of a figure `assumed_tag` tags: "(assumed)", in its other mark's bracket where it has one.

    `fmt.noted`: "168.0 L/min (unconfirmed, assumed)".
    """
    if not assumed_tag(group, *names):
        return plain
    return lambda value: value if value is None else fmt.noted(value, "assumed")
