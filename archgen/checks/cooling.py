"""COOL: CDU capacity and flow, coolant and air temperatures against ASHRAE classes and plausible bounds, heat paths.

Each check's rule and documentation is here; the rated-conditions findings of COOL010 and COOL011 are
`checks.cooling_ratings`'s, the inlet range of COOL015 `checks.inlet_range`'s, the supply temperatures of COOL005 and
COOL008 (against the air class and plausible bounds) `checks.supply_temperatures`'s, and a rack's cases its group
and hall figures leave open (COOL007, COOL012, COOL013, COOL018, COOL020, COOL021) `checks.rack_cooling_cases`'.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.checks.assumed_figures import assumed_group
from archgen.checks.cooling_ratings import cdu_ratings, plant_ratings
from archgen.checks.hall_figures import air_side
from archgen.checks.hall_load import feed_power, over_hall
from archgen.checks.inlet_range import outside_inlet
from archgen.checks.loop_pressure import short_pressure
from archgen.checks.rack_cooling_cases import (
    against_aisles,
    lost_cdu,
    outside_cluster_hall,
    rack_air,
    rack_air_flow,
    unplaced_cdu,
)
from archgen.checks.registry import Context, Violation, check
from archgen.checks.scope import coolant_supply
from archgen.checks.supply_temperatures import air_classes, implausible_temperatures
from archgen.display import kw, quantity
from archgen.model.facility import LIQUID_CLASS_MAX
from archgen.units import Q_


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
                            f"liquid heat {kw(c.cdu_load)} ({lp.racks_per_cdu} rack(s)) exceeds usable "
                            f"CDU capacity {kw(c.cdu.usable)} ({c.cdu.redundancy} of {c.cdu.count})",
                            c.cdu_load, c.cdu.usable)


@check("COOL002", "cooling.cdu_flow")
def cdu_flow(ctx: Context) -> Iterator[Violation]:
    """The CDUs supply the coolant flow the liquid heat needs at the rack's ΔT: V̇ = Q̇ / (ρ c_p ΔT).

    Severity: an info finding, not a pass, where the rack's CDU states no `flow`: the flow it supplies is not
    provided, so the flow the rack group needs is not judged.

    Fix: raise `delta_t` if the trays allow it, add CDU capacity, or reduce `racks_per_cdu`; state the CDU's
    `flow` from its datasheet.
    """
    for path, a in ctx.racks.items():
        c = a.cooling
        if c.cdu is not None and c.cdu_flow is None and a.rack.cdu is not None and c.cdu_flow_needed.magnitude > 0:
            lp = a.rack.spec.cooling.liquid
            yield Violation(path, a.rack.spec.id, ("cooling", "liquid", "cdu"),
                            f"coolant flow needed {c.cdu_flow_needed:.0f~P} ({lp.racks_per_cdu} rack(s) at ΔT "
                            f"{quantity(lp.delta_t.to('K'))}) not judged: CDU {a.rack.cdu.id} states no flow, so the "
                            "flow it supplies is not provided", c.cdu_flow_needed, None, severity="info")
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

    Above 900 m of altitude the class's allowable maximum falls 1 K per 300 m (A1, A2), 175 m (A3) or 125 m (A4),
    and no class is defined above 3050 m (ASHRAE TC 9.9 Thermal Guidelines, notes to the table of classes).

    Fix: change the facility's air supply temperature, or specify equipment of a wider class (A3, A4).
    """
    yield from air_classes(ctx.racks)


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
                            f"{kw(a.cooling.heat_liquid)} goes to liquid but the rack has no liquid path",
                            a.cooling.heat_liquid)
        elif a.rack.facility is not None and a.rack.facility.water is None:
            yield Violation(path, a.rack.spec.id, ("facility",),
                            f"rack needs facility water but {a.rack.facility.id} has none")


@check("COOL007", "cooling.air_flow")
def air_flow(ctx: Context) -> Iterator[Violation]:
    """The systems' rated air flow carries their own air-side heat within the rack's allowed air ΔT.

    The air needed is V̇ = Q̇ / (ρ c_p ΔT), with ρ at 20 °C scaled by the barometric pressure at the hall's `altitude`
    where it states one (ASHRAE Handbook, Fundamentals, ch. 1, eq. 3): thinner air carries less heat per m³. Like
    with like (`analyse.air_flow`): the flows the systems state against the heat of those systems (maximum draw less
    the liquid-cooled share); systems that state no flow move their own air and are named as not judged (an info
    finding where the stating ones pass).

    Fix: raise the allowed `cooling.air.delta_t`, or move heat to liquid.
    """
    yield from rack_air_flow(ctx)


@check("COOL008", "cooling.plausible_temperature", severity="warning")
def plausible_temperature(ctx: Context) -> Iterator[Violation]:
    """A supply temperature (facility water, facility air, a rack's coolant) lies between 0 °C and 80 °C.

    The bounds span every ASHRAE air class (A1–A4: 5–45 °C allowable) and liquid class (W17–W45, W+ above 45 °C)
    with a margin; a figure outside them is most likely a unit slip: '30 K' (−243 °C) written for '30 degC', or
    '300 degC' for '300 K'. Each message states the bound and its reason.

    Fix: write the temperature on its scale ('30 degC', '86 degF'); if it really is that, keep it and waive with the
    reason.
    """
    yield from implausible_temperatures(ctx.design.specs)


@check("COOL009", "cooling.facility_capacity")
def facility_cooling(ctx: Context) -> Iterator[Violation]:
    """The cluster's IT power, all of which becomes heat, is within its hall's `cooling_capacity`; its air side too.

    Where the IT power is not provided (links without link media, CAB003), the racks' own draw is a floor under it:
    above the capacity an error, within it an info finding that the check could not judge (`hall_load.over_hall`).
    Clusters of the run that name one hall and exceed it together, each within it alone, are a warning on each.
    The racks' heat to air is held to the hall's `air_cooling_capacity` alike (`hall_figures.air_side`). On a floor
    of halls each hall that names its own `facility` has its racks held to that facility's cooling instead
    (`hall_load.by_hall`), and their heat to air to its air side (`own_halls.air_by_hall`).

    Fix: a hall with more cooling capacity, fewer racks, or racks that draw less (metric `cooling_headroom`); for the
    air side, more air-side capacity (`air_cooling_capacity`), rear doors, or racks that put less heat in the air.
    """
    for path, c, at, message, it, cap, severity in over_hall(ctx.clusters, "cooling_capacity", "cooling capacity",
                                                            "IT heat"):
        yield Violation(path, c.cluster.spec.id, at, str(message), it, cap, severity=severity,
                        public=getattr(message, "public", ""))   # `over_facility`'s customer words
    yield from air_side(ctx.clusters, ctx.racks, lambda c: feed_power(c.metrics))


@check("COOL010", "cooling.cdu_rated_conditions")
def cdu_rated_conditions(ctx: Context) -> Iterator[Violation]:
    """The CDU's (and a rear door's) capacity is stated at conditions its hall meets, or a derating row covers them.

    A CDU that states `rated_at` (e.g. {water: 32 degC}) in a hall with warmer facility water, warmer air or a higher
    altitude has no stated capacity there unless a `derating` row at conditions at least as hard covers the hall;
    COOL001 then counts that row's capacity. Capacity is not interpolated between rows. A CDU that states no
    `rated_at` is an info finding: COOL001 counts its capacity as stated, but whether the hall's water and air are
    conditions it holds at is not known; so is one whose `rated_at` states a condition the hall does not (an
    altitude, in a hall that states none): that condition was not compared.

    Fix: add the datasheet's capacity at the hall's conditions to the CDU's `derating`, choose a CDU rated for them,
    or lower the facility water temperature; for a CDU without `rated_at`, state the conditions its datasheet gives
    the capacity at.
    """
    yield from cdu_ratings(ctx)


@check("COOL011", "cooling.plant_rated_conditions")
def plant_rated_conditions(ctx: Context) -> Iterator[Violation]:
    """The hall's `cooling_capacity` is stated at outdoor conditions its site meets, or a derating row covers them.

    A plant rated at an ambient below the site's `outdoor_design`, or at an altitude below the site's `altitude`, has
    no stated capacity there unless a `cooling_derating` row at conditions at least as hard covers the site; COOL009
    and `cooling_headroom` then count that row. Capacity is not interpolated between rows. A rating condition the
    site does not state (a plant rated at 35 °C outdoor air in a hall with no `outdoor_design`) is not compared: an
    info finding says the capacity is counted as stated, not known to hold at the site.

    Fix: state the site's `outdoor_design` and `altitude`; add the plant's capacity at the site's design conditions
    to `cooling_derating` (from the chiller or dry cooler selection), or state a plant rated for them.
    """
    yield from plant_ratings(ctx)


@check("COOL012", "cooling.in_rack_cdu_placed")
def in_rack_cdu_placed(ctx: Context) -> Iterator[Violation]:
    """An in-rack CDU that the rack's liquid path names is placed in its slots, `cdu_count` of them per rack.

    An in-rack CDU takes rack units and weight in the rack it serves (the shipped 100 kW class: 4 U, 90 kg). One
    named only in `cooling.liquid` is in no slot: the U map, weight, floor load and rack BOM leave it out while the
    CDU budget (COOL001) counts `cdu_count` of them. In-row CDUs stand outside the rack and are not placed.

    Fix: place the CDU in `slots` (`{at: <U>, part: <cdu id>, count: <cdu_count>}`), or make `cdu_count` the number
    placed.
    """
    yield from unplaced_cdu(ctx)


@check("COOL013", "cooling.cluster_hall")
def racks_in_cluster_hall(ctx: Context) -> Iterator[Violation]:
    """The racks a cluster places name the hall the cluster stands in, so that its floor, water and air judge them.

    A rack is analysed and checked in the `facility` it names: its floor load (MECH004), facility water (COOL003,
    COOL004, COOL006, COOL010), inlet air and altitude (COOL005, COOL007, air density). The cluster's own `facility`
    is compared only with the cluster's totals (PWR010, PWR011, COOL009, COOL011). A library rack names a shipped
    hall (`hall-liquid`), so in a cluster standing in another hall its floor, water and air checks judged the
    shipped hall's conditions, and a rack naming no hall was judged against none.

    Fix: name the cluster's hall in the rack's `facility` (fork a library rack with `archgen catalog show <id>
    --format yaml`), or give the cluster's hall the id its racks name (a project's document shadows the shipped one).
    """
    yield from outside_cluster_hall(ctx)


@check("COOL014", "cooling.rear_door_capacity", severity="warning")
def rear_door_capacity(ctx: Context) -> Iterator[Violation]:
    """The rack's heat to air is within its rear door's capacity (at the hall's conditions, as a CDU's).

    A rear door (`cooling.air.rear_door`) takes the rack's exhaust heat into its water up to its capacity; the hall's
    air takes the rest, which a room-neutral design does not plan for. The rack's heat to air (metric
    `heat_to_air`) already counts the excess as the hall's.

    Fix: a door of larger capacity, less air-cooled equipment in the rack, or plan the hall's air for the excess.
    """
    for path, a in ctx.racks.items():
        door = a.cooling.rear_door
        if door is not None and door.excess.magnitude > 0:
            yield Violation(path, a.rack.spec.id, ("cooling", "air", "rear_door"),
                            f"heat to air {door.air_heat:.1f~P} exceeds rear door {door.unit.id}'s capacity "
                            f"{door.capacity:.1f~P}: the hall's air takes the other {door.excess:.1f~P}",
                            door.air_heat, door.capacity)


@check("COOL015", "cooling.inlet_range")
def inlet_range(ctx: Context) -> Iterator[Violation]:
    """The hall's inlet air is within the operating range each placed system or switch states for itself.

    A part's `cooling.inlet_min` and `inlet_max`, from its datasheet (DGX H100/H200: 5-30 °C), may be narrower than
    the rack's ASHRAE class (COOL005): 33 °C passes A2 and overheats a DGX H100 (`checks.inlet_range`).

    Fix: lower the facility's `air.supply`, or place equipment rated for warmer inlet air.
    """
    yield from outside_inlet(ctx)


@check("COOL016", "cooling.assumed_loop", severity="info")
def assumed_loop(ctx: Context) -> Iterator[Violation]:
    """The rack's liquid loop rests on figures it confirms (not listed under `cooling.liquid.unconfirmed:`).

    A loop figure no public source gives (a supply temperature, a ΔT, the racks sharing a CDU group) is the design's
    assumption, listed as unconfirmed as a part lists its own; COOL001 to COOL004 judge the CDUs, the flow and the
    coolant temperature on it, so the finding names each with its value, and documents tag them assumed.

    Fix: cite each figure in `cooling.liquid.source` ('supply: <page or document, table>') and take it off
    `unconfirmed:`, or accept the figures knowingly.
    """
    yield from assumed_group(ctx, "cooling.liquid", "the liquid loop",
                             "COOL001-COOL004 judge the CDUs, flow and coolant on them")


@check("COOL017", "cooling.assumed_air", severity="info")
def assumed_air(ctx: Context) -> Iterator[Violation]:
    """The rack's air path rests on figures it confirms (not listed under `cooling.air.unconfirmed:`).

    The air ΔT sets the air flow the rack needs (V̇ = Q̇ / (ρ c_p ΔT)) and COOL007 judges the systems' rated flow at
    it; the class bounds the inlet air COOL005 allows. A ΔT no source gives is the design's assumption: the finding
    names it and the class with their values, and documents tag them and the air flow assumed. A system's user guide
    that states its air flow and power gives its ΔT: cite that arithmetic in `cooling.air.source`.

    Fix: cite each figure in `cooling.air.source` ('delta_t: <document, table>: <the arithmetic>') and take it off
    `unconfirmed:`, or accept the figures knowingly.
    """
    yield from assumed_group(ctx, "cooling.air", "the air path",
                             "COOL005 and COOL007 judge the inlet air and the systems' air flow on them")


@check("COOL018", "cooling.air_direction", severity="warning")
def air_direction(ctx: Context) -> Iterator[Violation]:
    """Each placed part that states its airflow takes its air from the rack's front and exhausts it at the rear.

    Rows face each other across cold aisles (the floor plan alternates cold and hot aisles), so a part turned the
    other way, such as a power-to-connector (P2C, 'rear-to-front') switch mounted with its ports at the rack's
    front, breathes the hot aisle and blows its exhaust into the cold aisle its neighbours draw from. The part's
    `cooling.airflow` is read from its own front and turned round where its slot mounts it from the rear
    (`analyse.air_direction`); parts cooled wholly by liquid, passive or mixed parts and those stating no airflow
    are not judged (the rack document's air path lists them).

    Fix: mount the part from the rack's rear (`face: rear` on its slot), or order its variant with the other
    airflow (connector-to-power, C2P) and state it.
    """
    yield from against_aisles(ctx)


@check("COOL019", "cooling.loop_pressure")
def loop_pressure(ctx: Context) -> Iterator[Violation]:
    """The CDU's available pressure at its rated flow covers the rack's coolant pressure drop and its piping's.

    Racks of a CDU group hang in parallel on its header, so each rack's branch (`cooling.liquid.pressure_drop` plus
    `piping_pressure_drop`) must be within the pressure the CDU's pumps leave (`CoolingUnit.pressure`, at its rated
    flow: at the group's lower flow a centrifugal pump gives at least that; beyond it, less, which the message says).
    The rack's drop is taken at its design flow: stated at another (`pressure_drop_flow`), it is scaled by the flow
    ratio to the power 1 (laminar) to 2 (turbulent), the larger judged (`checks.loop_pressure`). The message names
    both flows. Not judged where either pressure is not stated.

    Fix: a CDU (or pumps) with more available pressure, larger piping or manifolds, or fewer trays per branch.
    """
    yield from short_pressure(ctx)


@check("COOL020", "cooling.cdu_lost", severity="warning")
def cdu_lost(ctx: Context) -> Iterator[Violation]:
    """With one CDU of a group lost, the others carry its liquid heat and secondary flow.

    A CDU fails or is taken out for maintenance; the rest of its group then carry every rack's heat, each at its
    capacity at the hall's conditions and its rated `flow` (`analyse.cdu_loss`; the rack document gives the case).
    A claimed redundancy (N+1, N+N) is judged by COOL001 and COOL002, which hold its spares back: this check judges
    the groups that hold none (`cdu_redundancy: N`), where one CDU lost leaves the group short.

    Fix: add a CDU and state `cdu_redundancy: N+1`, or waive with the reason a group may stop (no redundancy
    intended).
    """
    yield from lost_cdu(ctx)


@check("COOL021", "cooling.rack_air_side")
def rack_air_side(ctx: Context) -> Iterator[Violation]:
    """The rack's heat to air (after its rear door) is within the air-side capacity its hall states per rack.

    The hall's `air_cooling_per_rack` is what its air side (in-row coolers, CRAHs with containment) takes at one rack
    position. Where the hall states none, an info finding, not a pass, says the rack's heat to air is not judged
    (and whether the hall-wide `air_cooling_capacity` is, by COOL009 for its clusters).

    Fix: a hall air side sized for the rack (`air_cooling_per_rack`), a rear door (`cooling.air.rear_door`), or
    equipment that puts less heat in the air.
    """
    yield from rack_air(ctx)
