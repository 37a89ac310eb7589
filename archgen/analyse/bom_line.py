"""One line of a bill of materials (`analyse.bom`): a part, its quantity, and its unit power and weight.

And one line of the capex (`CapexLine`, the BOM line priced or not; `analyse.cost` makes them, `analyse.capex_bounds`
reads what they leave out).

And its Part number cell (`part_number`): the catalog part's number, else why there is none, as the rendered BOM
(`render.tables.bom_name`) and the customer change list (`compare.bom`, `output.diff_customer`) word it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from archgen.units import Q


@dataclass(frozen=True)
class BomLine:
    """One part with its quantity, unit power and weight; `within` names the system a component is fitted in."""

    part: str
    kind: str
    quantity: int
    unit_power: Q | None
    note: str = ""
    unit_weight: Q | None = None
    within: str = ""
    name: str = ""
    #: Of the quantity, how many draw inside another line's figure (node-end transceivers of a system whose
    #: `power.max` includes its optics); the total power leaves them out.
    in_parent: int = 0
    #: False for a part the design needs but its spec does not state (a liquid-cooled rack's manifolds, say): the
    #: line says "not provided" in place of a quantity, and the note says which field would state it.
    provided: bool = True
    #: Where the parts of one line draw different powers (modules run below their rate at their `power_at` figure):
    #: (quantity, of which in a parent, unit power) per group; the total power sums the groups, `unit_power` is
    #: the part's full figure, and `split_text` states them. Empty: every part draws `unit_power`.
    split: tuple[tuple[int, int, Q], ...] = ()
    #: A copper cable assembly's quantity per ordered length bin, (metres, count), shortest first, as the fibre
    #: cords are ordered (`analyse.cable_bins.copper_bins`); 0 m is a length not known. Empty: not split.
    lengths: tuple[tuple[float, int], ...] = ()
    #: Of `lengths`, the bins holding runs of an assumed length (an end in no rack, CAB004), which the BOM marks.
    assumed: tuple[float, ...] = ()

    @property
    def total_power(self) -> Q | None:
        """Unit power × the quantity not counted in a parent (None when the part's power is counted in its parent)."""
        if self.split:
            return sum((w * (n - inside) for n, inside, w in self.split), 0 * self.split[0][2]).to("kW")
        return None if self.unit_power is None else (self.unit_power * (self.quantity - self.in_parent)).to("kW")

    @property
    def split_text(self) -> str:
        """The power split in words ("288 at 6.5 W, 576 at 9 W"); empty where every part draws `unit_power`."""
        return ", ".join(f"{n:,} at {w:~P}" for n, _, w in self.split if n)

    @property
    def total_weight(self) -> Q | None:
        """Quantity × unit weight (None when counted in its parent or unknown)."""
        return None if self.unit_weight is None else (self.unit_weight * self.quantity).to("kg")


@dataclass(frozen=True)
class CapexLine:
    """One priced (or unpriced) BOM line."""

    part: str
    kind: str
    quantity: int
    unit_price: Q | None
    basis: str = ""
    source: str = ""
    priceable: bool = True
    listed: str = ""  # the `Prices` document the price comes from ("" for the part's own)
    no_media: bool = False  # a fabric tier's links that name no link media (CAB003): no part to price, never free
    date: str = ""  # when the price held, as its list or part states it ('2025-03' or '2025-03-16')
    month: int | None = None  # that date's month, counted from year 0 (`Price.month`), to compare prices' dates
    unracked: bool = False  # switches placed in no rack: no rack position, enclosure or PDU is costed for them
    shared: str = ""  # a checkpoint storage other clusters of the hall state under its id (`hall_storage`)
    #: Its prices dated after the cost's `as_of` (date, `Prices` list or ""), set aside (`price_scope.chosen`): where
    #: the line is unpriced, its only prices.
    later: tuple[tuple[str, str], ...] = ()

    @property
    def total(self) -> Q | None:
        """Quantity x unit price."""
        return None if self.unit_price is None else self.unit_price * self.quantity


#: The BOM's "Part number" cell where a line states no number, by why (docs/rendering.md, Part numbers): a class
#: part (`generic: true`) or an accessory counted by rule (cord, rail kit, blanking panel, fibre cord) that any vendor's
#: part of its description fills; a part fitted inside a system line, bought with it; a rack of the design, whose
#: parts its own BOM lists; any other part, whose number the catalog does not state.
GENERIC_PART = "generic part: no OPN"
WITH_SYSTEM = "ordered with its system"
RACK_ASSEMBLY = "rack: parts in its BOM"
NOT_PROVIDED = "not provided"


def part_number(line: BomLine, part: Any) -> str:
    """A BOM line's part number cell: the catalog part's `part_number`, else why there is none (`GENERIC_PART`...)."""
    if part is None:   # counted by rule; a line the spec does not state (a liquid rack's manifolds) is not provided
        return GENERIC_PART if line.provided else NOT_PROVIDED
    if number := getattr(part, "part_number", ""):
        return str(number)
    if getattr(part, "generic", False):
        return GENERIC_PART
    if line.kind == "Rack":
        return RACK_ASSEMBLY
    return WITH_SYSTEM if line.within else NOT_PROVIDED
