"""The cluster document: scaling, rack types, power and cooling totals, fabrics, cabling and optics, BOM.

Figures come from `archgen.analyse.network.ClusterAnalysis` (fabrics, scale-up), its `cabling`
(`archgen.analyse.cabling.Cabling`) and, for the growth table and chart, the run's `scaling` series
(`archgen.analyse.scaling`), which `pipeline.run(..., scaling=True)` adds because only documents show it (the
pipeline does not pay for it on every `check`).
Presentation arithmetic only: per-rack-type figures times the rack count, and their sums, for the power and
cooling tables.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from archgen import metrics
from archgen.analyse.bom import UNRACKED, cluster_bom_gaps, surplus_switch_power
from archgen.analyse.network import wired_rails
from archgen.analyse.portmap import PortMap, port_map
from archgen.analyse.scaling import Scaling
from archgen.model import Part
from archgen.render import cluster_diagrams, common, diagrams, fmt, operations, performance, provenance, scale_up
from archgen.render.blocks import Column, DocumentModel, Figure, Para, Section, Table
from archgen.render.cabling import cabling, run_list
from archgen.render.cluster_bom import appendices
from archgen.render.common import Scope, requirements_table
from archgen.render.emit import doc_table, render_document
from archgen.render.rack import rack_parts
from archgen.render.rack_power import typical_text
from archgen.render.reference import bom_by_size, growth
from archgen.render.reference import sections as reference_sections
from archgen.render.wiring import figures as wiring_figures
from archgen.render.wiring import portmap_table
from archgen.render.wiring import section as wiring_section

ROLE_TITLES = {"compute": "compute (east-west)", "storage": "storage", "frontend": "in-band (front end)",
               "management": "out-of-band management", "converged": "converged"}


def cluster_scope(result: Any, a: Any, revision: str | None, date: str | None) -> tuple[Scope, dict[str, int]]:
    """Parts used by the cluster (rack types' parts, fabric switches, links) and the subjects of its findings.

    The subjects include the workloads that run on the cluster, so that their findings (PERF, REL, REQ on their
    requirements) count in the document's status, validation report and open items as in its compliance matrix.
    """
    specs = result.design.specs
    cluster = a.cluster
    parts: dict[str, Part] = {}
    counts: Counter[str] = Counter()
    for rid, n in cluster.rack_counts.items():
        rack_a = result.racks.get(f"rack/{rid}")
        if rack_a is None:
            continue
        rparts, rcounts = rack_parts(rack_a, specs, group_cdus=False)
        for p in rparts:
            parts.setdefault(p.id, p)
            counts[p.id] += rcounts.get(p.id, 0) * n
    cab = a.cabling
    for line in getattr(cab, "bom", ()):
        part = specs.get(line.part)
        if isinstance(part, Part):
            parts.setdefault(part.id, part)
            # links (cables, transceivers), CDUs and the switches no rack holds: placed parts are counted above
            if line.kind in ("Link", "CoolingUnit") or (line.kind == "Switch" and line.note == UNRACKED):
                counts[part.id] += line.quantity
    docs = [cluster.spec, *parts.values(), *(r.spec for r in cluster.rack_types.values())]
    if cluster.facility is not None:
        docs.append(cluster.facility)
    if revision is None:
        revision = provenance.git_revision([specs.sources[d.id].file for d in docs if d.id in specs.sources])
    workloads = {path for path, w in result.workloads.items() if w.workload.cluster == cluster.spec.id}
    under = tuple(f"{path}/" for path in (cluster.path, *sorted(workloads)))
    subjects = {cluster.path, cluster.spec.id, *(fa.fabric.path for fa in a.fabrics), *workloads,
                *(f.object for f in result.findings if f.object.startswith(under)),
                *(f"rack/{rid}" for rid in cluster.rack_counts), *(f"part/{p}" for p in parts),
                *([f"facility/{cluster.facility.id}"] if cluster.facility is not None else [])}
    ordered = sorted(parts.values(), key=lambda p: (p.kind, p.id))
    return Scope(result, cluster.path, cluster.spec, ordered, subjects, revision, provenance.input_hash(docs),
                 date), dict(counts)


def build(scope: Scope, a: Any, counts: dict[str, int], series: Scaling | None = None,
          pm: PortMap | None = None) -> DocumentModel:
    """The whole cluster document (with the growth table when `series` is given, the port map's section with `pm`)."""
    spec = a.cluster.spec
    title = spec.name or spec.id
    control = common.document_control(scope, f"AG-CLUSTER-{spec.id.upper()}", title,
                                      "ODM/JDM, networking, power and cooling, and facility partners")
    sections = [abstract(scope, a), common.conventions(), common.requirements_section(scope),
                common.components_section(scope, counts), architecture(a, series), rack_types(scope, a),
                power_cooling(scope, a), fabrics(scope, a)]
    if a.cabling is not None:
        sections += [cabling(a)] + ([wiring_section(a, pm)] if pm is not None else [])
    sections += reference_sections(scope, a, series)
    perf = performance.section(performance.workloads_for(scope.run, spec.id))
    missing = [] if perf is not None else ["Performance: no workload runs on this cluster."]
    missing += cluster_bom_gaps(a)
    if perf is not None:
        sections.append(perf)
    sections += [s for s in (operations.reliability_section(scope.run, a), operations.cost_section(scope.run, a)) if s]
    missing += operations.open_items(scope.run, a)
    sections += [common.validation_section(scope), common.open_items_section(scope, missing), appendices(scope, a)]
    return DocumentModel(spec.id, "cluster", title, control, sections).number()


def abstract(scope: Scope, a: Any) -> Section:
    """Abstract and key metrics."""
    spec, m = a.cluster.spec, scope.metrics
    lead = (f"{spec.name or spec.id}: {a.accelerators:,} accelerators in {a.node_count:,} nodes and "
            f"{a.cluster.rack_total:,} racks, with {len(a.fabrics)} fabric(s). IT power at the rack feeds "
            f"{fmt.q(m.get('it_power'), 'kW', 1)}, of which network {fmt.q(m.get('network_power'), 'kW', 1)} and "
            f"optics {fmt.q(m.get('optics_power'), 'kW', 1)}.")
    section = Section("abstract", "Abstract and key metrics").add(Para(lead, "lead"))
    if spec.description:
        section.add(Para(spec.description))
    rows = [("Accelerators", a.accelerators), ("Nodes", a.node_count), ("Racks", a.cluster.rack_total),
            ("IT power at the feeds (racks + optics + unplaced switches + shelf loss)",
             fmt.q(m.get("it_power"), "kW", 1)),
            ("Power-shelf loss (in IT power)", fmt.q(m.get("shelf_loss"), "kW", 1)),
            ("IT power (typical, for energy)", fmt.q(m.get("it_power_typical"), "kW", 1)),
            ("Network power (switches and optics)", fmt.q(m.get("network_power"), "kW", 1)),
            ("Links", m["links"].magnitude if "links" in m else None)]
    if a.scale_up is not None:
        rows.append(("Scale-up domains × size", f"{a.scale_up.domains:,} × {a.scale_up.size}"))
    for fa in a.fabrics:
        over = max(fa.oversubscription.values(), default=1.0)
        rows.append((f"Fabric {fa.fabric.spec.id}", f"{fa.tiers_used} tier(s), {fa.planes} plane(s), "
                     f"{bisection_text(fa)}, oversubscription {over:.2f}:1"))
    return section.add(Table("key-metrics", "Key metrics", (Column("Metric"), Column("Value")), tuple(rows)))


def full_bisection(fa: Any) -> float | None:
    """Bisection as a share of full bisection, half the injection (1.0 for a non-blocking fabric); a ratio."""
    if not fa.injection.magnitude:
        return None
    return float((fa.bisection / (fa.injection / 2)).to("").magnitude)


def bisection_text(fa: Any) -> str:
    """Bisection per accelerator with its convention and the injection beside it, so 1:1 is not read as 2:1."""
    bis, inj = fa.metrics.get("bisection_per_accelerator"), fa.metrics.get("injection_per_accelerator")
    share = full_bisection(fa)
    if bis is None or inj is None or share is None:
        return "no accelerator's node injects into it (bisection per accelerator does not apply)"
    bis, inj = bis.to("Gbit/s"), inj.to("Gbit/s")
    return (f"bisection {fmt.q(bis, digits=fmt.digits_for(bis))} per accelerator (one direction, over all "
            f"accelerators; {fmt.pct(share, 0)} of full bisection, which is half the injection of "
            f"{fmt.q(inj, digits=fmt.digits_for(inj))} per accelerator)")


def architecture(a: Any, series: Scaling | None = None) -> Section:
    """Units, rack types and the scaling table per fabric tier; the growth of the design; the floor plan."""
    c = a.cluster
    unit_rows = [(uid, c.unit_counts.get(uid, 0), _rack_mix(c.unit_racks.get(uid, ())))
                 for uid in sorted(c.unit_counts)]
    section = Section("architecture", "Architecture and scaling").add(
        Para("Node → rack → unit → cluster. Counts are derived from the layout and the fabric rules; nothing is "
             "listed per device."),
        Table("units", "Building blocks", (Column("Unit"), Column("Instances", digits=0, align="right"),
                                           Column("Racks per instance")), tuple(unit_rows)))
    rows = []
    for fa in a.fabrics:
        for t in fa.tiers:
            rows.append((fa.fabric.spec.id, t.name, t.switch.id if t.switch else "—", t.switches * fa.planes,
                         t.radix, t.down, t.up, t.ports_used * fa.planes, fa.oversubscription.get(t.name)))
    cols = (Column("Fabric"), Column("Tier"), Column("Switch"), Column("Switches", digits=0, align="right"),
            Column("Radix", digits=0, align="right"), Column("Down", digits=0, align="right"),
            Column("Up", digits=0, align="right"), Column("Ports used", digits=0, align="right"),
            Column("Oversubscription (down:up)", digits=2, align="right"))
    section.add(Table("scaling", "Scaling table: switches per fabric tier", cols, tuple(rows)))
    if series is not None and series.points and series.fabric:
        section.sub("growth", "Growth of the design", *growth(series))
    if c.instances:
        f = c.spec.floor
        section.add(Figure("fig-floor", "floor", f"Floor plan in metres: {len(c.instances)} racks by row, coloured "
                                                 f"by rack type (the same colour in every document of this render); "
                                                 f"rack pitch {fmt.q(f.rack_pitch, 'm', 2)}, row pitch "
                                                 f"{fmt.q(f.row_pitch, 'm', 2)}; aisles alternate cold and hot "
                                                 f"(rows assumed to face each other in pairs)"))
    return section


def _fabrics_of(a: Any, node: str, role: str) -> list[Any]:
    """The fabrics that take a node's ports of a NIC role (its `nic_role`, else its role): they set the speed."""
    return [fa for fa in a.fabrics if (getattr(fa.fabric.spec, "nic_role", None) or fa.fabric.spec.role) == role
            and getattr(fa, "ports_per_node", {}).get(node, 0)]


def _rack_mix(members: Any) -> str:
    """A unit's racks by type, each type once in the order it first stands ('8 × gb300-nvl72, 2 × gb300-su-ib')."""
    counts: Counter[str] = Counter()
    for rid, n in members:
        counts[rid] += n
    return ", ".join(f"{n} × {rid}" for rid, n in counts.items())


def rack_types(scope: Scope, a: Any) -> Section:
    """Each rack type with its count and per-rack figures; elevations of each type."""
    rows = []
    section = Section("rack-types", "Rack design")
    for rid, n in sorted(a.cluster.rack_counts.items()):
        r = scope.run.racks.get(f"rack/{rid}")
        if r is None:
            continue
        rows.append((rid, n, r.space.used, r.power.it_power, r.cooling.heat_liquid, r.cooling.heat_air,
                     r.space.weight, r.space.floor_load))
    cols = (Column("Rack type"), Column("Count", digits=0, align="right"), Column("U used", digits=0, align="right"),
            Column("IT power", "kW", 1, "right"), Column("Heat to liquid", "kW", 1, "right"),
            Column("Heat to air", "kW", 1, "right"), Column("Weight", "kg", 0, "right"),
            Column("Floor load", "kg/m**2", 0, "right"))
    section.add(Para("Per-rack figures; each rack type has its own rack document with the full power and cooling "
                     "budget."), Table("rack-types", "Rack types", cols, tuple(rows)))
    for rid, *_ in rows:
        section.add(Figure(f"fig-elevation-{rid}", f"elevation-{rid}", f"Elevation of rack type {rid}"))
    return section


def power_cooling(scope: Scope, a: Any) -> Section:
    """Power and heat per rack type times its count, network and optics power."""
    rows: list[tuple] = []
    for rid, n in sorted(a.cluster.rack_counts.items()):
        r = scope.run.racks.get(f"rack/{rid}")
        if r is not None:
            rows.append((rid, n, r.power.it_power * n, r.power.input_power * n, r.cooling.heat_liquid * n,
                         r.cooling.heat_air * n))
    if rows:
        rows.append(("All racks", *(sum(col[1:], col[0]) for col in list(zip(*rows, strict=True))[1:])))
    cols = (Column("Rack type"), Column("Racks", digits=0, align="right"), Column("IT power", "kW", 1, "right"),
            Column("Input power", "kW", 1, "right"), Column("Heat to liquid", "kW", 1, "right"),
            Column("Heat to air", "kW", 1, "right"))
    section = Section("power", "Power and cooling").add(
        Para("Rack figures times the number of racks of each type; a rack type's figures include the transceivers "
             "in its switches' ports for its most loaded rack. The cluster IT power below counts each transceiver "
             "once, and switches outside any rack."),
        Table("power-by-rack", "Power and heat by rack type", cols, tuple(rows)),
        Para(typical_text(scope.metrics.get("it_power_typical"), a.typical_from_max, at_feeds=True)))
    net = getattr(a.cabling, "network_power", {}) or {}
    if net:
        nrows = [(fid, p, _fabric_metric(a, fid, "optics_power")) if fid != "scale_up" else
                 ("scale-up domain (its cables' optics; its switches are compute)", p, p)
                 for fid, p in sorted(net.items())]
        if (surplus := surplus_switch_power(a)).magnitude:   # in the cluster's network power, in no fabric's
            nrows.append(("switches placed beyond the fabrics (NET017)", surplus, None))
        section.add(Table("network-power", "Network power by fabric (switches and optics)",
                          (Column("Fabric"), Column("Network power", "kW", 2, "right"),
                           Column("Of which optics", "kW", 2, "right")), tuple(nrows)))
        shown = [fmt.metric_value(m, v) for k in ("network_power", "optics_power")
                 if (m := metrics.find("cluster", k)) is not None and (v := scope.metrics.get(k)) is not None]
        if len(shown) == 2:
            section.add(Para(f"The rows add up to the cluster's network power, {shown[0]}, of which optics "
                             f"{shown[1]}."))
    return section


def _fabric_metric(a: Any, fabric_id: str, name: str) -> Any:
    for fa in a.fabrics:
        if fa.fabric.spec.id == fabric_id:
            return fa.metrics.get(name)
    return None


def fabrics(scope: Scope, a: Any) -> Section:
    """Scale-up domain, each fabric's tiers, bandwidths and failure cases, and the per-node port map."""
    section = Section("network", "Network fabrics")
    summary = []
    for fa in a.fabrics:
        s = fa.fabric.spec
        summary.append((s.id, ROLE_TITLES.get(s.role, s.role), s.topology, fa.tiers_used, fa.planes, wired_rails(fa),
                        s.speed, fa.metrics.get("injection_per_accelerator"),
                        fa.metrics.get("bisection_per_accelerator"), fmt.pct(full_bisection(fa), 0),
                        max(fa.oversubscription.values(), default=1.0), fa.hops))
    cols = (Column("Fabric"), Column("Role"), Column("Topology"), Column("Tiers", digits=0, align="right"),
            Column("Planes", digits=0, align="right"), Column("Rails", digits=0, align="right"),
            Column("Port speed", "Gbit/s", 0, "right"), Column("Injection / accelerator", "Gbit/s", 0, "right"),
            Column("Bisection / accelerator", "Gbit/s", 0, "right"), Column("Full bisection", align="right"),
            Column("Max oversubscription", digits=2, align="right"), Column("Max hops", digits=0, align="right"))
    section.add(Para("Bandwidths are one direction. Injection is what each accelerator sends into the fabric. "
                     "Bisection is the bandwidth across the narrowest cut that splits the fabric's endpoints into "
                     "two halves, divided by all the accelerators: each half can send to the other at most this "
                     "much per accelerator of the cluster, so a non-blocking fabric's bisection per accelerator "
                     "is half its injection (full bisection, 100 %), not a 2:1 taper. Oversubscription is "
                     "down:up bandwidth at a tier (1.00 is non-blocking)."),
                Table("fabrics", "Fabrics", cols, tuple(summary)))
    if a.fabrics:
        section.add(Figure("fig-topology", "topology", "Fabric topology by tier, with switch and link counts"))
    if a.scale_up is not None:
        section.sub("scale-up", "Scale-up domain", Table("scale-up", "Scale-up domain",
                                                         (Column("Item"), Column("Value")), scale_up.rows(a)))
    ports = []
    specs = scope.run.design.specs
    for nt in a.nodes:
        for nic in nt.part.nics:
            part = specs.get(nic.part)
            p = getattr(part, "ports", None)
            on = _fabrics_of(a, nt.part.id, nic.role)
            ports.append((nt.part.id, nt.count, nic.role, nic.part, nic.count, p.count * nic.count if p else None,
                          ", ".join(fa.fabric.spec.id for fa in on) or "—",
                          min((fa.fabric.spec.speed for fa in on), default=None), p.speed if p else None))
    if ports:
        port_cols = (Column("Node"), Column("Nodes", digits=0, align="right"), Column("Role"), Column("NIC"),
                     Column("NICs per node", digits=0, align="right"),
                     Column("Ports per node", digits=0, align="right"), Column("Fabric"),
                     Column("Speed the fabric runs", "Gbit/s", 0, "right"),
                     Column("NIC port rating", "Gbit/s", 0, "right"))
        section.sub("port-map", "Per-node port map", Table("port-map", "Per-node port map", port_cols, tuple(ports)))
    for fa in a.fabrics:
        s = fa.fabric.spec
        tiers = [(t.name, t.switch.id if t.switch else "—", t.switches * fa.planes, t.radix, t.breakout, t.down,
                  t.up, t.up_speed, t.down_used * fa.planes, t.up_used * fa.planes,
                  fa.oversubscription.get(t.name)) for t in fa.tiers]
        tier_cols = (Column("Tier"), Column("Switch"), Column("Switches", digits=0, align="right"),
                Column("Radix", digits=0, align="right"), Column("Breakout", digits=0, align="right"),
                Column("Down ports", digits=0, align="right"), Column("Up ports", digits=0, align="right"),
                Column("Up speed", "Gbit/s", 0, "right"), Column("Down used", digits=0, align="right"),
                Column("Up used", digits=0, align="right"), Column("Oversubscription", digits=2, align="right"))
        failures = [(k.removeprefix("failure."), fmt.pct(float(v.magnitude), 1) if "bandwidth" in k
                     else f"{float(v.magnitude):,.0f}") for k, v in sorted(fa.failure.items())]
        sub = section.sub(f"fabric-{s.id}", f"Fabric {s.id}: {ROLE_TITLES.get(s.role, s.role)}",
                          Para(f"{s.name or s.id}: {_shape(fa)}; {_reach(fa)} at this design. Total bisection "
                               f"{fmt.q(fa.bisection, 'Tbit/s', 1)}; {bisection_text(fa)}."),
                          Table(f"tiers-{s.id}", f"Tiers of fabric {s.id}", tier_cols, tuple(tiers)))
        if failures:
            sub.add(Table(f"failure-{s.id}", f"Failure cases of fabric {s.id}", (Column("Case"), Column("Effect")),
                          tuple(failures)))
    return section


def _shape(fa: Any) -> str:
    """How a fabric is built, in words, from its analysis (fat tree, torus, dragonfly or rail-only)."""
    s, f = fa.fabric.spec, {k: int(v.magnitude) for k, v in fa.figures.items()}
    if s.topology == "torus":
        ocs = f", {f['torus.cubes']} cubes of {'x'.join(map(str, s.ocs.cube))} joined by {f['torus.ocs']} OCSes" \
            if s.ocs else ""
        return (f"{'x'.join(map(str, s.dims))} {'torus' if s.wraparound else 'mesh'}, {f['torus.links_per_chip']} "
                f"links per chip, diameter {f['torus.diameter']} hops{ocs}")
    if s.topology == "dragonfly":
        return (f"dragonfly of {f['dragonfly.groups']} groups x {s.group_size} routers, {s.terminals} terminals and "
                f"{s.global_links} global links per router, {f['dragonfly.global_links_per_group_pair']} global "
                f"link(s) per pair of groups; {fa.node_ports:,} node ports")
    if s.topology == "rail-only":
        return (f"rail-only, {fa.rails} rail(s) x {fa.planes} plane(s), {fa.tiers_used} tier(s) per rail, no spine "
                f"between rails; {fa.node_ports:,} node ports")
    return (f"{s.topology}, {fa.tiers_used} tier(s), {fa.planes} plane(s)"
            f"{f', {fa.rails} rail(s), rail-optimised' if s.rail_optimized else ''}; {fa.node_ports:,} node ports, "
            f"{_other_endpoints(fa)}{fa.reserved_ports:,} reserved")


def _other_endpoints(fa: Any) -> str:
    """The fabric's endpoint ports that are no node's (switch management ports, `endpoints.extra`), in words."""
    others = fa.endpoint_ports - fa.node_ports
    if others <= 0:
        return ""
    extra = min(getattr(getattr(fa.fabric.spec, "endpoints", None), "extra", 0) or 0, others)
    what = [f"{others - extra:,} switch management" if others > extra else "",
            f"{extra:,} stated as a count" if extra else ""]
    return f"{others:,} other endpoint ports ({', '.join(w for w in what if w)}), "


def _reach(fa: Any) -> str:
    """How large the fabric can grow: in accelerators, or in endpoint ports where no accelerator's node is on it."""
    if fa.max_accelerators or fa.node_ports:
        return f"up to {fa.max_accelerators:,} accelerators"
    return f"no accelerator's node on it, up to {fa.max_endpoints:,} endpoint ports"


def render_cluster(result: Any, target: Any, formats: tuple[str, ...], templates: Path | None,
                   revision: str | None, date: str | None, step: Callable[[str], None],
                   edition: str = "internal") -> dict[str, bytes]:
    """Every requested file of one cluster target, rendered in memory (the `edition` of `render.edition`)."""
    step("document model")
    a = target.analysis
    scope, counts = cluster_scope(result, a, revision, date)
    series = result.scaling.get(a.cluster.path)  # the pipeline's growth series, when it was asked for
    pm = port_map(a) if a.cabling is not None else None
    doc = build(scope, a, counts, series, pm)
    figures: dict[str, Callable[[], Any]] = {
        "floor": lambda: cluster_diagrams.floor_plan(a, cluster_diagrams.rack_colours(
            r.spec.id for r in result.design.racks)), "topology": lambda: cluster_diagrams.topology(a),
        "scaling": lambda: cluster_diagrams.scaling_chart(series),
        **performance.figures(performance.workloads_for(result, a.cluster.spec.id)),
        **operations.figures(result, a), **(wiring_figures(a, pm) if pm is not None else {}),
        **diagrams.rack_elevations(result, a)}
    tables = {"bom.csv": doc_table(doc, "bom"), "requirements.csv": requirements_table(scope)}
    if a.cabling is not None and pm is not None and {"csv", "xlsx"} & set(formats):
        tables["cabling.csv"], tables["portmap.csv"] = run_list(a), portmap_table(pm)
    if (by_size := bom_by_size(series)) is not None:
        tables["bom-by-size.csv"] = by_size
    return render_document(doc, figures, tables, formats, templates, step, edition)
