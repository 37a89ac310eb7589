"""Which placed parts each path of a rack's power chain feeds: PDUs, the shelves' busbar, or outside the rack.

The rack analysis (`analyse.rack`) budgets each path with these flags; the conversion loss (`analyse.conversion`)
and the PWR checks read the same ones, so that a part is fed by one path only.
"""

from __future__ import annotations

from collections.abc import Callable

from archgen.build import RackDesign
from archgen.model import PowerShelf, Switch
from archgen.model.power import PDU


def on_pdus_flags(rack: RackDesign) -> list[bool]:
    """Which placed items the rack's PDUs feed directly: all with PDUs and no shelves, else those `serves` names.

    The rest, where the rack has power shelves, hang on the shelves' busbar (`port_share` splits the optics likewise).
    """
    spec = rack.spec
    shelves = any(isinstance(p.part, PowerShelf) for p in rack.items)
    pdus = any(isinstance(p.part, PDU) for p in rack.items)
    serves = set(spec.power.pdus.serves) if spec.power.pdus else set()
    outside = external_flags(rack)
    return [pdus and (not shelves or p.part.id in serves) and not out for p, out in zip(rack.items, outside,
                                                                                            strict=True)]


def external_flags(rack: RackDesign) -> list[bool]:
    """Which placed items `power.external` names: fed from outside the rack's shelves, PDUs and feeds."""
    named = set(rack.spec.power.external)
    return [p.part.id in named for p in rack.items]


def busbar_flags(rack: RackDesign) -> list[bool]:
    """Which placed items hang on the shelves' busbar: in a rack with shelves, those neither on PDUs nor external."""
    if not any(isinstance(p.part, PowerShelf) for p in rack.items):
        return [False] * len(rack.items)
    return [not (a or b) for a, b in zip(on_pdus_flags(rack), external_flags(rack), strict=True)]


def port_share(rack: RackDesign, among: list[bool]) -> float:
    """Share of the rack's switch ports on the flagged items: switch-end optics sit in the switches' ports."""
    ports = [(p.part.ports.count, among[i]) for i, p in enumerate(rack.items) if isinstance(p.part, Switch)]
    total = sum(n for n, _ in ports)
    return sum(n for n, flagged in ports if flagged) / total if total else 0.0


#: Which efficiency of a shelf to take: its stated `efficiency`, or an end of its `efficiency_range`.
Pick = Callable[[PowerShelf], float]


def stated(shelf: PowerShelf) -> float:
    """A shelf's stated efficiency."""
    return shelf.efficiency


def shelf_efficiency(rack: RackDesign, pick: Pick = stated) -> float | None:
    """The efficiency of a rack's shelves (the least of them), or None: no shelves.

    The rack's `input_power` divides its busbar load by it (`analyse.rack`), and `conversion.shelf_loss` takes the
    cluster's loss at it, so both read one figure.
    """
    effs = [pick(p.part) for p in rack.items if isinstance(p.part, PowerShelf)]
    return min(effs) if effs else None
