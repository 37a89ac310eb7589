"""Which way air moves through each placed part, in the rack's frame: the hot-aisle/cold-aisle check (COOL018).

A part states its airflow from its own front (`Cooling.airflow`, NetBox's device-type vocabulary). A slot's `face`
says which of the rack's faces the part's front is mounted at: from the rear, the part turns round, so its front and
rear (and its left and right) swap. A floor of rows whose fronts face each other across cold aisles
(`render.cluster_diagrams`: the aisles alternate cold and hot) needs every part to take its air from the rack's front
and exhaust it at the rack's rear: a part turned the other way breathes the hot aisle and blows into the cold one.
Parts cooled wholly by liquid (`liquid_fraction` 1) move no air and are left out; `passive` and `mixed` parts and
those stating no airflow are listed, not judged.
"""

from __future__ import annotations

from dataclasses import dataclass

from archgen.build import RackDesign

#: A direction's intake and exhaust sides, from the part's own front (None: passive, mixed).
SIDES: dict[str, tuple[str, str] | None] = {
    "front-to-rear": ("front", "rear"), "rear-to-front": ("rear", "front"),
    "left-to-right": ("left", "right"), "right-to-left": ("right", "left"),
    "side-to-rear": ("side", "rear"), "rear-to-side": ("rear", "side"),
    "bottom-to-top": ("bottom", "top"), "top-to-bottom": ("top", "bottom"),
    "passive": None, "mixed": None,
}
#: How a side reads once the part is mounted from the rack's rear (turned half round about the vertical).
TURNED = {"front": "rear", "rear": "front", "left": "right", "right": "left"}


@dataclass(frozen=True)
class SlotAir:
    """One slot line's parts: how they state their airflow, and which way it runs in the rack."""

    slot: int           # index in the rack's `slots`
    part: str
    count: int
    face: str           # the rack face the part's front is mounted at
    stated: str | None  # `Cooling.airflow` as the part states it (None: not stated)
    intake: str | None  # the rack side it takes air from (None: not stated, passive or mixed)
    exhaust: str | None

    @property
    def in_rack(self) -> str:
        """'front-to-rear' in the rack's frame, or what the part states where that has no sides (passive, mixed)."""
        if self.intake is None or self.exhaust is None:
            return self.stated or "not stated"
        return f"{self.intake}-to-{self.exhaust}"

    @property
    def against(self) -> bool:
        """Whether it breaks the cold-front, hot-rear arrangement: air taken from the rear, or exhausted elsewhere."""
        return self.intake is not None and (self.intake == "rear" or self.exhaust != "rear")


def slot_air(rack: RackDesign) -> tuple[SlotAir, ...]:
    """Each slot line whose part moves air (it has a `cooling` and not all its heat goes to liquid), in slot order."""
    out = []
    for i, slot in enumerate(rack.spec.slots):
        part = next((p.part for p in rack.items if p.slot == i), None)
        cooling = getattr(part, "cooling", None)
        if part is None or cooling is None or cooling.liquid_fraction >= 1:
            continue
        sides = SIDES.get(cooling.airflow) if cooling.airflow is not None else None
        if sides is not None and slot.face == "rear":
            sides = (TURNED.get(sides[0], sides[0]), TURNED.get(sides[1], sides[1]))
        intake, exhaust = sides if sides is not None else (None, None)
        out.append(SlotAir(i, part.id, slot.count, slot.face, cooling.airflow, intake, exhaust))
    return tuple(out)


def directions_text(slots: tuple[SlotAir, ...]) -> str:
    """'front-to-rear: q3400 × 6; rear-to-front: sn5610 × 5 (COOL018); not stated: sn2201 × 2' for a document."""
    groups: dict[str, dict[str, int]] = {}
    for s in slots:
        parts = groups.setdefault(s.in_rack + (" (COOL018)" if s.against else ""), {})
        parts[s.part] = parts.get(s.part, 0) + s.count
    order = sorted(groups, key=lambda k: (k == "not stated", k))
    return "; ".join(f"{k}: {', '.join(f'{p} × {n}' for p, n in groups[k].items())}" for k in order) or \
        "no part moves air"
