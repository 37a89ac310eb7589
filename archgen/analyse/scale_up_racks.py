"""A switched scale-up domain over several racks (`scale_up.racks`): its trunk links, their switch ports and reach.

NVIDIA's GB200 "36x2 configuration" is two racks of 36 GPUs (9 compute trays, 9 NVL36 NVLink switch trays each)
joined into one 72-GPU NVLink domain (NVIDIA Multi-Node NVLink Tuning Guide, "Understanding Your Grace-Blackwell
Systems", https://docs.nvidia.com/multi-node-nvlink-systems/multi-node-tuning-guide/system.html); the switch
trays' front-panel ports "allow connectivity between switches from different racks" (NVIDIA NVOS User Manual for
NVLink Switches, "NVLink Interface", https://docs.nvidia.com/networking/display/NVIDIANVOSUserManualforNVLinkSwitchesv25024282/NVLink+Interface).

The shape modelled (`model.cluster.ScaleUp.racks`): each accelerator links to the switches of its own rack, as in a
one-rack domain, and each rack's switches link to every other rack's (trunk links), so two accelerators of one rack
are one switch hop apart and of two racks two. For the domain to carry its `bandwidth` between any two of its racks
(all of one rack's traffic to another, as a tensor-parallel group split over both does), each pair of racks is
joined by the per-direction bandwidth of one rack's accelerators:

    trunk links per pair of racks = ⌈(size / racks) × bandwidth / 2 / trunk rate⌉
    switch ports a rack needs     = (size / racks) × links per accelerator + (racks − 1) × trunk links per pair

which must fit the ports of the rack's `switches / racks` switch parts (every port group of the part: the main
`ports` the accelerators' links reach, and any `port_groups`, such as front-panel cages, the trunks may use).
For the NVL36x2 on NVLink 5 trays of 144 ports (two chips of 72): 36 × 18 = 648 links to the GPUs and
36 × 900 GB/s / 50 GB/s = 648 trunk links, 1,296 ports = 9 × 144, so a 72-GPU domain over two racks fills its
trays exactly; two NVL72 racks (1,296 + 1,296 ports wanted of 1,296) or a third rack do not fit, and a domain
wider than that (NVL576) needs a second switch tier, which is not modelled. The second hop's latency is added to
the performance model's scale-up latency only where the switch part states its `latency` (`perf.workload.racks_note`).

Domains are formed from consecutive racks with accelerators in floor order (`cluster.instances`); a pair of racks'
trunk cables run between pairs of their switch trays (`trunk_ends`), each laid as any run between racks
(`analyse.cabling`: tray drop, Manhattan run along the trays, slack, length bins; straight across between
neighbours of one row where `floor.side_by_side` says so) and held to the `trunk_link` part's reach by CAB001.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from archgen.analyse.link_ends import links_per_cable
from archgen.analyse.nodes import count
from archgen.analyse.ports import Problem
from archgen.build import ClusterDesign, LinkOption
from archgen.display import figure
from archgen.model import System
from archgen.model.cluster import ScaleUp
from archgen.perf.hw.switch_ports import ports_needed

__all__ = ["domain_racks", "rack_problems", "span_hint", "trunk_ends", "trunk_links_per_pair"]


def trunk_links_per_pair(cluster: ClusterDesign, su: ScaleUp) -> int:
    """Trunk links joining two racks of one domain: a rack's accelerators' bandwidth per direction over the rate."""
    trunk = cluster.scale_up_trunk
    if su.racks < 2 or trunk is None:
        return 0
    per_direction = su.size // su.racks * su.bandwidth / 2
    return math.ceil(round(float((per_direction / trunk.rate).to("").magnitude), 6))


def rack_problems(cluster: ClusterDesign, su: ScaleUp, per_acc: float) -> list[Problem]:
    """A multi-rack domain's switch ports per rack, trunk rate and trunk reach (module docstring)."""
    sw, trunk = cluster.scale_up_switch, cluster.scale_up_trunk
    if su.racks < 2 or sw is None or trunk is None:
        return []
    problems = []
    fastest = max((g.speed for g in sw.groups), key=lambda q: float(q.m_as("Gbit/s")))
    if trunk.rate > fastest * (1 + 1e-9):
        problems.append(Problem("NET010", ("scale_up", "trunk_link"), f"{trunk.id} runs {trunk.rate:~P} a link, "
                                f"faster than any port of {sw.id} ({fastest:~P}): no port terminates it",
                                trunk.rate, fastest))
    per_rack, per_pair = su.size // su.racks, trunk_links_per_pair(cluster, su)
    down = ports_needed(per_acc, per_rack)
    need, trays = down + (su.racks - 1) * per_pair, su.switches // su.racks
    per_tray = sum(g.count for g in sw.groups)   # the backplane ports and any front-panel group (NVL36 trays)
    have = trays * per_tray
    if need > have:
        per_port = per_acc + (su.racks - 1) * per_pair / max(per_rack, 1)   # ports per accelerator of a rack
        most = math.floor(have / per_port + 1e-9)
        problems.append(Problem("NET010", ("scale_up", "size"), (
            f"{per_rack} accelerators a rack x {per_acc:g} links = {down} links to the rack's {trays} {sw.id}, and "
            f"{per_pair} trunk links to each of the other {su.racks - 1} rack(s) "
            f"({figure((su.bandwidth / 2).to('GB/s'))} per direction of each accelerator, over {trunk.id}), need "
            f"{need} switch ports a rack; {trays} x "
            f"{per_tray} ports have {have}: expected at most {most} accelerators a rack ({most * su.racks} "
            f"a domain of {su.racks} racks), fewer racks, or a second switch tier (NVL576's, not modelled)"),
            count(need), count(have)))
    return problems


def span_hint(su: ScaleUp, held: int) -> str:
    """What a one-rack domain larger than its rack's `held` accelerators may mean: `racks: N` ("" if not that).

    A UALink pod of 128 written as `domain: rack, size: 128` on racks of 32 was told only "holds 32 accelerators,
    not 128" (newuser59); a size that is a whole number of such racks names the key that spans them.

    A node domain smaller than its system is NVLink bridge groups (`scale_up.bridge_groups`), accepted only as a mesh
    whose size divides the system: the hint names the sizes that do, or the topology a bridge group takes.
    """
    if su.domain == "node" and 1 < su.size < held:
        sizes = [k for k in range(2, held) if held % k == 0]
        if su.topology == "mesh":
            return (f": NVLink bridge groups of {su.size} do not divide a system of {held}; a group size that does is "
                    f"{' or '.join(map(str, sizes)) or 'none but the whole system'} (docs/clusters.md, NVLink bridges)")
        if su.topology == "switched" and su.size in sizes:
            return (": NVLink bridge groups smaller than the system are a `topology: mesh` (no switch; "
                    "docs/clusters.md, NVLink bridges)")
    if su.domain != "rack" or su.topology != "switched" or su.racks > 1 or not 0 < held < su.size or su.size % held:
        return ""
    return f": a domain over {su.size // held} racks of {held} is `racks: {su.size // held}` (docs/clusters.md)"


def domain_racks(cluster: ClusterDesign, racks: int) -> np.ndarray:
    """Rack instances of each domain, shape (domains, racks): consecutive racks with accelerators in floor order."""
    held = [i for i, inst in enumerate(cluster.instances)
            if any(isinstance(p.part, System) and p.part.accelerators for p in inst.rack.items)]
    n = len(held) // racks
    return np.array(held[:n * racks], dtype=np.int64).reshape(n, racks)


def trunk_ends(cluster: ClusterDesign, su: ScaleUp) -> tuple[np.ndarray, ...]:
    """A-end rack/U, B-end rack/U, group and weight (trunk links) of each pair of switch trays of every domain.

    A pair of racks' `trunk_links_per_pair` links are cut into cables (`link_ends.links_per_cable` of the trunk
    part) and the k-th cable joins the k-th switch tray of each rack from the bottom (mod the trays it holds), as
    the model spreads a rack's trunk links evenly over its trays (no tray-to-tray plan is published). One row per
    pair of trays, weighted by the links of its cables and measured from those two trays (`analyse.cabling`:
    length, media reach CAB001, length bins), so the port map's rows (`analyse.portmap`), which name each tray and
    its U, and the BOM's lengths are of the same runs. Before (nu59fix) every run was measured from each rack's
    lowest tray while the port map named each tray's own U.
    """
    per_pair = trunk_links_per_pair(cluster, su)
    idx = domain_racks(cluster, su.racks) if per_pair and cluster.instances else np.zeros((0, 2), dtype=np.int64)
    trunk = cluster.scale_up_trunk
    per = links_per_cable(LinkOption(trunk, trunk, ("scale_up", "trunk_link")), trunk.rate) if trunk else 1
    cables = math.ceil(per_pair / per)
    trays: dict[int, list[int]] = {}
    rows: list[tuple[int, int, int, int, int]] = []
    for domain in idx:
        for i, j in combinations(range(su.racks), 2):
            ra, rb = int(domain[i]), int(domain[j])
            ua, ub = (trays.setdefault(r, _tray_us(cluster, r, su)) for r in (ra, rb))
            for t in range(min(max(len(ua), len(ub)), cables)):
                mine = len(range(t, cables, max(len(ua), len(ub))))   # cables t, t + n, ... of the pair
                last = (cables - 1) % max(len(ua), len(ub)) == t   # the pair's last cable may carry fewer links
                links = mine * per - (cables * per - per_pair if last else 0)
                rows.append((ra, ua[t % len(ua)], rb, ub[t % len(ub)], links))
    a_rack, a_u, b_rack, b_u, weight = np.array(rows, dtype=np.int64).reshape(len(rows), 5).T
    return a_rack, a_u, b_rack, b_u, np.zeros(len(a_rack), dtype=np.int64), weight


def _tray_us(cluster: ClusterDesign, rack: int, su: ScaleUp) -> list[int]:
    """The U of every `su.switch` tray in rack instance `rack`, from the bottom ([0]: none placed there)."""
    inst = cluster.instances[rack]
    return sorted(p.u for p in inst.rack.items if p.part.id == su.switch) or [0]
