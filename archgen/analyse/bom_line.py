"""One line of a bill of materials (`analyse.bom`): a part, its quantity, and its unit power and weight."""

from __future__ import annotations

from dataclasses import dataclass

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
