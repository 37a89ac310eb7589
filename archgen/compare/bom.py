"""The bill-of-materials delta of two runs: each part whose count or line power differs, per object, and swaps.

The BOMs are the ones the documents render (`analyse.bom`): a rack's (`RackAnalysis.bom`: its placed parts, the
components fitted in its systems, its accessories) and a cluster's (`Cabling.bom`: racks, placed parts, switches
outside racks, link modules and cable assemblies, fibre patch cords by length bin). A swap of optics (SR8 for DR8) or
of a switch model keeps every total the metrics show, yet moves two BOM lines; this is where a reviewer sees it.

A line is keyed by (object, part, system it is fitted in); lines of one key are added up. A line of one count on
both sides is listed where its total power moved (a module's draw moved inside a switch's maximum); a part whose
count fell by N beside another of its kind that rose by N in the same place is a swap (`swaps`). Its power change is the
change of the line's total power (quantity x unit power, as the BOM gives it; a rack line's is its placed parts'
draw, which its other lines itemise), None where a side's part has no power of its own in the BOM. Its cost change
is the change of quantity x unit price where the cluster's capex prices the part (`analyse.cost`, price lists
first), None where a side holding the part has no price for it; rack objects carry no capex, so no cost.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from archgen.analyse.bom_line import BomLine, part_number
from archgen.analyse.rack_power_inputs import draw_unconfirmed
from archgen.pipeline import Run
from archgen.units import Q_, Q
from archgen.validate import Specs


@dataclass(frozen=True)
class Holding:
    """One part of one object's BOM: kind, quantity, total power and unit price (None where not known), name, number."""

    kind: str
    quantity: int
    power: Q | None
    price: Q | None
    name: str = ""
    number: str = ""
    #: whether its power rests on a figure its part lists unconfirmed (`render.tables.unconfirmed_power`)
    unconfirmed: bool = False


@dataclass(frozen=True)
class PartChange:
    """A BOM part whose count, or line power, differs between BASE and HEAD (0 where a side does not hold it)."""

    object: str
    part: str
    kind: str
    within: str
    base: int
    head: int
    power: Q | None
    cost: Q | None
    #: The part's name and orderable part number as the BOM gives them (HEAD's, else BASE's), the number's cell saying
    #: why there is none where the part states none (`analyse.bom_line.part_number`): what a partner quotes against
    #: (`archgen diff --audience customer`).
    name: str = ""
    number: str = ""
    #: Whether its power change rests on a power figure its part lists unconfirmed (HEAD's part, else BASE's): the
    #: diff marks it "(unconfirmed)", as the rendered BOM marks the line (newuser101: a placeholder's +36 kW).
    unconfirmed: bool = False

    @property
    def change(self) -> int:
        """HEAD's count minus BASE's."""
        return self.head - self.base

    @property
    def subtotal(self) -> bool:
        """Whether the line's power is a subtotal: a cluster's rack line draws what its placed parts' lines give.

        A cluster's BOM gives each rack type its placed parts' maximum draw and those parts again in their own
        lines (`analyse.bom.RACK_NOTE`); added together they count the rack twice (newuser87: the rack line -137.7
        kW beside its trays' -103.3 kW). Its price is the enclosure's own, no subtotal.
        """
        return self.kind == "Rack"


def bom_lines(run: Run) -> dict[str, dict[tuple[str, str], Holding]]:
    """Every rack's and cluster's BOM in a run, by object path and (part, system it is fitted in)."""
    out: dict[str, dict[tuple[str, str], Holding]] = {}
    for path, rack in sorted(run.racks.items()):
        out[path] = _holdings(rack.bom, {}, run.design.specs)
    for path, cluster in sorted(run.clusters.items()):
        if cluster.cabling is None:
            continue
        cost = run.operations.cost.get(path)
        prices = {(c.part, c.kind): c.unit_price for c in cost.lines} if cost is not None else {}
        out[path] = _holdings(cluster.cabling.bom, prices, run.design.specs)
    return out


def _holdings(lines: Iterable[BomLine], prices: dict[tuple[str, str], Q | None],
              specs: Specs) -> dict[tuple[str, str], Holding]:
    """One object's BOM lines by (part, system it is fitted in), with the unit prices its capex gives.

    The name is the part's (a fibre cord's line names its length bin, so a part's lines of one key keep the first's
    part name), the number its spec's `part_number` or why it has none ("generic part: no OPN", "ordered with its
    system", `analyse.bom_line.part_number`), as the rendered BOM gives them (`render.tables.bom_name`).
    """
    out: dict[tuple[str, str], Holding] = {}
    for line in lines:
        key = (line.part, line.within)
        price = prices.get((line.part, line.kind))
        have = out.get(key)
        power = line.total_power
        if have is not None:
            power = None if power is None or have.power is None else have.power + power
        part = specs.get(line.part)
        name = getattr(part, "name", "") or line.name or line.part
        number = part_number(line, part)
        out[key] = Holding(line.kind, line.quantity + (have.quantity if have else 0), power, price, name, number,
                           draw_unconfirmed(part, specs))
    return out


def bom_changes(base: Run, head: Run) -> tuple[PartChange, ...]:
    """The parts whose count or line power differs, in objects both runs hold; by object, kind, part and system."""
    before, after = bom_lines(base), bom_lines(head)
    changes = []
    for obj in sorted(set(before) & set(after)):
        old, new = before[obj], after[obj]
        for key in set(old) | set(new):
            a, b = old.get(key), new.get(key)
            qa, qb = (a.quantity if a else 0), (b.quantity if b else 0)
            if qa == qb and not _power_moved(a, b):
                continue
            held = next(h for h in (b, a) if h is not None)
            changes.append(PartChange(obj, key[0], held.kind, key[1], qa, qb, _power(a, b), _cost(a, b), held.name,
                                      held.number, held.unconfirmed))
    return tuple(sorted(changes, key=lambda c: (c.object, c.kind, c.part, c.within)))


@dataclass(frozen=True)
class PowerTotal:
    """One object's BOM power change over its lines, rack lines left out (`PartChange.subtotal`)."""

    object: str
    power: Q
    #: lines of the object, rack lines left out, whose power is not known on a side (— in the table): not in `power`
    unknown: int


def power_totals(changes: Iterable[PartChange]) -> tuple[PowerTotal, ...]:
    """Per object with a changed line, the sum of its lines' power changes but its rack lines', in object order.

    The one sum a reader may take of a diff's power column: each draw once, as the rendered cluster BOM's Total
    power reconciles over "the part lines (all but the rack lines)" (`render.cluster_bom.reconciled`). A part of no
    power of its own (a fibre cord, a blanking panel) is counted in `unknown`, not as 0.
    """
    by: dict[str, list[PartChange]] = defaultdict(list)
    for c in changes:
        by[c.object].append(c)
    out = []
    for obj in sorted(by):
        lines = [c for c in by[obj] if not c.subtotal]
        known = [c.power for c in lines if c.power is not None]
        total = sum((q.to("kW") for q in known), Q_(0, "kW"))
        out.append(PowerTotal(obj, total, len(lines) - len(known)))
    return tuple(out)


def _power_moved(a: Holding | None, b: Holding | None) -> bool:
    """Whether a line of one count on both sides draws another total power (newuser86: mmf-800g-sr8 1.2 -> 0.0 kW)."""
    if a is None or b is None or a.power is None or b.power is None or not a.power.is_compatible_with(b.power):
        return False
    old, new = float(a.power.to(b.power.units).magnitude), float(b.power.magnitude)
    return not math.isclose(old, new, rel_tol=1e-9, abs_tol=1e-9)


@dataclass(frozen=True)
class Swap:
    """One part's count fell by `count` and another's of the same kind rose by as many, in the same place."""

    old: PartChange
    new: PartChange

    @property
    def count(self) -> int:
        """How many were swapped."""
        return self.new.change

    @property
    def power(self) -> Q | None:
        """The two lines' power change together; None where either's is not known."""
        return _sum(self.old.power, self.new.power)

    @property
    def cost(self) -> Q | None:
        """The two lines' cost change together; None where either's is not known (or in two currencies)."""
        return _sum(self.old.cost, self.new.cost)


def _sum(a: Q | None, b: Q | None) -> Q | None:
    """The sum of two changes; None where either is None or their units differ (two currencies)."""
    if a is None or b is None or not b.is_compatible_with(a):
        return None
    return b + a.to(b.units)


def swaps(changes: Iterable[PartChange]) -> tuple[Swap, ...]:
    """Part swaps among count changes: in one object and system, a part of a kind falls by N and another rises by N.

    Paired only where that N names one falling and one rising part of the kind there (two cords falling by 4 beside
    one rising by 4 stay lines: which one was swapped is not known). In the order of the changes.
    """
    by: dict[tuple, tuple[list[PartChange], list[PartChange]]] = defaultdict(lambda: ([], []))
    for c in changes:
        if c.change:
            by[(c.object, c.within, c.kind, abs(c.change))][c.change > 0].append(c)
    found = [Swap(fall[0], rise[0]) for fall, rise in by.values() if len(fall) == 1 == len(rise)]
    return tuple(sorted(found, key=lambda s: (s.old.object, s.old.kind, s.old.part, s.old.within)))


def _power(a: Holding | None, b: Holding | None) -> Q | None:
    """HEAD's total power less BASE's, an absent side counting 0; None where a side holding the part has no power."""
    if any(h is not None and h.power is None for h in (a, b)):
        return None
    return _less(b.power if b else None, a.power if a else None)


def _cost(a: Holding | None, b: Holding | None) -> Q | None:
    """Change of quantity x unit price, an absent side counting 0; None where a side holding the part has no price."""
    if any(h is not None and h.price is None for h in (a, b)):
        return None
    return _less(b.price * b.quantity if b and b.price is not None else None,
                 a.price * a.quantity if a and a.price is not None else None)


def _less(new: Q | None, old: Q | None) -> Q | None:
    """The difference new - old, None counting 0; None where the units differ (prices in two currencies)."""
    if old is None:
        return new
    if new is None:
        return old * -1
    return new - old.to(new.units) if new.is_compatible_with(old) else None
