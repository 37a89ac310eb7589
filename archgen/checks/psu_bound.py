"""PWR012's PSU side: a placed system's or switch's `power.max` that rests on its power supplies, an upper bound.

A part with no published maximum draw states its PSUs' rating (`max_basis: psu-rating`) or leaves `max` out to take
its active PSUs' output (`psu-active`, `model.base.Electrical`); an OEM server drafted from a reseller's sheet often
states the rating itself as its maximum (newuser73: a 2U four-L40S server's 2.8 kW, one PSU of its two, 1+1). Each is
the most the supplies deliver, not a draw: the rack's IT power and every budget on it are upper bounds. The rack and
cluster documents list the first two under Open items; PWR012 names all three where the cluster places the part.
"""

from __future__ import annotations

from archgen.analyse.bom import UNRACKED
from archgen.checks.registry import Context
from archgen.model import Switch, System
from archgen.model.base import spare_units


def psu_bound(part: System | Switch, said: bool = False) -> str:
    """Why `part`'s `power.max` is its PSUs' output, not a draw, in words; '' where it is not (`said`: no keys)."""
    power = part.power
    psus = power.psus
    kw = f"{power.max.to('kW').magnitude:g} kW"
    if power.max_basis == "psu-rating":
        return f"{kw}, a power-supply rating" + ("" if said else " (`max_basis: psu-rating`)")
    if psus is None or psus.capacity is None:
        return ""
    active = psus.count - spare_units(psus.redundancy, psus.count)
    supplies = f"{active} of {psus.count} x {psus.capacity.to('kW').magnitude:g} kW, {psus.redundancy}"
    if power.max_basis == "psu-active":
        return f"{kw}, its active PSUs' output ({supplies}" + (")" if said else "; `max_basis: psu-active`)")
    bound = psus.active_output
    if power.max_basis == "stated" and any(abs((power.max - q).to("W").magnitude) < 0.5 for q in (psus.capacity,
                                                                                                   bound) if q):
        return (f"{kw}, equal to its PSU rating ({supplies}): read as that rating, not a measured draw"
                + ("" if said else "; state `max_basis: psu-rating`, or the datasheet's maximum draw"))
    return ""


def psu_bounds(ctx: Context, path: str, said: bool = False) -> list[str]:
    """The parts cluster `path` places whose `power.max` is their PSUs' output, as 'part power.max (why; where)'."""
    a = ctx.clusters[path]
    out: dict[str, list[str]] = {}
    for line in a.cabling.bom if a.cabling is not None else ():
        part = ctx.design.specs.get(line.part)
        if isinstance(part, System | Switch) and (why := psu_bound(part, said)):
            where = f"{line.quantity} in no rack" if line.note == UNRACKED else f"{line.quantity} placed"
            out.setdefault(f"{part.id} {'maximum power' if said else 'power.max'} {why}", []).append(where)
    return [f"{key} ({'; '.join(wheres)})" for key, wheres in out.items()]


def psu_message(ctx: Context, path: str, said: bool = False) -> str:
    """PWR012's sentence on cluster `path`'s PSU-bound parts (`psu_bounds`); '' where it places none."""
    bounds = psu_bounds(ctx, path, said)
    return ("IT power and the budgets on it are upper bounds, resting on power-supply ratings, not measured draws: "
            + ", ".join(bounds)) if bounds else ""


def joined(*messages: str) -> str:
    """The messages that are not empty, joined by '; '."""
    return "; ".join(m for m in messages if m)


def unconfirmed_texts(ctx: Context, path: str, figures: list[str], said: list[str], shelves: str) -> tuple[str, str]:
    """PWR012's message on cluster `path` and its customer words; ('', '') where it has nothing to say.

    The unconfirmed `figures` (`said`: in words), then the PSU-bound parts (`psu_message`), then the `shelves`' range.
    """
    rest, psu = "IT power, energy and their cost rest on unconfirmed figures: ", psu_message(ctx, path)
    if not figures and not psu:
        return "", ""
    return (joined(rest + ", ".join(figures) if figures else "", psu) + shelves,
            joined(rest + ", ".join(said) if figures else "", psu_message(ctx, path, said=True)) + shelves)
