"""A rack's accessories in its bill of materials, counted from the placed parts by stated rules, not catalog parts.

A power cord per PSU whose catalog entry gives its PSUs (IEC 60320 pairs: a C14 inlet takes a C13 plug at the PDU,
a C20 a C19), a rail kit per rack-mounted system or switch in an EIA-19 rack (ORv3 frames carry their own
brackets), and a 1U blanking panel per free U on the front face. A liquid-cooled rack's manifolds, quick disconnects
and CDU hoses, and the input cords of a rack's power shelves, are catalog parts its spec names, or lines that say
"not provided" (`analyse.fittings`).

Split from `analyse.bom` for its size (STYLE.md 12): `rack_bom` adds these lines to the placed parts'.
"""

from __future__ import annotations

from collections import Counter

from archgen.analyse.bom_line import BomLine
from archgen.analyse.feeding import busbar_flags
from archgen.analyse.fittings import fitting_lines
from archgen.build import RackDesign
from archgen.model import Switch, System
from archgen.units import Q_

#: The PDU-side plug of a power cord for each IEC 60320 appliance inlet (IEC 60320-1 mating pairs).
PLUG_FOR_INLET = {"C14": "C13", "C20": "C19", "C16": "C15", "C8": "C7", "C6": "C5"}


def power_cord(inlet: str) -> tuple[str, str]:
    """Part id and name of the power cord for a PSU inlet (IEC 60320 pair, or the inlet alone)."""
    plug = PLUG_FOR_INLET.get(inlet.upper())
    if plug:
        return f"power-cord-{plug.lower()}-{inlet.lower()}", f"Power cord, IEC 60320 {plug} to {inlet}"
    return f"power-cord-{inlet.lower()}", f"Power cord to a {inlet} inlet"


#: A power-cord line's note: it counts only the PSUs whose inlet the catalog gives (`cord_gaps` names the others under
#: Open items). newuser66: the GB200 SU's 68 C13-C14 cords read "one per PSU of the parts placed", its SN5600s' and
#: SN4600Cs' cords not among them.
CORD_NOTE = ("one per PSU of the parts placed whose PSU inlet the catalog gives; the others' cords are not counted "
             "(Open items: \"Power cords of ... are not counted\")")


def rack_accessories(rack: RackDesign) -> list[BomLine]:
    """Power cords, rail kits, blanking panels and fittings of one rack, by the rules in the module docstring."""
    cords: Counter[str] = Counter()
    rails = 0
    front: set[int] = set()
    spec = rack.spec
    for item in rack.items:
        part = item.part
        psus = getattr(getattr(part, "power", None), "psus", None)
        if psus is not None and psus.inlet:
            cords[psus.inlet] += psus.count
        if isinstance(part, System | Switch) and item.height and spec.form_factor.standard == "eia-19":
            rails += 1
        depth = getattr(getattr(part, "mechanical", None), "depth", "full")
        if depth == "full" or spec.slots[item.slot].face == "front":
            front.update(range(item.u, item.top + 1))
    lines = []
    for inlet, n in sorted(cords.items()):
        pid, name = power_cord(inlet)
        lines.append(BomLine(pid, "PowerCord", n, None, CORD_NOTE, name=name))
    if rails:
        lines.append(BomLine("rail-kit", "Rails", rails, None, "one per rack-mounted system or switch; the "
                             "vendor's kit for each (part numbers not in the catalog)", name="Rail kit"))
    height = round(spec.form_factor.height.m_as("U"))
    free = height - len({u for u in front if 1 <= u <= height})
    if free > 0:
        lines.append(BomLine("blanking-panel-1u", "Blanking", free, None, "one per free U on the front face, "
                             "against hot-air recirculation", name="Blanking panel, 1U"))
    return lines + fitting_lines(rack)


def cord_gaps(rack: RackDesign) -> list[str]:
    """Open items for placed systems and switches whose power cords the BOM cannot count (no PSU inlet given).

    Racks with power shelves feed their trays from the busbar, so only parts on PDUs need cords, and parts fed from
    outside the rack (`power.external`: a busbar rack's AC management switches, review47). Where the
    PSU rating is given, the item says which IEC 60320 coupler its current needs: C13/C14 are rated 10 A and C19/C20
    16 A (IEC 60320-1), and a PSU's current at the lowest common input voltage, 200 V, is its rating / 200 V.
    """
    out: dict[str, str] = {}
    for item, on_busbar in zip(rack.items, busbar_flags(rack), strict=True):
        part = item.part
        if not isinstance(part, System | Switch) or part.id in out or on_busbar:
            continue
        psus = part.power.psus
        if psus is not None and psus.inlet:
            continue
        if psus is None:
            out[part.id] = (f"Power cords of {part.id} are not counted: the catalog does not give its PSUs and "
                            f"their inlets.")
            continue
        text = f"Power cords of {part.id} are not counted: the catalog does not give its PSU inlet"
        if psus.capacity is not None:
            amps = (psus.capacity / Q_(200, "V")).to("A").magnitude
            coupler = "C19/C20 (16 A)" if amps > 10 else "C13/C14 (10 A)"
            text += (f"; {psus.count} PSUs of {psus.capacity:~P} draw up to {amps:.1f} A each at 200 V, so assume "
                     f"IEC 60320 {coupler} until the datasheet confirms it")
        out[part.id] = text + "."
    return [out[k] for k in sorted(out)]
