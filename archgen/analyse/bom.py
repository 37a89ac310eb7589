"""Bills of materials of racks and clusters: every part with its quantity, unit power and total power.

Link parts are ordered the way they are bought: a copper cable assembly (DAC, ACC, AEC, twisted pair, backplane
cartridge) once per cable, its ends built in; a transceiver once per end, the fibre between them counted as a run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from archgen.analyse.network import ClusterAnalysis
from archgen.build import RackDesign
from archgen.model import CoolingUnit, Switch, System
from archgen.model.network import COPPER_MEDIA
from archgen.units import Q_, Q
from archgen.validate import Specs


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

    @property
    def total_power(self) -> Q | None:
        """Quantity × unit power (None when the part's power is counted in its parent)."""
        return None if self.unit_power is None else (self.unit_power * self.quantity).to("kW")

    @property
    def total_weight(self) -> Q | None:
        """Quantity × unit weight (None when counted in its parent or unknown)."""
        return None if self.unit_weight is None else (self.unit_weight * self.quantity).to("kg")


def rack_bom(rack: RackDesign, specs: Specs) -> list[BomLine]:
    """BOM of one rack: placed items by part (in slot order), then the components fitted inside each system."""
    counts = Counter(p.part.id for p in rack.items)
    lines: list[BomLine] = []
    for item in rack.items:
        part = item.part
        if any(line.part == part.id for line in lines):
            continue
        mech = getattr(part, "mechanical", None)
        lines.append(BomLine(part.id, part.kind, counts[part.id], unit_power(part),
                             unit_weight=mech.weight if mech else None))
    for sys_id in [line.part for line in lines]:
        system = specs.get(sys_id)
        if not isinstance(system, System):
            continue
        inner = ([(system.accelerator, system.accelerators)] if system.accelerator else []) + \
            [(n.part, n.count) for n in system.nics]
        for part_id, per in inner:
            sub = specs.get(part_id)
            if sub is not None:
                lines.append(BomLine(sub.id, sub.kind, per * counts[sys_id], None, within=sys_id))
    return lines


def cluster_bom(a: ClusterAnalysis, tiers: Sequence) -> tuple[list[BomLine], dict[str, Q], Q]:
    """BOM lines, network power per fabric and optics power of a cluster.

    Lines: racks, the parts placed in them, switches not placed in a rack, and link parts; from the cluster
    analysis and its tiers' cabling totals (`cabling.TierCabling`).
    """
    cluster = a.cluster
    placed: dict[str, tuple[object, int]] = {}
    for rid, n in sorted(cluster.rack_counts.items()):
        for item in cluster.rack_types[rid].items:
            part, q = placed.get(item.part.id, (item.part, 0))
            placed[item.part.id] = (part, q + n)
    lines = [BomLine(rid, "Rack", n, Q_(0, "W")) for rid, n in sorted(cluster.rack_counts.items())]
    for pid, (part, q) in sorted(placed.items()):
        lines.append(BomLine(pid, type(part).__name__, q, unit_power(part) or Q_(0, "W")))
    needed: dict[str, tuple[Switch, int]] = {}
    net_power: dict[str, Q] = {}
    for fa in a.fabrics:
        p = Q_(0, "W")
        for t in fa.tiers:
            if t.switch is None:
                continue
            sw, q = needed.get(t.switch.id, (t.switch, 0))
            needed[t.switch.id] = (sw, q + t.switches * fa.planes)
            p = p + t.switch.power.max * t.switches * fa.planes
        p = p + sum((t.optics_power for t in tiers if t.fabric == fa.fabric.spec.id), Q_(0, "W"))
        net_power[fa.fabric.spec.id] = p.to("kW")
    for sid, (sw, q) in sorted(needed.items()):
        have = placed.get(sid, (None, 0))[1]
        if q > have:
            lines.append(BomLine(sid, "Switch", q - have, sw.power.max, "not placed in a rack"))
    modules: dict[str, tuple[object, int]] = {}
    for t in tiers:
        for opt in t.options:
            for end in (opt.a, opt.b):
                modules.setdefault(end.id, (end, 0))
        for mid, q in t.modules.items():
            part, have = modules[mid]
            modules[mid] = (part, have + q)
    optics = sum((t.optics_power for t in tiers), Q_(0, "W"))
    for mid, (part, q) in sorted(modules.items()):
        if q:
            copper = part.media in COPPER_MEDIA
            lines.append(BomLine(mid, "Link", q, part.power_per_end * (2 if copper else 1),
                                 "cable assemblies" if copper else "transceivers"))
    return lines, net_power, optics.to("kW")


def unit_power(part: object) -> Q | None:
    """Maximum draw of a placed part as catalogued, or None.

    Systems and switches by `power.max`, CDUs by `power`; None for parts that draw nothing of their own (shelves,
    PDUs) or whose draw is not published.
    """
    if isinstance(part, System | Switch):
        return part.power.max
    if isinstance(part, CoolingUnit):
        return part.power
    return None
