"""A rack's power chain, from its IT load to its feeds: the stages its units make and the load each carries.

`power_chain` arranges the rack's power shelves, PDUs and feeds as its spec connects them (`ARRANGEMENTS`) and gives
its `Power`: every `Stage` with its redundancy and load, the feeds of each path, the typical and external draws.
`pdu_capacity` and `phase_factor` are the one rule for a PDU's and a circuit's capacity. `analyse.rack` analyses a
rack's space and cooling beside it (split from it for its size).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from archgen.analyse.feeding import external_flags, on_pdus_flags, port_share, shelf_efficiency
from archgen.build import RackDesign
from archgen.model import CoolingUnit, PowerShelf, Switch, System
from archgen.model.base import spare_units
from archgen.model.power import PDU
from archgen.model.rack import Feeds, Pdus, Shelves
from archgen.model.system import max_draw, typical_draw
from archgen.quantity_ops import added
from archgen.units import Q_, Q, apparent_power


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


def power_chain(rack: RackDesign, optics: Q) -> Power:
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
