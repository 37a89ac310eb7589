"""Power distribution inside a rack with PDUs: the PDU and phase of each PSU, and what a lost PDU or side leaves.

Rules (each an assumption a document states, since the specs do not draw the wiring):

* PSUs share their part's draw equally (active current sharing, as server PSUs do): load per PSU = (`power.max` +
  the part's share of the rack's optics) / `psus.count`. The optics are the transceivers and active cable ends no
  part's figure holds, which the rack's PDU budget carries (`analyse.power_chain.Power.optics`); they draw from the
  switch ports they sit in, so each switch takes them in proportion to its ports, as the rack analysis shares them
  (`port_share`); in a rack without switches, they sit in its systems' NICs, shared equally by the systems.
* With PDU redundancy N+N the PDUs form two sides, A (the first half in slot order) and B; a part's PSUs alternate
  A, B, A, ... so that either side alone reaches half of them. Otherwise the PSUs go round the PDUs in turn.
* Within a PDU each PSU takes an outlet on the least-loaded phase so far (the first on ties): the balance an
  electrician aims for when choosing outlet banks.
* A PDU's capacity per phase is its continuous capacity (`analyse.power_chain.pdu_capacity`: its rating, `capacity` else
  V × A × phase factor, × the rack feeds' continuous-load derating and power factor), shared equally by its phases.
* When PDUs are lost, each part's load moves to its PSUs that remain (a part with none left goes dark); a part whose
  remaining PSUs are fewer than its PSU redundancy needs (N of N+k, half of N+N) runs without PSU redundancy or, as
  NVIDIA documents for DGX systems, at reduced performance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from archgen.build import Placed, RackDesign
from archgen.model import Switch, System
from archgen.model.base import Psus, spare_units
from archgen.model.power import PDU
from archgen.model.system import max_draw
from archgen.units import Q_, Q


@dataclass(frozen=True)
class Outlet:
    """One PSU's connection: the part (by its lowest U), the PSU number, PDU (1-based), side, phase and load."""

    part: str
    u: int
    psu: int
    pdu: int
    side: str
    phase: int
    load: Q


@dataclass(frozen=True)
class PduLoad:
    """A PDU's load per phase against its capacity per phase."""

    pdu: int
    side: str
    phases: tuple[Q, ...]
    capacity: Q

    @property
    def imbalance(self) -> float:
        """Largest deviation of a phase from the mean, relative to the mean (0 when balanced or unloaded)."""
        mean = sum(p.m_as("kW") for p in self.phases) / len(self.phases)
        return max(abs(p.m_as("kW") - mean) for p in self.phases) / mean if mean else 0.0


@dataclass(frozen=True)
class LossCase:
    """PDUs lost at once, the PSUs that go with them, and how the rest carry the load."""

    lost: str
    pdus_lost: tuple[int, ...]
    psus_lost: int
    carried_by: str
    worst_phase: Q
    capacity: Q
    short: tuple[tuple[str, int, int], ...]    # (part at U, PSUs left, PSUs its redundancy needs)
    dark: tuple[str, ...]

    @property
    def margin(self) -> float:
        """Headroom of the most loaded phase left, relative to its capacity."""
        return 1.0 - self.worst_phase.m_as("kW") / self.capacity.m_as("kW")


@dataclass(frozen=True)
class Distribution:
    """The outlet map, the load per PDU and phase, and the PDU failure cases of one rack."""

    redundancy: str
    sides: bool
    outlets: tuple[Outlet, ...]
    pdus: tuple[PduLoad, ...]
    cases: tuple[LossCase, ...]
    unmapped: tuple[str, ...]                  # placed systems and switches whose PSUs the catalog does not give


def needed_psus(count: int, redundancy: str) -> int:
    """PSUs a part needs for full power: N of N+k, half (rounded up) of N+N, all of N."""
    return count - spare_units(redundancy, count)


def _draws(parts: Sequence[tuple[Placed, System | Switch]], optics: Q) -> dict[int, Q]:
    """Each placed part's draw through its PSUs (by `id` of its placement): its maximum plus its share of `optics`."""
    ports = {id(item): part.ports.count for item, part in parts if isinstance(part, Switch)}
    total = sum(ports.values())
    if not total:   # no switch ports: the modules are in the systems' NICs
        ports = {id(item): 1 for item, part in parts if isinstance(part, System)}
        total = sum(ports.values())
    return {id(item): (max_draw(part) + (optics * ports.get(id(item), 0) / total if total else Q_(0, "kW"))).to("kW")
            for item, part in parts}


def distribution(rack: RackDesign, pdu_capacity: Q, optics: Q | None = None) -> Distribution | None:
    """The rack's power distribution over its PDUs, or None for a rack without PDUs.

    `pdu_capacity` is one PDU's continuous capacity as the rack analysis takes it (`Power.conversion.unit_capacity`,
    derated: `analyse.power_chain.pdu_capacity`); `optics`
    the rack's optics power beyond its parts' figures (`Power.optics`, default none), which the switches' PSUs carry.
    """
    pdu_parts = [item.part for item in rack.items if isinstance(item.part, PDU)]
    if not pdu_parts:
        return None
    spec = rack.spec
    redundancy = spec.power.pdus.redundancy if spec.power.pdus else "N"
    n = len(pdu_parts)
    phases = min(p.phases for p in pdu_parts)
    sides = redundancy == "N+N" and n >= 2
    side_of = ["A" if i < n // 2 else "B" for i in range(n)] if sides else [""] * n
    capacity = (pdu_capacity / phases).to("kW")
    parts = [(item, item.part) for item in rack.items if isinstance(item.part, System | Switch)]
    draw = _draws(parts, optics if optics is not None else Q_(0, "kW"))
    mapped = [(item, part, psus) for item, part in parts if (psus := part.power.psus) is not None]
    unmapped = tuple(sorted({part.id for _, part in parts if part.power.psus is None}))
    load = [[Q_(0.0, "kW") for _ in range(phases)] for _ in range(n)]
    outlets: list[Outlet] = []
    for s, (item, part, psus) in enumerate(mapped):
        each = (draw[id(item)] / psus.count).to("kW")
        for j in range(psus.count):
            if sides:
                group = [i for i in range(n) if side_of[i] == ("A" if j % 2 == 0 else "B")]
                pdu = group[(s + j // 2) % len(group)]
            else:
                pdu = (s * psus.count + j) % n
            phase = min((load[pdu][k].m_as("kW"), k) for k in range(phases))[1]
            load[pdu][phase] = load[pdu][phase] + each
            outlets.append(Outlet(part.id, item.u, j + 1, pdu + 1, side_of[pdu], phase + 1, each))
    pdus = tuple(PduLoad(i + 1, side_of[i], tuple(load[i]), capacity) for i in range(n))
    return Distribution(redundancy, sides, tuple(outlets), pdus,
                        tuple(_cases(mapped, draw, outlets, n, phases, side_of, capacity)), unmapped)


def _cases(mapped: Sequence[tuple[Placed, System | Switch, Psus]], draw: dict[int, Q], outlets: Sequence[Outlet],
           n: int, phases: int, side_of: list[str], capacity: Q) -> list[LossCase]:
    """Each side lost (N+N), or each PDU lost in turn (otherwise)."""
    if side_of[0]:
        groups = []
        for s in ("A", "B"):
            lost = tuple(i + 1 for i in range(n) if side_of[i] == s)
            groups.append((f"side {s} (PDU{'s' if len(lost) > 1 else ''} {', '.join(map(str, lost))})", lost))
    else:
        groups = [(f"PDU {i + 1}", (i + 1,)) for i in range(n)] if n > 1 else []
    cases = []
    for label, lost in groups:
        load = [[0.0] * phases for _ in range(n)]
        short, dark, gone = [], [], 0
        for item, part, psus in mapped:
            mine = [o for o in outlets if o.part == part.id and o.u == item.u]
            left = [o for o in mine if o.pdu not in lost]
            gone += len(mine) - len(left)
            name = f"{part.id} at U{item.u}"
            if not left:
                dark.append(name)
                continue
            need = needed_psus(psus.count, psus.redundancy)
            if len(left) < need:
                short.append((name, len(left), need))
            each = draw[id(item)].m_as("kW") / len(left)
            for o in left:
                load[o.pdu - 1][o.phase - 1] += each
        worst = max((max(row) for i, row in enumerate(load) if i + 1 not in lost), default=0.0)
        rest = [i + 1 for i in range(n) if i + 1 not in lost]
        cases.append(LossCase(label, lost, gone, f"PDU{'s' if len(rest) > 1 else ''} "
                              f"{', '.join(map(str, rest))}" if rest else "nothing", Q_(worst, "kW"), capacity,
                              tuple(short), tuple(dark)))
    return cases


def phase_names(phases: int) -> tuple[str, ...]:
    """Column names of a PDU's phases: L1, L2, L3 (or L for single phase)."""
    return ("L",) if phases == 1 else tuple(f"L{k}" for k in range(1, phases + 1))

