"""Rack analyses: U space, weight and floor load, power chain, and cooling paths.

Every result is a pint quantity; the formulas are written next to the constants they use.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace

from archgen.analyse.air_flow import RatedAir, rated_air
from archgen.analyse.bom import liquid_heat, rack_bom
from archgen.analyse.bom_line import BomLine
from archgen.analyse.feeding import busbar_flags, external_flags, on_pdus_flags, port_share, shelf_efficiency
from archgen.analyse.rear_door import RearDoor, rear_door, unit_capacity
from archgen.build import Design, Placed, RackDesign
from archgen.model import CoolingUnit, PowerShelf, Switch, System
from archgen.model.base import spare_units
from archgen.model.facility import pressure_ratio
from archgen.model.power import PDU
from archgen.model.rack import Feeds, Pdus, Shelves
from archgen.model.system import max_draw, typical_draw
from archgen.quantity_ops import added
from archgen.units import Q_, Q, apparent_power

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


@dataclass(frozen=True)
class Stage:
    """A redundant set of identical units (power shelves, PDUs, feeds or CDUs) and what they can carry.

    `kind` names the units in messages ('power shelves', 'PDUs', 'feeds'), `key` is their entry under the rack's
    `power` ('shelves', 'pdus', 'feeds') and `load` what they must carry (None where the caller holds it).
    """

    count: int
    unit_capacity: Q
    redundancy: str
    spare: int
    kind: str = ""
    key: str = ""
    load: Q | None = None

    @property
    def usable(self) -> Q:
        """Capacity with the spare units held back."""
        return self.unit_capacity * max(self.count - self.spare, 0)

    @property
    def after_one_loss(self) -> Q:
        """Capacity left with any one unit lost."""
        return self.unit_capacity * max(self.count - 1, 0)


#: How a rack's power reaches its equipment (`Power.arrangement`).
ARRANGEMENTS = {
    "none": "feeds straight to the equipment",
    "shelves": "feeds → power shelves → busbar",
    "pdus": "feeds → PDUs → equipment",
    "pdus-shelves": "feeds → PDUs → power shelves → busbar",
    "side-by-side": "feeds → power shelves → busbar, and feeds → PDUs → the parts they serve",
}


@dataclass(frozen=True)
class Power:
    """Power chain of a rack, from IT load to feeds.

    `it_power` is the equipment's maximum draw (`equipment`: systems and switches) plus `optics`, the transceivers
    and active-cable ends no part's figure holds: those in the ports of the rack's switches, and those in the NICs
    of systems whose `power.max` leaves them out (the most loaded instance of this rack type in any cluster; they
    draw power inside this rack, so its feeds, shelves or PDUs and its air path carry them).
    `stages` are the conversion stages from the equipment outward (shelves, PDUs), each with the load it carries;
    `feed_groups` the feeds of each path: one group of every feed, or, with PDUs beside shelves, the shelves' feeds
    and the PDUs' (one per PDU). `feeds` is every feed, carrying the whole input power. `equipment_typical` is the
    systems' and switches' typical draw where their datasheet states one, else their maximum (`typical_from_max`
    lists the parts that fell back); it is for average power and energy, never for budgets. `external` is the draw
    of the parts `power.external` names (`external_parts`), fed from outside the rack's chain: in `input_power` (and
    so in the heat), in no stage's or feed's load. `busbar_voltage` is the shelves' output voltage (the lowest).
    """

    it_power: Q
    other_power: Q
    load: Q
    input_power: Q
    stages: tuple[Stage, ...]
    arrangement: str
    feed_capacity: Q
    phase_factor: float
    feeds: Stage
    feed_groups: tuple[Stage, ...]
    equipment: Q
    optics: Q
    equipment_typical: Q
    typical_from_max: tuple[str, ...] = ()
    external: Q = Q_(0, "kW")
    external_parts: tuple[str, ...] = ()
    busbar_voltage: Q | None = None
    #: Modules in switch ports that the switch's `power.max` holds but its stated typical does not: in `it_typical`.
    optics_held: Q = Q_(0, "kW")

    @property
    def busbar_current(self) -> Q | None:
        """Current on the shelves' DC busbar: the shelves' load / their output voltage (I = P / V); None: no shelves."""
        shelves = self.stages[0] if self.stages and self.stages[0].key == "shelves" else None
        if shelves is None or self.busbar_voltage is None:
            return None
        return (shelves.load / self.busbar_voltage).to("A")

    @property
    def it_typical(self) -> Q:
        """IT power at typical draw (energy, opex): `equipment_typical` plus the optics; budgets stay on `it_power`."""
        return self.equipment_typical + (self.optics or Q_(0, "kW")) + self.optics_held

    @property
    def conversion(self) -> Stage | None:
        """The stage nearest the equipment (shelves, else PDUs), or None."""
        return self.stages[0] if self.stages else None

    @property
    def conversion_kind(self) -> str:
        """What that stage is: 'power shelves', 'PDUs' or 'none'."""
        return self.stages[0].kind if self.stages else "none"


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


def analyse_rack(rack: RackDesign, optics: Q | None = None, space: Space | None = None,
                 held: Q | None = None) -> RackAnalysis:
    """Space, power and cooling of one rack; `optics` is the optics power it holds beyond its parts' (default none).

    `space`: the rack's space where already worked out (it does not depend on `optics`). `held`: the modules its
    switches' maximum holds and their stated typical does not (`Power.optics_held`).
    """
    space = _space(rack) if space is None else space
    power = _power(rack, Q_(0, "kW") if optics is None else optics.to("kW"))
    power = power if held is None else replace(power, optics_held=held.to("kW"))
    cooling = _cooling(rack, power)
    metrics: dict[str, Q] = {
        "it_power": power.it_power, "it_power_typical": power.it_typical, "optics_power": power.optics,
        "rack_load": power.load,
        "input_power": power.input_power,
        "feed_capacity_usable": added(Q_(0, "kW"), (g.usable for g in power.feed_groups)),
        "heat_to_liquid": cooling.heat_liquid,
        "heat_to_air": cooling.heat_air, "coolant_flow": cooling.coolant_flow, "air_flow": cooling.air_flow,
        "u_used": Q_(space.used, "U"), "u_free": Q_(space.height - space.used, "U"), "weight": space.weight,
        "floor_load": space.floor_load,
        "accelerators": Q_(sum(p.part.accelerators for p in rack.items if isinstance(p.part, System)), ""),
    }
    if cooling.rear_door is not None:
        metrics["heat_to_rear_door"] = cooling.rear_door.taken
    if power.conversion:
        metrics["conversion_capacity_usable"] = power.conversion.usable
    return RackAnalysis(rack, space, power, cooling, metrics)


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
    payload = added(Q_(0, "kg"), (m.weight for p in rack.items
                                   if (m := getattr(p.part, "mechanical", None)) is not None))
    weight = (payload + spec.form_factor.weight).to("kg")
    footprint = (spec.form_factor.width * spec.form_factor.depth).to("m**2")
    unweighed = Counter(p.part.id for p in rack.items if getattr(p.part, "mechanical", None) is None)
    return Space(height, used, tuple(overlaps), outside, payload.to("kg"), weight, footprint,
                 (weight / footprint).to("kg/m**2"), tuple(f"{k} x{n}" for k, n in sorted(unweighed.items())))


def _power(rack: RackDesign, optics: Q) -> Power:
    """The rack's power chain as its spec arranges it (see `ARRANGEMENTS`): every placed unit carries its load.

    Beside shelves, the PDUs carry the parts their `serves` names (and those parts' share of the switch-end optics,
    by switch ports); behind the PDUs (`shelves.fed_from: pdus`), the PDUs carry the shelves' input as well.
    """
    spec = rack.spec
    shelves = [p.part for p in rack.items if isinstance(p.part, PowerShelf)]
    pdus = [p.part for p in rack.items if isinstance(p.part, PDU)]
    series = bool(shelves and pdus and spec.power.shelves and spec.power.shelves.fed_from == "pdus")
    on_pdus, outside = on_pdus_flags(rack), external_flags(rack)
    equipment = _draw(rack, (System, Switch))
    other = _draw(rack, (CoolingUnit,))
    it = equipment + optics
    load = it + other
    loads = (System, Switch, CoolingUnit)
    pdu_direct = (_draw(rack, loads, on_pdus) + optics * port_share(rack, on_pdus)).to("kW")
    external = (_draw(rack, loads, outside) + optics * port_share(rack, outside)).to("kW")
    stages: list[Stage] = []
    input_power = load - external  # what the rack's own chain carries
    efficiency = shelf_efficiency(rack)  # the least of the shelves'; None: no shelves
    if efficiency is not None:
        busbar = (input_power - pdu_direct).to("kW")
        stages.append(_stage(spec.power.shelves, "power shelves", "shelves", len(shelves),
                             min(s.capacity for s in shelves).to("kW"), busbar))
        input_power = busbar / efficiency + pdu_direct
    if pdus:
        carried = input_power if series or not shelves else pdu_direct
        stages.append(_stage(spec.power.pdus, "PDUs", "pdus", len(pdus),
                             min(pdu_capacity(p, spec.power.feeds) for p in pdus), carried.to("kW")))
    feeds = spec.power.feeds
    factor = phase_factor(feeds.phases, feeds.basis)
    per_feed = (feeds.voltage * feeds.current * factor * feeds.derating * feeds.power_factor).to("kW")
    input_power = input_power.to("kW")
    every = Stage(feeds.count, per_feed, feeds.redundancy, spare_units(feeds.redundancy, feeds.count), "feeds",
                  "feeds", input_power)
    arrangement = ("pdus-shelves" if series else "side-by-side") if shelves and pdus else \
        "shelves" if shelves else "pdus" if pdus else "none"
    groups: tuple[Stage, ...] = (every,)
    if arrangement == "side-by-side":  # one feed per PDU (PWR007), the rest to the shelves
        rest = max(feeds.count - len(pdus), 0)
        groups = (replace(every, count=rest, spare=spare_units(feeds.redundancy, rest),
                          kind="feeds of the power shelves", load=(input_power - pdu_direct).to("kW")),
                  replace(every, count=len(pdus), spare=spare_units(feeds.redundancy, len(pdus)),
                          kind="feeds of the PDUs", load=pdu_direct))
    typical = [typical_draw(p.part) for p in rack.items if isinstance(p.part, System | Switch)]
    fell_back = tuple(sorted({p.part.id for p in rack.items
                              if isinstance(p.part, System | Switch) and p.part.power.typical is None}))
    named = tuple(sorted({p.part.id for p, out in zip(rack.items, outside, strict=True) if out}))
    busbar_voltage = min(s.output_voltage for s in shelves).to("V") if shelves else None
    return Power(it, other, load.to("kW"), (input_power + external).to("kW"), tuple(stages), arrangement, per_feed,
                 factor, every, groups, equipment, optics, added(Q_(0, "kW"), typical).to("kW"), fell_back, external,
                 named, busbar_voltage)


def _stage(claim: Shelves | Pdus | None, kind: str, key: str, count: int, capacity: Q, load: Q) -> Stage:
    """A conversion stage of `count` units with the redundancy the rack claims for it (N when it claims none)."""
    red = claim.redundancy if claim else "N"
    return Stage(count, capacity, red, spare_units(red, count), kind, key, load)


def _draw(rack: RackDesign, kinds: tuple[type[System | Switch | CoolingUnit], ...],
          among: list[bool] | None = None) -> Q:
    """Maximum draw of the placed items of `kinds` (a CDU's `power`), of those flagged in `among` when given."""
    none = Q_(0, "W")
    draws = ((p.part.power if isinstance(p.part, CoolingUnit) else max_draw(p.part))  # NICs where excluded
             for i, p in enumerate(rack.items)  # of `kinds`, which are among these three
             if isinstance(p.part, kinds) and isinstance(p.part, System | Switch | CoolingUnit)
             and (among is None or among[i]))
    return added(none, (draw if draw is not None else none for draw in draws)).to("kW")


def phase_factor(phases: int, basis: str) -> float:
    """Multiplier of V × A giving a circuit's apparent power.

    1 for single phase, √3 for three phase with V line-to-line, 3 for three phase with V line-to-neutral.
    """
    if phases == 1:
        return 1.0
    return math.sqrt(3) if basis == "line-to-line" else 3.0


def pdu_capacity(pdu: PDU, feeds: Feeds) -> Q:
    """The load one PDU carries continuously: its rating × the rack feeds' continuous-load derating × power factor.

    The rating is the PDU's `capacity`, else V × A × phase factor (a 415 V 60 A three-phase PDU: 43.1 kVA). The
    power factor (W per VA) applies to an apparent power only: a `capacity` written in kW is real power already and
    is not derated by it again (energyfix; newuser18 found 20 kW at PF 0.9 taken as 18 kW). Like the
    feed ahead of it, a PDU on a 60 A circuit carries 80 % of it continuously (NEC 210.20; netbox's available power
    is V × A × √3 × max utilisation): 34.5 kW. The PWR001/PWR004 budget and the load per phase
    (`analyse.distribution`, a third of this per phase) both take this figure.
    """
    rating = pdu.capacity if pdu.capacity is not None else pdu.voltage * pdu.current * phase_factor(pdu.phases,
                                                                                                     pdu.basis)
    factor = feeds.power_factor if apparent_power(rating) else 1.0
    return (rating * feeds.derating * factor).to("kW")


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
    out = {}
    for r in design.racks:
        if only is None or r.path in only:
            first = known.get(r.path)
            a = analyse_rack(r, optics.get(r.path), first.space if first else None, held.get(r.path))
            out[r.path] = replace(a, bom=first.bom if first else tuple(rack_bom(r, design.specs)))
    return out
