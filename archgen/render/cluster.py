"""The cluster document: scaling, rack types, power and cooling totals, fabrics, cabling and optics, BOM.

Figures come from `archgen.analyse.network.ClusterAnalysis` (fabrics, scale-up), its `cabling`
(`archgen.analyse.cabling_result.Cabling`) and, for the growth table and chart, the run's `scaling` series
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
from archgen.analyse.bom_line import NOT_PROVIDED
from archgen.analyse.network import withheld_tiers
from archgen.analyse.optics import dark_ends
from archgen.analyse.portmap import PortMap, port_map
from archgen.analyse.price_scope import lists_for
from archgen.analyse.rack_heat import rack_heat_by_type
from archgen.analyse.rack_power_inputs import cluster_power_parts
from archgen.analyse.scaling import Scaling
from archgen.analyse.storage_cost import storage_draw
from archgen.analyse.unconfirmed_share import cluster_rack_shares, fabric_share, summed
from archgen.analyse.unracked import unracked_words
from archgen.model import Part
from archgen.model.field_words import said
from archgen.render import (
    alt_text,
    cluster_diagrams,
    common,
    diagrams,
    floor_domains,
    fmt,
    operations,
    performance,
    provenance,
)
from archgen.render.blocks import Column, DocumentModel, Figure, Para, Section, Table
from archgen.render.cabling import cabling, run_list
from archgen.render.cluster_bom import appendices
from archgen.render.cluster_fabrics import bisection_text, fabrics, oversubscription
from archgen.render.common import Scope
from archgen.render.compliance import requirements_section, requirements_table
from archgen.render.cost_sheet import cost_sheet
from archgen.render.emit import doc_table, render_document
from archgen.render.rack import elevation_alt, rack_parts
from archgen.render.rack_power import typical_note, typical_text
from archgen.render.rack_weight import at_least, unconfirmed_share, weight_basis
from archgen.render.reference import bom_by_size, growth
from archgen.render.reference import sections as reference_sections
from archgen.render.tables import Mark, bom_data, cluster_marks, marked, plain, unconfirmed_footnote
from archgen.render.wiring import figures as wiring_figures
from archgen.render.wiring import portmap_table
from archgen.render.wiring import section as wiring_section


def cluster_scope(result: Any, a: Any, revision: str | None, date: str | None) -> tuple[Scope, dict[str, int]]:
    """Parts used by the cluster (rack types' parts, fabric switches, links) and the subjects of its findings.

    The subjects include the workloads that run on the cluster, so that their findings (PERF, REL, REQ on their
    requirements) count in the document's status, validation report and open items as in its compliance matrix,
    and the `Prices` lists that price a part or rack of its bill of materials (COST004 on a list whose price the
    capex reads, or passes over for another list's), which enter its input digest and revision too.
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
    # the price lists that price a part or rack of its bill of materials: its capex reads them (or chose another)
    billed = {line.part for line in getattr(cab, "bom", ())} | set(cluster.rack_counts)
    lists = [d for d in lists_for(specs, cluster.spec.id) if billed & set(d.prices)]   # its own proposal's
    docs = [cluster.spec, *parts.values(), *(r.spec for r in cluster.rack_types.values()), *lists]
    if cluster.facility is not None:
        docs.append(cluster.facility)
    if revision is None:
        revision = provenance.git_revision([specs.sources[d.id].file for d in docs if d.id in specs.sources])
    workloads = {path for path, w in result.workloads.items() if w.workload.cluster == cluster.spec.id}
    under = tuple(f"{path}/" for path in (cluster.path, *sorted(workloads)))
    subjects = {cluster.path, cluster.spec.id, *(fa.fabric.path for fa in a.fabrics), *workloads,
                *(f.object for f in result.findings if f.object.startswith(under)),
                *(f"rack/{rid}" for rid in cluster.rack_counts), *(f"part/{p}" for p in parts),
                *(f"prices/{d.id}" for d in lists),
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
    sections = [abstract(scope, a), common.conventions(), requirements_section(scope),
                common.components_section(scope, counts),
                architecture(a, series, cluster_marks(a, scope.run.design.specs, scope.run.racks)("network_power")),
                rack_types(scope, a), power_cooling(scope, a), fabrics(scope, a)]
    if a.cabling is not None:
        sections += [cabling(a)] + ([wiring_section(a, pm)] if pm is not None else [])
    sections += reference_sections(scope, a, series)
    perf = performance.section(performance.workloads_for(scope.run, spec.id), scope.run.operations.unsettled)
    missing = [] if perf is not None else ["Performance: no workload runs on this cluster."]
    missing += cluster_bom_gaps(a)
    if perf is not None:
        sections.append(perf)
    sections += [s for s in (operations.reliability_section(scope.run, a), operations.cost_section(scope.run, a)) if s]
    missing += operations.open_items(scope.run, a)
    sections += [common.validation_section(scope), common.open_items_section(scope, missing), appendices(scope, a)]
    return DocumentModel(spec.id, "cluster", title, control, sections,
                         show_prices=spec.document.show_prices).number()


def abstract(scope: Scope, a: Any) -> Section:
    """Abstract and key metrics."""
    spec, m = a.cluster.spec, scope.metrics
    loose = unracked_words(m)   # switches in no rack: their rack space is in no figure (COST007)
    specs = scope.run.design.specs
    parts = cluster_power_parts(a, specs).values()   # what its power sums (REQ005's): "(unconfirmed)" as they are
    mark = cluster_marks(a, specs, scope.run.racks)
    it, loss, net, optics = (fmt.cell(mark(k)(m.get(k)), "kW", 1)
                             for k in ("it_power", "shelf_loss", "network_power", "optics_power"))
    lead = (f"{spec.name or spec.id}: {a.accelerators:,} accelerators in {a.node_count:,} nodes and "
            f"{a.cluster.rack_total:,} racks{f' ({loose})' if loose else ''}, with "
            f"{len(a.fabrics)} fabric(s). IT power at the rack feeds {it}, of which network {net} and "
            f"optics {optics}.")
    section = Section("abstract", "Abstract and key metrics").add(Para(lead, "lead"))
    if spec.description:
        section.add(Para(spec.description))
    rows = [("Accelerators", a.accelerators), ("Nodes", a.node_count),
            ("Racks", f"{a.cluster.rack_total:,} ({loose})" if loose else a.cluster.rack_total),
            ("IT power at the rack feeds (racks + optics + unplaced switches + shelf loss"
             f"{' + checkpoint storage' if storage_draw(a).m else ''})", it),
            ("Power-shelf loss (in IT power at the rack feeds)", loss if _shelved(scope, a) else
             "not applicable (no power shelves: PSUs in the systems and switches, their loss in their draw)"),
            ("IT power at the rack feeds (typical, for energy)",
             fmt.cell(mark("it_power_typical")(m.get("it_power_typical")), "kW", 1)
             + typical_note(m.get("it_power"), m.get("it_power_typical"), a.typical_from_max)),
            ("Network power (switches and optics)", net),
            ("Links", m["links"].magnitude if "links" in m else None)]
    if a.scale_up is not None:
        rows.append(("Scale-up domains × size", f"{a.scale_up.domains:,} × {a.scale_up.size}"))
    for fa in a.fabrics:
        over = oversubscription(fa)
        rows.append((f"Fabric {fa.fabric.spec.id}", f"{fa.tiers_used} tier(s), {fa.planes} plane(s), "
                     f"{bisection_text(fa)}, oversubscription as used "
                     f"{over if isinstance(over, str) else f'{over:.2f}:1'}"))
    section.add(Table("key-metrics", "Key metrics", (Column("Metric"), Column("Value")), tuple(rows)))
    if note := unconfirmed_footnote(CLUSTER_MARKED, parts, specs):
        section.add(Para(note))
    return section


def _shelved(scope: Scope, a: Any) -> bool:
    """Whether a rack of the cluster converts its feeds in power shelves: else it has no shelf loss to show."""
    racks = (scope.run.racks.get(f"rack/{rid}") for rid in a.cluster.rack_counts)
    return any(r is not None and r.rack.spec.power.shelves is not None for r in racks)


#: The figures a cluster document marks "(unconfirmed)" where a draw they sum is (`tables.unconfirmed_footnote`).
CLUSTER_MARKED = ("the IT power at the rack feeds, at maximum and typical draw, and the network, optics and "
                  "power-shelf loss in it (here and in Power and cooling), the network power by fabric and at each "
                  "size of the growth table, each rack type's IT power, input power and heat (Rack design, Power and "
                  "cooling), what the design needs from the hall and the facility's power, energy, carbon and water "
                  "built on it (Data-centre requirements)")


def architecture(a: Any, series: Scaling | None = None, network: Mark = plain) -> Section:
    """Units, rack types and the scaling table per fabric tier; the growth of the design; the floor plan.

    `network`: the `Mark` of its network power (`tables.cluster_marks`), which the growth table shows at each size.
    """
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
        gone = withheld_tiers(fa)   # an infeasible tier's wiring (`network.infeasible`)
        for t in fa.tiers:
            rows.append((fa.fabric.spec.id, t.name, t.switch.id if t.switch else "—", t.switches * fa.planes,
                         t.ports, t.cabled, t.down, t.up,
                         "not provided" if t.name in gone else t.ports_used * fa.planes, oversubscription(fa, t.name)))
    cols = (Column("Fabric"), Column("Tier"), Column("Switch"), Column("Switches", digits=0, align="right"),
            Column("Radix (ports)", digits=0, align="right"), Column("As cabled"),
            Column("Down", digits=0, align="right"), Column("Up", digits=0, align="right"),
            Column("Ports used", digits=0, align="right"),
            Column("Oversubscription as used (down ports in use : up, fullest switch)", digits=2, align="right"))
    section.add(Table("scaling", "Scaling table: switches per fabric tier", cols, tuple(rows)))
    if series is not None and series.points and series.fabric:
        section.sub("growth", "Growth of the design", *growth(series, network))
    if c.instances:
        f = c.spec.floor
        section.add(Figure("fig-floor", "floor", f"Floor plan in metres: {len(c.instances)} racks by row, coloured "
                                                 f"by rack type (the same colour in every document of this render); "
                                                 f"rack pitch {fmt.q(f.rack_pitch, 'm', 2)}, row pitch "
                                                 f"{fmt.q(f.row_pitch, 'm', 2)}; aisles alternate cold and hot "
                                                 f"(rows assumed to face each other in pairs)"
                                                 + floor_domains.domain_words(a)
                                                 + (f"; the site's {len(f.halls)} halls "
                                                    f"({', '.join(h.id for h in f.halls)}) drawn one after another, "
                                                    "not at their site positions (runs are measured at those)"
                                                    if f.halls else "")
                                                 + (f"; {loose}: not drawn, no position holds them"
                                                    if (loose := unracked_words(a.metrics)) else ""),
                           alt_text.floor(a)))
    return section


def _rack_mix(members: Any) -> str:
    """A unit's racks by type, each type once in the order it first stands ('8 × gb300-nvl72, 2 × gb300-su-ib')."""
    counts: Counter[str] = Counter()
    for rid, n in members:
        counts[rid] += n
    return ", ".join(f"{n} × {rid}" for rid, n in counts.items())


def rack_types(scope: Scope, a: Any) -> Section:
    """Each rack type with its count and per-rack figures; elevations of each type."""
    rows, shares = [], cluster_rack_shares(a, scope.run.racks, scope.run.design.specs)   # `tables.marked`
    section = Section("rack-types", "Rack design")
    for rid, n in sorted(a.cluster.rack_counts.items()):
        r = scope.run.racks.get(f"rack/{rid}")
        if r is None:
            continue
        share = shares[r.rack.path]
        rows.append((rid, n, r.space.used, marked(share.it)(r.power.it_power),
                     marked(share.liquid)(r.cooling.heat_liquid), marked(share.air)(r.cooling.heat_air),
                     unconfirmed_share(r.space)(r.space.weight), unconfirmed_share(r.space, True)(r.space.floor_load)))
    cols = (Column("Rack type"), Column("Count", digits=0, align="right"), Column("U used", digits=0, align="right"),
            Column("IT power at the equipment", "kW", 1, "right"), Column("Heat to liquid", "kW", 1, "right"),
            Column("Heat to air", "kW", 1, "right"), Column("Weight", "kg", 0, "right"),
            Column("Floor load", "kg/m**2", 0, "right"))
    section.add(Para("Per-rack figures; each rack type has its own rack document with the full power and cooling "
                     "budget."), Table("rack-types", "Rack types", cols, tuple(rows)),
                Para(weight_basis([(rid, scope.run.racks[f"rack/{rid}"].space) for rid, *_ in rows])))
    for rid, *_ in rows:
        section.add(Figure(f"fig-elevation-{rid}", f"elevation-{rid}", f"Elevation of rack type {rid}",
                           elevation_alt(scope.run.racks[f"rack/{rid}"])))
    return section


def power_cooling(scope: Scope, a: Any) -> Section:
    """Power and heat per rack type times its count, network and optics power."""
    rows: list[tuple] = []
    by_type = rack_heat_by_type(a, scope.run.racks)   # each instance with its own optics, as COOL009 counts them
    shares = {path.removeprefix("rack/"): s
              for path, s in cluster_rack_shares(a, scope.run.racks, scope.run.design.specs).items()}
    for rid, n in sorted(a.cluster.rack_counts.items()):
        if (h := by_type.get(rid)) is not None:
            rows.append((rid, n, h.it_power, h.total, h.liquid, h.air))
    kinds = ("it", "it", "liquid", "air")   # the share each column carries: input power and heat as the IT power's
    marked_rows = [(rid, n, *(marked(getattr(shares[rid], k))(v) for k, v in zip(kinds, figures, strict=True)))
                   for rid, n, *figures in rows]
    if rows:
        total = [sum(col[1:], col[0]) for col in list(zip(*rows, strict=True))[2:]]
        marked_rows.append(("All racks", sum(r[1] for r in rows), *(
            marked(summed((v.m_as("kW"), getattr(shares[r[0]], k)) for r in rows for v in (r[2 + i],)))(t)
            for i, (k, t) in enumerate(zip(kinds, total, strict=True)))))
    dark_types, dark_tiers = dark_ends(a)   # racks holding ends of links without media (CAB003): lower bounds
    rows = at_least(marked_rows, dark_types)
    cols = (Column("Rack type"), Column("Racks", digits=0, align="right"),
            Column("IT power at the equipment", "kW", 1, "right"), Column("Input power at the rack feeds", "kW", 1,
                                                                         "right"),
            Column("Heat to liquid", "kW", 1, "right"),
            Column("Heat to air", "kW", 1, "right"))
    section = Section("power", "Power and cooling").add(
        Para("Rack figures summed over the racks of each type, each rack with the transceivers in its own "
             "switches' ports (the heat the data-centre requirements and the hall's checks count; a rack "
             "document's budget is its type's most loaded rack). IT power at the equipment is the parts' maximum "
             "draw at their own inputs (a shelf-fed part's at the DC busbar); input power at the rack feeds adds "
             "the power shelves' losses. The cluster's IT power at the rack feeds counts each transceiver once, and "
             "switches outside any rack."),
        Table("power-by-rack", "Power and heat by rack type", cols, tuple(rows)),
        *([Para("Rows reading \"at least\" leave out the optics at the ends of links without link media (CAB003) "
                "that their racks hold, whose draw is unknown until the links name their media: " + ", ".join(
                    f"fabric {f} {said(t)} x{n:,}" for f, t, n in dark_tiers) + ".")] if dark_types else []),
        Para(typical_text(cluster_marks(a, scope.run.design.specs, scope.run.racks)("it_power_typical")(
            scope.metrics.get("it_power_typical")), a.typical_from_max, at_feeds=True)))
    net = getattr(a.cabling, "network_power", {}) or {}
    if net:
        specs = scope.run.design.specs   # how much of each fabric's figures is unconfirmed (`tables.marked`)
        dark = {t.fabric: f"{said(t.tier)} x{t.links:,}" for t in a.cabling.tiers if t.no_media}   # CAB003
        nrows = [(fid, *((marked(fabric_share(a, fid, specs))(p),
                          marked(fabric_share(a, fid, specs, True))(_fabric_metric(a, fid, "optics_power")))
                         if fid not in dark else (NOT_PROVIDED,) * 2))
                 if fid != "scale_up" else ("scale-up domain (its cables' optics; its switches are compute)",
                                            *(marked(fabric_share(a, fid, specs))(p),) * 2)
                 for fid, p in sorted(net.items())]
        if (surplus := surplus_switch_power(a)).magnitude:   # in the cluster's network power, in no fabric's
            nrows.append(("switches placed beyond the fabrics (NET017)", surplus, None))
        section.add(Table("network-power", "Network power by fabric (switches and optics)",
                          (Column("Fabric"), Column("Network power", "kW", 2, "right"),
                           Column("Of which optics", "kW", 2, "right")), tuple(nrows)))
        if dark:   # the switches and the other tiers' optics are a floor, not the fabric's figure
            section.add(Para("Not provided where a tier's links name no link media (CAB003), whose transceivers' "
                             "draw is unknown: " + "; ".join(
                                 f"fabric {fid} ({dark[fid]} links), at least {fmt.q(net[fid], 'kW', 2)} of its "
                                 "switches and other tiers' optics" for fid in sorted(dark) if fid in net) + "."))
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
    tables = {"bom.csv": bom_data(doc_table(doc, "bom")), "requirements.csv": requirements_table(scope)}
    if a.cabling is not None and pm is not None and {"csv", "xlsx"} & set(formats):
        tables["cabling.csv"], tables["portmap.csv"] = run_list(a), portmap_table(pm, a)
    if (by_size := bom_by_size(series)) is not None:
        tables["bom-by-size.csv"] = by_size
    cost = result.operations.cost.get(a.cluster.path)   # every input and step of the TCO, formulas in the workbook
    jobs = tuple(r.workload.id for r in performance.workloads_for(result, a.cluster.spec.id))
    whose = result.operations.goodput_job.get(a.cluster.path, "")   # the goodput per goodput hour is this job's
    if cost is not None and (sheet := cost_sheet(cost, a, result.metrics, jobs, whose)) is not None:
        tables["cost.csv"] = sheet
    return render_document(doc, figures, tables, formats, templates, step, edition)
