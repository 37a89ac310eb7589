"""A cluster's scale-up domains: their size per rack or system, links, switch ports and bandwidth (`ScaleUpAnalysis`).

Switched domains (NVLink, Ethernet, UALink) are checked here and by `scale_up_switches` (placed trays, one hop),
`scale_up_racks` (a domain over several racks, its trunks); a torus by `scale_up_torus`; a direct mesh (Infinity
Fabric) here. `analyse.network` re-exports `ScaleUpAnalysis` and `analyse_scale_up` (split from it at 392 lines).
"""

from __future__ import annotations

from dataclasses import dataclass

from archgen.analyse.nodes import NodeType, compute_accelerator, count
from archgen.analyse.ports import Problem
from archgen.analyse.scale_up_pod import is_pod, pod_problems
from archgen.analyse.scale_up_racks import rack_problems, span_hint, trunk_links_per_pair
from archgen.analyse.scale_up_switches import (
    chip_links,
    one_hop,
    own_links_domain,
    placed_switches,
    ualink_widths,
)
from archgen.analyse.scale_up_torus import torus_domain
from archgen.build import ClusterDesign, Design, RackDesign
from archgen.display import figure
from archgen.model import Accelerator, System
from archgen.model.cluster import ScaleUp
from archgen.perf.hw.switch_ports import ports_needed
from archgen.units import Q

__all__ = ["ScaleUpAnalysis", "analyse_scale_up"]


@dataclass(frozen=True)
class ScaleUpAnalysis:
    """The scale-up domain: switched (NVLink, Ethernet, UALink) or a direct mesh (Infinity Fabric)."""

    domains: int
    size: int
    accelerators_per_domain: dict[str, int]
    links_per_accelerator: float
    links_needed: int   # per domain: accelerator-to-switch links, or in a mesh the peer links (each joins two)
    switch_ports: int
    bandwidth_total: Q
    problems: tuple[Problem, ...]
    board_links: int = 0   # per domain: torus links on a system's board (traces); `links_needed` counts them too
    cables: int = 0        # per domain: torus links between systems (analyse.scale_up_torus)
    trunk_links: int = 0   # per domain: switch-to-switch links between its racks (analyse.scale_up_racks)


def analyse_scale_up(design: Design, cluster: ClusterDesign, nodes: tuple[NodeType, ...],
                     accelerators: int) -> ScaleUpAnalysis | None:
    """Domains, links and switch ports of the scale-up domain."""
    su = cluster.spec.scale_up
    if su is None:
        return None
    problems: list[Problem] = []
    per_domain: dict[str, int] = {}
    for rid in cluster.rack_counts:
        rack: RackDesign = cluster.rack_types[rid]
        systems = [p.part for p in rack.items if isinstance(p.part, System) and p.part.accelerators]
        if not systems:
            continue
        if su.domain == "rack":
            per_domain[rid] = sum(s.accelerators for s in systems)
        else:
            for s in systems:
                per_domain[s.id] = s.accelerators
    share = su.size // su.racks   # a multi-rack domain's accelerators divide over its racks (model.cluster)
    for what, n in sorted(per_domain.items()):
        if n != share and not bridge_groups(su, n):
            problems.append(Problem("NET010", ("scale_up", "size"), f"a {su.domain} domain of {what} holds {n} "
                                    f"accelerators, not {share}" + (f" ({su.size} over {su.racks} racks)" if
                                                                     su.racks > 1 else span_hint(su, n)),
                                    count(n), count(share)))
    domains = accelerators // su.size if su.size else 0
    link = cluster.scale_up_link
    if su.topology == "torus":  # neighbours along dims, no switch (analyse.scale_up_torus)
        t = torus_domain(design, cluster, nodes, su)
        return ScaleUpAnalysis(domains, su.size, per_domain, float(t.degree), t.links, 0, (su.bandwidth * accelerators
                               ).to("TB/s"), tuple(problems) + t.problems, t.board_links, t.cables)
    if su.topology == "mesh":   # every pair of accelerators joined directly (Infinity Fabric): no switch ports
        per_acc = float((su.size - 1) * su.links_per_peer)
        problems += _mesh_links(design, nodes, su, per_acc)
        if link is not None and per_acc * link.rate * 2 < su.bandwidth * (1 - 1e-9):
            problems.append(Problem("NET010", ("scale_up", "bandwidth"),
                                    f"a mesh of {su.size} gives each accelerator {per_acc:g} x {link.rate:~P} = "
                                    f"{figure((per_acc * link.rate).to('GB/s'))} per direction; {su.bandwidth:~P} "
                                    "both ways needs more", (per_acc * link.rate * 2).to("GB/s"), su.bandwidth))
        pairs = su.size * (su.size - 1) // 2 * su.links_per_peer   # each link joins two: 28 on an 8-GPU xGMI node
        return ScaleUpAnalysis(domains, su.size, per_domain, per_acc, pairs, 0,
                               (su.bandwidth * accelerators).to("TB/s"), tuple(problems + _link_bandwidth(design, nodes,
                                                                                                          su)))
    per_acc = (round(float((su.bandwidth / (2 * link.rate)).to("").magnitude), 9) if link is not None
               else _own_links(design, nodes))
    needed = ports_needed(per_acc, su.size)
    ports = su.switches * cluster.scale_up_switch.ports.count if cluster.scale_up_switch is not None else 0
    if cluster.scale_up_switch is not None and needed > ports and not is_pod(su):   # a pod's by lanes (pod_problems)
        problems.append(Problem("NET010", ("scale_up", "switches"),
                                f"{su.size} accelerators x {per_acc:g} links need {needed} switch ports, "
                                f"{su.switches} x {cluster.scale_up_switch.id} have {ports}", count(needed),
                                count(ports)))
    sw = cluster.scale_up_switch
    if sw is not None and (sw.technology == "nvlink") != (su.technology == "nvlink"):
        problems.append(Problem("NET010", ("scale_up", "technology"), f"the domain's technology is {su.technology}, "
                                f"its switch {sw.id} is {sw.technology}: expected technology: {sw.technology}, or "
                                "a switch part of the domain's technology"))
    problems += _link_bandwidth(design, nodes, su) + chip_links(design, cluster, nodes, su, per_acc) + \
        (pod_problems(cluster, su, per_acc) if is_pod(su) else placed_switches(cluster, su)) + \
        one_hop(cluster, su, per_acc) + rack_problems(cluster, su, per_acc) + ualink_widths(cluster, su)
    trunks = trunk_links_per_pair(cluster, su) * su.racks * (su.racks - 1) // 2
    return ScaleUpAnalysis(domains, su.size, per_domain, per_acc, needed, ports,
                           (su.bandwidth * accelerators).to("TB/s"), tuple(problems), trunk_links=trunks)


def bridge_groups(su: ScaleUp, n: int) -> bool:
    """Whether a system of `n` accelerators holds whole `domain: node` meshes of `su.size`: NVLink bridge groups.

    PCIe cards joined by NVLink bridges form groups smaller than their server: NVIDIA's H200 NVL takes a 2- or 4-way
    bridge, H100 NVL a 2-way one, so an 8-card server holds four pairs or two groups of four. Each group is a direct
    mesh (no NVLink switch) and a domain of its own; between groups the cards reach each other over PCIe, which the
    estimates take as the path between scale-up domains (docs/clusters.md, "NVLink bridges"). Only a mesh that divides
    the system is one; a switched node domain still holds the whole system (NET010).
    """
    return su.domain == "node" and su.topology == "mesh" and 0 < su.size < n and n % su.size == 0


def _mesh_links(design: Design, nodes: tuple[NodeType, ...], su: ScaleUp, per_acc: float) -> list[Problem]:
    """A mesh's peer links per accelerator against the links its accelerator has (`scale_up.links`, where stated).

    A full mesh of `size` needs `size - 1` peer links (x `links_per_peer`) on every accelerator; a part with fewer
    (AWS Trainium2: four NeuronLink-v3 ports, a 4x4 torus of 16 chips) cannot be one, and the domain's link count
    and its all-pairs bandwidth would be figures of a domain that cannot be built.
    """
    acc = compute_accelerator(design, nodes)
    if acc is None or acc.scale_up is None or not acc.scale_up.links or per_acc <= acc.scale_up.links:
        return []
    text = (f"a mesh of {su.size} joins each accelerator to its {su.size - 1} peers over {per_acc:g} links "
            f"({su.links_per_peer} per peer); {acc.id} has {acc.scale_up.links}" "{}" f": expected a mesh of at most "
            f"{acc.scale_up.links // su.links_per_peer + 1} accelerators")
    return [Problem("NET010", ("scale_up", "size"), text.format(" (its `scale_up.links`)"), count(per_acc),
                    count(acc.scale_up.links), public=text.format(""))]


def _own_links(design: Design, nodes: tuple[NodeType, ...]) -> float:
    """Scale-up links per accelerator of a domain without a `link` part: its accelerator's own `scale_up.links`.

    A DGX's NVLink runs to NVSwitch chips inside the node, so no link part is written; the links are still there
    (18 NVLink 5 links per B200), and 0 would be a count that reads as a fact. 0 only where the part gives none.
    """
    acc = compute_accelerator(design, nodes)
    return float(acc.scale_up.links) if acc is not None and acc.scale_up else 0.0


def _link_bandwidth(design: Design, nodes: tuple[NodeType, ...], su: ScaleUp) -> list[Problem]:
    """The domain's bandwidth (both directions) against twice each accelerator's per-direction link bandwidth.

    The cluster states both directions (1.8 TB/s for NVLink 5) and the catalog part one (900 GB/s); the estimates
    run on the cluster's figure, so the part's per-direction figure written here would halve them silently.
    Compared where the domain runs on the accelerators' own links: NVLink and Infinity Fabric, or any technology
    without a `link` part (an Ethernet or UALink domain with one is held to that link's rate and ports instead).
    """
    if not own_links_domain(su):
        return []
    both_ways, problems = su.bandwidth, []
    for acc_id in sorted({nt.part.accelerator for nt in nodes if nt.part.accelerator and nt.part.accelerators}):
        acc = design.specs.get(acc_id)
        if isinstance(acc, Accelerator) and acc.scale_up is None and su.size > 1:   # a PCIe card: no NVLink
            problems.append(Problem("NET010", ("scale_up",), f"{acc_id} has no scale-up link of its own (no "
                                    f"`scale_up` in its part), so a domain of {su.size} on its links cannot be built "
                                    "and would be estimated as NVLink; expected no `scale_up`: a node's cards then "
                                    "reach each other over PCIe (`host_interface`; docs/clusters.md, NVLink bridges "
                                    "and PCIe cards)"))
        if not isinstance(acc, Accelerator) or acc.scale_up is None:
            continue
        links = 2 * acc.scale_up.bandwidth
        if abs(float((both_ways / links).to("").magnitude) - 1) > 1e-6:
            text = (f"{both_ways:~P} both directions ({figure((both_ways / 2).to('GB/s'))} per direction) is not "
                    f"what the links of {acc_id} carry: {figure(acc.scale_up.bandwidth.to('GB/s'))} per direction"
                    "{}" + f", {figure(links.to(both_ways.units))} both ways")
            problems.append(Problem("NET010", ("scale_up", "bandwidth"), text.format(" (its `scale_up.bandwidth`)"),
                                    both_ways.to("TB/s"), links.to("TB/s"), public=text.format("")))
    return problems
