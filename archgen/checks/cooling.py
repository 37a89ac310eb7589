"""COOL: CDU capacity and flow, coolant and air temperatures against ASHRAE classes and plausible bounds, heat paths."""

from __future__ import annotations

from collections.abc import Iterator

from archgen.checks.registry import Context, Violation, check
from archgen.checks.scope import coolant_supply, over_hall
from archgen.model import Rack
from archgen.model.facility import AIR_CLASS_RANGE, LIQUID_CLASS_MAX, Facility
from archgen.units import Q_, Q


@check("COOL001", "cooling.cdu_capacity")
def cdu_capacity(ctx: Context) -> Iterator[Violation]:
    """The CDUs serving the rack remove its liquid heat (times the racks sharing them), with their redundancy.

    Fix: add CDUs, use a larger CDU, or reduce `racks_per_cdu`.
    """
    for path, a in ctx.racks.items():
        c = a.cooling
        if c.cdu is not None and c.cdu_load > c.cdu.usable:
            lp = a.rack.spec.cooling.liquid
            yield Violation(path, a.rack.spec.id, ("cooling", "liquid", "cdu"),
                            f"liquid heat {c.cdu_load.to('kW'):.1f~P} ({lp.racks_per_cdu} rack(s)) exceeds usable "
                            f"CDU capacity {c.cdu.usable.to('kW'):.1f~P} ({c.cdu.redundancy} of {c.cdu.count})",
                            c.cdu_load, c.cdu.usable)


@check("COOL002", "cooling.cdu_flow")
def cdu_flow(ctx: Context) -> Iterator[Violation]:
    """The CDUs supply the coolant flow the liquid heat needs at the rack's ΔT: V̇ = Q̇ / (ρ c_p ΔT).

    Fix: raise `delta_t` if the trays allow it, add CDU capacity, or reduce `racks_per_cdu`.
    """
    for path, a in ctx.racks.items():
        c = a.cooling
        if c.cdu_flow is not None and c.cdu_flow_needed > c.cdu_flow:
            yield Violation(path, a.rack.spec.id, ("cooling", "liquid", "delta_t"),
                            f"coolant flow needed {c.cdu_flow_needed:.0f~P} exceeds CDU flow {c.cdu_flow:.0f~P}",
                            c.cdu_flow_needed, c.cdu_flow)


@check("COOL003", "cooling.water_class")
def water_class(ctx: Context) -> Iterator[Violation]:
    """The facility water supply is within the rack's ASHRAE liquid class (W17–W45: maximum supply °C).

    Fix: lower the facility water temperature, or specify equipment for a warmer class.
    """
    for path, a in ctx.racks.items():
        lp, fac = a.rack.spec.cooling.liquid, a.rack.facility
        if lp is None or fac is None or fac.water is None:
            continue
        limit = Q_(LIQUID_CLASS_MAX[lp.class_], "degC")
        if fac.water.supply.to("degC") > limit:
            yield Violation(path, a.rack.spec.id, ("cooling", "liquid", "class"),
                            f"facility water {fac.water.supply:~P} is above class {lp.class_} ({limit:~P} maximum)",
                            fac.water.supply, limit)


@check("COOL004", "cooling.secondary_supply")
def secondary_supply(ctx: Context) -> Iterator[Violation]:
    """Facility water plus the CDU approach gives a coolant supply the trays accept.

    Fix: lower the facility water temperature or choose a CDU with a smaller approach.
    """
    for path, a in ctx.racks.items():
        lp, fac, cdu = a.rack.spec.cooling.liquid, a.rack.facility, a.rack.cdu
        if not (lp and fac and fac.water and cdu and cdu.approach):
            continue
        supply = coolant_supply(fac.water, cdu)
        if supply > lp.supply.to("degC"):
            yield Violation(path, a.rack.spec.id, ("cooling", "liquid", "supply"),
                            f"coolant supply {supply.to('degC'):.1f~P} (facility {fac.water.supply:~P} + approach "
                            f"{cdu.approach:~P}) exceeds the {lp.supply:~P} the trays accept", supply, lp.supply)


@check("COOL005", "cooling.air_class")
def air_class(ctx: Context) -> Iterator[Violation]:
    """The facility's inlet air temperature is within the allowable range of the rack's ASHRAE air class.

    Fix: change the facility's air supply temperature, or specify equipment of a wider class (A3, A4).
    """
    for path, a in ctx.racks.items():
        fac, cls = a.rack.facility, a.rack.spec.cooling.air.class_
        if fac is None:
            continue
        low, high = AIR_CLASS_RANGE[cls]
        t = fac.air.supply.to("degC").magnitude
        if not low <= t <= high:
            yield Violation(path, a.rack.spec.id, ("cooling", "air", "class"),
                            f"inlet air {fac.air.supply:~P} is outside class {cls} ({low}-{high} °C allowable)",
                            fac.air.supply, Q_(high if t > high else low, "degC"))


@check("COOL006", "cooling.liquid_path")
def liquid_path(ctx: Context) -> Iterator[Violation]:
    """Equipment that rejects heat to liquid is in a rack with a liquid path and a CDU, and the facility has water.

    Fix: add `cooling.liquid` to the rack, or give the facility a `water` supply.
    """
    for path, a in ctx.racks.items():
        if a.cooling.heat_liquid.magnitude <= 0:
            continue
        if a.rack.spec.cooling.liquid is None:
            yield Violation(path, a.rack.spec.id, ("cooling",),
                            f"{a.cooling.heat_liquid.to('kW'):.1f~P} goes to liquid but the rack has no liquid path",
                            a.cooling.heat_liquid)
        elif a.rack.facility is not None and a.rack.facility.water is None:
            yield Violation(path, a.rack.spec.id, ("facility",),
                            f"rack needs facility water but {a.rack.facility.id} has none")


@check("COOL007", "cooling.air_flow")
def air_flow(ctx: Context) -> Iterator[Violation]:
    """The systems' rated air flow carries the rack's air-side heat within its allowed air ΔT.

    Fix: raise the allowed `cooling.air.delta_t`, or move heat to liquid.
    """
    for path, a in ctx.racks.items():
        c = a.cooling
        if c.declared_air_flow is not None and c.declared_air_flow < c.air_flow:
            yield Violation(path, a.rack.spec.id, ("cooling", "air", "delta_t"),
                            f"systems move {c.declared_air_flow:.0f~P} of air; {c.air_flow:.0f~P} are needed for "
                            f"{c.heat_air.to('kW'):.1f~P} at ΔT {a.rack.spec.cooling.air.delta_t:~P}",
                            c.declared_air_flow, c.air_flow)


#: Plausible range of a supply temperature (facility water, facility air, a rack's coolant supply), each bound with
#: its reason: outside it the figure is most likely a unit slip ('30 K' for '30 degC' is -243 °C).
TEMPERATURE_BOUNDS = (
    (Q_(0, "degC"), "water freezes at 0 °C, and the lowest allowable inlet air of any ASHRAE class (A3, A4) is "
                    "5 °C (TC 9.9 Thermal Guidelines, 5th ed., 2021)"),
    (Q_(80, "degC"), "the warmest ASHRAE liquid class, W+, is facility water above 45 °C and the warmest air class, "
                     "A4, allows 45 °C inlet air (TC 9.9, 2021); 80 °C is 35 K beyond both and 20 K short of water's "
                     "boiling point at sea level"))


@check("COOL008", "cooling.plausible_temperature", severity="warning")
def plausible_temperature(ctx: Context) -> Iterator[Violation]:
    """A supply temperature (facility water, facility air, a rack's coolant) lies between 0 °C and 80 °C.

    The bounds span every ASHRAE air class (A1–A4: 5–45 °C allowable) and liquid class (W17–W45, W+ above 45 °C)
    with a margin; a figure outside them is most likely a unit slip: '30 K' (−243 °C) written for '30 degC', or
    '300 degC' for '300 K'. Each message states the bound and its reason.

    Fix: write the temperature on its scale ('30 degC', '86 degF'); if it really is that, keep it and waive with the
    reason.
    """
    specs = ctx.design.specs
    fields: list[tuple[str, str, tuple[str, ...], Q]] = []
    for fac in specs.of(Facility):
        if fac.water is not None:
            fields.append((f"facility/{fac.id}", fac.id, ("water", "supply"), fac.water.supply))
        fields.append((f"facility/{fac.id}", fac.id, ("air", "supply"), fac.air.supply))
    for rack in specs.of(Rack):
        if rack.cooling.liquid is not None:
            fields.append((f"rack/{rack.id}", rack.id, ("cooling", "liquid", "supply"), rack.cooling.liquid.supply))
    (low, low_reason), (high, high_reason) = TEMPERATURE_BOUNDS
    for subject, owner, path, value in fields:
        t = value.to("degC")
        if low.magnitude <= t.magnitude <= high.magnitude:
            continue
        below = t.magnitude < low.magnitude
        bound, reason, side = (low, low_reason, "below") if below else (high, high_reason, "above")
        shown = f"{value:~P}" if value.units == t.units else f"{value:~P} ({t:.4g~P})"
        yield Violation(subject, owner, path, f"{'.'.join(path)} {shown} is {side} {bound:~P}: {reason}", value, bound)


@check("COOL009", "cooling.facility_capacity")
def facility_cooling(ctx: Context) -> Iterator[Violation]:
    """The cluster's IT power, all of which becomes heat, is within its facility's stated `cooling_capacity`.

    Fix: a hall with more cooling capacity, fewer racks, or racks that draw less (metric `cooling_headroom`).
    """
    for path, c, hall, it, cap in over_hall(ctx.clusters, "cooling_capacity"):
        yield Violation(path, c.cluster.spec.id, ("facility",),
                        f"IT heat {it.to('kW'):.1f~P} exceeds facility '{hall.id}''s cooling capacity "
                        f"{cap.to('kW'):.1f~P} by {(it - cap).to('kW'):.1f~P}", it.to("kW"), cap.to("kW"))
