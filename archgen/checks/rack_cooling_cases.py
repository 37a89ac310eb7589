"""A rack's cooling in the cases its group and hall figures leave open: one CDU lost, air heat per rack, aisles.

One CDU of a group lost (COOL020); the rack's heat to air against what the hall's air side takes per rack (COOL021);
the air flow its systems state against their own air-side heat (COOL007); the aisles its parts breathe (COOL018);
an in-rack CDU missing from its slots (COOL012); a rack type a cluster places naming another hall (COOL013).

The rules and their documentation are `checks.cooling`'s; this module yields their violations.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.air_direction import slot_air
from archgen.analyse.cdu_loss import cdu_loss
from archgen.checks.registry import Context, Violation
from archgen.display import kw
from archgen.units import Q


def lost_cdu(ctx: Context) -> Iterator[Violation]:
    """COOL020: each group holding no spare CDU (redundancy N) whose other CDUs cannot carry it with one lost."""
    for path, a in ctx.racks.items():
        loss = cdu_loss(a)
        if loss is None or loss.redundancy != "N" or not loss.short:
            continue
        rid, lp = a.rack.spec.id, a.rack.spec.cooling.liquid
        group = f"{lp.racks_per_cdu} rack(s)" if lp is not None else "the group"
        if not loss.left:
            yield Violation(path, rid, ("cooling", "liquid", "cdu_redundancy"),
                            f"redundancy N with one CDU: losing it stops the liquid cooling of {group} "
                            f"({kw(loss.load)})", loss.load, loss.capacity, severity="warning")
            continue
        said = []
        if "capacity" in loss.short:
            said.append(f"{loss.left} × {(loss.capacity / loss.left).to('kW'):.0f~P} = {loss.capacity:.0f~P} for "
                        f"{kw(loss.load)}")
        if "flow" in loss.short and loss.each_flow is not None:
            said.append(f"{loss.each_flow:.0f~P} of secondary flow from each against its rated {loss.unit_flow:.0f~P}")
        yield Violation(path, rid, ("cooling", "liquid", "cdu_redundancy"),
                        f"redundancy N: with one of {loss.count} CDUs lost, "
                        + ("the one left falls" if loss.left == 1 else f"the {loss.left} left fall")
                        + f" short for {group}: " + "; ".join(said),
                        # the figures compared: the heat and capacity, or where only the flow falls short, the flow
                        *((loss.load, loss.capacity) if "capacity" in loss.short else (loss.each_flow, loss.unit_flow)),
                        severity="warning")


def rack_air(ctx: Context) -> Iterator[Violation]:
    """COOL021: each rack's heat to air (after a rear door) against its hall's `air_cooling_per_rack`."""
    for path, a in ctx.racks.items():
        hall, air = a.rack.facility, a.cooling.heat_air.to("kW")
        if hall is None or air.magnitude <= 0:
            continue
        rid, cap = a.rack.spec.id, hall.air_cooling_per_rack
        heat = f"the rack's heat to air {kw(air)}" + (" (after its rear door)" if a.cooling.rear_door else "")
        if cap is None:
            total = hall.air_cooling_capacity
            why = (f"its hall-wide air_cooling_capacity {kw(total)} is judged against its clusters' racks "
                   "(COOL009)" if total is not None else "nor an air_cooling_capacity: the air side is not provided")
            said = (f"its hall-wide air-side capacity {kw(total)} is judged against its clusters' racks "
                    "(COOL009)" if total is not None else "nor a hall-wide one: the air side is not provided")
            yield Violation(path, rid, ("facility",), f"not judged: {heat}; facility '{hall.id}' states no "
                            f"air_cooling_per_rack, {why}", air, None, severity="info",
                            public=f"not judged: {heat}; facility '{hall.id}' states no air-side capacity per rack, "
                                   f"{said}")
        elif air > cap:
            yield Violation(path, rid, ("facility",), f"{heat} exceeds facility '{hall.id}''s air-side capacity "
                            f"per rack {kw(cap)} by {kw(air - cap)}", air, cap.to("kW"))


def against_aisles(ctx: Context) -> Iterator[Violation]:
    """COOL018: each placed part whose stated airflow, as mounted, breathes the hot aisle or exhausts elsewhere."""
    for path, a in ctx.racks.items():
        for s in slot_air(a.rack):
            if s.against:
                where = ("takes its air from the rack's rear (the hot aisle) and exhausts at the front (the cold aisle)"
                         if s.intake == "rear" and s.exhaust == "front" else
                         f"takes its air from the rack's {s.intake} and exhausts at its {s.exhaust}, not the rear")
                yield Violation(path, a.rack.spec.id, ("slots", s.slot, "face"),
                                f"{s.part} x{s.count} ({s.stated}, mounted from the {s.face}) {where}")


def unplaced_cdu(ctx: Context) -> Iterator[Violation]:
    """COOL012: each rack whose in-rack CDU is not placed in its slots, or not `cdu_count` of them."""
    for path, a in ctx.racks.items():
        unit, lp = a.rack.cdu, a.rack.spec.cooling.liquid
        if unit is None or lp is None or unit.type != "in-rack-cdu":
            continue
        placed = sum(1 for p in a.rack.items if p.part.id == unit.id)
        if not placed:
            yield Violation(path, a.rack.spec.id, ("cooling", "liquid", "cdu"),
                            f"in-rack CDU {unit.id} is not placed in the rack's slots: its "
                            f"{lp.cdu_count} x {_size(unit)} are missing from the U map, weight and BOM")
        elif lp.racks_per_cdu == 1 and placed != lp.cdu_count:
            yield Violation(path, a.rack.spec.id, ("cooling", "liquid", "cdu_count"),
                            f"{placed} in-rack CDU(s) {unit.id} placed in the rack's slots, but cdu_count is "
                            f"{lp.cdu_count} (COOL001 budgets {lp.cdu_count})",
                            public=f"{placed} in-rack CDU(s) {unit.id} placed in the rack's slots, but the liquid loop "
                                   f"counts {lp.cdu_count} CDUs (COOL001 budgets {lp.cdu_count})")


def _size(unit: object) -> str:
    """'(4 U, 90 kg)' of a CoolingUnit's mechanical figures, or 'unit' where it states none."""
    m = getattr(unit, "mechanical", None)
    return f"({m.height:~P}, {m.weight:~P})" if m is not None else "unit"


def rack_air_flow(ctx: Context) -> Iterator[Violation]:
    """COOL007: each rack whose systems' stated air flow is short of their air-side heat, or names some stating none.

    Those that state none are named as not judged: an info finding where the stating ones pass.
    """
    for path, a in ctx.racks.items():
        c, rated = a.cooling, a.cooling.rated
        if rated is None or c.rated_needed is None:
            continue
        hall = a.rack.facility
        high = f" and {hall.altitude:~P}" if hall is not None and hall.altitude is not None else ""
        rest = f"; not judged: {', '.join(rated.unstated)}, which state no air flow" if rated.unstated else ""
        if c.rated_needed > rated.flow:
            yield Violation(path, a.rack.spec.id, ("cooling", "air", "delta_t"),
                            f"systems move {_air(rated.flow)} of air; {_air(c.rated_needed)} are needed for their "
                            f"{kw(rated.heat)} at ΔT {a.rack.spec.cooling.air.delta_t:~P}{high}{rest}",
                            rated.flow, c.rated_needed)
        elif rest:
            yield Violation(path, a.rack.spec.id, ("cooling", "air", "delta_t"),
                            f"systems stating an air flow move {_air(rated.flow)}, enough for their "
                            f"{kw(rated.heat)} ({_air(c.rated_needed)} needed){rest}", rated.flow,
                            c.rated_needed, severity="info")


def _air(flow: Q) -> str:
    """An air flow in SI with CFM beside it, as the rack document gives it: '3755 m³/h (2210 CFM)'."""
    return f"{flow.to('m**3/h'):.0f~P} ({flow.to('ft**3/min').magnitude:.0f} CFM)"


def outside_cluster_hall(ctx: Context) -> Iterator[Violation]:
    """COOL013: each rack type a cluster places that names another hall than the cluster's, or none."""
    for c in ctx.design.clusters:
        hall = c.facility
        if hall is None:
            continue
        for rid, rack in sorted(c.rack_types.items()):
            named = rack.facility.id if rack.facility is not None else None
            if named != hall.id:
                judged = f"names facility '{named}'" if named else "names no facility"
                against = f"judged against '{named}', not '{hall.id}'" if named else f"not judged against '{hall.id}'"
                yield Violation(c.path, c.spec.id, ("facility",),
                                f"rack '{rid}' ({c.rack_counts.get(rid, 0)} placed) {judged}, but the cluster stands "
                                f"in '{hall.id}': the rack's floor load, facility water, inlet air and altitude were "
                                f"{against}")
