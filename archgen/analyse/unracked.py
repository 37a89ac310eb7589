"""The switches a cluster's bill of materials places in no rack, counted with the rack space they need.

A fabric tier that names no `rack:`, or whose racks hold fewer of its switches than it needs (NET012), leaves those
switches on the bill of materials as a line "not placed in a rack" (`bom.UNRACKED`). Their draw is in the cluster's
IT power (`bom.unplaced_power`); their rack positions are in no figure: not in the layout's `racks`, the floor plan,
the space cost (racks × rent) or the capex's enclosures and PDUs (COST007). newuser48's 16,128-GPU GB300 hall left
320 Q3400 so, and only a warning said it.

archgen does not add racks for them: which rack type holds them, where it stands on the floor and what feeds and cools
it are the design's to state, and a rack invented here would put a floor position, a rent and an enclosure price
into the figures that no input gives. It counts what is missing instead, so that the hall's figures say it beside
the racks and the space cost: the switches (`unracked_switches`) and the rack units they take, each switch's
datasheet height × its count (`unracked_switch_space`, 0 where every switch stands in a rack).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from archgen.analyse.bom import UNRACKED
from archgen.analyse.bom_line import BomLine
from archgen.analyse.nodes import count
from archgen.display import number
from archgen.units import Q_, Q
from archgen.validate import Specs


def unracked_metrics(specs: Specs, bom: Sequence[BomLine]) -> dict[str, Q]:
    """`unracked_switches` and `unracked_switch_space` (U) of a cluster's `bom` (`specs`: the parts by id)."""
    lines = [line for line in bom if line.note == UNRACKED]
    space = Q_(0, "U")
    for line in lines:
        height = getattr(getattr(specs.get(line.part), "mechanical", None), "height", None)
        if height is not None:   # every switch states one (`Switch.mechanical` is required)
            space = space + height * line.quantity
    return {"unracked_switches": count(sum(line.quantity for line in lines)), "unracked_switch_space": space.to("U")}


def unracked_words(metrics: Mapping[str, Q]) -> str:
    """'not placed: 320 switches, 1,280 U in no rack (COST007)', or "" where every switch stands in a rack."""
    n = metrics.get("unracked_switches")
    if n is None or not n.m:
        return ""
    space = metrics.get("unracked_switch_space")
    units = f", {number(space.m_as('U'), 0)} U" if space is not None else ""
    return f"not placed: {number(n.m, 0)} switch{'es' * (n.m != 1)}{units} in no rack (COST007)"
