"""One tier's cabling: its runs (`TierRuns`, as `analyse.cabling` lays them out) and their totals (`TierCabling`).

`tier_totals` counts, for one tier of one fabric, the links per link option and length bin, the cables an installer
pulls, the modules at each end and their power (at node ends, in switch ports the switch's power holds, run below
their rate), and the runs past a reach; the counting rules are `analyse.cabling`'s (its docstring). Split from
`analyse.cabling` (the runs and the cluster's figures) for its size.

Modules are ⌈links / ports per module⌉ of an option at each end. A module sits in one cage of one device, so its
ports cannot serve two leaves: at an access tier's leaf end, whose runs name their leaf (`TierRuns.b_switch`), the
count is per leaf and summed (`_leaf_modules`; review50: the DGX B200 SuperPOD's 1,020 multimode access links on
twin-port 800G SR8 modules at the leaves, 510 -> 512, two leaves holding an odd number). A twin-port module's two
ports may reach two different far ends, so only the near end bounds the sharing. The node end counts by its cage
(`link_ends.node_cage_ports`, alike on every node); the leaf-spine and spine-core ends, whose runs name no switch,
stay ⌈links / ports⌉ over the tier, which is exact where every switch of the tier holds a multiple of a module's
ports (the leaves' uplinks, the spines' downlinks, alike per switch) and low by at most one module a switch where not.
Checked against what a buyer orders for the DGX SuperPOD B200 RA's 4 SUs (Network Fabrics, Table 4: 1,024
leaf-spine cables; each leaf's 32 uplinks on 16 twin-port OSFP modules, each spine's 64 on 32): 1,024 (pods34).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from archgen.analyse.cable_bins import PAIR_TIERS, bin_cables, cord_bins, run_cables, run_legs
from archgen.analyse.link_ends import (
    _ports_per_module,
    cords_per_link,
    links_per_cable,
    module_power,
    splitter_legs,
)
from archgen.build import LinkOption
from archgen.model.network import COPPER_MEDIA, Link
from archgen.units import Q_, Q

#: The ends of a tier's links that sit in a node's NIC ports, the others in switch ports: an access link runs from a
#: node (or, past the nodes' ports, a reserved port at a leaf) to a leaf, a torus's neighbour link from chip to chip,
#: its OCS link from a chip to the circuit switch.
NODE_ENDS = {"access": ("a",), "neighbour": ("a", "b"), "ocs": ("a",)}


@dataclass(frozen=True)
class TierRuns:
    """Every link of one tier of one fabric: ends, chosen option, length and bin, as parallel arrays."""

    fabric: str
    tier: str
    a_rack: np.ndarray
    a_u: np.ndarray
    b_rack: np.ndarray
    b_u: np.ndarray
    group: np.ndarray
    option: np.ndarray
    length: np.ndarray
    bin: np.ndarray
    weight: np.ndarray
    #: Access tier: the leaf (index over all planes) of each run, as the port map names it; None on other tiers.
    b_switch: np.ndarray | None = None
    #: Per run, the split cables whose first leg it holds (`split_legs.first_legs`; -1: its links are no split
    #: cable's legs): the run list puts a split cable's count on its first leg's row. None: no split cable.
    lead: np.ndarray | None = None


@dataclass(frozen=True)
class TierCabling:
    """Totals of one tier: links, modules, optics power (`node_optics_power` at node ends), longest run, reach."""

    fabric: str
    tier: str
    links: int
    options: tuple[LinkOption, ...]
    by_option_bin: dict[tuple[str, float], int]
    modules: dict[str, int]
    cables: dict[str, int]
    optics_power: Q
    max_length: Q | None
    over_reach: tuple[tuple[LinkOption, int, float], ...]
    lengths_known: bool
    unplaced_links: int = 0
    assumed_length: Q | None = None
    transceivers: int = 0
    node_optics_power: Q = Q_(0, "W")
    node_modules: dict[str, int] = field(default_factory=dict)   # transceivers at node ends, by module part
    #: Runs from endpoints given as a bare count (`endpoints.extra`), whose length is only the floor's longest run,
    #: that exceed a reach at that bound: (option, links, bound). An assumption to state (CAB004), not a CAB001 error.
    bound_over_reach: tuple[tuple[LinkOption, int, float], ...] = ()
    #: Runs to a switch placed in no rack past a reach at the floor's longest length: (option, links, bound). Their
    #: length is invented, so this is CAB004's finding (which switch, which tier), not a CAB001 reach error.
    unplaced_over_reach: tuple[tuple[LinkOption, int, float], ...] = ()
    #: Per `over_reach` entry: (index of its longest run in the tier's `TierRuns`, racks at its A ends, at its B ends).
    over_where: tuple[tuple[int, int, int], ...] = ()
    #: Modules run below their rate at a lower power (`Link.power_at`): (part, watts each) -> modules.
    reduced: dict[tuple[str, float], int] = field(default_factory=dict)
    #: Optical modules in switch ports that the switch's `power.max` holds (`Switch.power_includes_optics`), by part.
    switch_optics_power: Q = Q_(0, "W")
    switch_modules: dict[str, int] = field(default_factory=dict)
    #: Of it, what the switches' typical holds too (no `typical` stated); the rest the typical IT power adds.
    switch_optics_typical: Q = Q_(0, "W")
    #: Cables per (link option, length bin), what a vendor orders (`by_option_bin` counts links); per run: `cable_bins`.
    cables_by_bin: dict[tuple[str, float], int] = field(default_factory=dict)
    run_cables: np.ndarray | None = None
    #: The most links one cable of an optical option carries where above 1 (a fibre split at one end,
    #: `links_per_cable`), by option label; which cables are 1:k splitters is `cords_by_bin`'s, per run.
    cable_links: dict[str, int] = field(default_factory=dict)
    #: Optical cables per (option label, length bin, links a cable carries): the fibre cords the BOM orders, a 1:k
    #: splitter where k > 1, counted per run (`cable_bins.run_legs`): a tier may mix both kinds (a node cage's split
    #: cable beside a reserved port's straight one), which `cable_links` (the most per option) does not tell apart.
    cords_by_bin: dict[tuple[str, float, int], int] = field(default_factory=dict)
    #: Of `by_option_bin`, the links whose run has an end in no rack (a switch placed in none, a port given as a
    #: count), so an assumed length, the floor's longest (CAB004); of `cords_by_bin`, their fibre cords. The
    #: documents mark those bins and the longest run assumed (newuser105: "mmf-100g-sr4 | 150 m" unmarked).
    assumed_bins: dict[tuple[str, float], int] = field(default_factory=dict)
    assumed_cords: dict[tuple[str, float, int], int] = field(default_factory=dict)
    #: The longest of those runs (None: none); where it is `max_length`, the longest run is an assumed one.
    assumed_max: Q | None = None

    @property
    def physical(self) -> int:
        """Cables to pull: copper assemblies and optical cables, a split cable once."""
        return sum(self.cables.values())

    @property
    def no_media(self) -> bool:
        """Whether the tier has links but names no link option (CAB003): nothing of it counted, never 0."""
        return bool(self.links) and not self.options


def leaves_named(tr: TierRuns) -> bool:
    """Whether every run names its leaf (`TierRuns.b_switch`), so an access tier's leaf end is counted leaf by leaf."""
    return tr.b_switch is not None and bool(len(tr.b_switch)) and not (tr.b_switch < 0).any()


def leaf_modules(tr: TierRuns, sel: np.ndarray, end: Link, speed: Q) -> np.ndarray:
    """Modules of `end` at the leaf end of the runs `sel`, by leaf: ⌈links at the leaf / ports per module⌉.

    A module's ports serve the one leaf whose cage holds it (module docstring); the runs name their leaf
    (`leaves_named`). The cluster's totals (`_leaf_modules`) and the racks' heat (`optics._leaf_end`) both count so.
    """
    assert tr.b_switch is not None, "called where the runs name their leaves"
    links = np.bincount(tr.b_switch[sel], weights=tr.weight[sel], minlength=int(tr.b_switch.max()) + 1)
    return np.ceil(links / _ports_per_module(end, speed))


def _leaf_modules(tr: TierRuns, options: tuple[LinkOption, ...], speed: Q) -> dict[int, int]:
    """Modules at the leaf end of an access tier's runs (`leaf_modules`) summed over the leaves.

    By option index, the runs from nodes and from other ports together (one module may carry one of each); empty
    where a run names no leaf.
    """
    if not leaves_named(tr):
        return {}
    out: dict[int, int] = {}
    for i, opt in enumerate(options):
        mask = tr.option == i
        if mask.any():
            out[i] = int(leaf_modules(tr, mask, opt.b, speed).sum())
    return out


def tier_totals(fabric: str, tier: str, links: int, options: tuple[LinkOption, ...], tr: TierRuns | None,
                 a_cage_ports: int | None, speed: Q, in_switch: tuple[str, ...] = (),
                 in_typical: tuple[str, ...] = ()) -> TierCabling:
    """The totals of one tier's `links` over its link `options`, from its runs `tr` (None: no lengths known).

    `a_cage_ports`: NIC ports per cage at the node end of an access tier (`link_ends.node_cage_ports`; None on other
    tiers); `in_switch`, `in_typical`: the ends whose modules the switch's maximum (and typical) power holds.
    """
    by: dict[tuple[str, float], int] = {}
    per_option = np.zeros(max(len(options), 1), dtype=np.int64)
    single = np.zeros(max(len(options), 1), dtype=np.int64)   # access runs whose A end is not a node
    over: list[tuple[LinkOption, int, float]] = []
    bound_over: list[tuple[LinkOption, int, float]] = []   # past reach only at the assumed bound (CAB004, not CAB001)
    unplaced_over: list[tuple[LinkOption, int, float]] = []   # the same, at a switch placed in no rack
    where: list[tuple[int, int, int]] = []   # per `over` entry: its longest run, racks at either end
    max_len = None
    n_unplaced, assumed, per_run = 0, None, None
    assumed_bins: dict[tuple[str, float], int] = {}
    assumed_cords: dict[tuple[str, float, int], int] = {}
    assumed_max = None
    cable_bins: dict[tuple[str, float], int] = {}
    cords: dict[tuple[str, float, int], int] = {}   # optical cables by (option, bin, links a cable carries)
    at_leaves: dict[int, int] = {}   # leaf-end modules by option, counted leaf by leaf (`_leaf_modules`)
    if tr is not None and len(tr.length):
        if options:
            by = bin_cables(tr, options, tr.weight)
            per_option[:len(options)] = np.bincount(tr.option, weights=tr.weight, minlength=len(options))
            per_run = run_cables(tr, options, speed, a_cage_ports)
            cable_bins = bin_cables(tr, options, per_run)
            run_leg = run_legs(tr, options, speed, a_cage_ports)
            cords = cord_bins(tr, options, per_run, run_leg)
            guessed = (tr.a_rack < 0) | (tr.b_rack < 0)   # an end in no rack: the length is the floor's longest
            if guessed.any():
                assumed_bins = {k: n for k, n in bin_cables(tr, options, tr.weight * guessed).items() if n}
                assumed_cords = {k: n for k, n in cord_bins(tr, options, per_run * guessed, run_leg).items() if n}
            if tier == "access":
                at_leaves = _leaf_modules(tr, options, speed)
                other = tr.group < 0
                single[:len(options)] = np.bincount(tr.option[other], weights=tr.weight[other],
                                                    minlength=len(options)).astype(np.int64)
            bound = (tr.a_rack < 0) & (tr.group < 0)   # an end stated only as a count: the floor's longest, a bound
            loose = ((tr.b_rack < 0) | (tr.a_rack < 0)) & ~bound   # an end at a switch placed in no rack
            for i, opt in enumerate(options):
                for past, mask in ((over, ~bound & ~loose), (bound_over, bound), (unplaced_over, loose)):
                    bad = (tr.option == i) & (tr.length > opt.reach.m_as("m") + 1e-9) & mask
                    if bad.any():
                        past.append((opt, int(tr.weight[bad].sum()), float(tr.length[bad].max())))
                        if past is over:
                            where.append((int(np.argmax(np.where(bad, tr.length, -1.0))),
                                          len(np.unique(tr.a_rack[bad])), len(np.unique(tr.b_rack[bad]))))
        max_len = Q_(float(tr.length.max()), "m")
        guessed = (tr.a_rack < 0) | (tr.b_rack < 0)
        assumed_max = Q_(float(tr.length[guessed].max()), "m") if guessed.any() else None
        # runs to a switch placed in no rack (an end stated only as a count, group < 0, is no switch: not counted)
        unplaced = (tr.b_rack < 0) | ((tr.a_rack < 0) & (tr.group >= 0))
        if unplaced.any():
            n_unplaced, assumed = int(tr.weight[unplaced].sum()), Q_(float(tr.length[unplaced].max()), "m")
    elif options:
        per_option[0] = links
        by[(options[0].label, 0.0)] = links
    modules: dict[str, int] = {}
    at_nodes: Counter[str] = Counter()
    at_switches: Counter[str] = Counter()
    switch_power = switch_typical = Q_(0, "W")
    reduced: Counter[tuple[str, float]] = Counter()
    cables: dict[str, int] = {}
    split: dict[str, int] = {}
    power, node_power, transceivers = Q_(0, "W"), Q_(0, "W"), 0
    for i, opt in enumerate(options):
        for n, a_cage, at_node in ((int(per_option[i] - single[i]), a_cage_ports, NODE_ENDS.get(tier, ())),
                                   (int(single[i]), 1, ())):
            if not n:
                continue
            per = links_per_cable(opt, speed, a_cage)   # a split cable or connector serving several links: once
            if opt.a.media in COPPER_MEDIA:  # a cable assembly: one orderable part with its ends built in
                c = math.ceil(n / per)
                if tr is not None and per_run is not None and tier in PAIR_TIERS:   # one pair of switches a run:
                    c = int(per_run[tr.option == i].sum())   # `run_cables`' whole assemblies, as the bins count them
                legs = splitter_legs(opt)   # a splitter: one B end and `legs` A ends an assembly
                cables[opt.label] = cables.get(opt.label, 0) + c
                modules[opt.a.id] = modules.get(opt.a.id, 0) + c
                power = power + (opt.a.power_per_end * legs + opt.b.power_per_end) * c
                node_power = node_power + sum((e.power_per_end * k * c for e, k, side in
                                               ((opt.a, legs, "a"), (opt.b, 1, "b")) if side in at_node), Q_(0, "W"))
                continue
            for end, cage, side in ((opt.a, a_cage, "a"), (opt.b, None, "b")):  # modules at both ends, a fibre between
                k = math.ceil(n / _ports_per_module(end, speed, cage))
                if side == "b" and i in at_leaves:   # a leaf's cages are its own: all its modules at the first
                    k, at_leaves[i] = at_leaves[i], 0
                modules[end.id] = modules.get(end.id, 0) + k
                watts = module_power(end, speed, cage)     # at the rate it runs (`Link.power_at`)
                if watts != end.power_per_end:
                    reduced[(end.id, float(watts.m_as("W")))] += k
                power = power + watts * k
                node_power = node_power + (watts * k if side in at_node else Q_(0, "W"))
                at_nodes[end.id] += k if side in at_node else 0
                if side in in_switch and side not in at_node:
                    switch_power, at_switches[end.id] = switch_power + watts * k, at_switches[end.id] + k
                    switch_typical = switch_typical + (watts * k if side in in_typical else Q_(0, "W"))
                transceivers += k if end.is_module else 0   # a 0 W fibre end (an OCS port) is no module: Link.is_module
            pulled = math.ceil(n / per) * cords_per_link(opt, speed)   # a twin-port's two cords at 800G
            cables[f"{opt.label} fibre"] = cables.get(f"{opt.label} fibre", 0) + pulled
            if per_run is None:   # no runs: one 0 m bin (a length not known)
                cords[(opt.label, 0.0, per)] = cords.get((opt.label, 0.0, per), 0) + pulled
            if per > 1:
                split[opt.label] = max(split.get(opt.label, 1), per)
    return TierCabling(fabric, tier, links, options, by, modules, cables, power.to("W"), max_len,
                       tuple(over), tr is not None, n_unplaced, assumed, transceivers, node_power.to("W"),
                       {m: n for m, n in at_nodes.items() if n}, tuple(bound_over), tuple(unplaced_over),
                       tuple(where), dict(reduced), switch_power.to("W"), {m: n for m, n in at_switches.items() if n},
                       switch_typical.to("W"), cable_bins if per_run is not None else
                       {(options[0].label, 0.0): sum(cables.values())} if options else {}, per_run, split, cords,
                       assumed_bins, assumed_cords, assumed_max)
