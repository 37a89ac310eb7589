"""The liquid parts of a rack's bill of materials: manifolds, quick disconnects and the hoses to the CDU.

A liquid-cooled rack (one with a `cooling.liquid` path and a placed system or switch with a `liquid_fraction`) needs
all three, whatever its CDU: the rack's supply and return manifolds, a quick-disconnect coupling at each end of every
tray's cold-plate loop, and the hoses that join the manifolds to the CDU's line. Its spec names the catalog parts
(`Accessory`) and the counts: `manifold` and `hoses` per rack, `quick_disconnects` per liquid-cooled tray, so n trays
take n × `per_tray`. A field left out is a line that says "not provided", never a silent zero; capex leaves such a
line out and the document's open items say so (`liquid_gaps`).
"""

from __future__ import annotations

from archgen.analyse.bom_line import BomLine
from archgen.build import RackDesign
from archgen.build.racks import FITTINGS
from archgen.model import Switch, System

#: Part id and name of the line that stands for each liquid path field the rack does not state.
NOT_PROVIDED = {
    "manifold": ("liquid-manifold", "Rack liquid manifolds (supply and return)"),
    "quick_disconnects": ("liquid-quick-disconnect", "Quick-disconnect couplings, tray to manifold"),
    "hoses": ("liquid-cdu-hose", "Hoses, rack manifolds to the CDU line"),
}


def liquid_trays(rack: RackDesign) -> int:
    """Placed systems and switches that reject heat to liquid (a `cooling.liquid_fraction` above 0)."""
    return sum(1 for p in rack.items if isinstance(p.part, System | Switch) and p.part.cooling.liquid_fraction > 0)


def unstated(rack: RackDesign) -> list[str]:
    """The liquid path's part fields a liquid-cooled rack leaves out (none for a rack without liquid-cooled trays)."""
    path = rack.spec.cooling.liquid
    if path is None or not liquid_trays(rack):
        return []
    return [field for field in FITTINGS if getattr(path, field) is None]


def liquid_lines(rack: RackDesign) -> list[BomLine]:
    """The liquid parts of one rack by the module docstring's rule: counted where stated, else "not provided"."""
    path = rack.spec.cooling.liquid
    trays = liquid_trays(rack)
    if path is None or not trays:
        return []
    lines = []
    for field in FITTINGS:
        stated, part = getattr(path, field), rack.fitting(field)
        if stated is None:
            pid, name = NOT_PROVIDED[field]
            lines.append(BomLine(pid, "Accessory", 0, None, f"not provided: the rack states no "
                                 f"`cooling.liquid.{field}` ({trays} liquid-cooled trays per rack)", name=name,
                                 provided=False))
        elif part is not None:   # a part that does not resolve is REF001's
            if field == "quick_disconnects":
                count, note = trays * stated.per_tray, f"{stated.per_tray} per liquid-cooled tray x {trays} trays"
            else:
                count, note = stated.count, f"{stated.count} per rack (`cooling.liquid.{field}`)"
            lines.append(BomLine(part.id, "Accessory", count, None, note, name=part.name))
    return lines


def liquid_gaps(rack: RackDesign) -> list[str]:
    """The open item of a liquid-cooled rack whose spec leaves liquid parts out, or none."""
    missing = unstated(rack)
    if not missing:
        return []
    fields = ", ".join(f"`{f}`" for f in missing)
    return [f"Liquid parts of rack {rack.spec.id} are not provided: its `cooling.liquid` states no {fields}, so the "
            f"bill of materials lists them as not provided and capex leaves them out; name catalog Accessory parts "
            f"there (docs/rendering.md, Bill of materials)."]
