"""Rack analyses: U space, weight and floor load, power chain, and cooling paths.

Every result is a pint quantity; the formulas are written next to the constants they use.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace

from archgen.analyse.air_flow import RatedAir, rated_air
from archgen.analyse.bom import rack_bom
from archgen.analyse.bom_line import BomLine
from archgen.analyse.cdu_units import liquid_heat
from archgen.analyse.feeding import busbar_flags, external_flags, on_pdus_flags, port_share
from archgen.analyse.inlet_air import Site, inlet_air, rack_sites
from archgen.analyse.power_chain import Power, Stage, power_chain
from archgen.analyse.rear_door import RearDoor, rear_door, unit_capacity
from archgen.build import Design, Placed, RackDesign
from archgen.model import CoolingUnit, Part, Switch, System
from archgen.model.base import spare_units
from archgen.model.facility import pressure_ratio
from archgen.quantity_ops import added
from archgen.units import Q_, Q

__all__ = ["busbar_flags", "external_flags", "on_pdus_flags", "port_share"]  # re-exported: their home was here

#: Coolant properties at typical secondary-loop temperatures (25–45 degC).
#: Water: NIST Chemistry WebBook (saturated liquid, 30 degC): rho 995.6 kg/m^3, c_p 4.180 kJ/(kg K).
#: PG25 (25 % propylene glycol by mass): ASHRAE Handbook—Fundamentals 2021, ch. 31, Tables 5-6, at 40 degC:
#: rho ≈ 1,015 kg/m^3, c_p ≈ 3.93 kJ/(kg K).
COOLANTS: dict[str, tuple[Q, Q]] = {
    "water": (Q_(995.6, "kg/m**3"), Q_(4180, "J/kg/K")),
    "pg25": (Q_(1015, "kg/m**3"), Q_(3930, "J/kg/K")),
}
#: Air at 20 degC, sea level (ISA): rho 1.204 kg/m^3, c_p 1.006 kJ/(kg K); at a hall's `altitude` rho scales with the
#: barometric pressure (`model.facility.pressure_ratio`).
AIR = (Q_(1.204, "kg/m**3"), Q_(1006, "J/kg/K"))


@dataclass(frozen=True)
class Space:
    """U map and weight of a rack."""

    height: int
    used: int
    overlaps: tuple[tuple[Placed, Placed], ...]
    outside: tuple[Placed, ...]
    payload: Q
    weight: Q
    footprint: Q
    floor_load: Q
    unweighed: tuple[str, ...] = ()    # placed parts stating no weight, 'id x count', left out of payload and weight
    left_out: tuple[str, ...] = ()     # what is installed and not weighed, in words (`left_out`): the weight a floor
    coolant: Q = Q_(0, "kg")           # the coolant it holds filled where volumes are stated (`coolant`), in the weight
    marked: tuple[tuple[str, int, Q], ...] = ()   # placed parts' weights listed unconfirmed (`unconfirmed_weight`)
    frame_marked: Q = Q_(0, "kg")      # the enclosure's empty weight where `form_factor` lists it unconfirmed (MECH005)

    @property
    def lower_bound(self) -> bool:
        """Whether the weight (and floor load, and payload) leaves something installed out: a lower bound."""
        return bool(self.left_out)

    @property
    def unconfirmed_payload(self) -> Q:
        """How much of the payload rests on placed parts' weights listed unconfirmed (placeholders): 0 kg where none."""
        return added(Q_(0, "kg"), (w * n for _, n, w in self.marked)).to("kg")

    @property
    def unconfirmed(self) -> Q:
        """How much of the weight rests on figures listed unconfirmed: those parts' and the enclosure's (newuser106).

        The documents say it beside the weight and floor load, "(1,190 kg of it unconfirmed)", as a power figure says
        how much of it rests on unconfirmed draws; MECH003 and MECH004 name it too.
        """
        return (self.unconfirmed_payload + self.frame_marked).to("kg")

    @property
    def payload_left_out(self) -> tuple[str, ...]:
        """What of `left_out` the payload would hold: all but the coolant (MECH003 rates the equipment alone).

        A rack maker rates its payload on the equipment, never the coolant (newuser67) nor the enclosure itself.
        """
        return tuple(x for x in self.left_out if not x.startswith(COOLANT_IN) and x != ENCLOSURE)


@dataclass(frozen=True)
class CoolingSplit:
    """Heat split and what the liquid and air paths must move."""

    heat: Q
    heat_liquid: Q
    heat_air: Q
    coolant_flow: Q
    air_flow: Q
    declared_air_flow: Q | None
    cdu: Stage | None
    cdu_flow: Q | None
    cdu_load: Q
    cdu_flow_needed: Q
    rear_door: RearDoor | None = None  # `heat_air` is what the hall's air takes, after the door
    rated: RatedAir | None = None      # the systems stating their air flow, and their heat (`analyse.air_flow`)
    rated_needed: Q | None = None      # the air their heat needs at the rack's ΔT: COOL007 compares the two


@dataclass(frozen=True)
class RackAnalysis:
    """Everything computed for one rack."""

    rack: RackDesign
    space: Space
    power: Power
    cooling: CoolingSplit
    metrics: dict[str, Q] = field(default_factory=dict)
    bom: tuple[BomLine, ...] = ()
    inlet_note: str = ""   # where its `air_inlet_max` stands, where the layout puts it in halls (`inlet_air`)


def analyse_rack(rack: RackDesign, optics: Q | None = None, space: Space | None = None,
                 held: Q | None = None, sites: tuple[Site, ...] = ()) -> RackAnalysis:
    """Space, power and cooling of one rack; `optics` is the optics power it holds beyond its parts' (default none).

    `space`: the rack's space where already worked out (it does not depend on `optics`). `held`: the modules its
    switches' maximum holds and their stated typical does not (`Power.optics_held`). `sites`: where the layouts put
    it, where some of them is a hall naming its own facility (`inlet_air.rack_sites`).
    """
    space = _space(rack) if space is None else space
    power = power_chain(rack, Q_(0, "kW") if optics is None else optics.to("kW"))
    power = power if held is None else replace(power, optics_held=held.to("kW"))
    cooling = _cooling(rack, power)
    metrics: dict[str, Q] = {
        "it_power": power.it_power, "it_power_typical": power.it_typical, "optics_power": power.optics,
        "rack_load": power.load,
        "input_power": power.input_power, "feed_load": (power.input_power - power.external).to("kW"),
        "feed_capacity_usable": added(Q_(0, "kW"), (g.usable for g in power.feed_groups)),
        "heat_to_liquid": cooling.heat_liquid,
        "heat_to_air": cooling.heat_air, "coolant_flow": cooling.coolant_flow, "air_flow": cooling.air_flow,
        "u_used": Q_(space.used, "U"), "u_free": Q_(space.height - space.used, "U"), "weight": space.weight,
        "floor_load": space.floor_load,
        "accelerators": Q_(sum(p.part.accelerators for p in rack.items if isinstance(p.part, System)), ""),
    }
    metrics |= inlets(rack, sites)
    if cooling.rear_door is not None:
        metrics["heat_to_rear_door"] = cooling.rear_door.taken
    if power.conversion:
        metrics["conversion_capacity_usable"] = power.conversion.usable
    return RackAnalysis(rack, space, power, cooling, metrics, inlet_note=inlet_air(rack, sites)[1])


def inlets(rack: RackDesign, sites: tuple[Site, ...] = ()) -> dict[str, Q]:
    """What the rack accepts of its hall's coolant and air: `coolant_supply` (a liquid loop's only), `air_inlet_max`.

    The coolant supply is the one the design states (`cooling.liquid.supply`, the warmest its trays accept); the air
    is its ASHRAE class's allowable top at its hall's altitude (`model.facility.allowable_air`, sea level where the
    rack names no hall): where the layout puts it in halls naming their own facilities (`sites`), theirs, the lowest
    over several (`analyse.inlet_air`, hall30). A hall's requirement and a vendor's deviation on either are judged
    on these (newuser84).
    """
    spec = rack.spec.cooling
    out = {"air_inlet_max": inlet_air(rack, sites)[0]}
    if spec.liquid is not None:
        out["coolant_supply"] = spec.liquid.supply.to("degC")
    return out


def _space(rack: RackDesign) -> Space:
    spec = rack.spec
    height = round(spec.form_factor.height.m_as("U"))
    occupied: dict[tuple[int, str], Placed] = {}
    overlaps: list[tuple[Placed, Placed]] = []
    for item in rack.items:
        depth = getattr(getattr(item.part, "mechanical", None), "depth", "full")
        faces = ("front", "rear") if depth == "full" else (spec.slots[item.slot].face,)
        for u in range(item.u, min(item.top, height) + 1):  # above the top the item is outside (MECH001); a part
            # 1e300 U tall must not allocate a slot per U
            for face in faces:
                other = occupied.setdefault((u, face), item)
                if other is not item and (not overlaps or overlaps[-1] != (other, item)):
                    overlaps.append((other, item))
    outside = tuple(p for p in rack.items if p.top > height)
    used = len({u for u, _ in occupied if u <= height})
    held, dry = coolant(rack)
    payload = added(Q_(0, "kg"), (m.weight for p in rack.items
                                   if (m := getattr(p.part, "mechanical", None)) is not None))
    weight = (payload + (spec.form_factor.weight or Q_(0, "kg")) + held).to("kg")
    footprint = (spec.form_factor.width * spec.form_factor.depth).to("m**2")
    unweighed = Counter(p.part.id for p in rack.items if getattr(p.part, "mechanical", None) is None)
    named = tuple(f"{k} x{n}" for k, n in sorted(unweighed.items()))
    return Space(height, used, tuple(overlaps), outside, payload.to("kg"), weight, footprint,
                 (weight / footprint).to("kg/m**2"), named, left_out(rack, named, dry), held, unconfirmed_weight(rack),
                 frame if (frame := spec.form_factor.weight) is not None and spec.form_factor.is_unconfirmed("weight")
                 else Q_(0, "kg"))


def unconfirmed_weight(rack: RackDesign) -> tuple[tuple[str, int, Q], ...]:
    """(part id, count, unit weight) of each placed part whose catalog entry lists its weight unconfirmed, as placed.

    `mechanical.weight` under `unconfirmed:` (a placeholder: the GB200 tray's 40 kg, spread from a rack's total). The
    figures a requirement on the rack's weight names as its assumed inputs (`rack_power_inputs.rack_loop_inputs`),
    with the enclosure's (`Space.frame_marked`); their sum is `Space.unconfirmed_payload`.
    """
    marked = Counter(p.part.id for p in rack.items if weighs_unconfirmed(p.part))
    weights = {p.part.id: m.weight for p in rack.items
               if p.part.id in marked and (m := getattr(p.part, "mechanical", None)) is not None}
    return tuple((pid, n, weights[pid]) for pid, n in marked.items())


def weighs_unconfirmed(part: object) -> bool:
    """Whether a placed `part` states a weight that its catalog entry lists unconfirmed (`mechanical.weight`)."""
    return isinstance(part, Part) and getattr(part, "mechanical", None) is not None and \
        part.is_unconfirmed("mechanical.weight")


def coolant(rack: RackDesign) -> tuple[Q, tuple[str, ...]]:
    """The coolant a rack holds filled, in its weight (not its payload), and what in its loop states no volume.

    Mass = volume x the loop's coolant density (`COOLANTS`, the densities the coolant flow uses). The loop's
    `coolant_volume` is everything the rack holds (trays, manifolds, hoses): stated, it is the coolant, complete
    (newuser67). Not stated, each liquid-cooled placed part's `cooling.coolant_volume` is weighed and what states none
    is named ('gb200-compute-tray', 'its manifolds and hoses'): where the loop carries heat, the weight leaves its
    coolant out (`left_out`, weight67).
    """
    path, zero = rack.spec.cooling.liquid, Q_(0, "kg")
    if path is None:
        return zero, ()
    rho = COOLANTS[path.coolant][0]
    if path.coolant_volume is not None:
        return (path.coolant_volume * rho).to("kg"), ()
    wet = wet_parts(rack)
    if not wet:
        return zero, ()
    in_parts = added(zero, ((part.cooling.coolant_volume * rho).to("kg") for part in wet
                            if part.cooling.coolant_volume is not None))
    dry = tuple(dict.fromkeys(part.id for part in wet if part.cooling.coolant_volume is None))
    return in_parts.to("kg"), dry + ("its manifolds and hoses",)


def wet_parts(rack: RackDesign) -> list[System | Switch]:
    """The rack's liquid-cooled placed systems and switches, one entry per unit placed."""
    return [p.part for p in rack.items if isinstance(p.part, System | Switch) and p.part.cooling.liquid_fraction > 0]


def parts_coolant(rack: RackDesign) -> tuple[Q, tuple[str, ...]]:
    """The coolant volume the rack's liquid-cooled placed parts state, summed over every unit, and those parts in words.

    ('gb200-compute-tray 18 x 1.5 l'). The loop's `coolant_volume` holds it (`coolant`; MECH006 judges that it does).
    """
    wet = {p.id: p.cooling.coolant_volume.to("L") for p in wet_parts(rack) if p.cooling.coolant_volume is not None}
    units = Counter(p.id for p in wet_parts(rack) if p.id in wet)
    total = added(Q_(0, "L"), (wet[pid] * n for pid, n in units.items()))
    return total.to("L"), tuple(f"{pid} {n} x {wet[pid]:g~P}" for pid, n in sorted(units.items()))


#: What a rack's weight never counts, in words: no link part states a weight (cables, transceivers), and no spec
#: states the coolant a liquid loop holds unless its parts and the loop give their volumes (`coolant`; weight67, the
#: lead's note: "Rack weight as installed" was judged met on the dry weight of the parts that state one).
CABLES = "the cables and transceivers in its ports, as no link part states a weight"
COOLANT_IN = "the coolant in "   # how every coolant item of `left_out` begins (`Space.payload_left_out`)
COOLANT = f"{COOLANT_IN}its trays, manifolds and hoses, as no spec states the volume they hold"
#: The empty enclosure where its `form_factor.weight` is not provided (weight36: none is back-computed from a total;
#: enclosure36: none is assumed for a typical cabinet). Words for any rack: an EIA-19 cabinet has no busbar.
ENCLOSURE = "the empty enclosure (frame, and any busbar or manifolds), whose weight is not provided"


def left_out(rack: RackDesign, unweighed: tuple[str, ...], dry: tuple[str, ...] = ()) -> tuple[str, ...]:
    """What is installed in `rack` and not in its weight: the enclosure, parts stating no weight, cables, coolant.

    `unweighed`: the placed parts that state no weight ('pdu x4'). Cables and transceivers where a system or switch is
    placed (its NICs', scale-up and management ports are cabled). `dry`: what in a liquid loop carrying heat states no
    coolant volume (`coolant`): every part and the loop, `COOLANT`; some, their coolant named. The enclosure first
    where its empty weight is not provided (`ENCLOSURE`). Empty: every installed thing is weighed, and the weight is
    the rack's as installed.
    """
    ports = any(isinstance(p.part, Switch | System) for p in rack.items)
    loop = rack.spec.cooling.liquid
    every = loop is not None and len(dry) == 1 + len(
        {p.part.id for p in rack.items if isinstance(p.part, System | Switch) and p.part.cooling.liquid_fraction > 0})
    wet = (COOLANT,) if every else (f"{COOLANT_IN}{', '.join(dry)}, as no volume is stated for it",) if dry else ()
    frame = (ENCLOSURE,) if rack.spec.form_factor.weight is None else ()
    return frame + tuple(f"{n}, which states no weight" for n in unweighed) + ((CABLES,) if ports else ()) + wet


def weight_bounds(racks: Mapping[str, RackAnalysis]) -> dict[str, dict[str, tuple[Q | None, str]]]:
    """By rack path, its weight and floor load where they are lower bounds: no upper end (infinite), and what is missed.

    `Operations.unsettled`'s form (`model.unsettled.unsettled_note`): a requirement `weight <= 1400 kg` that the
    lower bound meets is not provided, never met on a sum that leaves parts out; one the lower bound misses is not
    met. Racks whose weight counts everything installed are not given. Where some of the weight rests on weights
    listed unconfirmed (`Space.unconfirmed`), the why says how much, and which (newuser106).
    """
    out: dict[str, dict[str, tuple[Q | None, str]]] = {}
    for path, a in racks.items():
        if a.space.lower_bound:
            why = "; ".join(a.space.left_out) + resting(a.space)
            out[path] = {"weight": (Q_(math.inf, "kg"), why), "floor_load": (Q_(math.inf, "kg/m**2"), why)}
    return out


def resting(space: Space) -> str:
    """'. Of its 1205 kg, 1190 kg rests on weights listed unconfirmed: ...' (`Space.unconfirmed`); '' where none is."""
    if not space.unconfirmed.magnitude:
        return ""
    return (f". Of its {space.weight:.0f~P}, {space.unconfirmed:.0f~P} rests on weights listed unconfirmed "
            f"(placeholders): {', '.join(marked_words(space))}")


def marked_words(space: Space) -> tuple[str, ...]:
    """The weights `Space.unconfirmed` sums, in words: 'gb200-compute-tray 18 x 40 kg', 'the empty enclosure 150 kg'."""
    named = tuple(f"{pid} {n} x {w:g~P}" for pid, n, w in space.marked)
    return named + ((f"the empty enclosure {space.frame_marked:g~P}",) if space.frame_marked.magnitude else ())


def volume_flow(heat: Q, density: Q, heat_capacity: Q, delta_t: Q) -> Q:
    """Flow that carries `heat` with a temperature rise `delta_t`: V̇ = Q̇ / (ρ · c_p · ΔT)."""
    return (heat / (density * heat_capacity * delta_t)).to("L/min")


def _cooling(rack: RackDesign, power: Power) -> CoolingSplit:
    spec = rack.spec
    liquid = liquid_heat(rack)
    heat = (power.input_power).to("kW")  # every watt drawn, conversion losses included, ends up as heat
    air = heat - liquid  # transceivers in switch cages are cooled by the switches' fans: their heat goes to air
    path = spec.cooling.liquid
    coolant_flow = Q_(0, "L/min")
    cdu, cdu_flow, cdu_load, cdu_flow_needed = None, None, Q_(0, "kW"), Q_(0, "L/min")
    if path and liquid.magnitude > 0:
        rho, cp = COOLANTS[path.coolant]
        coolant_flow = volume_flow(liquid, rho, cp, path.delta_t)
        cdu_load, cdu_flow_needed = liquid * path.racks_per_cdu, coolant_flow * path.racks_per_cdu
    if path and rack.cdu is not None:
        unit: CoolingUnit = rack.cdu
        cdu = Stage(path.cdu_count, cdu_capacity(rack, unit).to("kW"), path.cdu_redundancy,
                    spare_units(path.cdu_redundancy, path.cdu_count))
        if unit.flow is not None:
            cdu_flow = (unit.flow * (cdu.count - cdu.spare)).to("L/min")
    (rho, cp), rated, dt = AIR, rated_air(rack), spec.cooling.air.delta_t
    rho = rho * pressure_ratio(rack.facility.altitude if rack.facility is not None else None)
    air_flow = volume_flow(air, rho, cp, dt).to("ft**3/min")
    rated_needed = volume_flow(rated.heat, rho, cp, dt).to("ft**3/min") if rated else None
    door = rear_door(rack, air)  # the equipment's air flow (above) is the same with a door: it cools the exhaust
    return CoolingSplit(heat, liquid, air - door.taken if door else air, coolant_flow, air_flow,
                        rated.flow if rated else None, cdu, cdu_flow, cdu_load, cdu_flow_needed, door, rated,
                        rated_needed)


def cdu_capacity(rack: RackDesign, unit: CoolingUnit) -> Q:
    """One CDU's (`unit`, the rack's) capacity at its hall's conditions (`analyse.rear_door.unit_capacity`)."""
    return unit_capacity(rack, unit)


def analyse(design: Design, optics: dict[str, Q] | None = None, *, only: Collection[str] | None = None,
            known: Mapping[str, RackAnalysis] | None = None, held: Mapping[str, Q] | None = None
            ) -> dict[str, RackAnalysis]:
    """Analyse every rack of the design (with its bill of materials), keyed by its object path.

    `optics` maps a rack's path to the optics power beyond its parts' figures of its most loaded instance in the
    clusters (`analyse.optics.optics_by_rack`); racks missing from it hold none. `only`: just the racks of these
    paths (the pipeline's second pass, after the clusters; `archgen estimate`'s one cluster). `known`: analyses of
    the first pass, whose space and bill of materials (neither depends on optics) are kept; power and cooling are
    worked out again. `held`: by rack path, the modules its switches' maximum holds and their typical does not.
    """
    optics, known, held = optics or {}, known or {}, held or {}
    sites, out = rack_sites(design), {}
    for r in design.racks:
        if only is None or r.path in only:
            first = known.get(r.path)
            a = analyse_rack(r, optics.get(r.path), first.space if first else None, held.get(r.path),
                             sites.get(r.path, ()))
            out[r.path] = replace(a, bom=first.bom if first else tuple(rack_bom(r, design.specs)))
    return out
