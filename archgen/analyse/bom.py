"""Bills of materials of racks and clusters: every part with its quantity, unit power and total power.

Link parts are ordered the way they are bought: a copper cable assembly (DAC, ACC, AEC, twisted pair, backplane
cartridge) once per cable, its ends built in; a transceiver once per end, and one fibre patch cord per optical link
in its length bin (point to point: structured cabling with MPO trunks and patch panels is not modelled).

A rack's accessories (power cords, rail kits, blanking panels, fittings) are `analyse.rack_accessories`'.

CDUs named in a rack type's liquid path (not placed in its slots) are bought per group: `cdu_count` CDUs serve
`racks_per_cdu` racks of that type, so n racks take ⌊n / racks_per_cdu⌋ full groups; the last, partial group takes
the fewest of its `cdu_count` CDUs whose capacity, less the spares its `cdu_redundancy` holds back, carries that
group's liquid heat (`analyse.cdu_units`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from archgen.analyse.bom_line import BomLine
from archgen.analyse.cable_bins import assumed_copper, copper_bins
from archgen.analyse.cdu_units import cdu_units
from archgen.analyse.fibre_cords import fibre_lines
from archgen.analyse.fittings import cdu_power_gaps, fitting_gaps
from archgen.analyse.network import ClusterAnalysis, FabricAnalysis
from archgen.analyse.rack_accessories import cord_gaps, rack_accessories
from archgen.build import RackDesign
from archgen.model import CoolingUnit, Link, Switch, System
from archgen.model.field_words import said
from archgen.model.network import COPPER_MEDIA
from archgen.model.system import max_draw
from archgen.open_item import OpenItem
from archgen.quantity_ops import added
from archgen.units import Q_, Q
from archgen.validate import Specs

if TYPE_CHECKING:   # cabling calls cluster_bom with its tiers' totals
    from archgen.analyse.tier_cabling import TierCabling


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
    return lines + rack_accessories(rack)


#: The note of a BOM line of switches that no rack holds (no rack position, enclosure or PDU of their own).
UNRACKED = "not placed in a rack"


def cdu_lines(a: ClusterAnalysis) -> list[BomLine]:
    """One BOM line per CDU part named in the liquid paths of the cluster's rack types (`cdu_units`)."""
    out: dict[str, BomLine] = {}
    for rid, n in sorted(a.cluster.rack_counts.items()):
        rack = a.cluster.rack_types[rid]
        q = cdu_units(rack, n)
        if not q or rack.cdu is None or rack.spec.cooling.liquid is None:
            continue
        path = rack.spec.cooling.liquid
        note = f"{path.cdu_count} ({path.cdu_redundancy}) per {path.racks_per_cdu} {rid} rack(s)" + (
            " (assumed: COOL016)" if any(path.is_unconfirmed(f) for f in ("cdu_count", "cdu_redundancy",
                                                                          "racks_per_cdu")) else "")
        have = out.get(rack.cdu.id)
        out[rack.cdu.id] = BomLine(rack.cdu.id, "CoolingUnit", q + (have.quantity if have else 0),
                                   unit_power(rack.cdu), f"{have.note}; {note}" if have else note)
    return [out[k] for k in sorted(out)]


#: A rack line's note. Its unit power is its placed parts' maximum draw, not the transceivers in its switches' ports,
#: which the Link lines count: the rack types table's IT power at the equipment holds them (newuser66: gb200-su-ib
#: read 40.0 kW here and 47.2 kW there, with nothing to say which a PDU is sized for).
RACK_NOTE = ("unit power: maximum draw of its placed parts, itemised in the lines below; without the transceivers in "
             "its switches' ports, which the Link lines count (the rack's IT power at the equipment holds them)")


def cluster_bom(a: ClusterAnalysis, tiers: Sequence[TierCabling]) -> tuple[list[BomLine], dict[str, Q], Q]:
    """BOM lines, network power per fabric and optics power of a cluster.

    Lines: racks, the parts placed in them, switches not placed in a rack, and link parts; from the cluster
    analysis and its tiers' cabling totals (`tier_cabling.TierCabling`). Network power holds every cabled network's
    optics: each fabric's (with its switches), and under `scale_up` those of a scale-up domain's cables (a torus'
    links between systems, a switched domain's `link` part), which were in optics and IT power but not here.
    """
    cluster = a.cluster
    placed: dict[str, tuple[object, int]] = {}
    for rid, n in sorted(cluster.rack_counts.items()):
        for item in cluster.rack_types[rid].items:
            part, q = placed.get(item.part.id, (item.part, 0))
            placed[item.part.id] = (part, q + n)
    lines = []
    accessories: dict[str, BomLine] = {}
    for rid, n in sorted(cluster.rack_counts.items()):
        rack = cluster.rack_types[rid]
        it = added(Q_(0, "W"), (unit_power(item.part) or Q_(0, "W") for item in rack.items))
        lines.append(BomLine(rid, "Rack", n, it.to("kW"), RACK_NOTE))
        for acc in rack_accessories(rack):
            have = accessories.get(acc.part)
            accessories[acc.part] = replace(acc, quantity=acc.quantity * n + (have.quantity if have else 0))
    for pid, (part, q) in sorted(placed.items()):
        lines.append(BomLine(pid, type(part).__name__, q, unit_power(part) or Q_(0, "W")))
    lines += [accessories[k] for k in sorted(accessories)] + cdu_lines(a)
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
        p = p + added(Q_(0, "W"), (t.optics_power - t.switch_optics_power for t in tiers
                                   if t.fabric == fa.fabric.spec.id))   # a switch's figure may hold its modules
        net_power[fa.fabric.spec.id] = p.to("kW")
    scale_up = added(Q_(0, "W"), (t.optics_power for t in tiers if t.fabric == "scale_up"))
    if scale_up.magnitude:    # its cables' optics, as every fabric's; its switches are compute (surplus_switch_power)
        net_power["scale_up"] = scale_up.to("kW")
    for sid, (sw, q) in sorted(needed.items()):
        in_racks = placed.get(sid, (None, 0))[1]
        if q > in_racks:
            lines.append(BomLine(sid, "Switch", q - in_racks, sw.power.max, UNRACKED))
    modules: dict[str, tuple[Link, int]] = {}
    for tc in tiers:
        for opt in tc.options:
            for end in (opt.a, opt.b):
                modules.setdefault(end.id, (end, 0))
        for mid, q in tc.modules.items():
            link, counted = modules[mid]
            modules[mid] = (link, counted + q)
    optics = added(Q_(0, "W"), (t.optics_power for t in tiers))
    inside = _modules_inside_nodes(a, tiers)
    in_switches: Counter[str] = Counter()
    for tc in tiers:
        in_switches.update(tc.switch_modules)
    holders = ", ".join(sorted({tn.switch.id for fa in a.fabrics for tn in fa.tiers
                                if tn.switch is not None and tn.switch.power_includes_optics}))
    low: dict[str, Counter[float]] = {}
    for tc in tiers:
        for (mid, watts), n in tc.reduced.items():
            low.setdefault(mid, Counter())[watts] += n
    within = ", ".join(sorted({nt.part.id for nt in a.nodes if nt.part.power_includes_optics}))
    by_length = copper_bins(tiers)   # copper assemblies by ordered length, as the fibre cords are
    guessed = assumed_copper(tiers)   # of those, the bins holding runs of an assumed length (CAB004)
    for mid, (link, q) in sorted(modules.items()):
        if q:
            copper = link.media in COPPER_MEDIA
            n_in = min(inside.get(mid, 0) + in_switches.get(mid, 0), q)
            note = ("cable assemblies" if copper else "transceivers" if link.is_module
                    else "fibre ends at passive ports (no transceiver)")
            if inside.get(mid, 0):
                note += f"; those at node ends draw inside {within}'s maximum (its power includes its optics)"
            if in_switches.get(mid, 0):
                note += f"; those in {holders}'s ports draw inside its maximum (its power includes its optics)"
            full, rest, rest_in, split = link.power_per_end * (2 if copper else 1), q, n_in, []
            for watts, n_low in sorted(low.get(mid, {}).items()):   # run below its rate: a group at that power
                at = min(rest_in, n_low)       # the slow ones are a NIC's single-port cage: node ends first
                split.append((n_low, at, Q_(watts, "W")))
                rest, rest_in = rest - n_low, rest_in - at
            if split:     # one line per part; the note (a key across sizes) holds no count, `split_text` the counts
                split.append((rest, rest_in, full))
                note += f"; those that run below {link.rate:~P} draw its `power_at` figure"
            bins = tuple(sorted(by_length.get(mid, {}).items())) if copper else ()
            whole = sum(n for _, n in bins) == q
            lines.append(BomLine(mid, "Link", q, full, note, in_parent=n_in, split=tuple(split),
                                 lengths=bins if whole else (),
                                 assumed=tuple(sorted(guessed.get(mid, ()))) if whole else ()))
    return lines + fibre_lines(tiers) + no_media_lines(tiers), net_power, optics.to("kW")


def no_media_lines(tiers: Sequence[TierCabling]) -> list[BomLine]:
    """A line per fabric tier whose links name no link media (CAB003): its cables and transceivers, not provided.

    Left out, such a tier read as one with no cable at all (newuser105: 9,216 spine-core links of a 16-SU GB200
    SuperPOD, on no line of the BOM). No count in the note, a key across the sizes of the BOM by size.
    """
    return [BomLine(f"{t.fabric} {said(t.tier)} links", "Link", 0, None, f"not provided: its links name no link media "
                    f"(`links.{t.tier}`; CAB003)", name=f"Cables and transceivers, fabric {t.fabric} "
                    f"{said(t.tier)} links", provided=False)
            for t in tiers if t.no_media and t.fabric != "scale_up"]


def cluster_bom_gaps(a: ClusterAnalysis) -> list[str]:
    """Open items of a cluster's BOM: power cords it cannot count, parts not provided, fibres with no connector.

    The power cords, fittings and CDUs' unstated draw are those of its rack types (`cord_gaps`, `fitting_gaps`,
    `cdu_power_gaps`); the fibres those of optical links whose Link parts do not give a connector.
    """
    racks = [a.cluster.rack_types[rid] for rid in sorted(a.cluster.rack_counts) if rid in a.cluster.rack_types]
    gaps = sorted({gap for rack in racks for gap in cord_gaps(rack) + fitting_gaps(rack)}) + cdu_power_gaps(racks)
    tiers = a.cabling.tiers if a.cabling is not None else ()
    unknown = sorted({opt.label for t in tiers for opt in t.options
                      if opt.a.media not in COPPER_MEDIA and not (opt.a.connector or opt.b.connector)
                      and any(label == opt.label and n for (label, _), n in t.by_option_bin.items())})
    return gaps + [OpenItem("to", f"The fibre connector of {label} is not in the catalog, so its patch cords are "
                            "listed without one", instruction="set `connector` on the Link part") for label in unknown]


def unit_power(part: object) -> Q | None:
    """Maximum draw of a placed part as catalogued, or None.

    Systems and switches by `power.max`, CDUs by `power`; None for parts that draw nothing of their own (shelves,
    PDUs) or whose draw is not published.
    """
    if isinstance(part, System | Switch):
        return max_draw(part)                     # a system's NICs too where its figure leaves them out
    if isinstance(part, CoolingUnit):
        return part.power
    return None


def unplaced_power(bom: Sequence[BomLine]) -> Q:
    """Draw of the switches placed in no rack: their lines of a cluster's `bom` (those in racks are in its racks)."""
    loose = (line.total_power for line in bom if line.note == UNRACKED)   # None: in its parent line
    return sum((p for p in loose if p is not None), Q_(0, "kW")).to("kW")


def optics_outside_systems(a: ClusterAnalysis, tiers: Sequence[TierCabling], typical: bool = False) -> Q:
    """The cluster's optics less the node-end modules its systems' `power.max` already holds, so each counts once.

    Node-end modules (`TierCabling.node_optics_power`) are inside a system's figure where it says so
    (`System.power_includes_optics`); a fabric whose nodes differ splits them by the nodes' share of its ports. So
    are the modules in the ports of a switch whose figure holds them (`Switch.power_includes_optics`), except at
    `typical` draw where the switch states a typical: that is taken with passive cables (SN5600's 940 W).
    """
    fabrics = {fa.fabric.spec.id: fa for fa in a.fabrics}
    inside = added(Q_(0, "W"), (t.node_optics_power * _included_share(a, fabrics.get(t.fabric))
                                + t.switch_optics_power for t in tiers))
    held = added(Q_(0, "W"), (t.switch_optics_power - t.switch_optics_typical for t in tiers if typical))
    return (added(Q_(0, "W"), (t.optics_power for t in tiers)) - inside + held).to("kW")


def _modules_inside_nodes(a: ClusterAnalysis, tiers: Sequence[TierCabling]) -> dict[str, int]:
    """Node-end transceivers by module part whose power a system's `power.max` holds.

    The ones `optics_outside_systems` leaves out of IT power; a fabric of mixed nodes by their share of its ports,
    rounded.
    """
    fabrics = {fa.fabric.spec.id: fa for fa in a.fabrics}
    out: Counter[str] = Counter()
    for t in tiers:
        share = _included_share(a, fabrics.get(t.fabric))
        for mid, n in t.node_modules.items():
            out[mid] += round(n * share)
    return dict(out)


def _included_share(a: ClusterAnalysis, fa: FabricAnalysis | None) -> float:
    """Share of a fabric's node ports on systems whose `power.max` includes their modules (by nodes, if no ports)."""
    ports = [(fa.ports_per_node.get(nt.part.id, 0) * nt.count, nt.part.power_includes_optics) for nt in a.nodes
             if fa is not None]   # none: a torus scale-up domain's cables, between its accelerators' systems
    if not sum(n for n, _ in ports):
        ports = [(nt.count, nt.part.power_includes_optics) for nt in a.nodes if nt.part.accelerators]
    total = sum(n for n, _ in ports)
    return sum(n for n, inside in ports if inside) / total if total else 1.0


def surplus_switch_power(a: ClusterAnalysis) -> Q:
    """Maximum draw of the switches placed in racks beyond what the fabrics derive (NET017), per model.

    They are in the racks' IT power, so the cluster's network power holds them too. The scale-up (NVLink) switch is
    not: NVIDIA counts its switch trays as part of the rack-scale system ("compute trays ..., NVLink switch trays,
    ... power shelves", DGX GB200 User Guide, Hardware, https://docs.nvidia.com/dgx/dgxgb200-user-guide/hardware.html),
    so it is compute, not network.
    """
    cluster = a.cluster
    scale_up = cluster.scale_up_switch.id if cluster.scale_up_switch is not None else None
    derived: dict[str, int] = {}
    for fa in a.fabrics:
        for t in fa.tiers:
            if t.switch is not None:
                derived[t.switch.id] = derived.get(t.switch.id, 0) + t.switches * fa.planes
    placed: dict[str, tuple[Switch, int]] = {}
    for rid, n in sorted(cluster.rack_counts.items()):
        for item in cluster.rack_types[rid].items:
            if isinstance(item.part, Switch) and item.part.id != scale_up:
                sw, q = placed.get(item.part.id, (item.part, 0))
                placed[item.part.id] = (sw, q + n)
    return sum((sw.power.max * max(q - derived.get(sid, 0), 0) for sid, (sw, q) in sorted(placed.items())),
               Q_(0, "W")).to("kW")
