"""CAB: cable runs: media that reach their length at the fabric's line rate; assumed lengths of unplaced runs.

The checks of link media against the ports they plug into (CAB002, CAB005) are in `checks.link_media`, which this
module imports so that CAB's checks register together.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.network import ClusterAnalysis, FabricAnalysis, count, withheld_tiers
from archgen.analyse.port_numbers import ports_past
from archgen.analyse.scale_up_pod import is_pod, pod_ends, pod_links
from archgen.analyse.scale_up_racks import trunk_ends
from archgen.checks import link_media  # noqa: F401 (registers CAB002 and CAB005: link media against ports)
from archgen.checks.cage_modules import cage_overfills
from archgen.checks.copper_pairs import split_copper
from archgen.checks.copper_ties import copper_ties
from archgen.checks.fibre_grades import past_grades
from archgen.checks.reach_words import (
    COPPER_LIMIT,
    POD_FIX,
    SWITCH_ENDS,
    TRUNK_FIX,
    TWISTED,
    full_racks_past_reach,
    loose_fix,
    reach_words,
    run_end,
    why_loose,
    why_not_laid_out,
)
from archgen.checks.registry import Context, Violation, check
from archgen.checks.scale_up_cages import ualink_beyond
from archgen.model.fabrics import LINK_TIERS
from archgen.model.field_words import said
from archgen.model.scale_up import ScaleUp
from archgen.units import Q_


@check("CAB001", "cabling.reach")
def reach(ctx: Context) -> Iterator[Violation]:
    """Every run is within the reach of the link media it uses (from the catalog).

    Runs with both ends placed only: a run to a switch placed in no rack, or from a port stated as a bare count,
    has no length of its own (CAB004 says so). The finding names the two ends of the longest run (rack, U, part)
    and how many racks the runs join; on twisted pair it cites the 100 m channel of copper Ethernet (ANSI/TIA-568.2-D
    Category 6A channel; IEEE 802.3 Clause 40, 1000BASE-T, and Clause 55, 10GBASE-T: 100 m). A multi-rack scale-up
    domain's trunk cables (`scale_up.trunk_link`) are runs between its racks like any other.

    A part whose source lists its lengths (`max_length`, shorter than its reach) serves runs up to the longest length
    sold: a run past it takes the tier's next option, and where none serves it the finding says what is sold.

    Fix: add a longer-reach link option for the tier (e.g. single-mode), or move the racks closer; for management
    runs past 100 m of copper, fibre or a management switch in the far racks' row.
    """
    for c in ctx.clusters.values():
        if c.cabling is None:
            continue
        for t in c.cabling.tiers:
            tr = next((r for r in c.cabling.runs if (r.fabric, r.tier) == (t.fabric, t.tier)), None)
            trunk = t.fabric == "scale_up" and c.cluster.spec.scale_up is not None   # a multi-rack domain's trunks
            su = c.cluster.spec.scale_up
            ends_of = _scale_up_ends(c, su) if trunk and su is not None else None
            for k, (opt, n, longest) in enumerate(t.over_reach):
                fa = None if trunk else next(f for f in c.fabrics if f.fabric.spec.id == t.fabric)
                where = ("scale_up", "link" if t.tier == "access" else "trunk_link") if fa is None else \
                    fa.fabric.tiers[_tier_key(t.tier, fa.topology)].links_path
                runs = ""
                src = (tr.a_rack, tr.a_u, tr.b_rack, tr.b_u) if tr is not None else \
                    ends_of[:4] if ends_of is not None else None
                if src is not None and k < len(t.over_where):
                    i, a_racks, b_racks = t.over_where[k]
                    a_rack, a_u, b_rack, b_u = src
                    ends = (run_end(c, int(a_rack[i]), int(a_u[i])), run_end(c, int(b_rack[i]), int(b_u[i])))
                    runs = (f"; {a_racks} rack(s) at one end, {b_racks} at the other; the longest from {ends[0]} "
                            f"to {ends[1]}")
                fix = (POD_FIX if t.tier == "access" else TRUNK_FIX) if fa is None else ""
                tail = f"{runs}{fix}{COPPER_LIMIT if opt.a.media in TWISTED else ''}"
                yield Violation(c.cluster.path if fa is None else fa.fabric.path, c.cluster.spec.id, where,
                                f"{t.tier}: {n} link(s) up to {longest:.1f} m exceed the {reach_words(opt)} of "
                                f"{opt.label}{tail}", Q_(longest, "m"), opt.reach.to("m"),
                                public=f"{said(t.tier)}: {n} link(s) up to {longest:.1f} m exceed the "
                                f"{reach_words(opt, said=True)} of {opt.label}{runs}"
                                f"{COPPER_LIMIT if opt.a.media in TWISTED else ''}")


def _scale_up_ends(c: ClusterAnalysis, su: ScaleUp) -> tuple:
    """The runs a scale-up domain lays between racks: a pod's to its switch racks, or a multi-rack domain's trunks."""
    return pod_ends(c.cluster, su, pod_links(c.cluster, su)) if is_pod(su) else trunk_ends(c.cluster, su)


@check("CAB003", "cabling.media_missing", severity="warning")
def media_missing(ctx: Context) -> Iterator[Violation]:
    """Every tier a fabric builds names its link media, so its cables and optics are counted and their reach checked.

    A tier whose links name no link option at all has no cable, transceiver or optics draw to count: its cables and
    transceivers, the fabric's optics and network power, the cluster's IT power and the capex on them are not
    provided (never summed as 0), and this warning names the tier, its links and the key to set. A tier that lists
    options is counted on them, run by run; a run no option reaches is CAB001's error, not this one. A warning, not
    an info (newuser105: a GB200 SuperPOD grown to 16 SUs, `tiers: 3` and no `links.spine_core`, checked clean with
    9,216 spine-core links on no cable, the only note an info). `tiers: auto` builds a tier no fixed `tiers` named,
    so its links are the most likely to have none. On a fabric whose topology is infeasible, links between switch
    tiers one of which that error withheld the wiring of (`network.withheld_tiers`) follow from it
    (`Violation.follows`): they are counted on ports its switches do not have, so the finding folds under the NET
    error. Access links are not: their count is the endpoints', whatever the tiers above.

    Fix: list link options under the tier's key (`links.access`, `links.leaf_spine`, `links.spine_core`; a dragonfly's
    `links.local`, `links.global`).
    """
    for c in ctx.clusters.values():
        for fa in c.fabrics:
            for name in fa.links:
                key = _tier_key(name, fa.topology)
                if not fa.fabric.tiers[key].links and fa.links[name]:
                    n = fa.links[name] * fa.planes
                    rest = "their cables, transceivers and optics power are not provided, and their reach not checked"
                    withheld = name != "access" and set(SWITCH_ENDS.get(name, ())) & set(withheld_tiers(fa))
                    yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.owner_path + ("links",),
                                    f"{name}: {n} links without link media: {rest}; list their link options under "
                                    f"`links.{name}`", count(n), public=f"{said(name)}: {n} links without link "
                                    f"media: {rest}", follows=fa.fabric.path if withheld else "")


def _counted_keys(fa: FabricAnalysis) -> tuple[tuple, str]:
    """The keys that state a fabric's ports as bare counts, the first's path and all named (CAB004).

    `endpoints.extra` and `reserved` both land on free leaf ports with no rack at their far end; the finding named
    `endpoints.extra` alone, at a key the fabric did not have, where the ports were a front end's `reserved` border
    uplinks to the site core (newuser91).
    """
    spec = fa.fabric.spec
    keys: list[tuple[tuple, str]] = [(("endpoints", "extra"), "endpoints.extra")] if spec.endpoints.extra else []
    keys += [(("reserved", i), f"reserved '{r.name}'") for i, r in enumerate(spec.reserved)]
    return (keys[0][0] if keys else ("endpoints", "extra")), ", ".join(k for _, k in keys) or "endpoints.extra"


@check("CAB004", "cabling.unplaced_length", severity="warning")
def unplaced_length(ctx: Context) -> Iterator[Violation]:
    """Runs to switches placed in no rack get an assumed length: the longest run the floor holds.

    Such a switch could stand anywhere on the floor, so its runs are given the corner-to-corner length
    (2 x tray_drop + the rows' length and depth + slack) for media choice, reach and optics, never a patch-cord
    length that would understate them. The finding names the switches (tier, count and part) and why they stand in
    no rack. A run whose end stands nowhere has no length to check against a reach: where the assumed length passes
    a link option's reach, that is said here as a reach not checked, not as a CAB001 error at an invented length
    (an OOB spine tier without `spine.rack` gave 1,664 "263.6 m" reach errors on a 65-SU hall). Where both ends'
    tiers name their rack and the racks are too few for the switches, the shortage is NET012's finding, not this one,
    unless the runs to the switches they cannot hold pass a reach at that length: then both are said (newuser72's
    131k-GPU trial, cores past their spine racks: NET012 alone hid spine-core runs past the optics' reach).

    An assumed length past a reach stays a warning, not an error: the switch could stand anywhere, the length is the
    longest it could take, and an error would judge a length nobody measured. The finding names the fix (the tier's
    rack key, and where a reach is passed, media that reach the assumed length), and the documents mark those runs'
    length bins, fibre cords and longest run "assumed" (newuser105: 1,024 OOB spine-core cords ordered at 150 m of
    100 m SR4 and a 129.2 m longest run, unmarked).

    Ports given as a bare count (`endpoints.extra`, such as the trays' BMC ports of a management fabric) have no
    rack either: their runs take the same bound. Where the bound exceeds a link option's reach, that is said here,
    at the count, as an assumption, not as a CAB001 reach error: the runs are likely far shorter.

    Fix: place the tier's switches in a rack type of the cluster (`leaf.rack`, `spine.rack`, `core.rack`) so that
    their runs have real lengths; attach the ports as a system's NIC ports (a NIC of the role in the system) rather
    than a count, so that they are measured from its rack.
    """
    for c in ctx.clusters.values():
        if c.cabling is None:
            continue
        for t in c.cabling.tiers:
            for opt, n, bound in t.bound_over_reach:
                fa = next(f for f in c.fabrics if f.fabric.spec.id == t.fabric)
                rest = (f"have no rack; their length is bounded by {bound:.1f} m, the longest run the floor holds, "
                        f"past the {opt.reach:~P} reach of {opt.label}: reach not checked for them")
                key, keys = _counted_keys(fa)
                yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.owner_path + key,
                                f"{t.tier}: {n} link(s) from ports given as a count ({keys}) {rest}",
                                count(n), public=f"{said(t.tier)}: {n} link(s) from ports given as a count {rest}")
            if t.unplaced_links and t.assumed_length is not None:
                fa = next(f for f in c.fabrics if f.fabric.spec.id == t.fabric)
                where = fa.fabric.owner_path + (_tier_key(t.tier, fa.topology),)
                if all(fa.fabric.spec.rack_of(end) for end in SWITCH_ENDS[t.tier]):
                    # every switch tier has its racks: the ones they cannot hold are NET012's, but a reach their
                    # runs pass at the floor's longest length is said too (newuser72: NET012 alone hid it)
                    yield from full_racks_past_reach(c, fa, t, where)
                    continue
                loose = [(tier, f"{tier} {n} x {sw}") for fid, tier, sw, n
                         in c.cabling.unplaced_switches if fid == t.fabric and tier in SWITCH_ENDS[t.tier]]
                past = "".join(f", past the {opt.reach:~P} reach of {opt.label} for {n} of them: reach not checked "
                               "(their real length is not known)" for opt, n, _ in t.unplaced_over_reach)
                rest = (f"; their length is assumed to be {t.assumed_length.m_as('m'):.1f} m, the longest run the "
                        f"floor holds (corner to corner){past}")
                said_loose = [(f"{text} ({why_loose(fa, tier)})", f"{text} ({why_loose(fa, tier, True)})")
                              for tier, text in loose]
                tiers = [tier for tier, _ in loose]
                yield Violation(fa.fabric.path, c.cluster.spec.id, where,
                                f"{t.tier}: {t.unplaced_links} link(s) end at switches placed in no rack"
                                f"{': ' + ', '.join(m for m, _ in said_loose) if loose else ''}{rest}"
                                f"{loose_fix(fa, t, tiers)}", count(t.unplaced_links),
                                public=f"{said(t.tier)}: {t.unplaced_links} link(s) end at switches placed in no rack"
                                f"{': ' + ', '.join(p for _, p in said_loose) if loose else ''}{rest}"
                                f"{loose_fix(fa, t, tiers, True)}")


def _tier_key(tier: str, topology: str) -> str:
    return LINK_TIERS[topology][tier]


@check("CAB008", "cabling.copper_split", severity="warning")
def copper_split(ctx: Context) -> Iterator[Violation]:
    """Each switch pair's links on copper fill whole assemblies, so no cage holds lanes to two far switches.

    A straight DAC or ACC joins one cage to one cage; a pair with fewer links than it carries (2 x 200G on a 4 x
    200G DAC) takes a whole one with lanes idle, and the next pair's links land in the same cage (newuser26).
    A splitter part (`links_per_cable`) is counted by its legs. How: `archgen.checks.copper_pairs`.

    Fix: give each pair a multiple of the assembly's links (`uplinks`, `spine.count`), state a splitter part with
    `links_per_cable`, or list an optical option for the tier.
    """
    yield from split_copper(ctx)


@check("CAB010", "cabling.ualink_scope", severity="warning")
def ualink_scope(ctx: Context) -> Iterator[Violation]:
    """A UALink scale-up domain keeps to what UALink 200G 1.0 specifies: copper links, over one to four racks.

    Its cables are optimised for under 4 m, its links for one to four racks, and no optics are planned (sources:
    `checks.scale_up_cages.ualink_beyond`); a domain on fibre or over more racks passed as if UALink carried it.
    The racks are a trunked domain's: a pod (`scale_up.switch_rack`) has each run held to its cable's reach (CAB001).
    Its accelerators' own scale-up link is UALink: an MI355X (Infinity Fabric) has no UALink port.

    Fix: keep the domain's `link` and `trunk_link` on copper within four racks, or state `technology: ethernet`
    where the design is Ethernet scale-up; or waive the finding, naming the optics or the vendor's own reach, or the
    UALink accelerator a catalog part stands in for.
    """
    yield from ualink_beyond(ctx)


@check("CAB006", "cabling.length_bins", severity="warning")
def past_length_bins(ctx: Context) -> Iterator[Violation]:
    """Every run fits a length the floor's `length_bins` order cables in.

    A run longer than the largest bin is ordered at its own length rounded up to the metre, not at the largest
    bin, which would buy a cable shorter than the run.

    Fix: add longer lengths to `floor.length_bins`, or move the racks closer.
    """
    for c in ctx.clusters.values():
        bins = c.cluster.spec.floor.length_bins
        if c.cabling is None or not bins:   # the default bins reach 2 km
            continue
        top = max(b.m_as("m") for b in bins)
        for tr in c.cabling.runs:
            over = tr.length > top + 1e-9
            if over.any():
                fa = next(f for f in c.fabrics if f.fabric.spec.id == tr.fabric)
                yield Violation(fa.fabric.path, c.cluster.spec.id, ("floor", "length_bins"),
                                f"{tr.tier}: {int(tr.weight[over].sum())} run(s) up to "
                                f"{float(tr.length[over].max()):.1f} m exceed the largest length bin, {top:g} m; "
                                "they are ordered at their length rounded up to the metre",
                                Q_(float(tr.length[over].max()), "m"), Q_(top, "m"))


@check("CAB007", "cabling.not_laid_out", severity="warning")
def options_not_laid_out(ctx: Context) -> Iterator[Violation]:
    """Every link option of a tier is read: runs without lengths take their first option, so the others are unused.

    Dragonfly and torus fabrics are counted, not laid out (docs/clusters.md, Other topologies), and so is a fabric
    its switches cannot build: every link of a tier takes its first link option, whatever the distance between its
    ends, and no reach is checked. Options written after it, as a fat tree lists them by reach (copper first,
    single-mode last), are read by nothing, and the links, cables, modules and optics power rest on the first one:
    a rail-only fabric's 41,472 leaf-spine links between SU and spine racks were counted as 3 m copper, no module
    and no optics power, before rail-only fabrics were laid out like fat trees.

    Fix: list only the option these links use (the one that reaches between the racks the switches stand in, often
    single-mode), or use a fat tree or rail-only fabric, whose runs are laid out and take the first option that
    reaches.
    """
    for c in ctx.clusters.values():
        if c.cabling is None:
            continue
        for t in c.cabling.tiers:
            fa = next((f for f in c.fabrics if f.fabric.spec.id == t.fabric), None)
            laid_out = fa is not None and fa.topology in ("fat-tree", "rail-only") and fa.buildable
            if fa is None or laid_out or t.lengths_known:   # laid out: each run takes its option
                continue
            tier = fa.fabric.tiers[_tier_key(t.tier, fa.topology)]
            first, *rest = tier.links or (None,)
            if first is None or not rest:
                continue
            yield Violation(fa.fabric.path, c.cluster.spec.id, tier.links_path,
                            f"{t.tier}: {t.links} link(s) counted as {first.label} ({first.reach_text}), the "
                            f"first option, since {why_not_laid_out(fa)}: their lengths and "
                            f"reach are not checked, and {', '.join(o.label for o in rest)} "
                            f"{'is' if len(rest) == 1 else 'are'} read by nothing",
                            count(len(rest)), count(0),   # a fat tree not laid out: its switches cannot build it
                            follows=fa.fabric.path if fa.topology in ("fat-tree", "rail-only") else "")


@check("CAB009", "cabling.fibre_grade", severity="warning")
def fibre_grade(ctx: Context) -> Iterator[Violation]:
    """Every fibre cord is ordered at a length one of its part's fibre grades carries.

    A cable takes the first `fibre` grade of its Link part that reaches its ordered length (NVIDIA's multimode optics:
    OM3 up to 30 m, OM4 to 50 m); past them all it is ordered as the last, which does not carry the link that far.
    A warning where the run is within the last grade but its length bin (`floor.length_bins`) orders a longer cord.
    The finding names the tier, the option, the longest bin with the run's two ends, and the grades. A run past every
    grade comes from a part whose reach is past its grades': CAT012 names the part (net30: this check's error case,
    which no shipped part raises). Runs past the option's reach are CAB001's, runs to an end in no rack CAB004's.
    How: `archgen.checks.fibre_grades`.

    Fix: add a length bin at or below the grade's reach, state the grade that reaches the bin in the part's `fibre`
    list (OM4 or OM5 past OM3's reach), or list a longer-reach option (single-mode) for the tier.
    """
    yield from past_grades(ctx)


@check("CAB011", "cabling.copper_tie")
def copper_tie(ctx: Context) -> Iterator[Violation]:
    """Two copper assemblies of a tier are not both sold at a run's length at the same power.

    A run takes the copper option sold nearest its length, then the one drawing less at its two ends (a passive DAC
    before an active cable both sold at 2 m; the cabling section names such runs). Where two reach the run, are sold
    as near its length and draw the same (two vendors' DACs of one reach), nothing separates them: the first listed
    is counted, and the part bought would hang on the list's order. The finding names the tier, the runs, their
    lengths and both parts. How: `archgen.checks.copper_ties`, `archgen.analyse.copper_choice`.

    Fix: list one of the two for the tier, or state the lengths each is sold in (`min_length`, `max_length`) where
    they differ.
    """
    yield from copper_ties(ctx)


@check("CAB012", "cabling.module_per_cage")
def module_per_cage(ctx: Context) -> Iterator[Violation]:
    """Each cage takes one module that carries all its logical ports: a port split by a breakout shares its module.

    A NIC port split by the fabric's `nic_breakout`, a twin-port cage (`per_cage`) and a switch port broken out by
    its tier leave through one module (or one cable end) per cage. A module carrying fewer of those ports (an 800G
    DR4 in a 1.6T cage split 2 x 800G) would be counted twice per cage, which no cage holds (NVIDIA LinkX 200G-PAM4
    list: a twin-port OSFP carries 2 x 800G through one cage). Fat-tree and rail-only ends only: on a torus or a
    dragonfly with link options an info finding says its ends are not judged. How: `archgen.checks.cage_modules`.

    Fix: pick a module whose rate carries the cage's ports (a twin-port or breakout module, e.g. 2 x 800G DR4 in a
    1.6T cage), or drop the breakout.
    """
    yield from cage_overfills(ctx)


#: Switches a CAB013 finding names one by one; the rest are counted.
NAMED_SWITCHES = 6


@check("CAB013", "cabling.ports_past")
def switch_ports_past(ctx: Context) -> Iterator[Violation]:
    """No switch is cabled to more links than it has down ports, or up ports: the port map gives none past them.

    The port map numbers a switch's down ports 1 .. down and its up ports after them: a switch the cabling gives
    more links than its down (or up) ports would have cables written on ports it does not have on that side, which
    the map marks "(past the down ports)" (review54: a rack in no unit on ports-sized rail leaves was cabled to a leaf
    past the plane's, its cables on the last leaf's uplink ports, and no check said so). A guard on the model's own
    wiring, which a tier's fixed `count` under the switches needed also reaches (NET018, with the cables of the
    switches left out on the last one): one finding per fabric and side, naming each switch (the first
    `NAMED_SWITCHES`, then how many more), its links, its ports and the ports past them as the map writes them.
    Fat trees only, the fabrics the port map numbers (`analyse.port_numbers.ports_past`).

    Fix: where NET018 says a tier's fixed `count` is fewer than the fabric needs, raise it (the links then spread
    over the switches needed); otherwise nothing in the spec is wrong but the model's cabling: report it with the
    spec, and build nothing from the port map's or the BOM's cables at those switches until it is fixed.
    """
    for c in ctx.clusters.values():
        sides: dict[tuple[str, bool], list] = {}
        for p in ports_past(c):
            sides.setdefault((p.fabric.fabric.path, p.up), []).append(p)
        for (_, up), past in sides.items():
            fa, side = past[0].fabric, "up" if up else "down"
            named = "; ".join(f"{p.switch}: {p.links} links on its {p.ports} {side} ports, {p.links - p.ports} of them "
                              f"numbered {p.past} in the port map" for p in past[:NAMED_SWITCHES])
            more = f"; and {len(past) - NAMED_SWITCHES} more" if len(past) > NAMED_SWITCHES else ""
            worst = max(past, key=lambda p: p.links - p.ports)
            yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.owner_path,
                            f"{len(past)} switch{'es' if len(past) > 1 else ''} cabled past {side} ports "
                            f"({named}{more}): those cables have no {side} port to go to", count(worst.links),
                            count(worst.ports))
