"""A UALink pod: a domain's compute racks cabled to one stage of switches in racks of their own (`switch_rack`).

UALink 200G 1.0 joins up to 1,024 accelerators "through UALink Switches that assign one port per accelerator and a
10-bit unique identifier" (Tom's Hardware on the final specification, 2025-04-08, tomshardware.com/tech-industry/
ualink-has-nvidias-nvlink-in-the-crosshairs-final-specs-support-up-to-1-024-gpus-with-200-gt-s-bandwidth; the
consortium's press release: "up to 1,024 accelerators within an AI computing pod"), over ports of x1, x2 or x4
lanes of 200G (`scale_up_switches.UALINK_WIDTHS`). The shape modelled (`model.scale_up.ScaleUp.switch_rack`): every
accelerator links to every switch of its domain, one port on each, so any two accelerators, in one rack or two, are
one switch hop apart and the domain has no trunk. A switch's radix, counted in lanes, bounds the switches a domain
needs:

    switches needed = ⌈size × links per accelerator × lanes per link / (ports × lanes per port of one switch)⌉

(ports alone where the switch states no lanes: a link then takes one port; a link narrower than the ports takes
its lanes of one, as a UALink station's x4 port splits into x2 or x1, where the port group's `breakouts` list that
split, or list none: `narrow_links`, review46).
One hop also needs each accelerator
linked to every switch (`scale_up_switches.one_hop`: at most as many switches as links per accelerator), so a pod
wider than one switch's ports is not one stage (NET010 says so). The pod's `switches` stand in the layout's racks of
type `switch_rack`, in floor order, the d-th domain taking switches d·S to (d + 1)·S − 1 of them (`pod_switch_slots`);
each system of a domain's compute racks runs its accelerators' links to each of those switches (`pod_ends`), laid
as any run between racks (`analyse.cabling`: tray drop, Manhattan run, slack, length bins) and held to the link
part's reach (CAB001): the specification's cables are optimised for under 4 m, so a switch rack stands in the row of
the compute racks it serves. No UALink switch with a datasheet exists (newuser83, ualink30: the consortium gives a
switch latency target, "a 100T switch < 250ns", not a part), so a pod's switch is the architect's stated part.
"""

from __future__ import annotations

import math

import numpy as np

from archgen.analyse.nodes import count
from archgen.analyse.ports import Problem
from archgen.analyse.scale_up_racks import domain_racks
from archgen.build import ClusterDesign
from archgen.model import System
from archgen.model.scale_up import ScaleUp

__all__ = ["UALINK_POD", "is_pod", "narrow_links", "pod_ends", "pod_links", "pod_problems", "pod_switch_slots",
           "pod_switches"]

#: The most accelerators one UALink 200G 1.0 pod joins: "up to 1,024 accelerators" (UALink Consortium press release
#: on the 200G 1.0 specification, 2025-04-08; the 10-bit accelerator identifier, Tom's Hardware above).
UALINK_POD = 1024


def is_pod(su: ScaleUp | None) -> bool:
    """Whether the domain is a pod: its switches in racks of their own (`switch_rack`)."""
    return su is not None and su.switch_rack is not None


def pod_links(cluster: ClusterDesign, su: ScaleUp) -> float:
    """Links per accelerator of a pod: the domain's `bandwidth` over twice the `link` part's rate (0 without one)."""
    link = cluster.scale_up_link
    return round(float((su.bandwidth / (2 * link.rate)).to("").magnitude), 9) if link is not None else 0.0


def pod_switches(cluster: ClusterDesign, su: ScaleUp, per_acc: float) -> int:
    """Switches a pod's links need by the switch's radix in lanes (module docstring); 0 without a switch or link."""
    sw, link = cluster.scale_up_switch, cluster.scale_up_link
    if sw is None or link is None:
        return 0
    lanes = link.lanes if sw.ports.lanes else 1
    radix = sw.ports.count * (sw.ports.lanes or 1)
    return math.ceil(round(su.size * per_acc * lanes / radix, 9))


def _racks_with(cluster: ClusterDesign, accelerators: bool) -> list[str]:
    """Rack types of the layout that hold accelerators (or do not)."""
    return [rid for rid in sorted(cluster.rack_counts)
            if any(isinstance(p.part, System) and p.part.accelerators for p in cluster.rack_types[rid].items)
            == accelerators]


def pod_problems(cluster: ClusterDesign, su: ScaleUp, per_acc: float) -> list[Problem]:
    """NET010 on a pod: its switch rack placed and holding its switches, their count, and UALink's 1,024."""
    problems: list[Problem] = []
    rid = su.switch_rack or ""
    if rid not in cluster.rack_counts:
        return [Problem("NET010", ("scale_up", "switch_rack"), f"switch_rack {rid} is in no `layout` entry, so the "
                        f"pod's {su.switches} {su.switch} a domain stand nowhere: expected a rack type the layout "
                        "places")]
    if rid not in _racks_with(cluster, False):
        return [Problem("NET010", ("scale_up", "switch_rack"), f"switch_rack {rid} holds accelerators: a pod's "
                        "switches stand in racks of their own, apart from the compute racks whose links run to them")]
    compute = sum(cluster.rack_counts[r] for r in _racks_with(cluster, True))
    domains = compute // su.racks
    placed = cluster.rack_counts[rid] * sum(1 for p in cluster.rack_types[rid].items if p.part.id == su.switch)
    if placed != su.switches * domains:
        problems.append(Problem("NET010", ("scale_up", "switches"), f"{cluster.rack_counts[rid]} {rid} place "
                                f"{placed} {su.switch}; {domains} domain(s) of {su.switches} make "
                                f"{su.switches * domains}", count(placed), count(su.switches * domains)))
    need, sw, link = pod_switches(cluster, su, per_acc), cluster.scale_up_switch, cluster.scale_up_link
    if su.switches < need and sw is not None and link is not None:
        problems.append(Problem("NET010", ("scale_up", "switches"), (
            f"{su.size} accelerators x {per_acc:g} links x {link.lanes} lanes need {need} {sw.id} of "
            f"{sw.ports.count} x{sw.ports.lanes or 1} ports; the pod has {su.switches}"), count(su.switches),
            count(need)))
    problems += narrow_links(cluster)
    if su.technology == "ualink" and su.size > UALINK_POD:
        problems.append(Problem("NET010", ("scale_up", "size"), f"a UALink pod of {su.size} accelerators: UALink "
                                f"200G 1.0 joins at most {UALINK_POD} (its 10-bit accelerator identifier): expected "
                                f"at most {UALINK_POD}", count(su.size), count(UALINK_POD)))
    return problems


def narrow_links(cluster: ClusterDesign) -> list[Problem]:
    """NET010 where a pod's link is narrower than the switch's ports and the ports do not split that many ways.

    `pod_switches` packs ports ÷ link lanes links into a port; a port group that lists its `breakouts` allows only
    those splits (`Ports.allows`), so an x2 link on x4 ports that split only 1x800G is one link a port, not two.
    """
    sw, link = cluster.scale_up_switch, cluster.scale_up_link
    if sw is None or link is None or not sw.ports.lanes or link.lanes >= sw.ports.lanes:
        return []
    ways, rest = divmod(sw.ports.lanes, link.lanes)
    if not rest and sw.ports.allows(ways):
        return []
    head = f"{link.id} has {link.lanes} lanes, a {sw.id} port {sw.ports.lanes}: "
    text = head + (f"{ways} links share a port only where it splits {ways} ways, and {sw.id} lists "
                   f"{', '.join(sw.ports.breakouts)}: expected a link of {sw.ports.lanes} lanes, or a switch whose "
                   f"ports list a {ways}-way breakout" if not rest else
                   f"links share a port only in whole shares of its lanes: expected a link of {sw.ports.lanes} "
                   "lanes or a whole share of them")
    return [Problem("NET010", ("scale_up", "link"), text, count(link.lanes), count(sw.ports.lanes))]


def pod_switch_slots(cluster: ClusterDesign, su: ScaleUp) -> list[tuple[int, int]]:
    """(rack instance, U) of every `switch` in the layout's `switch_rack` racks, in floor order."""
    return [(i, p.u) for i, inst in enumerate(cluster.instances) if inst.rack.spec.id == su.switch_rack
            for p in inst.rack.items if p.part.id == su.switch]


def pod_ends(cluster: ClusterDesign, su: ScaleUp, per_acc: float) -> tuple[np.ndarray, ...]:
    """A-end rack/U (a system), B-end rack/U (a switch), group and weight (links) of each run of every pod domain.

    A system of n accelerators sends n × links per accelerator links, spread evenly over its domain's switches (the
    first `links mod S` switches one more); one row per pair of system and switch, measured between the two.
    """
    slots, size = pod_switch_slots(cluster, su), su.switches
    rows: list[tuple[int, int, int, int, int]] = []
    for d, domain in enumerate(domain_racks(cluster, su.racks) if cluster.instances else ()):
        mine = slots[d * size:(d + 1) * size]
        for r in domain:
            for p in cluster.instances[int(r)].rack.items:
                if not (isinstance(p.part, System) and p.part.accelerators) or not mine:
                    continue
                links = round(p.part.accelerators * per_acc)
                for k, (sr, su_u) in enumerate(mine):
                    if (w := links // len(mine) + (k < links % len(mine))) > 0:
                        rows.append((int(r), p.u, sr, su_u, w))
    a_rack, a_u, b_rack, b_u, weight = np.array(rows, dtype=np.int64).reshape(len(rows), 5).T
    return a_rack, a_u, b_rack, b_u, np.zeros(len(a_rack), dtype=np.int64), weight
