"""Resolve references and expand counts into a frozen `Design` with stable object paths."""

from __future__ import annotations

from dataclasses import dataclass

from archgen.model import NIC, Accelerator, CoolingUnit, Facility, PowerShelf, Rack, Switch, System
from archgen.model.base import Part
from archgen.model.power import PDU
from archgen.model.requirements import Requirement, Requirements
from archgen.validate import Specs

#: Part kinds that may be placed in a rack slot.
PLACEABLE = (System, Switch, PowerShelf, PDU, CoolingUnit)


@dataclass(frozen=True)
class Placed:
    """One physical item in a rack: the part, its lowest U, and the slot entry it came from."""

    part: Part
    u: int
    slot: int

    @property
    def height(self) -> int:
        """Height in whole rack units (0 for zero-U items)."""
        mech = getattr(self.part, "mechanical", None)
        return round(mech.height.m_as("U")) if mech else 0

    @property
    def top(self) -> int:
        """Highest U occupied."""
        return self.u + self.height - 1


@dataclass(frozen=True)
class Unresolved:
    """A reference that names no document, or one of the wrong kind."""

    subject: str
    owner: str
    ref: str
    path: tuple
    expected: str
    found: str = ""


@dataclass(frozen=True)
class RackDesign:
    """A rack with its items expanded and its references bound."""

    spec: Rack
    items: tuple[Placed, ...]
    cdu: CoolingUnit | None
    facility: Facility | None

    @property
    def path(self) -> str:
        """Stable object path used in findings and metrics."""
        return f"rack/{self.spec.id}"


@dataclass(frozen=True)
class BoundRequirement:
    """A requirement with the object it applies to and where it is written."""

    req: Requirement
    subject: str
    owner: str
    path: tuple


@dataclass(frozen=True)
class Design:
    """The derived design: racks, requirements and anything that could not be resolved."""

    specs: Specs
    racks: tuple[RackDesign, ...]
    requirements: tuple[BoundRequirement, ...]
    unresolved: tuple[Unresolved, ...]


def build(specs: Specs) -> Design:
    """Bind references and expand slot counts; unresolved references are kept for the REF checks."""
    unresolved: list[Unresolved] = []
    for system in specs.of(System):
        _ref(specs, system.id, system.accelerator, (Accelerator,), ("accelerator",), unresolved)
        for j, nic in enumerate(system.nics):
            _ref(specs, system.id, nic.part, (NIC,), ("nics", j, "part"), unresolved)
    racks = tuple(_rack(specs, r, unresolved) for r in specs.of(Rack))
    reqs = [BoundRequirement(q, f"rack/{r.spec.id}", r.spec.id, ("requirements", i))
            for r in racks for i, q in enumerate(r.spec.requirements)]
    for doc in specs.of(Requirements):
        reqs += [BoundRequirement(q, q.subject, doc.id, ("requirements", i)) for i, q in enumerate(doc.requirements)]
    return Design(specs, racks, tuple(reqs), tuple(unresolved))


def _ref(specs: Specs, owner: str, ref: str | None, kinds: tuple[type, ...], path: tuple,
         unresolved: list[Unresolved], subject: str = "") -> Part | None:
    if ref is None:
        return None
    found = specs.get(ref)
    if isinstance(found, kinds):
        return found
    expected = " or ".join(k.__name__ for k in kinds)
    unresolved.append(Unresolved(subject or f"part/{owner}", owner, ref, path, expected,
                                 type(found).__name__ if found else ""))
    return None


def _rack(specs: Specs, rack: Rack, unresolved: list[Unresolved]) -> RackDesign:
    items: list[Placed] = []
    for i, slot in enumerate(rack.slots):
        part = _ref(specs, rack.id, slot.part, PLACEABLE, ("slots", i, "part"), unresolved, f"rack/{rack.id}")
        if part is None:
            continue
        height = Placed(part, slot.at, i).height or 0
        items += [Placed(part, slot.at + n * height, i) for n in range(slot.count)]
    liquid = rack.cooling.liquid
    cdu = _ref(specs, rack.id, liquid.cdu if liquid else None, (CoolingUnit,), ("cooling", "liquid", "cdu"),
               unresolved, f"rack/{rack.id}")
    facility = _ref(specs, rack.id, rack.facility, (Facility,), ("facility",), unresolved, f"rack/{rack.id}")
    return RackDesign(rack, tuple(items), cdu, facility)

