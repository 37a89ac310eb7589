"""The parts a rack integrator buys by the rack that no placed part holds: liquid fittings and shelf input cords.

A liquid-cooled rack (one with a `cooling.liquid` path and a placed system or switch with a `liquid_fraction`) needs
three liquid parts, whatever its CDU: the rack's supply and return manifolds, a quick-disconnect coupling at each end
of every tray's cold-plate loop, and the hoses that join the manifolds to the CDU's line. A rack with power shelves
needs an input cord (whip) to each shelf from its feed or PDU. The spec names the catalog parts (`Accessory`) and
the counts: `manifold` and `hoses` per rack, `quick_disconnects` per liquid-cooled tray (n trays take n ×
`per_tray`), `power.shelves.cords` per placed shelf. A field left out is a line that says "not provided", never a
silent zero; capex leaves such a line out and the document's open items say so (`fitting_gaps`).
"""

from __future__ import annotations

from archgen.analyse.bom_line import BomLine
from archgen.build import RackDesign
from archgen.build.racks import FITTINGS
from archgen.model import CoolingUnit, PowerShelf, Switch, System
from archgen.open_item import OpenItem

#: Part id and name of the line that stands for each field the rack does not state.
NOT_PROVIDED = {
    "manifold": ("liquid-manifold", "Rack liquid manifolds (supply and return)"),
    "quick_disconnects": ("liquid-quick-disconnect", "Quick-disconnect couplings, tray to manifold"),
    "hoses": ("liquid-cdu-hose", "Hoses, rack manifolds to the CDU line"),
    "cords": ("shelf-input-cord", "Power shelf input cords (whips)"),
}
#: Where each field is written in a Rack.
FIELD_PATH = {**{f: f"cooling.liquid.{f}" for f in FITTINGS}, "cords": "power.shelves.cords"}


def liquid_trays(rack: RackDesign) -> int:
    """Placed systems and switches that reject heat to liquid (a `cooling.liquid_fraction` above 0)."""
    return sum(1 for p in rack.items if isinstance(p.part, System | Switch) and p.part.cooling.liquid_fraction > 0)


def _needed(rack: RackDesign) -> list[tuple[str, object, int, str]]:
    """(field, what the spec states or None, count, counting note) for each part the rack needs."""
    out: list[tuple[str, object, int, str]] = []
    path, trays = rack.spec.cooling.liquid, liquid_trays(rack)
    if path is not None and trays:
        for field in FITTINGS:
            stated = getattr(path, field)
            if stated is None:
                out.append((field, None, 0, f"{trays} liquid-cooled trays per rack"))
            elif field == "quick_disconnects":
                out.append((field, stated, trays * stated.per_tray,
                            f"{stated.per_tray} per liquid-cooled tray x {trays} trays"))
            else:
                out.append((field, stated, stated.count, f"{stated.count} per rack"))
    shelves = sum(1 for p in rack.items if isinstance(p.part, PowerShelf))
    if shelves:
        cords = rack.spec.power.shelves.cords if rack.spec.power.shelves else None
        per = cords.per_shelf if cords else 0
        out.append(("cords", cords, shelves * per,
                    f"{per} per power shelf x {shelves} shelves" if cords else f"{shelves} power shelves per rack"))
    return out


def fitting_lines(rack: RackDesign) -> list[BomLine]:
    """The rack's fittings and shelf cords by the module docstring's rule: counted where stated, else "not provided"."""
    lines = []
    for field, stated, count, note in _needed(rack):
        part = rack.fitting(field)
        if stated is None:
            pid, name = NOT_PROVIDED[field]
            lines.append(BomLine(pid, "Accessory", 0, None, f"not provided: the rack states no "
                                 f"`{FIELD_PATH[field]}` ({note})", name=name, provided=False))
        elif part is not None:   # a part that does not resolve is REF001's
            lines.append(BomLine(part.id, "Accessory", count, None, note, name=part.name))
    return lines


def fitting_gaps(rack: RackDesign) -> list[str]:
    """The open item of a rack whose spec leaves out parts it needs (liquid fittings, shelf cords), or none."""
    missing = [FIELD_PATH[field] for field, stated, _, _ in _needed(rack) if stated is None]
    if not missing:
        return []
    fields = ", ".join(f"`{f}`" for f in missing)
    return [OpenItem("then", f"Parts of rack {rack.spec.id} are not provided",
                     f"it states no {fields}, so the bill of materials lists them as not provided and capex leaves "
                     "them out", "name catalog Accessory parts there (docs/rendering.md, Bill of materials)")]


def cdu_power_gaps(racks: list[RackDesign]) -> list[str]:
    """Open items for the CDUs of these racks whose catalog entry states no electrical draw (`power`).

    A placed (in-rack) CDU without one draws nothing in its rack's power; an in-row one leaves a cluster's
    `cdu_power` not provided (`analyse.cdu_power`).
    """
    placed = sorted({p.part.id for r in racks for p in r.items
                     if isinstance(p.part, CoolingUnit) and p.part.power is None})
    named = sorted({r.cdu.id for r in racks if r.cdu is not None and r.cdu.power is None} - set(placed))
    what = "The electrical draw of {} (its pumps and controls, `power`) is not stated"
    out: list[str] = [OpenItem("then", what.format(cdu), "the rack's load, input power and heat count the placed unit "
                               "as drawing nothing", "set it from the CDU's datasheet") for cdu in placed]
    return out + [OpenItem("then", what.format(cdu), "no figure counts it (a cluster's `cdu_power` is not provided; "
                           "the facility power's PUE is taken to hold it, unchecked)",
                           "set it from the CDU's datasheet") for cdu in named]
