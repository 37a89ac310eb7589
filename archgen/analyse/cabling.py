"""Cable runs, lengths, media and optics of a cluster, vectorised with numpy (the BOM is in `analyse.bom`).

Geometry: racks stand in rows (`floor.racks_per_row`) at `rack_pitch` along a row and `row_pitch` between rows;
cables run in overhead trays laid as a grid above the racks, so a run between two racks is
``tray_drop (up) + |Δx| + |Δy| (Manhattan along the trays) + tray_drop (down) + slack``, the two drops never less
than the height between its ends (`tray_run`), and a run inside one rack is
``|Δheight| + in_rack``; a multi-rack scale-up domain's trunk between neighbouring racks of one row may go straight
across, ``|Δheight| + rack_pitch + in_rack``, where the floor says so (`floor.side_by_side`, `_lengths`). Each run
takes the first link option of its tier whose reach covers it (and whose minimum length it meets), where that is
copper the copper option sold nearest its length, then drawing least (`media_choice`), and is ordered in the next
length bin up.

Counting, three figures per tier kept apart (links: logical port-to-port connections at the fabric rate):

* cables: what an installer pulls, ⌈links / links per cable⌉, where a cable carries the `links_per_cable` of its
  parts (2 for an 800G cable split 2 x 400G across two planes or spines: one cable with its ends, as NVIDIA's
  DGX SuperPOD B300 Spectrum-X table counts it), and a copper assembly the links of its narrower end's module,
  counted per pair of switches between tiers (an assembly joins two devices: 2 links of a pair on a DAC that
  carries 4 take a whole one);
* transceivers: optical modules at both ends; a module of rate r serves r / speed links (a twin-port 800G OSFP
  serves two 400G links), but no more than the ports of its cage, so modules per end = ⌈links / ports per module⌉.
  Access ports that do not end at a node (reserved, extra and switch management ports) end at a single-port cage.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from archgen.analyse.bom import (
    UNRACKED,
    cluster_bom,
    optics_outside_systems,
    surplus_switch_power,
    unplaced_power,
)
from archgen.analyse.cabling_result import Cabling
from archgen.analyse.copper_choice import copper_fit, shortest_sold
from archgen.analyse.fabric import FabricAnalysis
from archgen.analyse.facility import facility_metrics
from archgen.analyse.link_ends import link_speed, node_cage_ports, optics_inside
from archgen.analyse.network import ClusterAnalysis, Problem, analyse_cluster, count
from archgen.analyse.other_ports import exit_runs, rack_xy
from archgen.analyse.placement import Taken, place_switches, unplaced
from archgen.analyse.rail_layout import rail_ends
from archgen.analyse.scale_up_pod import is_pod, pod_ends, pod_links
from archgen.analyse.scale_up_racks import trunk_ends
from archgen.analyse.scale_up_switches import switched_cables
from archgen.analyse.scale_up_torus import scale_up_cables
from archgen.analyse.split_legs import first_legs, joined, split_legs
from archgen.analyse.storage_cost import storage_draw
from archgen.analyse.tier_cabling import TierCabling, TierRuns, tier_totals
from archgen.analyse.tier_ends import fat_tree_ends
from archgen.analyse.unracked import unracked_metrics
from archgen.build import ClusterDesign, Design, LinkOption
from archgen.model import Switch, System
from archgen.model.fabrics import LINK_TIERS
from archgen.model.network import COPPER_MEDIA
from archgen.model.system import typical_draw
from archgen.units import Q_, Q

DEFAULT_BINS_M = (0.5, 1, 1.5, 2, 2.5, 3, 4, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 1000, 2000)
U_M = 0.04445


def analyse_clusters(design: Design, racks: dict) -> dict[str, ClusterAnalysis]:
    """Network, cabling and BOM of every cluster, keyed by object path."""
    out: dict[str, ClusterAnalysis] = {}
    for cluster in design.clusters:
        a = analyse_cluster(design, cluster, racks)
        cab = analyse_cabling(a)
        a.metrics.update(_cluster_metrics(a, cab))
        a.metrics.update(unracked_metrics(design.specs, cab.bom))   # their rack space, in no other figure (COST007)
        typical, fell_back = _typical(design, racks, a, cab)
        a.metrics["it_power_typical"] = (a.metrics["it_power_typical_racks"] + typical + storage_draw(a, typical=True)
                                         + optics_outside_systems(a, cab.tiers, typical=True)).to("kW")
        for fa in a.fabrics:
            fa.metrics["network_power"] = cab.network_power.get(fa.fabric.spec.id, Q_(0, "kW"))
            fa.metrics["optics_power"] = sum((t.optics_power for t in cab.tiers if t.fabric == fa.fabric.spec.id),
                                             Q_(0, "W")).to("kW")
            for t in cab.tiers:
                if t.fabric != fa.fabric.spec.id:
                    continue
                if not t.no_media:   # else not provided, never 0 (`operations_stage`, CAB003)
                    fa.metrics[f"cables.{t.tier}"] = count(t.physical)
                    fa.metrics[f"transceivers.{t.tier}"] = count(t.transceivers)
                if t.max_length is not None:
                    fa.metrics[f"links.{t.tier}.max_length"] = t.max_length
        out[cluster.path] = replace(a, cabling=cab, typical_from_max=fell_back)
    return out


def _cluster_metrics(a: ClusterAnalysis, cab: Cabling) -> dict[str, Q]:
    net = sum(cab.network_power.values(), Q_(0, "kW")) + surplus_switch_power(a)
    it_power = (a.metrics["it_power_racks"] + optics_outside_systems(a, cab.tiers) + unplaced_power(cab.bom)
                + storage_draw(a)).to("kW")   # the last two stand outside every rack (`rack_heat.unracked_heat`)
    return {"network_power": net.to("kW"), "optics_power": cab.optics_power.to("kW"), "it_power": it_power,
            "links": count(sum(t.links for t in cab.tiers)), **facility_metrics(a, it_power)}


def _typical(design: Design, racks: dict, a: ClusterAnalysis, cab: Cabling) -> tuple[Q, tuple[str, ...]]:
    """Typical draw of the switches placed in no rack, and the parts without a typical figure.

    Those parts (in the cluster's racks or outside them) count at their maximum, which stands in for it.
    """
    total, fell_back = Q_(0, "kW"), set()
    for line in cab.bom:
        part = design.specs.get(line.part)
        if line.note == UNRACKED and isinstance(part, System | Switch):
            total = total + typical_draw(part) * line.quantity
            if part.power.typical is None:
                fell_back.add(part.id)
    for rid in a.cluster.rack_counts:
        if f"rack/{rid}" in racks:
            fell_back.update(racks[f"rack/{rid}"].power.typical_from_max)
    return total.to("kW"), tuple(sorted(fell_back))


# ------------------------------------------------------------------------------------------------ geometry

def _bins(cluster: ClusterDesign) -> np.ndarray:
    bins = cluster.spec.floor.length_bins
    return np.array(sorted(b.m_as("m") for b in bins) if bins else DEFAULT_BINS_M, dtype=float)


def floor_span(cluster: ClusterDesign, x: np.ndarray, y: np.ndarray) -> float:
    """The longest run the floor holds, corner to corner (m): ``2 × tray_drop + Δx_max + Δy_max + slack``.

    The length assumed for a run with an end at a switch placed in no rack: it could stand anywhere on the floor,
    and the longest run is the one that never understates media reach or optics.
    """
    f = cluster.spec.floor
    if not len(x):
        return float(f.in_rack.m_as("m"))
    exits = sorted((h.exit_run.m_as("m") for h in f.halls), reverse=True)[:2] if len(f.halls) > 1 else []
    return float(2 * f.tray_drop.m_as("m") + (x.max() - x.min()) + (y.max() - y.min()) + f.slack.m_as("m")
                 + sum(exits))


def tray_run(cluster: ClusterDesign, x: np.ndarray, y: np.ndarray, a_rack: np.ndarray, a_u: np.ndarray,
             b_rack: np.ndarray, b_u: np.ndarray) -> np.ndarray:
    """Run lengths (m) between racks over the overhead trays: 2 x tray_drop + |Δx| + |Δy| + slack.

    The two tray drops are never taken as less than the height between the two ends (|ΔU| x 44.45 mm, as a run
    inside a rack measures it; racks standing on one floor, U 1 at one height): whatever its path, a cable climbs or
    falls that far, so with a short stated drop (0.2 m) a run from U 3 of one rack to U 40 of the next is that
    height + the pitch, not 0.4 m + the pitch, below what a run between those U inside one rack would take. An end
    with no U adds no height. Between two halls of a site (`floor.halls`) the positions are on the site plan, and
    each hall's `exit_run` is added where the run leaves it.
    """
    f = cluster.spec.floor
    dx, dy = np.abs(x[a_rack] - x[b_rack]), np.abs(y[a_rack] - y[b_rack])
    rise = np.where((a_u >= 0) & (b_u >= 0), np.abs(a_u - b_u) * U_M, 0.0)
    return (np.maximum(2 * f.tray_drop.m_as("m"), rise) + dx + dy + f.slack.m_as("m")
            + exit_runs(cluster, a_rack, b_rack))


def _lengths(cluster: ClusterDesign, x: np.ndarray, y: np.ndarray, a_rack: np.ndarray, a_u: np.ndarray,
             b_rack: np.ndarray, b_u: np.ndarray, side: bool = False) -> np.ndarray:
    """Run lengths (m): inside a rack, between racks over the trays, and with `side` the side-by-side path.

    `side` (a multi-rack scale-up domain's trunks on a floor with `side_by_side: true`): between two neighbouring
    racks of one row the run may go straight across, ``|Δheight| + rack pitch + in_rack`` (a run inside a rack
    carried over one pitch), where that is shorter than the tray run. Oracle's multirack cabling tables give the
    same step for adjacent racks cabled underneath them: 3 feet within a rack, 5 feet up to two racks away (Oracle
    Big Data Appliance Owner's Guide 4.13, Appendix F, F.1, https://docs.oracle.com/en/bigdata/big-data-appliance/
    4.13/bigog/app_multi.html); 2 feet is about one 600 mm pitch.
    """
    f = cluster.spec.floor
    same = a_rack == b_rack
    between = tray_run(cluster, x, y, a_rack, a_u, b_rack, b_u)
    within = np.abs(a_u - b_u) * U_M + f.in_rack.m_as("m")
    if side:
        pitch = f.rack_pitch.m_as("m")
        dx, dy = np.abs(x[a_rack] - x[b_rack]), np.abs(y[a_rack] - y[b_rack])
        beside = (dy < 1e-9) & (np.abs(dx - pitch) < 1e-9)   # neighbours in one row
        between = np.where(beside, np.minimum(between, within + pitch), between)
    return np.where(same, within, between)


# ------------------------------------------------------------------------------------------------ runs

def analyse_cabling(a: ClusterAnalysis) -> Cabling:
    """Runs, media choice, length bins, modules, optics power and BOM of a cluster."""
    cluster = a.cluster
    problems: list[Problem] = []
    tiers: list[TierCabling] = []
    runs: list[TierRuns] = []
    known = bool(cluster.instances)
    x, y = rack_xy(cluster) if known else (np.zeros(0), np.zeros(0))
    bins = _bins(cluster)
    taken: Taken = {}
    loose: list[tuple[str, str, str, int]] = []
    trunks: tuple[TierRuns, ...] = ()
    for fa in a.fabrics:
        if fa.topology not in ("fat-tree", "rail-only"):   # counts and media by the first option, no lengths
            if known and fa.tiers:   # a torus' OCSes stand in their rack type's slots, as switches do (NET012)
                loose += unplaced(fa, place_switches(cluster, fa, problems, taken))
            for name in fa.links:
                options = fa.fabric.tiers[LINK_TIERS[fa.topology][name]].links
                cage = node_cage_ports(a.nodes, fa) if name == "access" else None
                tiers.append(tier_totals(fa.fabric.spec.id, name, fa.level_links(name), options, None, cage,
                                         fa.fabric.spec.speed))
            continue
        # A fabric its switches cannot build (a radix short of the ports, too few tiers: NET001/NET003) gets its
        # counts but no wiring: runs to switches that cannot exist mean nothing, and their size grew with the
        # square of the shortfall (a 2-tier fabric asked to hold 1,000 units took 19 GB).
        wired = known and fa.buildable
        placed = place_switches(cluster, fa, problems, taken) if wired else {}
        loose += unplaced(fa, placed)
        for tier_name, key in (("access", "leaf"), ("leaf_spine", "spine"), ("spine_core", "core")):
            if tier_name not in fa.links:
                continue
            options = fa.fabric.tiers[key].links
            if wired:
                ends = (rail_ends if fa.topology == "rail-only" else fat_tree_ends)(cluster, fa, tier_name, placed)
                tr = _choose(cluster, fa.fabric.spec.id, tier_name, ends[:6], options, x, y, bins)
                tr = replace(tr, b_switch=ends[6]) if len(ends) > 6 else tr
                tr = _split_legs(a, fa, tr, options, bins) if fa.topology == "fat-tree" or tier_name == "access" else tr
                runs.append(tr)
            else:
                tr = None
            tiers.append(tier_totals(fa.fabric.spec.id, tier_name, fa.level_links(tier_name), options, tr,
                                      node_cage_ports(a.nodes, fa) if tier_name == "access" else None,
                                      link_speed(fa, tier_name), optics_inside(fa, tier_name),
                                      optics_inside(fa, tier_name, typical=True)))
    su = a.scale_up   # a torus scale-up domain's cables between systems: counted as a torus fabric's neighbour links
    if su is not None and su.cables:
        options, speed = scale_up_cables(cluster)
        tiers.append(tier_totals("scale_up", "neighbour", su.cables * su.domains, options, None, None, speed))
    elif su is not None and cluster.spec.scale_up and (n := switched_cables(cluster, cluster.spec.scale_up,
                                                                             su.links_needed, su.domains)):
        options, speed = scale_up_cables(cluster)   # a switched domain's accelerator-to-switch cables, likewise
        pod = _choose(cluster, "scale_up", "access", pod_ends(cluster, cluster.spec.scale_up, su.links_per_accelerator),
                      options, x, y, bins) if known and is_pod(cluster.spec.scale_up) else None   # laid to switch racks
        trunks = (pod,) if pod is not None and len(pod.length) else ()
        tiers.append(tier_totals("scale_up", "access", n, options, pod if trunks else None, None, speed))
    if su is not None and su.trunk_links and (trunk := cluster.scale_up_trunk) is not None and cluster.spec.scale_up:
        option = (LinkOption(trunk, trunk, ("scale_up", "trunk_link")),)   # between a domain's racks (scale_up_racks)
        tr = _choose(cluster, "scale_up", "trunk", trunk_ends(cluster, cluster.spec.scale_up), option, x, y, bins,
                     cluster.spec.floor.side_by_side)   # neighbouring racks cabled straight across
        trunks = (tr,) if len(tr.length) else ()
        tiers.append(tier_totals("scale_up", "trunk", su.trunk_links * su.domains, option, tr if trunks else None,
                                  None, trunk.rate))
    bom, net_power, optics = cluster_bom(a, tiers)
    return Cabling(tuple(tiers), tuple(runs), tuple(i.name for i in cluster.instances), tuple(bom),
                   tuple(problems), optics, net_power, tuple(loose), trunks)


def longest_trunk(cluster: ClusterDesign) -> Q | None:
    """The longest trunk run of a multi-rack scale-up domain, laid as `analyse_cabling` lays it; None without one.

    What a send between the domain's racks crosses besides the second switch (`perf.workload.cluster`'s hop: every
    send waits on the slowest, so the longest run). A pod's (`scale_up_pod`): its longest accelerator-to-switch run,
    which every send crosses twice. None where the domain has neither or no rack is placed.
    """
    su = cluster.spec.scale_up
    if su is None or not cluster.instances or not is_pod(su) and (su.racks < 2 or cluster.scale_up_trunk is None):
        return None
    pod = is_pod(su)   # a pod's longest accelerator-to-switch run (scale_up_pod)
    ends = pod_ends(cluster, su, pod_links(cluster, su)) if pod else trunk_ends(cluster, su)
    a_rack, a_u, b_rack, b_u, _group, _weight = ends
    if not len(a_rack):
        return None
    x, y = rack_xy(cluster)
    length = _lengths(cluster, x, y, a_rack, a_u, b_rack, b_u, cluster.spec.floor.side_by_side and not pod)
    return Q_(round(float(length.max()), 6), "m")


def _choose(cluster: ClusterDesign, fabric: str, tier: str, ends: tuple, options: tuple[LinkOption, ...],
            x: np.ndarray, y: np.ndarray, bins: np.ndarray, side: bool = False) -> TierRuns:
    a_rack, a_u, b_rack, b_u, group, weight = ends
    known = (a_rack >= 0) & (b_rack >= 0)
    length = np.full(len(a_rack), floor_span(cluster, x, y), dtype=float)  # an unplaced end: the floor's longest
    if known.any():
        length[known] = _lengths(cluster, x, y, a_rack[known], a_u[known], b_rack[known], b_u[known], side)
    choice, ordered = _pick(length, options, bins)
    return TierRuns(fabric, tier, a_rack, a_u, b_rack, b_u, group, choice, length, ordered, weight)


def _pick(length: np.ndarray, options: tuple[LinkOption, ...], bins: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The option each run of `length` (m) takes and the length it is ordered at (its bin)."""
    choice = media_choice(length, options)
    idx = np.minimum(np.searchsorted(bins, length - 1e-9, side="left"), len(bins) - 1)
    ordered = np.where(length > bins[-1] + 1e-9, np.ceil(length - 1e-9), bins[idx])   # past the last bin (CAB006)
    if options:   # a copper assembly shorter than sold: its shortest length, the rest dressed as slack in the rack
        sold = np.array([shortest_sold(o) for o in options])
        ordered = np.where(choice >= 0, np.maximum(ordered, sold[np.clip(choice, 0, len(options) - 1)]), ordered)
    return choice, ordered


def _split_legs(a: ClusterAnalysis, fa: FabricAnalysis, tr: TierRuns, options: tuple[LinkOption, ...],
                bins: np.ndarray) -> TierRuns:
    """The legs of one split cable take its longest leg's option and length bin; the run list's count its first leg.

    Such a cable (`split_legs`: a SuperNIC port's 800G split 2 x 400G to two planes, a leaf's twin-port cage to two
    spines, a copper splitter's legs at two nodes, perhaps in two racks) is one part bought at one length, as the port
    map orders it (`portmap._tier_rows`, the longest leg's bin). Each leg took its option and bin alone, so the bill of
    materials bought half a cable in each leg's bin (newuser96: NVIDIA's B300 Spectrum-X SU ordered 544 splitters at 7 m
    and 32 at 15 m where the port map orders 528 and 48), and a leg past the split part's reach could take another part
    than its other half. A switch tier's runs carry many links each, their cables' legs on several runs: runs joined by
    cables take one length (`joined`).
    """
    legs = split_legs(a, fa, tr)
    if legs is None:
        return tr
    on, runs, cable = legs
    label = joined(runs, cable, len(tr.length))[on]
    longest = np.zeros(len(tr.length))
    np.maximum.at(longest, label, tr.length[on])
    choice, ordered = _pick(longest[label], options, bins)
    moved = bool((choice != tr.option[on]).any())   # a leg moved to another option: its cables are cut anew
    option, binned = tr.option.copy(), tr.bin.copy()
    option[on], binned[on] = choice, ordered
    tr = replace(tr, option=option, bin=binned)
    return replace(tr, lead=first_legs(fa, tr, split_legs(a, fa, tr) if moved else legs))


def media_choice(length: np.ndarray, options: tuple[LinkOption, ...]) -> np.ndarray:
    """The option (index into `options`) each run of `length` (m) takes; -1 where there are no options.

    The first that reaches it and whose shortest run it meets (`_shortest_run`), then the first that reaches it; past
    every reach, the longest-reach option (CAB001 says so). Where that is a copper assembly, the run takes the copper
    option of the list sold nearest its length, then drawing least (`copper_choice.copper_fit`): a DAC sold at 1 m,
    not the 3 m LACC listed before it.
    """
    choice = np.full(len(length), -1, dtype=np.int64)
    fit = copper_fit(length, options)
    for strict in (True, False):
        for i, opt in enumerate(options):
            low = _shortest_run(opt) if strict else 0.0
            ok = (choice < 0) & (length <= opt.reach.m_as("m")) & (length >= low)
            choice[ok] = np.where(fit[ok] >= 0, fit[ok], i) if opt.a.media in COPPER_MEDIA else i
    if options:
        longest = int(np.argmax([o.reach.m_as("m") for o in options]))
        choice[choice < 0] = longest
    return choice


def _shortest_run(opt: LinkOption) -> float:
    """The shortest run an option takes in the media choice's first pass, in metres.

    An optical module's `min_length` is a shortest link (a receiver an unattenuated short fibre would overload, as the
    500 m DR8's 100 m), so shorter runs pass to the next option. A copper assembly's is only the shortest length sold
    (NVIDIA's LACC: 3-5 m): a shorter run takes it at that length, a cable longer than its run as every length bin
    orders one, so 0 here and `copper_choice.shortest_sold` orders it.
    """
    if opt.a.min_length is None or opt.a.media in COPPER_MEDIA:
        return 0.0
    return float(opt.a.min_length.m_as("m"))
