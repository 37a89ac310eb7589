"""Helpers of the PWR checks: hall UPS and generators (PWR011, PWR022's steady maximum), unconfirmed figures (PWR012).

A part's input (PWR013), the hall's voltage (PWR015) and the PDUs' outlets (PWR016) are `checks/power_inputs.py`'s,
moved out for this module's size (split30).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

from archgen.analyse.bom import UNRACKED
from archgen.analyse.conversion import range_end, shelf_loss
from archgen.analyse.facility import (
    generator_factor,
    generator_pue,
    hall_load,
    ups_factor,
    ups_recharge,
    usable_units,
)
from archgen.analyse.job_swing import parts_swing
from archgen.analyse.rack_power_inputs import POWER_FIELDS, stated
from archgen.checks.hall_figures import (
    alone,
    generators_at_site,
    redundancy_not_stated,
    steady_only,
    ups_pumps,
    utility_not_stated,
    utility_unjudged,
)
from archgen.checks.hall_load import feed_power, feed_stages, feed_words, it_floor
from archgen.checks.hall_swing import hall_step, swing_judged
from archgen.checks.occupants import StageLoads, hall_rest, over_facility
from archgen.checks.own_halls import swing_by_hall, units_by_hall
from archgen.checks.registry import Context, Violation
from archgen.checks.shared_utility import shared_connection
from archgen.checks.unit_rating import kva_not_provided, load_pf, rating_words
from archgen.checks.ups_recharge import recharge_left_out
from archgen.display import kw
from archgen.model import Link, Part, PowerShelf, System, field_words
from archgen.open_item import Worded, customer_text
from archgen.units import Q_


def hall_units(ctx: Context) -> Iterator[Violation]:
    """PWR011: each cluster's UPS load and generator load against its hall's units, their spares held back.

    The generator load is IT power x `peak_pue` (design conditions) where the hall states it; else IT power x the
    annual `cost.energy.pue`, and the finding says so: an error if it fails, an info finding if it passes (the
    margin is optimistic), never a silent pass.
    """
    for path, c in ctx.clusters.items():
        if any(c.cluster.hall_facilities):   # each hall against its own facility, the cluster's judging none
            yield from units_by_hall(path, c, ctx.clusters, _stage)
            continue
        hall = c.cluster.facility
        feeds = hall.feeds if hall is not None else None
        if feeds is None:
            continue
        m, peak = c.metrics, hall.peak_pue
        annual = hall.cost.energy.pue if hall.cost is not None else None
        gen_why, gen_said = ((f"; IT power x peak PUE {peak:g}" if peak is not None else
                              f"; judged on IT power x the annual PUE {annual or 0:g} (the hall states no {no_peak}): "
                              "the design day's mechanical load is above the year's average, so this is optimistic")
                             for no_peak in ("`peak_pue`", "design-day PUE"))
        pumps = ups_pumps(c, feed_power(m), feed_words(m))[2]
        if pumps is not None and feeds.ups_units is not None:
            yield pumps
        if utility_unjudged(feeds):
            yield utility_not_stated(path, c)
        floor, unknown = it_floor(c)
        pue, margins, recharge = peak if peak is not None else annual, [], ups_recharge(hall) or Q_(0, "kW")
        for key, label, kind, redundancy, units, load, what in feed_stages(c):
            if units is None:
                continue
            why, why_said = (gen_why, gen_said) if key != "ups" else ("", "")
            if redundancy is None:
                yield redundancy_not_stated(path, c, key, label, kind, units)
            if units.real(load_pf(hall)) is None:
                yield kva_not_provided(path, c, key, label, kind, units)
                continue
            if key == "generators":
                yield from generators_at_site(path, c, units, units.at_site(load_pf(hall), hall.outdoor()))
            each, usable = usable_units(units, redundancy, hall)
            if each is None or usable is None:
                continue
            site = f", {kw(each)} each at the site (a derating row)" if each != units.real(load_pf(hall)) else ""
            basis, basis_said = (f"({redundancy or 'N, not stated,'} of {units.count} x "
                                 f"{rating_words(units, hall, words)} {label} {kind}{site}{tail})"
                                 for words, tail in ((False, f", feeds.{key}"), (True, "")))
            if load is None:
                yield from _units_on_floor(path, c, key, label, usable, (basis, basis_said),
                                           None if floor is None or (key != "ups" and pue is None) else
                                           floor * ups_factor(hall) if key == "ups" else floor * pue + recharge,
                                           unknown)
                continue
            if key != "ups":
                margins.append((f"{label} {kind}", usable, load))
            if load > usable:
                text = f" {kw(load)} exceeds facility '{hall.id}''s usable {label} capacity {kw(usable)} "
                yield Violation(path, c.cluster.spec.id, ("facility",), f"{what}{text}{basis}{why}{alone(c)}",
                                load.to("kW"), usable.to("kW"),
                                public=f"{customer_text(what)}{text}{basis_said}{why_said}{alone(c)}")
            elif over := over_facility(ctx.clusters, path, -1, hall, load, _stage(key, hall), usable,
                                       Worded(*(f"facility '{hall.id}''s usable {label} capacity {kw(usable)} {b}"
                                                for b in (basis, basis_said)))):
                yield Violation(path, c.cluster.spec.id, ("facility",), f"{what}: {over.message}{why}", over.total,
                                usable.to("kW"), severity=over.severity,
                                public=f"{customer_text(what)}: {customer_text(over.message)}{why_said}")
            if load <= usable and key != "ups" and peak is None:
                text = (f"{label} {kind} judged on the annual PUE {annual:g}, not a design-day figure (the hall "
                        "states no {}): {} " + f"{kw(load)} within facility '{hall.id}''s usable {label} capacity "
                        f"{kw(usable)} " + "{}; the design day's mechanical load is above the year's average, so "
                        "this margin is optimistic (an assumption)")
                yield Violation(path, c.cluster.spec.id, ("facility",), text.format("`peak_pue`", what, basis),
                                load.to("kW"), usable.to("kW"), severity="info",
                                public=text.format("design-day PUE", customer_text(what), basis_said))
        if (left_out := recharge_left_out(path, c, margins)) is not None:
            yield left_out
    yield from shared_connection(ctx)   # the halls sharing a utility connection, summed against it


def hall_swing(ctx: Context) -> Iterator[Violation]:
    """PWR022: each cluster whose hall's units PWR011 judges on a load: they were held to a steady maximum draw."""
    for path, c in ctx.clusters.items():
        if any(c.cluster.hall_facilities):   # each hall's own facility, the cluster's judging none
            yield from swing_by_hall(path, c)
            continue
        hall = c.cluster.facility
        if hall is None or hall.feeds is None:
            continue
        judged = [(what, f"{label} {kind}", load) for key, label, kind, redundancy, units, load, what in feed_stages(c)
                  if units is not None and load is not None and usable_units(units, redundancy, hall)[1] is not None]
        if hall.feeds.load_step_limit is not None or hall.feeds.ramp_rate_limit is not None:
            yield from swing_judged(path, c, c.metrics.get("it_power"), parts_swing(ctx.design.specs, c))
            step = hall_step(ctx.clusters, path, c, ctx.design.specs)   # the peers in its hall, summed
            if step is not None:
                yield step
        elif judged:
            yield steady_only(path, c, judged)


def _share(key: str, c: Any) -> Any:
    """A peer cluster's load on its facility's UPS (feed power) or generators (facility power), else a floor under it.

    The floor is the racks' own IT power over the distribution's efficiency for the UPS, x the facility's generator
    PUE (`analyse.facility.generator_pue`: `peak_pue`, else the annual PUE) for the generator sets and utility feeds,
    as `_units_on_floor` takes it; the facility power read is that PUE's (`facility_power_peak`, else
    `facility_power`). Both of `c`'s own facility, the one it stands in as a whole (`hall_groups.places`). sites31:
    before, the choice was the judged facility's `peak_pue`, passed in, with `c`'s facility's annual PUE; the same
    facility wherever `c` is counted whole, so no figure moved.
    """
    m, fac = c.metrics, c.cluster.facility
    floor = m.get("it_power_racks")
    if key == "ups":   # with the in-row CDUs' pumps where the hall puts them on the UPS
        return ups_pumps(c, feed_power(m), "")[0] if feed_power(m) is not None else \
            None if floor is None else floor * ups_factor(fac)
    load, pue = m.get("facility_power_peak" if fac.peak_pue is not None else "facility_power"), generator_pue(fac)
    return load if load is not None else None if floor is None or pue is None else floor * pue


def _stage(key: str, fac: Any) -> StageLoads:
    """What each other occupant puts on facility `fac`'s UPS (`key` "ups") or generators: a cluster's, a hall's.

    A hall's is `analyse.facility.hall_load`, the share the headrooms read (split30: it was computed here too), the
    utility feeds' as the generator sets' (x the PUE: both carry the facility power; sites31: before, under its own
    key "utility", x 1); a storage counted once and a hall's cluster's rest are taken x `ups_factor` on the UPS, x
    `generator_factor` else.
    """
    return StageLoads(partial(_share, key), partial(hall_load, "ups" if key == "ups" else "generators", fac=fac),
                      ups_factor(fac) if key == "ups" else generator_factor(fac), hall_rest)


def _units_on_floor(path: str, c: Any, key: str, label: str, usable: Any, bases: tuple[str, str], floor: Any,
                    unknown: str) -> Iterator[Violation]:
    """PWR011 where the load is not provided: the racks' own draw (x the PUE for generators) is a floor under it.

    For the UPS the floor is over `feeds.distribution_efficiency` where stated (`ups_factor`), as its load is.

    Above the usable capacity an error on the floor alone; within it an info finding, not judged (`hall_load.it_floor`).
    """
    hall, (basis, said) = c.cluster.facility, bases   # `said`: the basis in the customer's words
    if floor is None:
        why, why_said = (unknown, unknown) if unknown and key == "ups" else (
            "the hall states neither `peak_pue` nor `cost.energy.pue`, so its facility power is not provided",
            "the hall states no PUE, so its facility power is not provided")
        head = f"not judged: facility '{hall.id}''s usable {label} capacity {kw(usable)} "
        yield Violation(path, c.cluster.spec.id, ("facility",), f"{head}{basis}: {why}", severity="info",
                        public=f"{head}{said}: {why_said}")
        return
    eff = hall.feeds.distribution_efficiency
    recharge = ups_recharge(hall)   # added once for the hall to the generator and utility floor (`hall_units`)
    times = (" x the PUE" + ("" if recharge is None else f" and the UPS battery recharge {kw(recharge)}")) \
        if key != "ups" else "" if eff is None else f" over the distribution's efficiency {eff:g}"
    if floor > usable:
        text = (f"the racks' own IT power{times} alone, {kw(floor)}, exceeds facility '{hall.id}''s usable {label} "
                f"capacity {kw(usable)} " + "{}" + f" by {kw(floor - usable)}, before the rest ({unknown})")
        yield Violation(path, c.cluster.spec.id, ("facility",), text.format(basis), floor.to("kW"), usable.to("kW"),
                        public=text.format(said))
    else:
        text = (f"not judged: {unknown}; the racks' own IT power{times} alone is {kw(floor)} of facility "
                f"'{hall.id}''s usable {label} capacity {kw(usable)} ")
        yield Violation(path, c.cluster.spec.id, ("facility",), text + basis, floor.to("kW"), usable.to("kW"),
                        severity="info", public=text + said)


def unconfirmed_power(ctx: Context, path: str, said: bool = False) -> list[str]:
    """The unconfirmed power figures of the parts on cluster `path`'s bill of materials, as 'part field (where)'.

    A system's, switch's or CDU's own draw, and the `tdp` of the accelerator fitted in a system (the board power its
    draw is built on, and that a sweep over accelerators re-powers the system by). A system with NICs says whether
    its figure includes them or they are added to it (`System.power_includes_nics`); the `power` of the NICs added
    is named where unconfirmed. A cable's or transceiver's `power_per_end` is named with the count whose draw the
    IT power adds (the BOM's transceivers or cable assemblies, less those drawing inside a node's maximum, which
    adds nothing: `System.power_includes_optics`). `said`: each field as a customer reads it ("maximum power", not
    "power.max": `field_words.said`).
    """
    a = ctx.clusters[path]
    out: dict[str, list[str]] = {}   # 'part field' -> where (a switch partly in no rack has two BOM lines)
    specs = ctx.design.specs
    for line in a.cabling.bom if a.cabling is not None else ():
        part = specs.get(line.part)
        fitted = [(specs.get(part.accelerator), f"fitted in {part.id}")] if isinstance(part, System) and \
            part.accelerator else []
        placed = f"{line.quantity} in no rack" if line.note == UNRACKED else f"{line.quantity} placed"
        if isinstance(part, Link):
            if line.quantity <= line.in_parent:
                continue      # every one draws inside a node's maximum: the IT power does not rest on its figure
            placed = f"{line.quantity - line.in_parent} {line.note.split(';')[0]}" + (
                f", {line.in_parent} more inside a node's maximum" if line.in_parent else "")
        if isinstance(part, System) and part.nics:
            added = part.nic_power is not None    # only the NICs whose power is added to the system's figure
            fitted += [(specs.get(n.part), f"{n.count} in each {part.id}, added to its power")
                       for n in part.nics if added]
            placed += ", NICs added" if added else ", NICs included"
        for p, where in [(part, placed), *fitted]:
            if not isinstance(p, Part):
                continue
            for kind, fields in POWER_FIELDS:
                named = [f for f in fields if isinstance(p, kind) and p.is_unconfirmed(f) and stated(p, f)]
                if named:
                    within = _within(p, line.quantity - line.in_parent if p is part else 0)
                    names = [field_words.said(f) for f in named] if said else named
                    wheres = out.setdefault(f"{p.id} {' and '.join(names)}", [])
                    if f"{where}{within}" not in wheres:
                        wheres.append(f"{where}{within}")
    return [f"{key} ({'; '.join(wheres)})" for key, wheres in out.items()]


def _within(p: Part, added: int) -> str:
    """The stated range behind part `p`'s power figure, as PWR012 adds it; '' without one.

    A shelf's efficiency range ('; 0.97, within 0.965 to 0.977'); a link's power range: the figure the IT power adds
    per end, the range its sources leave open and what its `added` BOM units outside a node's maximum draw less at
    the low end ('; 17 W per end used, within 15 W to 17 W: 1.0 kW less at 15 W').
    """
    if isinstance(p, PowerShelf) and p.efficiency_range is not None:
        return f"; {p.efficiency:g}, within {p.efficiency_range[0]:g} to {p.efficiency_range[1]:g}"
    if isinstance(p, Link) and p.power_range is not None:
        low, high = p.power_range
        ends = 1 if p.is_module else 2          # a copper assembly's BOM line counts cables, two powered ends each
        less = (p.power_per_end - low) * added * ends
        return (f"; {p.power_per_end:~P} per end used, within {low:~P} to {high:~P}"
                + (f": {kw(less)} less at {low:~P}" if less.magnitude > 0 else ""))
    return ""


def shelf_range(ctx: Context, path: str) -> str:
    """Cluster `path`'s IT power at the low and high ends of its shelves' efficiency ranges ("" where none states one).

    A lower efficiency loses more: the low end of the range gives the high IT power (`conversion.shelf_loss`).
    """
    a = ctx.clusters[path]
    shelves = {p.part.id for rack in a.cluster.rack_types.values() for p in rack.items
               if isinstance(p.part, PowerShelf) and p.part.efficiency_range is not None}
    it_power = a.metrics.get("it_power")
    if not shelves or it_power is None:
        return ""
    stated = shelf_loss(a)
    high, low = (it_power + shelf_loss(a, pick=range_end(end)) - stated for end in (0, 1))
    return (f"; over the efficiency range of {', '.join(sorted(shelves))}, IT power is {kw(low)} to "
            f"{kw(high)} ({kw(it_power)} at the stated efficiency)")
