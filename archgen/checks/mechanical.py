"""MECH: U space, overlap, rack payload and floor loading."""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.rack import parts_coolant
from archgen.checks.assumed_figures import assumed_group
from archgen.checks.registry import Context, Violation, check
from archgen.units import Q_


@check("MECH001", "mechanical.fits")
def fits_height(ctx: Context) -> Iterator[Violation]:
    """Every placed item lies within the rack's usable height.

    Fix: move the slot lower (`at`), reduce its `count`, or use a taller rack.
    """
    for path, a in ctx.racks.items():
        for item in a.space.outside:
            yield Violation(path, a.rack.spec.id, ("slots", item.slot, "at"),
                            f"{item.part.id} at U{item.u}-U{item.top} extends beyond the {a.space.height} U rack",
                            Q_(item.top, "U"), Q_(a.space.height, "U"))


@check("MECH002", "mechanical.overlap")
def no_overlap(ctx: Context) -> Iterator[Violation]:
    """No two items occupy the same rack unit on the same face.

    Fix: move one of the slots, or mark half-depth items with `face: rear`.
    """
    for path, a in ctx.racks.items():
        for first, second in a.space.overlaps:
            yield Violation(path, a.rack.spec.id, ("slots", second.slot, "at"),
                            f"{second.part.id} at U{second.u}-U{second.top} overlaps {first.part.id} at "
                            f"U{first.u}-U{first.top} (slot {first.slot + 1})")


def _without(a, payload: bool = False) -> str:
    """', without pdu-x x4 (states no weight); the cables and ...', or '' where everything installed is weighed.

    `Space.left_out`: the placed parts that state no weight, the cables and transceivers in the rack's ports and the
    coolant of its liquid loop (`analyse.rack.left_out`); for the `payload`, all but the coolant, which it never holds.
    """
    out = a.space.payload_left_out if payload else a.space.left_out
    return f", without {'; '.join(out)}" if out else ""


def _unconfirmed(a, payload: bool = False) -> str:
    """' (1190.0 kg of it unconfirmed)' where the weight (or `payload`) rests on weights listed unconfirmed, else ''.

    `Space.unconfirmed`: the placed parts' weights (placeholders) and, of the weight, the enclosure's that their
    owners list unconfirmed; the documents say it beside the weight alike (`render.rack_weight`, newuser106).
    """
    share = a.space.unconfirmed_payload if payload else a.space.unconfirmed
    return f" ({share:.1f~P} of it unconfirmed)" if share.magnitude else ""


@check("MECH003", "mechanical.payload")
def payload(ctx: Context) -> Iterator[Violation]:
    """The weight of the installed equipment is within the rack's rated payload.

    A placed part that states no `mechanical` weight (a PDU may leave it out) is not in the payload, nor are the
    cables and transceivers in the rack's ports (no link part states a weight): the payload is then a floor, an error
    above the limit and, within it, an info finding that names what is left out and the weight it must stay under,
    never a silent pass. The coolant is not in the rated payload, as a rack maker rates it (newuser67), nor named.

    Fix: remove equipment, or choose a rack with a higher `form_factor.max_payload`; state every part's weight.
    """
    for path, a in ctx.racks.items():
        limit = a.rack.spec.form_factor.max_payload
        if a.space.payload > limit:
            yield Violation(path, a.rack.spec.id, ("form_factor", "max_payload"),
                            f"installed equipment weighs {a.space.payload:.1f~P}{_unconfirmed(a, True)}, above the "
                            f"rated payload {limit:~P}{_without(a, payload=True)}", a.space.payload, limit)
        elif a.space.payload_left_out:
            yield Violation(path, a.rack.spec.id, ("form_factor", "max_payload"),
                            f"installed equipment weighs {a.space.payload:.1f~P}{_unconfirmed(a, True)}"
                            f"{_without(a, payload=True)}: within "
                            f"the rated payload {limit:~P} only if they weigh under "
                            f"{(limit - a.space.payload).to('kg'):.1f~P} together", a.space.payload, limit,
                            severity="info")


@check("MECH004", "mechanical.floor_load")
def floor_load(ctx: Context) -> Iterator[Violation]:
    """The rack's weight over its footprint is within the facility's floor rating.

    As MECH003, what is installed and not weighed (parts that state no weight, cables and transceivers, coolant)
    leaves the floor load a floor: within the rating, an info finding names it and the weight it must stay under
    (the margin times the rack's footprint). A requirement on the rack's weight or floor load that such a floor meets
    is not provided (REQ002), never met.

    Fix: spread the load (spreader plates, lighter configuration) or install in a hall with a higher `floor_rating`;
    state every part's weight.
    """
    for path, a in ctx.racks.items():
        fac = a.rack.facility
        if fac is None:
            continue
        share = f", {a.space.unconfirmed:.0f~P} of it unconfirmed," if a.space.unconfirmed.magnitude else ""
        figures = (f"floor load {a.space.floor_load:.0f~P} ({a.space.weight:.0f~P}{share} on "
                   f"{a.space.footprint:.3f~P}{_without(a)})")
        if a.space.floor_load > fac.floor_rating:
            yield Violation(path, a.rack.spec.id, ("facility",),
                            f"{figures} exceeds the floor rating {fac.floor_rating:~P} of {fac.id}",
                            a.space.floor_load, fac.floor_rating)
        elif a.space.lower_bound:
            spare = ((fac.floor_rating - a.space.floor_load) * a.space.footprint).to("kg")
            yield Violation(path, a.rack.spec.id, ("facility",),
                            f"{figures}: within the floor rating {fac.floor_rating:~P} of {fac.id} only if they "
                            f"weigh under {spare:.1f~P} together", a.space.floor_load, fac.floor_rating,
                            severity="info")


@check("MECH005", "mechanical.assumed_enclosure", severity="info")
def assumed_enclosure(ctx: Context) -> Iterator[Violation]:
    """The rack's enclosure rests on figures it confirms (not listed under `form_factor.unconfirmed:`).

    The empty weight enters the rack's weight and floor load (MECH004), the rated payload MECH003's limit, the
    height and footprint the U map and floor load (MECH001). A figure no datasheet of the enclosure gives (an empty
    weight chosen for a typical 48 U cabinet) is the design's assumption: the finding names it with its value, and
    documents tag it assumed.

    Fix: cite each figure in `form_factor.source` ('weight: <enclosure datasheet>') and take it off `unconfirmed:`,
    or accept the figures knowingly.
    """
    yield from assumed_group(ctx, "form_factor", "the enclosure",
                             "MECH001, MECH003 and MECH004 judge the U map, payload and floor load on them")


@check("MECH006", "mechanical.coolant_volume")
def loop_holds_parts_coolant(ctx: Context) -> Iterator[Violation]:
    """The rack loop's stated coolant volume is at least what its liquid-cooled placed parts state they hold.

    `cooling.liquid.coolant_volume` is all the coolant the rack holds (trays, manifolds, hoses), so its parts'
    `cooling.coolant_volume` are inside it and not added again: the filled weight and floor load (MECH004) weigh the
    loop's figure alone. A loop stating less than its parts' sum contradicts them, and the weight would leave the
    difference out while reading complete (review35; weightmerge left it unchecked).

    Fix: state the loop's whole volume, its parts' coolant with the manifolds' and hoses', or correct the part's
    `cooling.coolant_volume`.
    """
    for path, a in ctx.racks.items():
        loop = a.rack.spec.cooling.liquid
        if loop is None or loop.coolant_volume is None:
            continue
        parts, named = parts_coolant(a.rack)
        if parts > loop.coolant_volume:
            yield Violation(path, a.rack.spec.id, ("cooling", "liquid", "coolant_volume"),
                            f"the loop's coolant volume {loop.coolant_volume.to('L'):g~P} is less than the "
                            f"{parts:g~P} its placed parts state they hold ({', '.join(named)}); it holds theirs",
                            loop.coolant_volume.to("L"), parts)
