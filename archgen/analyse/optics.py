"""Optics per rack: the transceivers and active cable ends drawing power in a rack beyond its parts' own figures.

Those are the modules in the ports of the switches a rack holds (a switch's datasheet states its power with passive
cables), and the node-end modules of the systems whose `power.max` leaves their modules out
(`System.power_includes_optics: false`). They draw power inside that rack, so the rack's budgets carry them
(`analyse.rack.analyse` takes this module's `optics_by_rack`); the cluster's own totals count every module once,
from the cabling (`analyse.bom.optics_outside_systems`), so the racks' IT power summed over the instances plus
the parts in no rack is the cluster's IT power.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from archgen.analyse.link_ends import (
    _ports_per_module,
    link_speed,
    links_per_cable,
    module_power,
    node_cage_ports,
    optics_inside,
)
from archgen.analyse.network import ClusterAnalysis, FabricAnalysis
from archgen.analyse.tier_cabling import TierRuns, leaf_modules, leaves_named
from archgen.build import LinkOption
from archgen.model import System
from archgen.model.network import COPPER_MEDIA, Link
from archgen.units import Q_, Q


def optics_by_rack(clusters: dict[str, ClusterAnalysis], held: bool = False) -> dict[str, Q]:
    """Optics power per rack path: its most loaded instance in any cluster (for its budgets).

    `held`: instead, the modules in the ports of switches whose `power.max` holds them but whose stated `typical`
    (with passive cables) does not, which the rack's typical draw adds (`Switch.power_includes_optics`).
    """
    out: dict[str, Q] = {}
    for a in clusters.values():
        for rid, q in rack_optics(a, held).items():
            path = f"rack/{rid}"
            out[path] = max(out.get(path, q), q)
    return out


def rack_optics(a: ClusterAnalysis, held: bool = False) -> dict[str, Q]:
    """Optics power of the most loaded rack instance of each rack type of one cluster."""
    if a.cabling is None or not a.cabling.runs:
        return {}
    worst: dict[str, float] = {}
    for inst, w in zip(a.cluster.instances, instance_optics(a, held).tolist(), strict=True):
        worst[inst.rack.spec.id] = max(worst.get(inst.rack.spec.id, 0.0), w)
    return {rid: Q_(w, "W").to("kW") for rid, w in sorted(worst.items())}


def instance_optics(a: ClusterAnalysis, held: bool = False) -> np.ndarray:
    """Optics power (W) each rack instance of a cluster holds beyond its parts' figures, in instance order.

    `held`: the modules a switch's maximum holds and its stated typical does not (`optics_by_rack`).
    """
    return _end_optics(a, held)[:-1]


def unracked_optics(a: ClusterAnalysis) -> Q:
    """Optics power beyond the parts' figures at link ends in no rack (a switch placed nowhere, a counted endpoint).

    With `instance_optics` summed, every module `analyse.bom.optics_outside_systems` counts (the heat of parts in no
    rack, `analyse.rack_heat.unracked_heat`).
    """
    return Q_(float(_end_optics(a)[-1]), "W").to("kW")


def unconfirmed_optics(clusters: Mapping[str, ClusterAnalysis]) -> dict[str, tuple[Link, ...]]:
    """By rack path, the links listed with an unconfirmed `power_per_end` whose ends add to its optics.

    Those a rack's IT power holds at some instance of it in some cluster, at maximum or typical draw
    (`instance_optics`, held or not): the modules in its switches' ports, its nodes' left-out ones. REQ005's rack
    inputs and the rack document's markers name them (`rack_power_inputs.rack_power_parts`), as the cluster's do
    (unconfmark42's finding: only the cluster level named them). Only such links are counted again, one at a time.
    """
    return links_held(unconfirmed_optics_power(clusters))


def links_held(power: Mapping[str, Mapping[str, tuple[Link, float]]]) -> dict[str, tuple[Link, ...]]:
    """`unconfirmed_optics` of its `unconfirmed_optics_power`: the links alone, by rack path."""
    return {path: tuple(link for link, _ in links.values()) for path, links in power.items()}


def unconfirmed_optics_power(clusters: Mapping[str, ClusterAnalysis]) -> dict[str, dict[str, tuple[Link, float]]]:
    """`unconfirmed_optics` by link id, with the kW its ends draw in the rack: its most loaded instance's, any cluster.

    At maximum draw, with the modules a switch's typical leaves out (`instance_optics`, held): the share of a rack's
    optics that rests on an unconfirmed `power_per_end` (`analyse.unconfirmed_share.rack_shares`).
    """
    out: dict[str, dict[str, tuple[Link, float]]] = {}
    for a in clusters.values():
        tiers = a.cabling.tiers if a.cabling is not None else ()
        links = {e.id: e for t in tiers for o in t.options for e in (o.a, o.b) if e.is_unconfirmed("power_per_end")}
        for lid, link in sorted(links.items()):
            watts = _end_optics(a, link=lid)[:-1] + _end_optics(a, True, lid)[:-1]
            for inst, w in zip(a.cluster.instances, watts.tolist(), strict=True):
                if w:
                    held = out.setdefault(f"rack/{inst.rack.spec.id}", {})
                    held[lid] = (link, max(held.get(lid, (link, 0.0))[1], w / 1000))
    return out


def _end_optics(a: ClusterAnalysis, held: bool = False, link: str | None = None) -> np.ndarray:
    """`instance_optics` with one more slot last: the ends in no rack. `link`: that link's ends alone."""
    watts = np.zeros(len(a.cluster.instances) + 1, dtype=float)
    cab = a.cabling
    if cab is None or not cab.runs:
        return watts
    options = {(t.fabric, t.tier): t.options for t in cab.tiers}
    fabrics = {fa.fabric.spec.id: fa for fa in a.fabrics}
    for tr in cab.runs:
        fa = fabrics[tr.fabric]
        inside = optics_inside(fa, tr.tier)
        only = tuple(s for s in inside if s not in optics_inside(fa, tr.tier, typical=True)) if held else None
        _rack_end_power(fa, tr.tier, tr, options[(tr.fabric, tr.tier)], _modules_left_out(a, tr),
                        node_cage_ports(a.nodes, fa), watts, inside, only, link)
    return watts


def _modules_left_out(a: ClusterAnalysis, tr: TierRuns) -> np.ndarray:
    """Access runs whose node end is a system whose `power.max` leaves out its modules (by rack instance and U)."""
    out = np.zeros(len(tr.a_rack), dtype=bool)
    if tr.tier != "access":
        return out
    types = np.array([inst.rack.spec.id for inst in a.cluster.instances], dtype=object)
    for rid, rack in sorted(a.cluster.rack_types.items()):
        us = [p.u for p in rack.items if isinstance(p.part, System) and not p.part.power_includes_optics]
        if us:
            out |= np.isin(tr.a_rack, np.flatnonzero(types == rid)) & np.isin(tr.a_u, us)
    return out & (tr.group >= 0)


def _rack_end_power(fa: FabricAnalysis, tier: str, tr: TierRuns, options: tuple[LinkOption, ...],
                    node_left_out: np.ndarray, node_cage: int, out: np.ndarray,
                    in_switch: tuple[str, ...] = (), only: tuple[str, ...] | None = None,
                    link: str | None = None) -> None:
    """Add the modules and active-cable ends of one tier's runs that no part's figure holds to `out` (W/rack).

    Those are the switch ends, the B end of every tier and the A end of the switch tiers, and the node ends (an
    access run's A end) of systems whose `power.max` leaves their modules out (`node_left_out`); an access run's A
    end that is no node is a switch port at a leaf, in a single-port cage. Modules per rack are ⌈links / ports per
    module⌉ with the cages of the cluster totals (`analyse.cabling`), at an access tier's leaf end leaf by leaf, as
    `analyse.tier_cabling` counts them (`_leaf_end`; a module's ports serve one leaf); ends in no rack (a switch
    placed nowhere, an endpoint stated as a count) go to `out`'s last slot. An optical module in the port of a switch
    whose `power.max` holds it (`in_switch`, `Switch.power_includes_optics`) adds nothing;
    `only`: count just the optical modules at these ends (the held ones a stated typical leaves out); `link`: count
    just that link's ends (`unconfirmed_optics`).
    """
    if not options or not len(tr.length):
        return
    speed = link_speed(fa, tier)
    every = np.ones(len(tr.a_rack), dtype=bool)
    kinds: tuple[tuple[np.ndarray, int | None, np.ndarray], ...]
    by_leaf = tier == "access" and leaves_named(tr)
    if tier == "access":   # node runs (A end in a NIC cage), the other access ports (A end in a single-port cage)
        kinds = ((tr.group >= 0, node_cage, node_left_out), (tr.group < 0, 1, tr.group < 0))
    else:
        kinds = ((every, None, every),)
    if by_leaf:
        _leaf_end(tr, options, speed, out, in_switch, only, link)
    for runs, a_cage, a_counted in kinds:
        for rack, side, mask in ((tr.b_rack, "b", runs), (tr.a_rack, "a", runs & a_counted)):
            for i, opt in enumerate(options):
                end = getattr(opt, side)
                sel = mask & (tr.option == i)
                copper = opt.a.media in COPPER_MEDIA
                if side == "b" and by_leaf and not copper:   # counted leaf by leaf (`_leaf_end`)
                    continue
                if _uncounted(end, sel, side, copper, in_switch, only, link):
                    continue
                where = np.where(rack[sel] >= 0, rack[sel], len(out) - 1)   # an end in no rack: the last slot
                links = np.bincount(where, weights=tr.weight[sel], minlength=len(out))
                cage = a_cage if side == "a" else None
                per = links_per_cable(opt, speed, a_cage) if copper else _ports_per_module(end, speed, cage)
                watts = end.power_per_end if copper else module_power(end, speed, cage)
                out += np.ceil(links / per) * watts.m_as("W")


def _uncounted(end: Link, sel: np.ndarray, side: str, copper: bool, in_switch: tuple[str, ...],
               only: tuple[str, ...] | None, link: str | None = None) -> bool:
    """Whether the `side` ends of the runs `sel` add no watts here.

    None selected, ends that draw nothing, an optical module the switch's `power.max` holds (`in_switch`), or, with
    `only`, an end not counted (a copper one, or one not in `only`); with `link`, another link's end.
    """
    return not sel.any() or end.power_per_end.magnitude == 0 or (link is not None and end.id != link) or (
        (side in in_switch and not copper) if only is None else (side not in only or copper))


def _leaf_end(tr: TierRuns, options: tuple[LinkOption, ...], speed, out: np.ndarray, in_switch: tuple[str, ...],
              only: tuple[str, ...] | None, link: str | None = None) -> None:
    """The leaf ends of an access tier's runs, ⌈links at a leaf / ports per module⌉ a leaf, added to its rack."""
    assert tr.b_switch is not None, "called where the runs name their leaves (`leaves_named`)"
    leaf_rack = np.full(int(tr.b_switch.max()) + 1, len(out) - 1)
    leaf_rack[tr.b_switch] = np.where(tr.b_rack >= 0, tr.b_rack, len(out) - 1)   # a leaf's runs share its rack
    for i, opt in enumerate(options):
        sel, copper = tr.option == i, opt.a.media in COPPER_MEDIA
        if copper or _uncounted(opt.b, sel, "b", copper, in_switch, only, link):
            continue   # a copper assembly's ends are counted by run, as the loop does
        modules = leaf_modules(tr, sel, opt.b, speed)
        out += np.bincount(leaf_rack, weights=modules, minlength=len(out)) * module_power(opt.b, speed, None).m_as("W")


def dark_ends(a: ClusterAnalysis) -> tuple[set[str], tuple[tuple[str, str, int], ...]]:
    """The rack types some instance of which holds an end of links without link media (CAB003), and those tiers.

    Those ends' modules or active cable ends are counted nowhere (`instance_optics` has no option to count them by),
    so the racks' power and heat leave them out: lower bounds. Any end counts, a switch's whose `power.max` holds
    its optics too: an active copper end would still add, and which the links take is not stated. Only laid-out
    runs put optics in a rack (`_end_optics`), so a tier whose runs are not (a dragonfly's, counted; a fabric that
    cannot be built) leaves no rack's figure short that media would fill. The tiers as (fabric id, link class, links).
    """
    cab = a.cabling
    dark = {(t.fabric, t.tier): t.links for t in (cab.tiers if cab is not None else ()) if t.no_media}
    held = np.zeros(len(a.cluster.instances), dtype=bool)
    laid = set()
    for tr in (cab.runs if cab is not None else ()):
        if (tr.fabric, tr.tier) in dark and len(tr.a_rack):
            laid.add((tr.fabric, tr.tier))
            for rack in (tr.a_rack, tr.b_rack):
                held[rack[rack >= 0]] = True
    types = {inst.rack.spec.id for inst, h in zip(a.cluster.instances, held.tolist(), strict=True) if h}
    return types, tuple((fabric, tier, dark[fabric, tier]) for fabric, tier in sorted(laid))
