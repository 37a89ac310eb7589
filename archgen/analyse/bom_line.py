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

    @property
    def total_power(self) -> Q | None:
        """Unit power × the quantity not counted in a parent (None when the part's power is counted in its parent)."""
        return None if self.unit_power is None else (self.unit_power * (self.quantity - self.in_parent)).to("kW")

    @property
    def total_weight(self) -> Q | None:
        """Quantity × unit weight (None when counted in its parent or unknown)."""
        return None if self.unit_weight is None else (self.unit_weight * self.quantity).to("kg")
