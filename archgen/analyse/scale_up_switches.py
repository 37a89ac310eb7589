"""The switches of a switched scale-up domain against the racks: trays placed, and a rack domain with none.

A switched domain puts every accelerator one switch hop from the others (`model.cluster.ScaleUp`). Its switches
are either parts of their own in the rack (`switch`, `switches` per domain: the 9 NVLink switch trays of an NVL72)
or chips inside the one system that holds the whole domain (the NVSwitch chips on a DGX/HGX baseboard, inside the
system's power and price). A `domain: rack` domain whose accelerators sit in several systems has no such system, so
with no `switch` part the switches that join its systems are nowhere in the design: no ports, power, price or
failures. A `domain: node` domain is always one system, and no part in the catalog says whether it holds switch
chips, so a node domain written as switched is taken at its word.

One hop holds only where every accelerator has a link to every switch (`one_hop`): with more switches than links
per accelerator, or switches with fewer ports than the domain has accelerators, pairs of accelerators share only
some switches, or none (a domain wider than its switches' radix needs a second switch tier, NVL576's, which is not
modelled). A link faster than the switch's ports is one no port terminates. The links per accelerator (the domain's
`bandwidth` over twice the `link` part's rate) are at most the accelerator's own `scale_up.links` where the domain
runs on the accelerator's links (`chip_links`), as a mesh's and a torus' are.

Its accelerator-to-switch links are cables (`switched_cables`): DAC, AEC or optics of an Ethernet or UALink domain,
counted with their modules, power and failures as a torus domain's cables are. A `copper-backplane` link is the
rack's own (the NVL72's NVLink cable cartridges, in its enclosure's weight and price), so it is not counted again.
"""

from __future__ import annotations

import math

from archgen.analyse.nodes import NodeType, compute_accelerator, count
from archgen.analyse.ports import Problem
from archgen.build import ClusterDesign, Design
from archgen.display import figure
from archgen.model import System
from archgen.model.cluster import ScaleUp

__all__ = ["UALINK_WIDTHS", "chip_links", "one_hop", "own_links_domain", "placed_switches", "switched_cables",
           "ualink_widths"]

#: The port widths, in lanes, UALink 200G 1.0 allows: "UALinks can be configured as x1, x2, or x4, with a four-lane
#: link achieving up to 800 GT/s in both transmit and receive directions" (Tom's Hardware on the final specification,
#: 2025-04-08, tomshardware.com/tech-industry/ualink-has-nvidias-nvlink-in-the-crosshairs-final-specs-support-up-to-
#: 1-024-gpus-with-200-gt-s-bandwidth; the consortium's webinar slide: "PHY(212.5G) X4").
UALINK_WIDTHS = (1, 2, 4)


def own_links_domain(su: ScaleUp) -> bool:
    """Whether the domain runs on the accelerators' own scale-up links (their `scale_up` figures bind it).

    NVLink and Infinity Fabric run on the accelerator's links, as does any domain without a `link` part. An Ethernet
    or UALink domain with a `link` part is held to that link's rate and the switch's ports instead: the catalog's
    accelerator `scale_up` describes the chip's own fabric (a MI355X's 7 Infinity Fabric links), not its Ethernet.
    """
    return su.link is None or su.technology in ("nvlink", "infinity-fabric")


def chip_links(design: Design, cluster: ClusterDesign, nodes: tuple[NodeType, ...], su: ScaleUp,
               per_acc: float) -> list[Problem]:
    """A switched domain's links per accelerator against the links the accelerator has (`scale_up.links`).

    The links per accelerator are the domain's `bandwidth` over twice the `link` part's rate; a link part slower
    than the chip's own links makes more links than the chip has (a 200G part on a GB200: 36 links, the GPU has
    18), which only the total-ports check caught, as a shortage of switch ports. Fewer links than the chip has
    is allowed: one cable may carry several of the chip's links (an OSFP carries two NVLink 4 links).
    """
    acc, link = compute_accelerator(design, nodes), cluster.scale_up_link
    if link is None or not own_links_domain(su) or acc is None or acc.scale_up is None or \
            not acc.scale_up.links or per_acc <= acc.scale_up.links + 1e-9:
        return []
    have = acc.scale_up.links
    text = (f"{su.bandwidth:~P} both ways over {link.id} links gives each accelerator {per_acc:g} links; {acc.id} "
            f"has {have}" "{}" f": expected at most {have} (a " "{}" f" of at most "
            f"{figure((2 * have * link.rate).to('TB/s'))} with {link.id}), or a link part of at least "
            f"{figure((su.bandwidth / 2 / have).to('Gbit/s'))} per direction, one per chip link")
    return [Problem("NET010", ("scale_up", "link"), text.format(" (its `scale_up.links`)", "`bandwidth`"),
                    count(per_acc), count(have), public=text.format("", "domain bandwidth"))]


def placed_switches(cluster: ClusterDesign, su: ScaleUp) -> list[Problem]:
    """Scale-up switch trays placed in each rack type against `switches` per domain times its domains.

    The ports check takes `switches` as written, and the racks' power, weight and BOM count the trays placed, so a
    count that differs from the racks (18 claimed for the 9 trays of an NVL72, or `domain: node` on an NVL72 rack,
    which would need 9 trays per tray of GPUs) would pass with figures from two different designs. A rack domain of
    several systems with no switch part is refused (module docstring), and so are switches placed only in racks
    without accelerators (a UALink pod's switch rack, newuser59): the model lays no run from a compute rack to them
    (the accelerator-to-switch cables are counted, not laid) and joins a multi-rack domain's racks by trunks between
    their own switches, so it says which shape it models rather than "places 0" beside trunks to switches nowhere.
    """
    problems = []
    for rid in sorted(cluster.rack_counts):
        items = cluster.rack_types[rid].items
        systems = sum(1 for p in items if isinstance(p.part, System) and p.part.accelerators)
        if not systems:
            continue
        if su.switch is None:
            if su.domain == "rack" and systems > 1:
                problems.append(Problem("NET010", ("scale_up", "switch"), f"a switched rack domain of {systems} "
                                        f"systems in {rid} names no switch part, so nothing joins its systems: "
                                        "expected `switch` and `switches` (the trays in the rack), or topology "
                                        "torus or mesh for direct links", count(0), count(1)))
            continue
        placed = sum(1 for p in items if p.part.id == su.switch)
        domains = 1 if su.domain == "rack" else systems
        per_rack = su.switches // su.racks   # a multi-rack domain's switches divide over its racks (model)
        if not placed and (apart := _switch_racks(cluster, su.switch)):
            problems.append(Problem("NET010", ("scale_up", "switch"), (
                f"{rid} places no {su.switch}; {', '.join(apart)}, without accelerators, place(s) them: "
                "accelerators cabled to one stage of switches in racks of their own (a UALink pod) are written "
                f"with `switch_rack: {apart[0]}` (docs/clusters.md; a second switch tier is not modelled). Else a "
                f"scale-up domain's switches stand in its own racks: expected {per_rack} {su.switch} in {rid}" + (
                    f" ({su.switches} per domain over its {su.racks} racks, joined by trunk_link)"
                    if su.racks > 1 else "")), count(placed), count(domains * per_rack)))
            continue
        if placed != domains * per_rack:
            share = f" ({su.switches} per domain over its {su.racks} racks)" if su.racks > 1 else ""
            problems.append(Problem("NET010", ("scale_up", "switches"),
                                    f"{rid} places {placed} {su.switch} for its {domains} {su.domain} domain(s); "
                                    f"{per_rack} per {'rack' if su.racks > 1 else 'domain'}{share} make "
                                    f"{domains * per_rack}", count(placed), count(domains * per_rack)))
    return problems


def _switch_racks(cluster: ClusterDesign, switch: str) -> list[str]:
    """Rack types of the cluster that place `switch` and hold no accelerators (a switch rack)."""
    return [rid for rid in sorted(cluster.rack_counts)
            if any(p.part.id == switch for p in cluster.rack_types[rid].items)
            and not any(isinstance(p.part, System) and p.part.accelerators for p in cluster.rack_types[rid].items)]


def one_hop(cluster: ClusterDesign, su: ScaleUp, per_acc: float) -> list[Problem]:
    """A switched domain's switches against its links: each accelerator reaches every switch, at the ports' rate.

    The ports check counts the domain's ports in total, so 21 switches of 64 ports passed for 72 accelerators of 18
    links (1,296 links, 1,344 ports), a domain in which no switch reaches every accelerator (module docstring).
    """
    sw, link = cluster.scale_up_switch, cluster.scale_up_link
    if sw is None or not su.switches:
        return []
    problems = []
    fastest = max((g.speed for g in sw.groups), key=lambda q: float(q.m_as("Gbit/s")))
    if link is not None and link.rate > fastest * (1 + 1e-9):
        problems.append(Problem("NET010", ("scale_up", "link"), f"{link.id} runs {link.rate:~P} a link, faster than "
                                f"any port of {sw.id} ({fastest:~P}): no port terminates it; expected a link part of "
                                f"at most {fastest:~P}, or a switch whose ports run at its rate", link.rate, fastest))
    # an accelerator links to its own rack's switches (analyse.scale_up_racks), a pod's to all (scale_up_pod)
    reached = su.switches if su.switch_rack is not None else su.switches // su.racks
    if per_acc + 1e-9 < reached:
        reach = math.floor(per_acc + 1e-9)
        where = "per domain" if su.racks == 1 or su.switch_rack else f"per rack of the domain's {su.racks}"
        problems.append(Problem("NET010", ("scale_up", "switches"), f"{reached} {sw.id} {where}, and each "
                                f"accelerator has {per_acc:g} links: it reaches at most {reach} of them, so two "
                                f"accelerators do not share every switch and the domain is not one switch hop at "
                                f"its bandwidth ({sw.id} has {sw.ports.count} ports for {su.size} accelerators): "
                                f"expected at most {reach} switches, each with a link to every accelerator (a "
                                "domain wider than a switch's ports needs a second switch tier, not modelled)",
                                count(reached), count(reach)))
    return problems


def switched_cables(cluster: ClusterDesign, su: ScaleUp, links: int, domains: int) -> int:
    """Accelerator-to-switch cables of a switched domain with a `link` part: `links` per domain, over its domains.

    Before, the link part was read for its rate only: 32 GPUs x 8 links of smf-800g-dr8 (17 W an end) drew nothing,
    no module was counted and no BOM line written. A backplane link is the rack's (module docstring): none.
    """
    link = cluster.scale_up_link
    if su.topology != "switched" or link is None or link.media == "copper-backplane":
        return 0
    return links * domains


def ualink_widths(cluster: ClusterDesign, su: ScaleUp) -> list[Problem]:
    """A UALink domain's `link` lanes, and its UALink switch's port lanes, against `UALINK_WIDTHS` (ualink30).

    A `link` is one accelerator-to-switch link, one UALink port (`model.cluster.ScaleUp.link`), so its `lanes` are the
    port's width. CAB002 holds the lane rate to the switch's (nu83fix); the count passed whatever it was, and an
    8-lane link halved the domain's links with no word. A switch port group is judged where the part is a UALink
    switch and states `lanes`.
    """
    if su.technology != "ualink":
        return []
    allowed = f"x{', x'.join(map(str, UALINK_WIDTHS[:-1]))} or x{UALINK_WIDTHS[-1]}"
    lanes = f"{', '.join(map(str, UALINK_WIDTHS[:-1]))} or {UALINK_WIDTHS[-1]} lanes"
    problems = []
    link, sw = cluster.scale_up_link, cluster.scale_up_switch
    if link is not None and link.lanes not in UALINK_WIDTHS:
        problems.append(Problem("NET010", ("scale_up", "link"), f"{link.id} has {link.lanes} lanes, but a UALink 200G "
                                f"1.0 port is {allowed} ({lanes}): expected a link part of {lanes}, one per "
                                "accelerator port", count(link.lanes), count(UALINK_WIDTHS[-1])))
    if sw is None or sw.technology != "ualink":
        return problems
    for g in sw.groups:
        if g.lanes is not None and g.lanes not in UALINK_WIDTHS:
            problems.append(Problem("NET010", ("scale_up", "switch"), f"{sw.id}'s port group '{g.name}' has "
                                    f"{g.lanes} lanes a port, but a UALink 200G 1.0 port is {allowed} ({lanes}): "
                                    f"expected ports of {lanes} (a cage of {g.lanes} lanes carries "
                                    f"{g.lanes // UALINK_WIDTHS[-1]} x{UALINK_WIDTHS[-1]} ports: count each)",
                                    count(g.lanes), count(UALINK_WIDTHS[-1])))
    return problems
