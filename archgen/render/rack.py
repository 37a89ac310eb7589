"""The rack document: abstract, rack design (elevations, U map, weight), power, cooling, network ports, BOM.

Numbers come from `archgen.analyse.rack.RackAnalysis`; this module selects, orders and labels them. The only
arithmetic is presentation: utilisation (load / capacity) and headroom (capacity - load) of figures the analysis
computed, and counts.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from archgen.analyse.bom import cord_gaps, unit_power
from archgen.analyse.rack import ARRANGEMENTS, Power, RackAnalysis, Stage
from archgen.model import NIC, CoolingUnit, Part, PowerShelf, Switch, System
from archgen.model.facility import AIR_CLASS_RANGE, LIQUID_CLASS_MAX
from archgen.model.power import PDU
from archgen.render import common, distribution, fmt
from archgen.render.blocks import Column, DocumentModel, Figure, Para, Section, Table
from archgen.render.common import Scope
from archgen.render.tables import bom_table
from archgen.units import Q

#: Part classes, in legend order, with the colour used in every diagram.
CLASSES = {
    "compute": "#76b900", "cpu": "#9ccc65", "switch": "#4a90d9", "power": "#f5a623", "cooling": "#50c8c8",
    "other": "#b0b0b0",
}


def part_class(part: Any) -> str:
    """Diagram class of a placed part: compute, cpu, switch, power, cooling or other."""
    if isinstance(part, System):
        return "compute" if part.accelerators else "cpu"
    if isinstance(part, Switch):
        return "switch"
    if isinstance(part, PowerShelf | PDU):
        return "power"
    if isinstance(part, CoolingUnit):
        return "cooling"
    return "other"


def rack_parts(analysis: RackAnalysis, specs: Any, group_cdus: bool = True) -> tuple[list[Part], dict[str, int]]:
    """Every part the rack uses (placed, inside systems, CDU) and how many are in the rack.

    A CDU named in the liquid path serves a group of racks: the group's `cdu_count` in a rack's own document, 0
    (`group_cdus` false) for a cluster, which counts them from its BOM; one placed in the slots is counted as placed.
    """
    rack = analysis.rack
    counts: Counter[str] = Counter(p.part.id for p in rack.items)
    parts: dict[str, Part] = {p.part.id: p.part for p in rack.items}
    for sys_id, n in list(counts.items()):
        system = parts[sys_id]
        if not isinstance(system, System):
            continue
        inner = ([(system.accelerator, system.accelerators)] if system.accelerator else []) + \
                [(nic.part, nic.count) for nic in system.nics]
        for ref, per in inner:
            sub = specs.get(ref)
            if isinstance(sub, Part):
                parts.setdefault(sub.id, sub)
                counts[sub.id] += per * n
    liquid = rack.spec.cooling.liquid
    if rack.cdu is not None and liquid is not None and rack.cdu.id not in parts:  # named in its liquid path only
        parts.setdefault(rack.cdu.id, rack.cdu)
        counts[rack.cdu.id] += liquid.cdu_count if group_cdus else 0
    return sorted(parts.values(), key=lambda p: (p.kind, p.id)), dict(counts)


def build(scope: Scope, analysis: RackAnalysis, counts: dict[str, int]) -> DocumentModel:
    """The whole rack document."""
    spec = analysis.rack.spec
    title = spec.name or spec.id
    control = common.document_control(scope, f"AG-RACK-{spec.id.upper()}", title,
                                      "ODM/JDM, power and cooling, facility and networking partners")
    dist, dist_items = distribution.section(analysis)
    sections = [
        abstract(scope, analysis),
        common.conventions(),
        common.requirements_section(scope),
        common.components_section(scope, counts),
        architecture(analysis),
        rack_design(scope, analysis),
        power(analysis, dist),
        cooling(analysis),
    ]
    net = network(analysis, scope.run.design.specs)
    if net is not None:
        sections.append(net)
    sections += [
        common.validation_section(scope),
        common.open_items_section(scope, [
            *cord_gaps(analysis.rack), *dist_items,
            "Fabrics, cabling and performance are described in the cluster documents that use this rack."]),
        appendices(scope, analysis),
    ]
    return DocumentModel(spec.id, "rack", title, control, sections).number()


def abstract(scope: Scope, a: RackAnalysis) -> Section:
    """Abstract and key metrics."""
    spec, m = a.rack.spec, scope.metrics
    systems = [p for p in a.rack.items if isinstance(p.part, System)]
    accel = int(m["accelerators"].magnitude) if "accelerators" in m else 0
    lead = (f"{spec.name or spec.id}: a {a.space.height} U {spec.form_factor.standard.upper()} rack with "
            f"{len(systems)} systems and {accel} accelerators. It draws {fmt.q(a.power.it_power, 'kW', 1)} at "
            f"maximum IT load and {fmt.q(a.power.input_power, 'kW', 1)} from its feeds; "
            f"{fmt.q(a.cooling.heat_liquid, 'kW', 1)} of its heat goes to liquid and "
            f"{fmt.q(a.cooling.heat_air, 'kW', 1)} to air. It weighs {fmt.q(a.space.weight, 'kg', 0)}.")
    section = Section("abstract", "Abstract and key metrics").add(Para(lead, "lead"))
    if spec.description:
        section.add(Para(spec.description))
    rows = [("Accelerators", accel), ("Systems (trays, nodes)", len(systems)),
            ("Rack units used / free", f"{a.space.used} / {a.space.height - a.space.used} U"),
            ("IT power (maximum)", fmt.q(a.power.it_power, "kW", 1)),
            ("IT power (typical, for energy)", fmt.q(a.power.it_typical, "kW", 1)),
            ("Input power (after conversion losses)", fmt.q(a.power.input_power, "kW", 1)),
            ("Heat to liquid / air", f"{fmt.q(a.cooling.heat_liquid, 'kW', 1)} / {fmt.q(a.cooling.heat_air, 'kW', 1)}"),
            ("Coolant flow", fmt.q(a.cooling.coolant_flow, "L/min", 1)),
            ("Air flow required", fmt.q(a.cooling.air_flow, "ft**3/min", 0)),
            ("Weight / floor load", f"{fmt.q(a.space.weight, 'kg', 0)} / {fmt.q(a.space.floor_load, 'kg/m**2', 0)}")]
    findings = scope.findings()
    errors = sum(1 for f in findings if f.severity == "error" and not f.waived)
    warnings = sum(1 for f in findings if f.severity == "warning" and not f.waived)
    rows.append(("Validation", f"{errors} failing, {warnings} warning finding(s)"))
    return section.add(Table("key-metrics", "Key metrics", (Column("Metric"), Column("Value")), tuple(rows)))


def architecture(a: RackAnalysis) -> Section:
    """Building block and scaling table for one rack."""
    by_class: Counter[str] = Counter(part_class(p.part) for p in a.rack.items)
    accel = sum(p.part.accelerators for p in a.rack.items if isinstance(p.part, System))
    rows = [("Rack", 1, by_class["compute"] + by_class["cpu"], accel, by_class["switch"], by_class["power"])]
    cols = (Column("Unit"), Column("Count", digits=0, align="right"), Column("Systems", digits=0, align="right"),
            Column("Accelerators", digits=0, align="right"), Column("Switches", digits=0, align="right"),
            Column("Power shelves / PDUs", digits=0, align="right"))
    return Section("architecture", "Architecture and scaling").add(
        Para("The rack is the building block; cluster documents scale it into scalable units and pods."),
        Table("scaling", "Scaling table", cols, tuple(rows)))


def u_map(a: RackAnalysis) -> Table:
    """Placed items grouped by slot entry: U range, face, part, class, count, weight and power."""
    rows = []
    spec = a.rack.spec
    groups: dict[int, list] = {}
    for item in a.rack.items:
        groups.setdefault(item.slot, []).append(item)
    for slot, items in sorted(groups.items(), key=lambda kv: kv[1][0].u):
        first, last = items[0], items[-1]
        part = first.part
        depth = getattr(getattr(part, "mechanical", None), "depth", "full")
        face: str = "front + rear" if depth == "full" else spec.slots[slot].face
        span = f"{first.u}–{last.top}" if last.top > first.u else f"{first.u}"
        if first.height == 0:
            span, face = "0U", "side (0U)"
        mech = getattr(part, "mechanical", None)
        power = unit_power(part)
        weight = mech.weight if mech else None
        rows.append((span, face, part.id, part_class(part), len(items), first.height,
                     weight, weight * len(items) if weight is not None else None,
                     power, power * len(items) if power is not None else None))
    cols = (Column("U"), Column("Face"), Column("Part"), Column("Class"), Column("Count", digits=0, align="right"),
            Column("Height (U)", digits=0, align="right"), Column("Unit weight", "kg", 1, "right"),
            Column("Weight", "kg", 1, "right"), Column("Unit power", "kW", 2, "right"),
            Column("Power", "kW", 2, "right"))
    return Table("u-map", "U map (bottom to top)", cols, tuple(rows))


def rack_design(scope: Scope, a: RackAnalysis) -> Section:
    """Elevations, U map, weight and floor load."""
    spec, s = a.rack.spec, a.space
    ff = spec.form_factor
    section = Section("rack-design", "Rack design").add(
        Para(f"{ff.standard.upper()} enclosure, {a.space.height} U usable, {fmt.q(ff.width, 'mm', 0)} wide and "
             f"{fmt.q(ff.depth, 'mm', 0)} deep. Full-depth items occupy both faces; half-depth items only the face "
             f"they are mounted from."),
        Figure("fig-elevation", "elevation", f"Rack elevation of {spec.id}, front and rear, coloured by part class"),
        u_map(a))
    if s.overlaps or s.outside:
        section.add(Para(f"{len(s.overlaps)} overlapping item pair(s) and {len(s.outside)} item(s) above the "
                         f"usable height; see the validation report (MECH001, MECH002).", "note"))
    facility = a.rack.facility
    rows = [("Installed equipment (payload)", fmt.q(s.payload, "kg", 0), fmt.q(ff.max_payload, "kg", 0),
             fmt.pct(_ratio(s.payload, ff.max_payload))),
            ("Empty rack", fmt.q(ff.weight, "kg", 0), "—", "—"),
            ("Total weight", fmt.q(s.weight, "kg", 0), "—", "—"),
            ("Footprint", fmt.q(s.footprint, "m**2", 2), "—", "—"),
            ("Floor load (weight / footprint)", fmt.q(s.floor_load, "kg/m**2", 0),
             fmt.q(facility.floor_rating, "kg/m**2", 0) if facility else "no facility given",
             fmt.pct(_ratio(s.floor_load, facility.floor_rating)) if facility else "—")]
    cols = (Column("Item"), Column("Value", align="right"), Column("Limit", align="right"),
            Column("Utilisation", align="right"))
    section.sub("weight", "Weight and floor load", Table("weight", "Weight and floor load", cols, tuple(rows)))
    return section


def _ratio(value: Any, limit: Any) -> float | None:
    if value is None or limit is None or limit.magnitude == 0:
        return None
    return float((value / limit).to("").magnitude)


def _stage_row(name: str, stage: Stage, load: Any) -> tuple:
    return (name, stage.count, stage.unit_capacity, stage.redundancy, stage.unit_capacity * stage.count,
            stage.usable, stage.after_one_loss, load, fmt.pct(_ratio(load, stage.usable), 1))


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
                     fmt.pct(_ratio(headroom, capacity), 1), "pass" if headroom.magnitude >= 0 else "fail"))
    return rows


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
        return f"The {p.conversion_kind} deliver {fmt.q(p.load, 'kW', 1)};"
    shelves, pdus = p.stages
    if p.arrangement == "pdus-shelves":
        return (f"The power shelves deliver {fmt.q(shelves.load, 'kW', 1)} to the busbar and plug into the PDUs, "
                f"which carry {fmt.q(pdus.load, 'kW', 1)};")
    return (f"The power shelves deliver {fmt.q(shelves.load, 'kW', 1)} to the busbar and the PDUs beside them "
            f"{fmt.q(pdus.load, 'kW', 1)} to the parts they serve, each path on its own feeds;")


def power(a: RackAnalysis, dist: Section | None = None) -> Section:
    """Feeds, derating, conversion stages, redundancy and failure cases; the PDU distribution when given."""
    p, feeds = a.power, a.rack.spec.power.feeds
    section = Section("power", "Power").add(
        Para(f"IT equipment draws {fmt.q(p.it_power, 'kW', 1)} at maximum: the catalog maximum draws "
             f"({fmt.q(p.equipment, 'kW', 1)}) and the transceivers and active cable ends no part's figure holds, in "
             f"its switches' ports and in the NICs of systems whose maximum leaves them out "
             f"({fmt.q(p.optics, 'kW', 2)}, the most loaded rack of this type in the clusters); other "
             f"equipment in the rack {fmt.q(p.other_power, 'kW', 1)}. {_chain_text(p)} the feeds supply "
             f"{fmt.q(p.input_power, 'kW', 1)} including conversion losses."),
        Para(typical_text(p.it_typical, p.typical_from_max)),
        Figure("fig-power", "power", "Power budget: load against nameplate, usable (with redundancy) and "
                                     "one-unit-lost capacity of the conversion stage and the feeds"))
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
                 ("Continuous-load derating", fmt.pct(feeds.derating)),
                 ("Power factor", f"{feeds.power_factor:.2f}"),
                 ("Usable power per feed", fmt.q(p.feed_capacity, "kW", 1)),  # as the budget table
                 ("Feed redundancy", f"{feeds.redundancy} ({p.feeds.spare} feed(s) held in reserve)"))
    if len(p.stages) > 1:  # shelves and PDUs: say how they connect (ARRANGEMENTS) and how the feeds divide
        split = ", ".join(f"{g.count} {g.kind}" for g in p.feed_groups)
        feed_rows += (("Arrangement", ARRANGEMENTS[p.arrangement] + (f" ({split})" if len(p.feed_groups) > 1
                                                                      else "")),)
    section.sub("feeds", "Feeds and derating",
                Table("feeds", "Feeds and derating", (Column("Item"), Column("Value")), feed_rows))
    failure = [row for st in p.stages + p.feed_groups for row in _failure_rows(fmt.sentence(st.kind), st, st.load)]
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
    liquid, air = spec.cooling.liquid, spec.cooling.air
    share = _ratio(c.heat_liquid, c.heat) or 0.0
    section = Section("cooling", "Cooling").add(
        Para(f"All {fmt.q(c.heat, 'kW', 1)} drawn from the feeds becomes heat: {fmt.q(c.heat_liquid, 'kW', 1)} "
             f"({fmt.pct(share)}) leaves through the liquid loop and {fmt.q(c.heat_air, 'kW', 1)} "
             f"({fmt.pct(1 - share)}) through the air."),
        Figure("fig-cooling", "cooling", "Cooling split: heat to liquid and air, and the CDU group's load against "
                                         "its usable capacity"))
    rows = [("Liquid", c.heat_liquid, fmt.pct(share),
             f"{liquid.coolant}, ΔT {fmt.q(liquid.delta_t, 'K', 0)}" if liquid else "—",
             fmt.q(c.coolant_flow, "L/min", 1),
             fmt.q(c.coolant_flow / c.heat_liquid, "L/min/kW", 2) if liquid and c.heat_liquid.magnitude else "—"),
            ("Air", c.heat_air, fmt.pct(1 - share), f"air, ΔT {fmt.q(air.delta_t, 'K', 0)}",
             fmt.q(c.air_flow, "ft**3/min", 0), "—")]
    cols = (Column("Path"), Column("Heat", "kW", 1, "right"), Column("Share", align="right"), Column("Medium"),
            Column("Flow required", align="right"), Column("Flow per kW", align="right"))
    section.add(Table("heat-split", "Heat split and flows", cols, tuple(rows)))
    if liquid:
        lrows = [("ASHRAE liquid class", f"{liquid.class_} (facility water ≤ {LIQUID_CLASS_MAX[liquid.class_]:g} °C)"),
                 ("Secondary supply accepted by the trays", fmt.q(liquid.supply, "degC", 0)),
                 ("Coolant and ΔT", f"{liquid.coolant}, {fmt.q(liquid.delta_t, 'K', 0)}"),
                 ("Coolant flow per rack", fmt.q(c.coolant_flow, "L/min", 1))]
        cdu = a.rack.cdu
        if c.cdu is not None and cdu is not None:
            lrows += [("CDU", f"{c.cdu.count} × {cdu.name or cdu.id} ({cdu.type}), {c.cdu.redundancy}"),
                      ("CDU capacity: unit / usable", f"{fmt.q(c.cdu.unit_capacity, 'kW', 0)} / "
                                                      f"{fmt.q(c.cdu.usable, 'kW', 0)}"),
                      ("Racks sharing the CDU group", str(liquid.racks_per_cdu)),
                      ("Group liquid load / utilisation", f"{fmt.q(c.cdu_load, 'kW', 1)} / "
                                                          f"{fmt.pct(_ratio(c.cdu_load, c.cdu.usable))}"),
                      ("Group flow needed / CDU flow usable", f"{fmt.q(c.cdu_flow_needed, 'L/min', 0)} / "
                                                              f"{fmt.q(c.cdu_flow, 'L/min', 0)}")]
            if cdu.approach is not None:
                lrows.append(("CDU approach", fmt.q(cdu.approach, "K", 1)))
        section.sub("liquid", "Liquid loop and CDU",
                    Table("liquid", "Liquid loop and CDU", (Column("Item"), Column("Value")), tuple(lrows)))
    lo, hi = AIR_CLASS_RANGE[air.class_]
    arows = [("ASHRAE air class", f"{air.class_} (allowable inlet {lo:g}–{hi:g} °C)"),
             ("Air ΔT", fmt.q(air.delta_t, "K", 0)),
             ("Air flow required", fmt.q(c.air_flow, "ft**3/min", 0)),
             ("Air flow rated (sum of systems)", fmt.q(c.declared_air_flow, "ft**3/min", 0)
              if c.declared_air_flow is not None else "not published")]
    facility = a.rack.facility
    if facility is not None:
        arows.append(("Facility inlet air", fmt.q(facility.air.supply, "degC", 1)))
        if facility.water is not None:
            arows.append(("Facility water supply", fmt.q(facility.water.supply, "degC", 1)))
    section.sub("air", "Air path", Table("air", "Air path", (Column("Item"), Column("Value")), tuple(arows)))
    return section


def network(a: RackAnalysis, specs: Any) -> Section | None:
    """Per-node port map (NICs by role) and the scale-up switches in the rack; None when there is neither."""
    counts: Counter[str] = Counter(p.part.id for p in a.rack.items)
    rows = []
    for sys_id in sorted(counts):
        system = next(p.part for p in a.rack.items if p.part.id == sys_id)
        if not isinstance(system, System):
            continue
        for nic_slot in system.nics:
            nic = specs.get(nic_slot.part)
            ports = nic.ports if isinstance(nic, NIC) else None
            rows.append((sys_id, nic_slot.role, nic_slot.part, nic_slot.count,
                         ports.count * nic_slot.count if ports else None, ports.speed if ports else None,
                         counts[sys_id], ports.count * nic_slot.count * counts[sys_id] if ports else None))
    switches = [(sid, counts[sid]) for sid in sorted(counts) if isinstance(
        next(p.part for p in a.rack.items if p.part.id == sid), Switch)]
    if not rows and not switches:
        return None
    section = Section("network", "Network ports")
    if rows:
        cols = (Column("System"), Column("Role"), Column("NIC"), Column("NICs per system", digits=0, align="right"),
                Column("Ports per system", digits=0, align="right"), Column("Port speed", "Gbit/s", 0, "right"),
                Column("Systems", digits=0, align="right"), Column("Ports in rack", digits=0, align="right"))
        section.add(Para("Per-node port map: the NICs each system carries and the network each serves. Fabric "
                         "tiers, oversubscription and bisection are in the cluster documents."),
                    Table("port-map", "Per-node port map", cols, tuple(rows)))
    if switches:
        srows = []
        for sid, n in switches:
            sw = specs.get(sid)
            srows.append((sid, sw.technology, n, sw.ports.count, sw.ports.speed, sw.ports.count * n))
        switch_cols = (Column("Switch"), Column("Technology"), Column("Count", digits=0, align="right"),
                       Column("Ports each", digits=0, align="right"), Column("Port speed", "Gbit/s", 0, "right"),
                       Column("Ports in rack", digits=0, align="right"))
        section.sub("rack-switches", "Switches in the rack", Table("rack-switches", "Switches in the rack",
                                                                     switch_cols, tuple(srows)))
    return section


def appendices(scope: Scope, a: RackAnalysis) -> Section:
    """Full BOM, glossary, sources."""
    section = Section("appendices", "Appendices")
    bom = Section("bom", "Bill of materials").add(
        Para("Placed items, the components inside each system (their power and weight are counted in the "
             "system), then accessories counted by rule: a power cord per PSU where the catalog gives the PSUs "
             "and their inlet, a rail kit per rack-mounted system or switch (EIA-19 racks), a blanking panel per "
             "free U on the front. The same table is written as CSV and XLSX."),
        bom_table(a.bom, scope.run.design.specs))
    section.sections += [bom, common.glossary_section(), common.references_section()]
    return section
