"""The reference-architecture sections of the cluster document.

Storage architecture, management and control plane, software stack, data-centre requirements, the growth of the
design and the bill of materials by scalable-unit count.

What the author states (`Cluster.storage`, `Cluster.control_plane`, `Cluster.software`, the Facility's `tier`,
`concurrently_maintainable`, `feeds`, capacities) is printed as stated, and "not provided" where it is absent; what
archgen derives (storage fabric bandwidth per node, the out-of-band fabric, ports reserved on a fabric, IT power and
heat against the hall's capacity) comes from the cluster's analysis and its metrics. A row that does not apply to the
design (an out-of-band fabric it does not have, facility water in an air-cooled hall) is left out, not shown empty.
"""

from __future__ import annotations

from typing import Any

from archgen.analyse.checkpoint_storage import node_fabric_rate, uplink_bound
from archgen.analyse.facility import rack_heat
from archgen.analyse.goodput import storage_fabrics, storage_side, unbounded_why
from archgen.analyse.scaling import Scaling
from archgen.render import fmt
from archgen.render.blocks import Bullets, Column, Figure, Para, Section, Table
from archgen.render.rack_power import water_rows
from archgen.units import Q_

NOT_PROVIDED = "not provided"
#: Sizes of the design the document's BOM-by-size table shows (bom-by-size.csv holds every size of the series).
MAX_SIZES = 5
_ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV"}
ITEM_VALUE = (Column("Item"), Column("Value"))


def kept_sentence(series: Scaling) -> str:
    """The counts written in the fabrics that every size keeps (`Scaling.kept`), as a sentence; '' when none."""
    if not series.kept:
        return ""
    return (" Kept as written at every size, not multiplied with the layout (the spec does not say whether they "
            f"grow with it): {'; '.join(series.kept)}.")


def growth(series: Scaling) -> tuple:
    """The design at 1, 2, 4, ... times its layout: what the network takes at each size, and the chart."""
    tiers = [t for t in ("leaf", "spine", "core") if any(t in p.switches_by_tier() for p in series.points)]
    fabric = series.fabric
    rows = [(f"{p.factor} ×", p.units, p.accelerators, p.racks, p.tiers.get(fabric),
             *(p.switches_by_tier().get(t, 0) for t in tiers), p.transceivers, p.network_power,
             p.network_power_per_accelerator) for p in series.points]
    cols = (Column("Size"), Column("Units", digits=0, align="right"), Column("Accelerators", digits=0, align="right"),
            Column("Racks", digits=0, align="right"), Column(f"Tiers ({fabric})", digits=0, align="right"),
            *(Column(f"{t.capitalize()} switches", digits=0, align="right") for t in tiers),
            Column("Transceivers", digits=0, align="right"), Column("Network power", "kW", 1, "right"),
            Column("Per accelerator", "W", 1, "right"))
    last = series.points[-1].accelerators if series.points else 0
    blocks: list = [
        Para(f"The same analysis at 1, 2, 4, ... times the layout (every unit and stand-alone rack count doubled), up "
             f"to {last:,} accelerators, the last size in the table: the series stops because {series.stop}. Switches "
             "are summed over all fabrics by tier; transceivers are the optical module ends; network power is "
             "switches at maximum power plus optics." + kept_sentence(series)),
        Table("growth", "Growth of the design: switches, transceivers and network power", cols, tuple(rows)),
        Figure("fig-scaling", "scaling", "Switches per tier, transceivers and network power against accelerators "
                                         "as the design doubles")]
    first: dict[str, tuple[int, list[str]]] = {}
    for p in series.points:
        for fid, problem in p.problems:
            if fid not in first or first[fid][0] == p.factor:
                first.setdefault(fid, (p.factor, []))[1].append(problem.message)
    if first:
        blocks.append(Bullets(tuple(f"From {k} × the design, fabric {fid}: {'; '.join(msgs)}"
                                    for fid, (k, msgs) in sorted(first.items()))))
    return tuple(blocks)


def sections(scope: Any, a: Any, series: Scaling | None) -> list[Section]:
    """The reference-architecture sections, in the order a reference architecture gives them."""
    out = [storage(a, scope.run.design.specs), control_plane(a), software(a), datacentre(scope, a)]
    bom = bom_by_size(series)
    if bom is not None:
        out.append(Section("bom-by-size", "Bill of materials by scalable-unit count").add(
            Para("The bill of materials of the design at 1, 2, 4, ... times its layout, as the growth table "
                 "scales it (every unit and stand-alone rack count multiplied), each size analysed in full: switch "
                 "counts follow the fabric rules and cables and optics the floor geometry, so a line can appear "
                 "only at a larger size (a longer length bin, a new tier)."
                 + (kept_sentence(series) if series is not None else "")
                 + (f" The first {MAX_SIZES} sizes are shown; bom-by-size.csv holds all."
                    if series is not None and len(series.points) > MAX_SIZES else "")),
            _shown(bom), *over_reach(series), *unlaid(series)))
    return out


def over_reach(series: Scaling | None) -> tuple:
    """The sizes whose runs exceed their media's reach (CAB001 of the design itself), under the BOM by size.

    The BOM buys such a run as its length bin orders it (a 300 m multimode fibre for an SR8 link), so a line that
    will not link must not stand in the table without a word.
    """
    rows = [f"{p.factor} × the design ({p.units:,} units), fabric {fid}: {link}: {n:,} link(s) up to {longest:.1f} m "
            f"exceed the {reach:~P} reach of {label}" for p in (series.points if series else ())
            for fid, link, label, n, longest, reach in p.over_reach]
    if not rows:
        return ()
    return (Para("Runs beyond the reach of their media (CAB001 reports these for the design itself): the lines "
                 "above count their cables and optics as the length bins order them, but they would not link; "
                 "the design needs a longer-reach option (e.g. single-mode) for these links at that size."),
            Bullets(tuple(rows)))


def unlaid(series: Scaling | None) -> tuple:
    """The sizes at which a fabric is counted but not laid out (it does not fit its tiers there), under the BOM.

    Its links are counted as their first option without lengths, so no length bin or reach is known for them: a
    fabric whose runs were beyond reach at 1 × would otherwise drop out of the list above at the larger sizes.
    """
    rows = [f"{p.factor} × the design ({p.units:,} units), fabric {fid}: " + ", ".join(
        f"{link}: {n:,} link(s) as {label}" for f, link, label, n in p.unlaid if f == fid)
        for p in (series.points if series else ()) for fid in dict.fromkeys(f for f, *_ in p.unlaid)]
    if not rows:
        return ()
    return (Para("Fabrics not laid out at a size, because they do not fit their switches or tiers there (the growth "
                 "section names the problem): the lines above count their links as their first link option, without "
                 "lengths, so their length bins, their reach and any run beyond it are not known at that size, and "
                 "those lines are not a design."),
            Bullets(tuple(rows)))


def _yes_no(value: bool | None) -> str:
    return NOT_PROVIDED if value is None else ("yes" if value else "no")


def _stated(value: Any) -> str:
    return str(value) if value not in (None, "") else NOT_PROVIDED


# ------------------------------------------------------------------------------------------------ storage

def storage(a: Any, specs: Any) -> Section:
    """The storage network (fabrics carrying storage) and the storage system the cluster states.

    A node's bandwidth on each storage fabric is its ports at line rate and, beside it, what the model uses: each NIC
    card at most its `host_interface` (`checkpoint_storage.node_fabric_rate`; newuser23 found the table showing
    1,600 Gb/s where two PCIe Gen5 x16 cards carry 1,008 Gb/s).
    """
    c = a.cluster
    section = Section("storage", "Storage architecture")
    rows = []
    for fa in storage_fabrics(a):   # the fabrics checkpoints are written over, not a front end on the same NICs
        s = fa.fabric.spec
        ppn = max(fa.ports_per_node.values(), default=0)
        rate = node_fabric_rate(specs, a, fa)
        rows.append((s.id, s.role, s.topology, s.speed, ppn, s.speed * ppn if ppn else None,
                     Q_(rate, "B/s") if rate > 0 else None, getattr(getattr(s, "endpoints", None), "extra", 0)))
    if rows:
        section.add(Para("The storage network: each fabric that carries storage traffic, the ports each node has "
                         "on it, their line rate and the bandwidth a compute node gets over them (one direction; "
                         "each NIC card carries at most its PCIe host interface, the figure checkpoints use), and "
                         "the ports left for storage appliances and other endpoints that are not nodes."),
                    Table("storage-network", "Storage network", (
                        Column("Fabric"), Column("Role"), Column("Topology"),
                        Column("Port speed", "Gbit/s", 0, "right"),
                        Column("Ports per node", digits=0, align="right"),
                        Column("Line rate per node", "Gbit/s", 0, "right"),
                        Column("Bandwidth per node used", "Gbit/s", 0, "right"),
                        Column("Other endpoint ports", digits=0, align="right")), tuple(rows)))
    else:
        section.add(Para("No fabric of the design carries storage traffic (no fabric of role storage or converged)."))
    st = c.spec.storage
    if st is None:
        section.add(Para(f"Storage system: {NOT_PROVIDED}. The design states no storage capacity or bandwidth, so "
                         "checkpoint write and restart times are not derived."))
        return section
    used = {key: a.metrics.get(f"storage_{key}_bandwidth_per_accelerator") for key in ("write", "read")}
    srows = [("Usable capacity", fmt.q(st.capacity, "PB", 2)),
             ("Aggregate write bandwidth", _used(used["write"], a.accelerators, st.write_bandwidth, "GB/s", 0)),
             ("Aggregate read bandwidth", _used(used["read"], a.accelerators, st.read_bandwidth, "GB/s", 0)),
             ("Write bandwidth per accelerator", _used(used["write"], 1, _per(st.write_bandwidth, a), "GB/s", 3)),
             ("Read bandwidth per accelerator", _used(used["read"], 1, _per(st.read_bandwidth, a), "GB/s", 3)),
             ("Basis", f"{st.basis}: {st.source}")]
    side = storage_side(a)
    ports = (f"the storage's {side.ports} port(s) at line rate carry {fmt.q(Q_(side.bandwidth, 'B/s'), 'GB/s', 0)}: "
             f"{'; '.join(side.counted)}" if side is not None
             else f"the storage's own ports bound nothing: {unbounded_why(a)}")
    up = uplink_bound(a)
    uplinks = (f" The leaf uplinks pass at most {fmt.q(Q_(up.bandwidth, 'B/s'), 'GB/s', 0)} of it (U L / (L - 1): "
               + "; ".join(f"'{fid}' {leaves} leaves, uplinks {fmt.q(Q_(u, 'B/s'), 'GB/s', 0)}"
                           for fid, leaves, u in up.fabrics)
               + "; the storage's ports assumed spread over the leaves in proportion, every transfer striped over "
               "them; storage on leaves of its own gets less)." if up is not None else "")
    section.add(Para("Checkpoints are written and restored at the stated bandwidth (shown beside where the figure "
                     "used differs), bounded by the storage's own ports on the fabrics that carry it, by their leaf "
                     "uplinks and by the compute nodes' ports to storage, every node at once; the rows per "
                     f"accelerator are the storage bandwidth metrics. {ports[0].upper()}{ports[1:]}.{uplinks}"))
    return section.add(Table("storage-system", "Storage system", ITEM_VALUE, tuple(srows)))


def _per(q: Any, a: Any) -> Any:
    """A stated aggregate over the cluster's accelerators (None without any)."""
    return (q / a.accelerators).to("GB/s") if a.accelerators else None


def _used(per_acc: Any, n: int, stated: Any, unit: str, digits: int) -> str:
    """The figure the analysis uses (`per_acc` × `n`), with the stated one beside it where they differ."""
    if per_acc is None or stated is None:
        return fmt.q(stated, unit, digits)
    got = (per_acc * n).to(unit)
    if abs(got.m_as("B/s") - stated.m_as("B/s")) <= 1e-9 * stated.m_as("B/s"):
        return fmt.q(stated, unit, digits)
    return f"{fmt.q(got, unit, digits)} (stated {fmt.q(stated, unit, digits)})"


# ------------------------------------------------------------------------------------------------ control plane

def control_plane(a: Any) -> Section:
    """Management machines as stated, and the management fabrics and reserved ports the design derives."""
    c = a.cluster
    section = Section("control-plane", "Management rack and control plane")
    cp = c.spec.control_plane
    if cp is None or not cp.groups:
        section.add(Para(f"Management and control-plane machines (head nodes, fabric managers, login and storage "
                         f"servers): {NOT_PROVIDED} in the design; their racks, power and ports are not counted."))
    else:
        rows = [(g.role, _stated(g.model), g.count if g.count is not None else NOT_PROVIDED,
                 _stated(g.redundancy), _stated(g.rack), g.power, ", ".join(g.fabrics) or NOT_PROVIDED)
                for g in cp.groups]
        section.add(Para("Machines that run and manage the cluster outside its compute nodes, as stated"
                         + (f" ({cp.source})." if cp.source else ".")),
                    Table("control-plane", "Management and control-plane machines", (
                        Column("Role"), Column("Machine"), Column("Count", align="right"), Column("Redundancy"),
                        Column("Rack"), Column("Power each", "kW", 2, "right"), Column("Fabrics")), tuple(rows)))
    facts = []
    for fa in a.fabrics:
        s = fa.fabric.spec
        if s.role == "management":
            tiers = ", ".join(f"{t.switches * fa.planes} {t.name}" for t in fa.tiers)
            facts.append(f"Out-of-band management: fabric {s.id} ({tiers}) at {fmt.q(s.speed, digits=0)} per port, "
                         f"{fa.endpoint_ports:,} endpoint ports.")
        for r in getattr(s, "reserved", ()):
            facts.append(f"Fabric {s.id}: {r.ports} leaf port(s) reserved for {r.name}.")
        ends = getattr(s, "endpoints", None)
        if ends is not None and ends.switches and s.role == "management":
            facts.append(f"Fabric {s.id} takes one management port of each switch of the other fabrics.")
    if facts:
        section.add(Bullets(tuple(facts)))
    elif not any(fa.fabric.spec.role == "management" for fa in a.fabrics):
        section.add(Para("The design has no out-of-band management fabric."))
    return section


# ------------------------------------------------------------------------------------------------ software

SOFTWARE_ROWS = (("os", "Operating system"), ("drivers", "Accelerator driver and firmware"),
                 ("collectives", "Collective communication library"), ("network", "Network software"),
                 ("cluster_manager", "Cluster manager and provisioning"), ("scheduler", "Workload scheduler"),
                 ("containers", "Containers"), ("storage_client", "Storage client"), ("monitoring", "Monitoring"))


def software(a: Any) -> Section:
    """The software stack as stated, every absent layer 'not provided'."""
    sw = a.cluster.spec.software
    rows = tuple((title, _stated(getattr(sw, key, "") if sw else "")) for key, title in SOFTWARE_ROWS)
    section = Section("software", "Software stack").add(
        Para("The software the design is built and validated with, as stated" + (
            f" ({sw.source})." if sw is not None and sw.source else ".")
            + ("" if sw is not None else " The design states no software stack.")),
        Table("software", "Software stack", (Column("Layer"), Column("Stated")), rows))
    return section


# ------------------------------------------------------------------------------------------------ data centre

def _tier_text(tier: Any) -> str:
    if tier is None:
        return NOT_PROVIDED
    name = {"Uptime Institute": f"Uptime Institute Tier {_ROMAN[tier.level]}", "TIA-942": f"TIA-942 Rated {tier.level}",
            "EN 50600": f"EN 50600 Availability Class {tier.level}"}[tier.standard]
    return f"{name} ({'certified' if tier.certified else 'design, not certified'})"


def datacentre(scope: Any, a: Any) -> Section:
    """What the hall must provide: rating, maintainability, feeds, power, cooling, floor; against what it states."""
    m, hall = scope.metrics, a.cluster.facility
    racks = [scope.run.racks.get(f"rack/{rid}") for rid in sorted(a.cluster.rack_counts)]
    racks = [r for r in racks if r is not None]
    heat = rack_heat(a.cluster, scope.run.racks)
    liquid, air, doors = heat.liquid, heat.air, heat.doors
    heaviest = max(racks, key=lambda r: r.space.floor_load.m_as("kg/m**2"), default=None)
    need = [("IT power at the rack feeds (maximum)", fmt.q(m.get("it_power"), "kW", 1)),
            ("Heat to liquid", fmt.q(liquid, "kW", 1)),
            *water_rows([(r, a.cluster.rack_counts[r.rack.spec.id]) for r in racks]),
            *((("Heat to the rear doors' water", fmt.q(doors, "kW", 1)),) if doors.magnitude else ()),
            ("Heat to air" + (" (after the rear doors)" if doors.magnitude else ""), fmt.q(air, "kW", 1)),
            ("Heaviest rack floor load", fmt.q(heaviest.space.floor_load, "kg/m**2", 0) if heaviest else "—")]
    section = Section("datacentre", "Data-centre requirements").add(
        Para("What the hall must provide for the design (power, heat by medium, floor load, from the rack "
             "analyses), and what the hall states: its availability rating, maintainability, the feeds upstream "
             "of the racks and its capacities."),
        Table("dc-needs", "What the design needs from the hall", ITEM_VALUE, tuple(need)))
    if hall is None:
        return section.add(Para(f"Facility: {NOT_PROVIDED}. The cluster names no facility, so its rating, feeds "
                                "and capacities are not compared."))
    feeds = hall.feeds
    rows: list[tuple[str, str]] = [
        ("Facility", hall.name or hall.id), ("Availability rating", _tier_text(hall.tier)),
        ("Concurrently maintainable", _yes_no(hall.concurrently_maintainable)),
        ("Utility feeds", _stated(feeds.utility_feeds if feeds else None)),
        ("Utility voltage", fmt.q(feeds.utility_voltage, "kV", 1) if feeds and feeds.utility_voltage else NOT_PROVIDED),
        ("UPS redundancy", _units(feeds.ups, feeds.ups_units, "modules") if feeds else NOT_PROVIDED),
        ("UPS autonomy", fmt.q(feeds.ups_autonomy, "min", 1) if feeds and feeds.ups_autonomy else NOT_PROVIDED),
        ("Generator redundancy", _units(feeds.generators, feeds.generator_units, "sets", hall) if feeds else
         NOT_PROVIDED),
        ("Cooling plant redundancy", _stated(feeds.cooling if feeds else None)),
        ("Distribution voltage", fmt.q(hall.voltage, "V", 0) if hall.voltage else NOT_PROVIDED)]
    rows += _capacity(hall, m)
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
    return section.add(Table("dc-hall", f"Facility {hall.id} (as stated) against the design", ITEM_VALUE,
                             tuple(rows)))


def _units(redundancy: str | None, units: Any, kind: str, hall: Any = None) -> str:
    """'N+1 (3 x 150 kW modules)': a stated redundancy with the units it holds, where the hall states them.

    With `hall`, generator sets' capacity at its outdoor conditions where that is not the stated one (PWR011).
    """
    if units is None:
        return _stated(redundancy)
    each = units.at_site(hall).capacity if hall is not None else units.capacity
    site = "" if each == units.capacity else "; stated at conditions the site does not meet (PWR011)" if each is \
        None else f"; {fmt.q(each, 'kW', 0)} each at the site's conditions"
    scheme = f"{redundancy} (" if redundancy else "not stated (judged as N; "   # PWR011's info finding says so
    return f"{scheme}{units.count} x {fmt.q(units.capacity, 'kW', 0)} {kind}{site})"


def _capacity(hall: Any, m: dict) -> list[tuple[str, str]]:
    out = []
    for label, cap, headroom in (("Critical IT power", hall.critical_it_power, "it_capacity_headroom"),
                                 ("Cooling capacity", hall.cooling_capacity, "cooling_headroom")):
        at_site = hall.cooling_at_site() if headroom == "cooling_headroom" else cap
        if cap is None:
            out.append((label, NOT_PROVIDED))
        elif at_site is None:
            out.append((label, f"{fmt.q(cap, 'kW', 0)} stated at conditions the site does not meet (COOL011)"))
        elif at_site != cap:
            out.append((label, f"{fmt.q(at_site, 'kW', 0)} at the site's conditions ({fmt.q(cap, 'kW', 0)} as "
                               f"rated), headroom {fmt.q(m.get(headroom), 'kW', 1)}"))
        else:
            out.append((label, f"{fmt.q(cap, 'kW', 0)}, headroom {fmt.q(m.get(headroom), 'kW', 1)}"))
    if hall.cost is not None:
        out.append(("Facility power (IT power × PUE)",
                    f"{fmt.q(m.get('facility_power'), 'kW', 1)} at PUE {hall.cost.energy.pue:g}"))
    gens = hall.feeds is not None and hall.feeds.generator_units is not None and hall.cost is not None
    out.append(("Facility power at design conditions (IT power × peak PUE)", f"{NOT_PROVIDED}: no `peak_pue` "
                "(design-day PUE)" + (", so PWR011 judged the generator sets on the annual PUE" if gens else "")
                if hall.peak_pue is None else
                f"{fmt.q(m.get('facility_power_peak'), 'kW', 1)} at peak PUE {hall.peak_pue:g}"))
    energy = m.get("facility_energy_per_year")
    out.append(("Facility energy per year (IT energy × PUE)", f"{NOT_PROVIDED}: no `cost:` (annual PUE, "
                "utilisation)" if hall.cost is None else NOT_PROVIDED if energy is None else
                f"{fmt.q(energy, 'MWh', 0)} at utilisation {hall.cost.utilisation:g}" + (
                    " (idle hours at each part's `power.idle`, else its average draw: an upper bound)"
                    if hall.cost.utilisation < 1 else "")))
    if "facility_power" in m and "it_power" in m:   # CDUs' pumps, in-row and in-rack: in the PUE's overhead
        overhead = (m["facility_power"] - m["it_power"]).to("kW")
        for key, label in (("cdu_power", "In-row CDUs' draw (pumps, controls)"),
                           ("rack_cooling_power", "In-rack cooling units' draw (on the rack feeds)")):
            if key in m:
                out.append((label, f"{fmt.q(m[key], 'kW', 1)} of the {fmt.q(overhead, 'kW', 1)} the PUE adds to "
                                   "IT power" + ("" if m[key] <= overhead else
                                                 ": more than all of it, so the PUE is too low")))
    return out


# ------------------------------------------------------------------------------------------------ BOM by size

def bom_by_size(series: Scaling | None) -> Table | None:
    """Every BOM line's quantity at each size of the growth series (all sizes; the document shows the first)."""
    if series is None or not series.points or not any(p.bom for p in series.points):
        return None
    keys: dict[tuple[str, str, str], None] = {}
    for p in series.points:
        for part, kind, note, _ in p.bom:
            keys.setdefault((part, kind, note), None)
    qty = [{(part, kind, note): n for part, kind, note, n in p.bom} for p in series.points]
    rows = tuple((part, kind, note or "—", *(q.get((part, kind, note), 0) for q in qty)) for part, kind, note in keys)
    cols = (Column("Part"), Column("Kind"), Column("Note"),
            *(Column(f"{p.units:,} unit{'' if p.units == 1 else 's'}, {p.accelerators:,} accelerators", digits=0,
                     align="right") for p in series.points))
    return Table("bom-by-size", "Bill of materials by size of the design", cols, rows)


def _shown(table: Table) -> Table:
    """The table with its first `MAX_SIZES` size columns (the document's width)."""
    keep = 3 + MAX_SIZES
    return Table(table.id, table.caption, table.columns[:keep], tuple(r[:keep] for r in table.rows))
