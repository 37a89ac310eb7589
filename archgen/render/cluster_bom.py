"""The cluster document's appendices: its bill of materials, reconciled with IT power, glossary and references."""

from __future__ import annotations

from functools import partial
from typing import Any

from archgen.analyse.fibre_cords import ASSUMED
from archgen.analyse.storage_cost import storage_draw
from archgen.analyse.unconfirmed_share import parts_share
from archgen.render import common, fmt, glossary
from archgen.render.blocks import Column, Para, Section, Table
from archgen.render.common import Scope
from archgen.render.tables import bom_name, marked, quantity, unconfirmed_power
from archgen.units import Q_, Q


def appendices(scope: Scope, a: Any) -> Section:
    """Cluster BOM, glossary, sources."""
    specs = scope.run.design.specs
    rows = []
    for line in getattr(a.cabling, "bom", ()):
        part = specs.get(line.part)
        placed = _placed(a, line)   # a rack line sums its placed parts' draws: how much of it is unconfirmed
        mark = marked(parts_share(placed, specs)) if placed else partial(unconfirmed_power, parts=(part,), specs=specs)
        name, number, source = bom_name(line, part)
        note = _note(line) if part is not None and line.note else "—"
        for size, n in line.lengths or ((None, line.quantity),):   # copper: a line per ordered length
            total = line.total_power if size is None or line.total_power is None else \
                line.total_power * n / line.quantity   # its share (node ends drawing inside a system left out)
            tag = ASSUMED if size in line.assumed else ""   # runs of an assumed length in that bin (CAB004)
            bin_note = "" if size is None else f"{note}; {_length(size)} bin{tag}"
            rows.append((line.part, name if size is None else f"{name}, {_length(size)}", number, line.kind,
                         bin_note or note, quantity(line) if size is None else n, *map(mark, (line.unit_power, total)),
                         source))
    cols = (Column("Part"), Column("Name"), Column("Part number"), Column("Kind"), Column("Note"),
            Column("Qty", digits=0, align="right"), Column("Unit power", "kW", 3, "right"),
            Column("Total power", "kW", 1, "right"), Column("Source or rule"))
    section = Section("appendices", "Appendices")
    section.sections += [
        Section("bom", "Bill of materials").add(
            Para("Racks by type (each with the maximum draw of its placed parts, which the following lines "
                 "itemise: do not add both), their placed parts and accessories (power cords, rails, blanking "
                 "panels, and a liquid-cooled rack's manifolds, quick disconnects and CDU hoses, \"not provided\" "
                 "where its spec names none), switches outside racks, link modules, copper cable assemblies by "
                 "ordered length bin (a line per length, as the port map's Ordered length), and one fibre "
                 "patch cord per optical link by length bin; node-end transceivers whose power a system's maximum "
                 "draw already holds are counted but left out of their line's total power. Structured cabling (MPO "
                 "trunks, patch panels) is not modelled. The same table is written as CSV and XLSX."),
            Table("bom", "Bill of materials", cols, tuple(rows)), Para(reconciled(a) + unconfirmed_note(rows))),
        glossary.section(), common.references_section()]
    return section


def reconciled(a: Any) -> str:
    """The BOM's Total power over its part lines (all but the rack lines) against the cluster's IT power.

    They agree where every draw is counted once (node-end modules inside their systems' figure left out); a
    difference is stated, never hidden.
    """
    lines = [line for line in getattr(a.cabling, "bom", ()) if line.kind != "Rack" and line.total_power is not None]
    parts = sum((line.total_power for line in lines if line.kind != "CoolingUnit"), Q_(0, "kW"))
    cdus = sum((line.total_power for line in lines if line.kind == "CoolingUnit"), Q_(0, "kW"))
    it, loss = a.metrics.get("it_power"), a.metrics.get("shelf_loss")
    text = f"The part lines (all but the rack lines) add up to {fmt.q(parts, 'kW', 1)} of total power"
    if cdus.m:   # a CDU's pumps are no IT load (`analyse.cdu_power`)
        text = (f"The part lines (all but the rack and CDU lines: the CDUs' {fmt.q(cdus, 'kW', 1)} is no IT power) "
                f"add up to {fmt.q(parts, 'kW', 1)} of total power")
    if it is None:
        return text + "."
    if loss is not None and loss.m:  # the lines are the parts' own draw; IT power is at the feeds, after the shelves
        parts = (parts + loss).to("kW")
        text += f", {fmt.q(parts, 'kW', 1)} with the power shelves' loss ({fmt.q(loss, 'kW', 1)})"
    stored = storage_draw(a)
    if stored.m:   # on no BOM line: `storage.power` states it (`analyse.storage_cost`)
        parts = (parts + stored).to("kW")
        text += (f", {fmt.q(parts, 'kW', 1)} with the checkpoint storage's maximum draw ({fmt.q(stored, 'kW', 1)}, "
                 "`storage.power`, on no line)")
    gap = (parts - it).to("kW")
    if abs(gap.m_as("kW")) < 0.05:
        return text + f", the cluster's IT power ({fmt.q(it, 'kW', 1)})."
    return text + (f"; the cluster's IT power is {fmt.q(it, 'kW', 1)}, {fmt.q(abs(gap), 'kW', 1)} "
                   f"{'less' if gap.m_as('kW') > 0 else 'more'}: a draw the lines count differently from IT power.")


def unconfirmed_note(rows: list[tuple]) -> str:
    """What the BOM's "(unconfirmed)" power cells are, naming their parts and the total power they hold; "" if none.

    The cluster's IT power and the figures built on it sum those lines: they rest on the parts' estimates as far
    (PWR012 names every such figure; a requirement met on them reads "met (on assumed inputs: ...)", REQ005).
    """
    marked: dict[str, Q] = {}
    for row in rows:
        if isinstance(row[7], fmt.Noted) and row[3] != "Rack":
            marked[row[0]] = marked.get(row[0], Q_(0, "kW")) + row[7].value.to("kW")
    if not marked:
        return ""
    named = ", ".join(f"{part} ({fmt.q(total, 'kW', 1)})" for part, total in sorted(marked.items()))
    racks = ", ".join(row[0] for row in rows if isinstance(row[7], fmt.Noted) and row[3] == "Rack")
    racks = f"; a rack line marked so ({racks}) adds up such parts placed in it" if racks else ""
    return (f" Power marked (unconfirmed) is a draw its part lists as unconfirmed, an estimate and not a published "
            f"figure ({named} of the total power){racks}: the cluster's IT power sums it and rests on it (PWR012).")


def _placed(a: Any, line: Any) -> tuple[Any, ...]:
    """The parts a rack line of the BOM sums (its rack type's placed parts); () for any other line."""
    rack = a.cluster.rack_types.get(line.part) if line.kind == "Rack" else None
    return tuple(item.part for item in rack.items) if rack is not None else ()


def _length(size: float) -> str:
    """'1.5 m', or 'length not known' for a 0 m bin (a tier whose runs are not laid out)."""
    return f"{size:g} m" if size else "length not known"


def _note(line: Any) -> str:
    """A line's note, with its power split and how many of its parts draw inside another line's figure."""
    note = f"{line.note} ({line.split_text})" if line.split_text else line.note
    if not line.in_parent:
        return note
    return f"{note}: {line.in_parent:,} of {line.quantity:,}, left out of Total power"
