"""The rack document: abstract, rack design (elevations, U map, weight), power, cooling, network ports, BOM.

Numbers come from `archgen.analyse.rack.RackAnalysis`; this module selects, orders and labels them. The only
arithmetic is presentation: utilisation (load / capacity) and headroom (capacity - load) of figures the analysis
computed, and counts.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from archgen.analyse.bom import unit_power
from archgen.analyse.fittings import cdu_power_gaps, fitting_gaps
from archgen.analyse.optics import links_held, unconfirmed_optics_power
from archgen.analyse.rack import RackAnalysis
from archgen.analyse.rack_accessories import cord_gaps
from archgen.analyse.rack_power_inputs import rack_power_parts
from archgen.analyse.unconfirmed_share import rack_shares
from archgen.model import NIC, CoolingUnit, Part, PowerShelf, Switch, System
from archgen.model.power import PDU
from archgen.open_item import OpenItem, Worded
from archgen.render import common, distribution, fmt, glossary, palette
from archgen.render.blocks import Column, DocumentModel, Figure, Para, Section, Table
from archgen.render.common import Scope
from archgen.render.compliance import requirements_section
from archgen.render.load_swing import NOT_PROVIDED
from archgen.render.rack_cooling import air, assumed, assumed_tag, cooling
from archgen.render.rack_power import power, ratio, typical_note
from archgen.render.rack_weight import coolant_rows, unconfirmed_share, weighed, weight_basis
from archgen.render.tables import bom_table, marked, unconfirmed_footnote

#: Part classes, in legend order, with the colour used in every diagram (`archgen.render.palette`, light enough
#: for black labels; "other" is a light grey).
CLASSES = {
    "compute": palette.BLUISH_GREEN, "cpu": palette.YELLOW, "switch": palette.SKY_BLUE, "power": palette.ORANGE,
    "cooling": palette.REDDISH_PURPLE, "other": "#dddddd",
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
    shares = rack_shares(analysis, scope.run.design.specs, unconfirmed_optics_power(scope.run.clusters))
    sections = [
        abstract(scope, analysis),
        common.conventions(),
        requirements_section(scope),
        common.components_section(scope, shared_counts(analysis, counts)),
        architecture(analysis),
        rack_design(scope, analysis),
        power(analysis, dist, marked(shares.it), marked(shares.typical)),
        cooling(analysis, shares),
    ]
    net = network(analysis, scope.run.design.specs)
    if net is not None:
        sections.append(net)
    sections += [
        common.validation_section(scope),
        common.open_items_section(scope, [
            *cord_gaps(analysis.rack), *fitting_gaps(analysis.rack), *cdu_power_gaps([analysis.rack]),
            *dist_items, *_external_items(analysis),
            "Fabrics, cabling and performance are described in the cluster documents that use this rack."]),
        appendices(scope, analysis),
    ]
    return DocumentModel(spec.id, "rack", title, control, sections,
                         show_prices=spec.document.show_prices).number()


def shared_counts(a: RackAnalysis, counts: dict[str, int]) -> dict[str, Any]:
    """`counts` with a CDU shared by a group of racks shown as such ('shared: 2 for 8 racks'), not as the rack's own.

    An in-row CDU named in the liquid path serves `racks_per_cdu` racks: its `cdu_count` is the group's, so an ODM
    reading a bare 2 would order 2 per rack. A CDU placed in the slots, or one group per rack, keeps its count.
    """
    liquid, cdu = a.rack.spec.cooling.liquid, a.rack.cdu
    placed = cdu is not None and any(p.part.id == cdu.id for p in a.rack.items)
    if liquid is None or cdu is None or placed or liquid.racks_per_cdu == 1 or cdu.id not in counts:
        return counts
    return {**counts, cdu.id: f"shared: {liquid.cdu_count} for {liquid.racks_per_cdu} racks"}


def _external_items(a: RackAnalysis) -> list[str]:
    """The open item for parts fed from outside the rack's chain (`power.external`), if any."""
    p = a.power
    if not p.external_parts:
        return []
    return [OpenItem("then", f"{', '.join(p.external_parts)} ({fmt.q(p.external, 'kW', 2)})",
                     Worded("fed from outside the rack's shelves, PDUs and feeds (power.external)",
                            "fed from outside the rack's shelves, PDUs and feeds"),
                     "state the circuit that feeds them (a PDU beside the shelves, a facility outlet) and its "
                     "protection")]


def abstract(scope: Scope, a: RackAnalysis) -> Section:
    """Abstract and key metrics."""
    spec, m = a.rack.spec, scope.metrics
    systems = [p for p in a.rack.items if isinstance(p.part, System)]
    accel = int(m["accelerators"].magnitude) if "accelerators" in m else 0
    optics = unconfirmed_optics_power(scope.run.clusters)
    placed = rack_power_parts(a, links_held(optics))   # its power and heat sum their draws
    shares = rack_shares(a, scope.run.design.specs, optics)
    mark, wet, dry = marked(shares.it), marked(shares.liquid), marked(shares.air)
    it, feeds, liquid, to_air = (fmt.cell(k(v), "kW", 1) for k, v in ((mark, a.power.it_power), (
        mark, a.power.input_power), (wet, a.cooling.heat_liquid), (dry, a.cooling.heat_air)))
    lead = (f"{spec.name or spec.id}: a {a.space.height} U {spec.form_factor.standard.upper()} rack with "
            f"{len(systems)} systems and {accel} accelerators. It draws {it} at maximum IT load and {feeds} from its "
            f"feeds; {liquid} of its heat goes to liquid and {to_air} to air. It weighs {weighed(a.space)}"
            f"{', a lower bound (see Weight and floor load)' if a.space.lower_bound else ''}.")
    section = Section("abstract", "Abstract and key metrics").add(Para(lead, "lead"))
    if spec.description:
        section.add(Para(spec.description))
    rows = [("Accelerators", accel), ("Systems (trays, nodes)", len(systems)),
            ("Rack units used / free", f"{a.space.used} / {a.space.height - a.space.used} U"),
            ("IT power at the equipment (maximum)", it),
            ("IT power at the equipment (typical, for energy)",
             fmt.cell(marked(shares.typical)(a.power.it_typical), "kW", 1)
             + typical_note(a.power.it_power, a.power.it_typical, a.power.typical_from_max)),
            ("Input power (after conversion losses)", feeds),
            ("Heat to liquid / air", f"{liquid} / {to_air}"),
            ("Coolant flow", fmt.cell(assumed(spec.cooling.liquid, "coolant", "delta_t")(wet(a.cooling.coolant_flow)),
                                      "L/min", 1)),
            ("Air flow required", air(assumed(spec.cooling.air, "delta_t")(dry(a.cooling.air_flow)))),
            ("Weight / floor load", f"{weighed(a.space)} / {weighed(a.space, True, spec.form_factor)}")]
    findings = scope.findings()
    errors = sum(1 for f in findings if f.severity == "error" and not f.waived)
    warnings = sum(1 for f in findings if f.severity == "warning" and not f.waived)
    rows.append(("Validation", f"{errors} failing, {warnings} warning finding(s)"))
    section.add(Table("key-metrics", "Key metrics", (Column("Metric"), Column("Value")), tuple(rows)))
    if note := unconfirmed_footnote(RACK_MARKED, placed, scope.run.design.specs):
        section.add(Para(note))
    return section


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


def elevation_alt(a: RackAnalysis) -> str:
    """The elevation in words (`diagrams.elevation`): each slot's units, parts and class, bottom up, and the 0U items.

    A half-depth item names the face it is mounted from (the diagram hatches it on the other); a full-depth one
    fills both faces.
    """
    spec = a.rack.spec
    slots: dict[int, list] = {}
    for item in a.rack.items:
        slots.setdefault(item.slot, []).append(item)
    racked, beside = [], []
    for slot, items in sorted(slots.items(), key=lambda kv: (min(i.u for i in kv[1]), kv[0])):
        part = items[0].part
        what = f"{len(items)} × {part.id} ({part_class(part)}"
        if items[0].height == 0:
            beside.append(what + ")")
            continue
        low, high = min(i.u for i in items), max(i.top for i in items)
        depth = getattr(getattr(part, "mechanical", None), "depth", "full")
        face = "" if depth == "full" else f", {spec.slots[slot].face} face only"
        racked.append(f"U{low}" + (f"-{high}" if high > low else "") + f" {what}{face})")
    text = (f"Front and rear elevation of {spec.id}, a {a.space.height} U {spec.form_factor.standard.upper()} rack "
            f"with {a.space.used} U used and {a.space.height - a.space.used} U free; bottom to top: "
            + ("; ".join(racked) or "nothing placed"))
    return text + (f"; zero-U, beside the rails: {', '.join(beside)}" if beside else "") + "."


def rack_design(scope: Scope, a: RackAnalysis) -> Section:
    """Elevations, U map, weight and floor load."""
    spec, s = a.rack.spec, a.space
    ff = spec.form_factor
    section = Section("rack-design", "Rack design").add(
        Para(f"{ff.standard.upper()} enclosure, {a.space.height} U usable, {fmt.q(ff.width, 'mm', 0)} wide and "
             f"{fmt.q(ff.depth, 'mm', 0)} deep. Full-depth items occupy both faces; half-depth items only the face "
             f"they are mounted from."),
        Figure("fig-elevation", "elevation", f"Rack elevation of {spec.id}, front and rear, coloured by part class",
               elevation_alt(a)),
        u_map(a))
    if s.overlaps or s.outside:
        section.add(Para(f"{len(s.overlaps)} overlapping item pair(s) and {len(s.outside)} item(s) above the "
                         f"usable height; see the validation report (MECH001, MECH002).", "note"))
    facility = a.rack.facility
    rows = [("Installed equipment (payload)", fmt.cell(unconfirmed_share(s, payload=True)(s.payload), "kg", 0),
             fmt.q(ff.max_payload, "kg", 0) + assumed_tag(ff, "max_payload"),
             fmt.pct(ratio(s.payload, ff.max_payload))),
            ("Empty rack", fmt.q(ff.weight, "kg", 0) + assumed_tag(ff, "weight") if ff.weight is not None
             else NOT_PROVIDED, "—", "—"),
            *coolant_rows(spec, s),
            ("Total weight", weighed(s, False, ff), "—", "—"),
            ("Footprint", fmt.q(s.footprint, "m**2", 2) + assumed_tag(ff, "width", "depth"), "—", "—"),
            ("Floor load (weight / footprint)", weighed(s, True, ff),
             fmt.q(facility.floor_rating, "kg/m**2", 0) if facility else "no facility given",
             fmt.pct(ratio(s.floor_load, facility.floor_rating)) if facility else "—")]
    cols = (Column("Item"), Column("Value", align="right"), Column("Limit", align="right"),
            Column("Utilisation", align="right"))
    section.sub("weight", "Weight and floor load", Table("weight", "Weight and floor load", cols, tuple(rows)),
                Para(weight_basis([(spec.id, s)])))
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
                Column("NIC ports per system", digits=0, align="right"),
                Column("NIC port rating", "Gbit/s", 0, "right"), Column("Systems", digits=0, align="right"),
                Column("NIC ports in rack", digits=0, align="right"))
        section.add(Para("Per-node port map: the NICs each system carries, the network each serves, and their ports at "
                         "the NIC's rating. How many of them a fabric cables and the speed it runs them at, fabric "
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
    section.sections += [bom, glossary.section(), common.references_section()]
    return section


#: The figures a rack document marks "(unconfirmed)" where a placed part's draw is (`unconfirmed_footnote`).
RACK_MARKED = ("IT power at maximum and typical draw, input power, heat to liquid and to air, and the flows, loads "
               "and CDU group figures built on them (here, in Power, in Cooling and the values of the passed checks "
               "in the Validation report)")
