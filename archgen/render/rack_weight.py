"""A rack's weight and floor load as its documents write them: a lower bound, and how much of it is unconfirmed.

Split from `render.rack` for its size. The figures are `analyse.rack.Space`'s; this module words them: "at least"
where the weight leaves something installed out (`Space.lower_bound`), and "(1,190 kg of it unconfirmed)" where some
of it rests on weights the catalog lists unconfirmed (`Space.unconfirmed`: placeholders, a weight spread from a rack's
total), in the shape a power figure says how much of it rests on unconfirmed draws (newuser106). A rack type's power
and heat that leave out the optics of links without link media read "at least" by the same rule (`at_least`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from archgen.analyse.rack import marked_words
from archgen.render import fmt
from archgen.render.rack_cooling import assumed
from archgen.render.tables import Mark, plain

#: The enclosure's figures the rack's floor load rests on (its weight over its footprint, MECH004).
FLOOR = ("weight", "width", "depth")


def least(space: Any) -> str:
    """'at least ' before a weight or floor load that leaves something installed out (`Space.lower_bound`), else ''."""
    return "at least " if space.lower_bound else ""


def unconfirmed_share(space: Any, floor: bool = False, payload: bool = False) -> Mark:
    """The `Mark` of a rack's weight that says how much of it is unconfirmed: "(1,190 kg of it unconfirmed)".

    `Space.unconfirmed` (the placed parts' weights and the enclosure's that their owners list unconfirmed); of the
    floor load (`floor`), that over the footprint; of the `payload`, the parts' alone. Plain where none is.
    """
    share, unit = (space.unconfirmed_payload if payload else space.unconfirmed), "kg"
    if floor:
        share, unit = share / space.footprint, "kg/m**2"
    if not share.magnitude:
        return plain
    words = f"{fmt.q(share, unit, 0)} of it unconfirmed"
    return lambda value: value if value is None else fmt.noted(value, words)


def weighed(space: Any, floor: bool = False, group: Any = None) -> str:
    """A rack's weight (or, `floor`, its floor load) as a document writes it: "at least 1,205 kg (1,190 kg of it …)".

    "at least" where it is a lower bound (`least`), how much of it is unconfirmed in brackets (`unconfirmed_share`),
    and "assumed" in them where the enclosure (`group`) marks a figure it rests on (`FLOOR`).
    """
    value, unit = (space.floor_load, "kg/m**2") if floor else (space.weight, "kg")
    tagged = assumed(group, *(FLOOR if floor else FLOOR[:1]))
    return least(space) + fmt.cell(tagged(unconfirmed_share(space, floor)(value)), unit, 0)


def coolant_rows(spec: Any, s: Any) -> list[tuple[str, str, str, str]]:
    """The weight table's one coolant row: the filled loop's stated volume, or the parts' where only they state one."""
    liquid = spec.cooling.liquid
    if liquid is None or not s.coolant.magnitude:
        return []
    held = (f"{fmt.q(liquid.coolant_volume, 'L', 0)} of {liquid.coolant}" if liquid.coolant_volume is not None
            else f"the parts' stated volumes of {liquid.coolant}, without the manifolds and hoses")
    return [("Coolant (filled)", f"{fmt.q(s.coolant, 'kg', 0)} ({held})", "—", "—")]


def weight_basis(spaces: list[tuple[str, Any]]) -> str:
    """What a rack's weight and floor load hold and leave out (`analyse.rack.left_out`), for whoever builds or lifts it.

    `spaces` are (rack id, space). The weight is the empty enclosure plus each placed part's stated weight; what is
    installed and not weighed (a part that states no weight, the cables and transceivers in the ports, a liquid
    loop's coolant) makes it a lower bound, said per rack with what it leaves out. newuser66: an ODM read "Weight
    683 kg" of a rack whose four PDUs weigh nothing here, and "Rack weight as installed" with no coolant; review32:
    only a rack with a liquid loop leaves coolant out. weight67: a requirement on a lower bound is not provided.
    newuser106: a weight that rests on placeholder weights names them and how much of it they are (`resting`).
    """
    text = ("Weight is the empty enclosure (where its weight is stated) plus the stated weight of each placed "
            "system, switch, shelf and PDU (rails as the parts' datasheets include them), without blanking panels; "
            "floor load is that weight over the enclosure's footprint.")
    text += "".join(f" {rid}'s weight is filled: it holds its coolant, {fmt.q(s.coolant, 'kg', 0)} (volume x the "
                    "coolant's density); the rated payload is judged on the equipment alone."
                    for rid, s in spaces if getattr(s, "coolant", None) is not None and s.coolant.magnitude)
    bounds = [f" {rid}'s weight, at least {fmt.q(s.weight, 'kg', 0)}, is a lower bound: it leaves out "
              f"{'; '.join(s.left_out)}." for rid, s in spaces if s.left_out]
    text += "".join(resting(rid, s) for rid, s in spaces)
    if not bounds:
        return text + " Every installed part states its weight: the weight is the rack's as installed."
    return (text + "".join(bounds) + " A requirement on the weight or floor load that the lower bound meets is not "
            "provided, never met (REQ002); one it misses is not met.")


def resting(rid: str, s: Any) -> str:
    """' Of r's weight, 1,190 kg rests on weights listed unconfirmed: ...' (`analyse.rack.marked_words`); '' if none."""
    if (share := getattr(s, "unconfirmed", None)) is None or not share.magnitude:
        return ""
    return (f" Of {rid}'s weight, {fmt.q(share, 'kg', 0)} rests on weights listed unconfirmed, placeholders and not "
            f"published figures: {', '.join(marked_words(s))}. It holds only as far as they do; a requirement on the "
            "weight or floor load names them as its assumed inputs.")


def at_least(rows: list[tuple], types: set[str]) -> list[tuple]:
    """`rows` with each figure of a rack type in `types` read "at least" (`optics.dark_ends`), and the total.

    The cluster document's power and heat by rack type, as a weight that leaves something out reads (`least`). A
    zero stays plain (no such heat goes there), and so does a total's column in which every such type's figure is.
    """
    low = [any(_nonzero(row[i]) for row in rows if row[0] in types) for i in range(2, len(rows[0]))] if rows else []
    return [(rid, n, *(_least(v) if (rid in types and _nonzero(v)) or (rid == "All racks" and low[i]) else v
                       for i, v in enumerate(figures)))
            for rid, n, *figures in rows]


def _least(value: Any) -> str:
    """A kW figure's cell as "at least 200.7", its marks after it; the unit is the column's (`blocks.Column`)."""
    bare = replace(value, value=value.value.m_as("kW")) if isinstance(value, fmt.Noted) else value.m_as("kW")
    return f"at least {fmt.cell(bare, None, 1)}"


def _nonzero(value: Any) -> bool:
    """Whether a table's figure (a quantity, or one `fmt.Noted`) is not zero."""
    return bool((value.value if isinstance(value, fmt.Noted) else value).magnitude)
