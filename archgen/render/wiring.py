"""The cluster document's "Rail wiring and port map" section, its port map file and the rail wiring diagram.

The port map is written as portmap.csv and as a sheet of the workbook.

Renderers of `archgen.analyse.portmap.PortMap`: one row per physical cable with both ends' rack, U, device and port,
the same cables the BOM counts. The diagram draws one rail group of a rail-optimised fat tree: each node of the
group's first scale-up domain (or its first nodes) on the left, the group's leaves on the right, one line per node
port coloured by the port's index on the node, so an installer sees which NIC port goes to which leaf.
"""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from archgen.analyse.bom_line import NOT_PROVIDED
from archgen.analyse.portmap import PortMap
from archgen.render.blocks import Bullets, Column, Para, Section, Table
from archgen.render.cluster_diagrams import PALETTE

TIER_TITLES = {"access": "endpoint to leaf", "leaf_spine": "leaf to spine", "spine_core": "spine to core",
               "trunk": "switch to switch between the racks of a scale-up domain"}


def tier_title(fabric: str, tier: str) -> str:
    """A cabling tier in words; a scale-up domain's `access` tier is accelerator to switch, not endpoint to leaf."""
    if (fabric, tier) == ("scale_up", "access"):
        return "accelerator to switch of a scale-up domain"
    return TIER_TITLES.get(tier, tier)


#: Rows of each fabric tier the document shows; the port map file holds them all.
EXCERPT_ROWS = 4
#: Most nodes one rail wiring diagram draws (the first of the group, in floor order).
MAX_DIAGRAM_NODES = 18

PORTMAP_COLUMNS = (Column("Cable"), Column("Fabric"), Column("Tier"), Column("A rack"), Column("A U", digits=0),
                   Column("A part"), Column("A device"), Column("A port"), Column("B rack"),
                   Column("B U", digits=0), Column("B part"), Column("B device"), Column("B port"), Column("Media"),
                   Column("Links", digits=0), Column("Run length", "m", 1), Column("Ordered length", "m", 1),
                   Column("Cable part"), Column("Note"))


def _row(r: Any, parts: dict[tuple[str, int], str]) -> tuple:
    a, b = r.a, r.b   # a split end's U through `_u`, the others' as they are (no call per end: 393,216 rows)
    return (r.id, r.fabric, tier_title(r.fabric, r.tier), a.rack, _u(a) if a.legs else a.u, _part(a, parts),
            a.device, a.port, b.rack, _u(b) if b.legs else b.u, _part(b, parts), b.device, b.port, r.media, r.links,
            r.length, r.ordered, r.cable, r.note or "—")


def _u(e: Any) -> int | str | None:
    """An end's U cell: its one U, or a split end's at several U each of its devices', " + " between."""
    if e.u is not None:
        return e.u
    us = _us(e)
    return " + ".join("—" if u is None else str(u) for u in us) if us else None


def _us(e: Any) -> tuple[int | None, ...]:
    """An end's U: its one, or a split end's at several U each of its devices' (None: not placed); () if none."""
    if e.u is not None:
        return (e.u,)
    return e.leg_u if any(u is not None for u in e.leg_u) else ()


def parts_by_u(a: Any) -> dict[tuple[str, int], str]:
    """The part at each (rack instance, U) of the cluster `a`: the label its rack type's elevation gives that U."""
    return {(inst.name, item.u): item.part.id for inst in a.cluster.instances for item in inst.rack.items
            if item.u is not None}


def _part(e: Any, parts: dict[tuple[str, int], str]) -> str:
    """The part at an end's rack and U, as the elevation labels it ('—' where the end has no U).

    A split end at several U: the parts at its legs' racks and U, each once, " + " between.
    """
    if e.u is None and e.legs:
        return _leg_parts(e.legs, parts)
    return parts.get((e.rack, e.u), "—") if e.u is not None else "—"


def _leg_parts(legs: Any, parts: dict[tuple[str, int], str]) -> str:
    """The parts at split legs' racks and U, each once.

    Apart from `_part`: a generator reading `parts` there makes it a closure cell on every call (60 % slower).
    """
    return " + ".join(dict.fromkeys(parts.get((leg.rack, leg.u), "—") for leg in legs if leg.u is not None)) or "—"


def portmap_table(pm: PortMap, a: Any) -> Table:
    """Every cable of the port map, one row each (portmap.csv and the workbook's 'portmap' sheet).

    Each end names the part at its rack and U beside the device, so a row matches the rack's elevation (which labels
    parts, one drawing per rack type) without counting U.
    """
    parts = parts_by_u(a)
    return Table("portmap", "Port map: one row per cable", PORTMAP_COLUMNS, tuple(_row(r, parts) for r in pm.rows))


def _end(e: Any, parts: dict[tuple[str, int], str]) -> str:
    """One end in words, for the document's excerpt: rack, U and the part there, device, port."""
    part, us = _part(e, parts), _us(e)
    at = " + ".join("—" if u is None else f"U{u}" for u in us)   # a split end's at several U: each device's
    where = f"{e.rack} {at}" + (f" ({part})" if part != "—" else "") if us else e.rack
    return f"{where}, {e.device}" + (f" port {e.port}" if e.port not in ("", "—") else "")


def rail_fabrics(a: Any) -> list[Any]:
    """The rail-optimised fat trees of the cluster that have rail groups (the ones a rail diagram applies to)."""
    return [fa for fa in a.fabrics if fa.topology == "fat-tree" and getattr(fa.fabric.spec, "rail_optimized", False)
            and fa.leaves_per_group and fa.rails]


def section(a: Any, pm: PortMap) -> Section:
    """Rail wiring diagrams, cables per fabric tier as the port map lists them, and an excerpt of the map."""
    cab = a.cabling
    phys = {(t.fabric, t.tier): t.physical if not t.no_media else NOT_PROVIDED for t in cab.tiers}   # CAB003
    listed = pm.by_tier()
    counts = [(fid, tier_title(fid, tier), listed.get((fid, tier), 0), n)
              for (fid, tier), n in phys.items() if fid not in pm.unwired]
    out = Section("wiring", "Rail wiring and port map")
    if not counts:
        return out.add(Para("No fabric of the design is wired port by port (only a buildable fat tree is), so "
                            "there is no port map; the links are counted in the bill of materials."),
                       Bullets(tuple(f"Fabric {fid}: {_why_unwired(a, fid).removeprefix('but ')}"
                                     for fid in pm.unwired)))
    out.add(
        Para("The port map lists every physical cable with both ends: rack, rack unit (U), the part there (as the "
             "rack type's elevation labels it), device and port, the "
             "media and the run length with the length to order, and the cable part to order: the bill of "
             "materials line it is counted in (an optical cable's fibre patch cord, a copper cable's assembly). "
             "Switch ports are numbered 1 to the switch's radix "
             "at the tier's line rate, ports to the tier below first and uplinks after them; a port split into "
             "lanes is written cage/lane, and so is a port of a cage that holds two (a twin-port OSFP cage: cage/1 "
             "and cage/2). A node's ports are numbered in the order of its network adapters of that "
             "role. The port map is delivered with this document as portmap.csv and as the 'portmap' sheet of the "
             "workbook; the table below counts its rows, which are the cables of the bill of materials."),
        Table("portmap-counts", "Cables per fabric tier: port map rows and bill of materials",
              (Column("Fabric"), Column("Tier"), Column("Port map rows", digits=0, align="right"),
               Column("Cables in the BOM", digits=0, align="right")), tuple(counts)))
    fibres = pm.rack_fibres()
    if fibres:
        unstated = sum(n for *_, n in fibres)
        out.sub("rack-fibres", "Fibres leaving each rack",
                Para("The fibre strands leaving each rack, to size the trunks and patch panels of structured cabling: "
                     "each optical cable whose other end is in another rack counts its part's lit fibres (NVIDIA: 8 "
                     "of an MPO-12 cord's 12, 2 of a duplex LC; a 1:2 splitter's legs 4 each), from portmap.csv. "
                     + (f"{unstated} cable ends have a part that states no fibre count: they are counted as cables "
                        "and their strands are not provided. " if unstated else "")
                     + "Spare strands, trunk fibre counts and patch panels are not modelled."),
                Para("Racks of one type with the same counts, one after another among that type's racks in the "
                     "layout, share a row: its first and last rack, how many racks of the type it holds, and the "
                     "counts of each."),
                Table("rack-fibres", "Optical cables and fibres leaving each rack", (
                    Column("Racks"), Column("Rack type"), Column("Number of racks", digits=0, align="right"),
                    Column("Optical cables", digits=0, align="right"), Column("Fibres", digits=0, align="right"),
                    Column("Cables, fibre count not stated", digits=0, align="right")), fibre_runs(a, fibres)))
    if any(r.tier == "trunk" for r in pm.rows):
        out.add(Para("The scale-up trunk cables join the switch trays of the racks of one multi-rack scale-up domain "
                     "(fabric scale_up, tier trunk): the k-th cable between two racks joins their k-th switch trays "
                     "from the bottom, as the model spreads the trunk links evenly over a rack's trays; no "
                     "tray-to-tray plan or front-panel port numbering is published, so their ports read 'not "
                     "provided', and each length is measured between the two trays the row names."))
    for fa in rail_fabrics(a):
        fid = fa.fabric.spec.id
        out.add(Para(f"Fabric {fid} is rail-optimised: port r of every scale-up domain in a rail group "
                     f"({fa.rails} rails, {fa.leaves_per_group} leaves per group and plane) lands on leaf r mod "
                     f"{fa.leaves_per_group} of its group, so a node's ports reach different leaves and traffic "
                     "on one rail stays one switch away from the same rail of every other domain in the group."),
                _figure(fid, fa))
    if pm.unwired:
        out.add(Bullets(tuple(f"Fabric {fid}: not in the port map; its links are counted in the bill of materials, "
                              + _why_unwired(a, fid) for fid in pm.unwired)))
    shown: dict[tuple[str, str], int] = {}
    noted: set[tuple[str, str, str]] = set()
    excerpt, parts = [], parts_by_u(a)
    for r in pm.rows:
        key = (r.fabric, r.tier)
        first_of_note = bool(r.note) and (r.fabric, r.tier, r.note) not in noted
        if shown.get(key, 0) < EXCERPT_ROWS or first_of_note:
            shown[key] = shown.get(key, 0) + 1
            noted.add((r.fabric, r.tier, r.note))
            excerpt.append((r.id, _end(r.a, parts), _end(r.b, parts), r.media, r.links, r.ordered, r.note or "—"))
    if excerpt:
        out.sub("portmap-excerpt", "Port map excerpt",
                Para(f"The first {EXCERPT_ROWS} cables of each fabric tier, and the first cable of each kind a note "
                     "sets apart (an end the design does not place, and how its length is taken); every cable is in "
                     "portmap.csv."),
                Table("portmap-excerpt", "Port map excerpt (first cables of each fabric tier)", (
                    Column("Cable"), Column("A end (rack, U (part), device, port)"),
                    Column("B end (rack, U (part), device, port)"),
                    Column("Media"), Column("Links", digits=0, align="right"),
                    Column("Ordered length", "m", 1, "right"), Column("Note")), tuple(excerpt)))
    return out


def fibre_runs(a: Any, fibres: list[tuple[str, int, int, int]]) -> tuple[tuple, ...]:
    """`PortMap.rack_fibres` as rows of the document's table, a run of alike racks on one row.

    A run: racks of one type that follow each other among that type's racks in the layout, each with the same
    (cables, fibres, cables not stated); a rack of the type with no optical cable leaving it ends the run, so the
    first and last rack name every rack between. Rows in the order of each run's first rack in the layout:
    (racks, rack type, count, cables, fibres, not stated). bigrender38: the 131,072-GPU bench cluster's 5,376 racks
    made 5,376 rows (238 kB of its Markdown), which fall to 10 with the same counts for every rack.
    """
    counts = {rack: tuple(rest) for rack, *rest in fibres}
    runs: list[list] = []   # [first rack, last rack, rack type, count, counts of each]
    open_runs: dict[str, list | None] = {}
    for inst in a.cluster.instances:
        kind, these = inst.rack.spec.id, counts.pop(inst.name, None)
        run = open_runs.get(kind)
        if these is not None and run is not None and run[4] == these:
            run[1], run[3] = inst.name, run[3] + 1
        else:
            open_runs[kind] = run = None if these is None else [inst.name, inst.name, kind, 1, these]
            runs += [run] if run else []
    return (tuple((first if n == 1 else f"{first} to {last}", kind, n, *these) for first, last, kind, n, these in runs)
            + tuple((rack, "—", 1, *these) for rack, these in counts.items()))   # a rack not in the layout


def _why_unwired(a: Any, fid: str) -> str:
    fa = next(f for f in a.fabrics if f.fabric.spec.id == fid)
    if fa.topology != "fat-tree":
        return f"but a {fa.topology} fabric has no port-level wiring model."
    return "but its switches cannot build it as specified, so it is not wired (see the validation report)."


def _figure(fid: str, fa: Any) -> Any:
    from archgen.render.blocks import Figure as FigureBlock
    return FigureBlock(f"fig-rails-{fid}", f"rails-{fid}", f"Rail wiring of fabric {fid}: which node port goes to "
                       "which leaf in the first rail group",
                       f"Lines from the node ports of fabric {fid}'s first rail group to its {fa.leaves_per_group} "
                       f"leaves: {fa.rails} rails, port r of every scale-up domain joined to leaf r mod "
                       f"{fa.leaves_per_group}.")


def figures(a: Any, pm: PortMap) -> dict[str, Any]:
    """A rail wiring diagram per rail-optimised fabric, by figure name."""
    return {f"rails-{fa.fabric.spec.id}": (lambda fa=fa: rail_diagram(fa, pm)) for fa in rail_fabrics(a)}


def rail_diagram(fa: Any, pm: PortMap) -> Figure:
    """One rail group: its first nodes (left), its leaves (right), one line per node port coloured by port index.

    A split cable (`End.legs`) is drawn leg by leg: split at the leaf, with its legs at several nodes (perhaps in two
    racks), each leg from its own node to a dot before the leaf; from a node's cage to several planes' leaves, one line
    from the node to a dot and each leg from it to its own leaf. One cable, its legs.
    """
    fid = fa.fabric.spec.id
    # one line per node port: a link's further cords (`links` 0: the same ports) are not drawn again; an end with no
    # U is not placed, unless it is a split cable's legs at several nodes (no one U where they are in two racks)
    rows = [r for r in pm.rows if r.fabric == fid and r.tier == "access" and (r.a.u is not None or r.a.legs)
            and r.links]
    nodes: list[tuple[str, str]] = []
    leaves: list[str] = []
    cables: list[list[tuple[int, str, str]]] = []   # each cable's legs: (node, port, leaf)
    for r in rows:
        # a split cable's legs, each from its node (and port) to its leaf; any other cable one line
        at_node = [((leg.rack, leg.device), leg.port) for leg in r.a.legs] or [((r.a.rack, r.a.device), r.a.port)]
        at_leaf = [leg.device for leg in r.b.legs] or [r.b.device]
        new = [node for node in dict.fromkeys(node for node, _ in at_node) if node not in nodes]
        if new and len(nodes) + len(new) > MAX_DIAGRAM_NODES:
            break
        nodes += new
        cables.append([(nodes.index(node), port, leaf) for (node, port), leaf in zip(at_node, at_leaf, strict=True)])
        leaves += [leaf for leaf in dict.fromkeys(at_leaf) if leaf not in leaves]
    leaves.sort()
    ports = sorted({p for legs in cables for _, p, _ in legs}, key=lambda p: (len(p), p))
    height = max(len(nodes), len(leaves), 2)
    fig = Figure(figsize=(7.5, min(1.5 + 0.32 * height, 9.5)))
    ax = fig.subplots()
    ax.set_xlim(-0.5, 3.6)
    ax.set_ylim(-1.2, height)
    ax.axis("off")

    def y(i: int, n: int) -> float:
        return height - 1 - i * (height - 1) / max(n - 1, 1)
    for k, (rack, dev) in enumerate(nodes):
        ax.text(0.9, y(k, len(nodes)), f"{rack.split('/')[-1]} {dev}", ha="right", va="center", fontsize=6.5)
    for k, leaf in enumerate(leaves):
        ax.text(2.1, y(k, len(leaves)), leaf, ha="left", va="center", fontsize=6.5)
    spread = 0.5 * min((height - 1) / max(len(nodes) - 1, 1), (height - 1) / max(len(leaves) - 1, 1))

    def off(port: str) -> float:   # each port index a little apart at both ends, so shared leaves stay visible
        return (ports.index(port) - (len(ports) - 1) / 2) * spread / max(len(ports), 1)
    joins: list[tuple[float, float]] = []
    kinds: dict[str, None] = {}   # the kinds of split cable drawn, for the title
    for legs in cables:
        from_node, to_leaf = None, None   # a split cable's dot: its legs' end (split at the leaf) or start (at a node)
        if len({leaf for *_, leaf in legs}) > 1:   # a node's cage split to several leaves: one line to a dot
            from_node = (1.3, y(legs[0][0], len(nodes)) + off(legs[0][1]))   # each cage its own line and dot
            ax.plot([0.95, from_node[0]], [from_node[1]] * 2, color="black", linewidth=0.8)
            kinds["split to several leaves"] = None
        elif len(legs) > 1:   # a cable split at the leaf, legs at several nodes: they join at a dot, one line on
            to_leaf = (1.6, sum(y(i, len(nodes)) for i, *_ in legs) / len(legs))
            ax.plot([to_leaf[0], 2.05], [to_leaf[1], y(leaves.index(legs[0][2]), len(leaves))], color="black",
                    linewidth=0.8)
            kinds["split at the leaf"] = None
        joins += [dot for dot in (from_node, to_leaf) if dot]
        for node_i, port, leaf in legs:
            k = ports.index(port)
            start = from_node or (0.95, y(node_i, len(nodes)) + off(port))
            end = to_leaf or (2.05, y(leaves.index(leaf), len(leaves)) + off(port))
            ax.plot([start[0], end[0]], [start[1], end[1]], color=PALETTE[k % len(PALETTE)], linewidth=0.8)
    for x, at in joins:
        ax.plot([x], [at], "o", color="black", markersize=2.5)
    step = 3.4 / max(len(ports[:len(PALETTE)]), 1)
    for j in range(min(len(ports), len(PALETTE))):
        ax.plot([-0.3 + step * j, -0.1 + step * j], [-0.8, -0.8], color=PALETTE[j], linewidth=2)
        # the ports of a colour: past the palette's, colours repeat (port 9 of 16: port 1's rail on a second plane)
        alike = ports[j::len(PALETTE)]
        ax.text(-0.3 + step * j, -1.1 - 0.12 * (len(alike) - 1), "\n".join(alike), fontsize=6, va="center")
    ax.set_title(f"Fabric {fid}: node ports to leaves ({len(nodes)} nodes shown"
                 + (f"; a dot joins the legs of a cable {' or '.join(kinds)})" if kinds else ")"), fontsize=8)
    return fig
