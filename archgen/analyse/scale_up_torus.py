"""A scale-up domain wired as a torus (AWS Trn2: 16 Trainium2 in a 4x4 2D torus over NeuronLink-v3, no switch).

The counts are those of the torus fabric (`analyse.topologies.torus_figures`, after Jouppi et al., ISCA 2023): with
d_i accelerators along dimension i and N = Π d_i, each accelerator has 2 links per dimension of 3 or more (1 for a
dimension of 2), and a domain has Σ_i N/d_i·ring(d_i) links, ring(d) = d for d ≥ 3 and 1 for d = 2. A link whose two
ends sit on one system's board is a trace, not a cable (`block_links`): a `domain: node` torus is all board (the
trn2.48xlarge wires its 16 chips itself), and in a `domain: rack` torus the systems' `torus_block` says which links
stay on the board; the rest run between systems on cables (`scale_up.link`, where given).

AWS, "Amazon EC2 Trn2 Architecture", AWS Neuron documentation
(https://awsdocs-neuron.readthedocs-hosted.com/en/latest/general/arch/neuron-hardware/trn2-arch.html): "16
Trainium2 chips are connected using a 4x4, 2D Torus topology"; a Trn2 UltraServer joins four instances, chips of the
same coordinates "connected in a ring topology".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from archgen.analyse.nodes import NodeType, compute_accelerator, compute_node, count
from archgen.analyse.ports import Problem
from archgen.analyse.topologies import ring_links, torus_figures
from archgen.build import ClusterDesign, Design, LinkOption
from archgen.display import figure
from archgen.model import Accelerator, System
from archgen.model.cluster import ScaleUp
from archgen.units import Q_, Q

__all__ = ["TorusDomain", "block_links", "scale_up_cables", "torus_domain"]


@dataclass(frozen=True)
class TorusDomain:
    """Links of one torus scale-up domain.

    Attributes:
        degree: Links per accelerator (neighbours, 2 per dimension of 3 or more).
        links: Links per domain, each counted once.
        board_links: Links per domain whose two ends are on one system's board (traces).
        cables: Links per domain between systems: `links - board_links`.
        problems: NET010 problems (more neighbours than the accelerator's links, a block that does not tile).
    """

    degree: int
    links: int
    board_links: int
    cables: int
    problems: tuple[Problem, ...]


def block_links(dims: list[int], block: list[int]) -> int:
    """Links of a torus of `dims` that stay inside blocks of `block` chips (each side divides the torus' side).

    Along dimension i a block holds Π block / b_i lines of b_i chips: b_i − 1 links each, or the whole ring
    (`ring_links`) where the block spans the dimension (b_i = d_i: the wraparound link is on the board too).
    """
    per_block = sum(math.prod(block) // b * (ring_links(d, True) if b == d else b - 1)
                    for d, b in zip(dims, block, strict=True))
    return math.prod(dims) // math.prod(block) * per_block


def torus_domain(design: Design, cluster: ClusterDesign, nodes: tuple[NodeType, ...], su: ScaleUp) -> TorusDomain:
    """Degree, links, board traces and cables of one domain of `su` (a torus), with its NET010 problems."""
    acc = compute_accelerator(design, nodes)
    dims = list(su.dims or [su.size])
    shape = "x".join(map(str, dims))
    f = torus_figures(dims)
    problems: list[Problem] = []
    have = acc.scale_up.links if acc is not None and acc.scale_up is not None else 0
    if acc is not None and have and f["degree"] > have:
        text = (f"each accelerator of a {shape} torus has {f['degree']} neighbours; {acc.id} has {have} links"
                "{}" f": expected a torus of at most {have // 2} dimensions of 3 or more")
        problems.append(Problem("NET010", ("scale_up", "dims"), text.format(" (its `scale_up.links`)"),
                                count(f["degree"]), count(have), public=text.format("")))
    problems += _bandwidth(cluster, su, acc, f["degree"], shape)
    board = f["links"]
    if su.domain == "rack":
        board, problem = _rack_board(cluster, nodes, dims, shape)
        problems += problem
    return TorusDomain(f["degree"], f["links"], board, f["links"] - board, tuple(problems))


def _bandwidth(cluster: ClusterDesign, su: ScaleUp, acc: Accelerator | None, degree: int,
               shape: str) -> list[Problem]:
    """The domain's bandwidth (both directions) against what its links carry.

    With a `link` part: `degree` links x its rate, each way. Without one: at most the accelerator's own links
    (twice its per-direction `scale_up.bandwidth`); a torus may leave some of them unused (a trn2.48xlarge's 4x4
    torus carries 1,024 GB/s per chip of Trainium2's 1.28 TB/s, the rest joining the instances of an UltraServer),
    so only a figure above it is refused.
    """
    link = cluster.scale_up_link
    if link is not None:
        carried, what = degree * link.rate * 2, f"{degree} x {link.id} at {link.rate:~P} each way"
    elif acc is not None and acc.scale_up is not None:
        carried, what = acc.scale_up.bandwidth * 2, f"{acc.id}'s links ({figure(acc.scale_up.bandwidth.to('GB/s'))} " \
            "per direction{})"
    else:
        return []
    if su.bandwidth <= carried * (1 + 1e-9):
        return []
    text = (f"{su.bandwidth:~P} both directions per accelerator of a {shape} torus is more than {what} carry: "
            f"{figure(carried.to('GB/s'))} both ways")
    return [Problem("NET010", ("scale_up", "bandwidth"), text.format(", its `scale_up.bandwidth`"),
                    su.bandwidth.to("TB/s"), carried.to("TB/s"), public=text.format(""))]


def _rack_board(cluster: ClusterDesign, nodes: tuple[NodeType, ...], dims: list[int],
                shape: str) -> tuple[int, list[Problem]]:
    """Board links of a rack's torus: inside each system's `torus_block`, none where the system gives none."""
    compute = compute_node(nodes)
    system: System | None = compute.part if compute is not None else None
    block = system.torus_block if system is not None else None
    if system is None or block is None:
        return 0, []
    if len(block) != len(dims) or any(d % b for d, b in zip(dims, block, strict=False)) \
            or math.prod(block) != system.accelerators:
        return 0, [Problem("NET010", ("scale_up", "dims"), f"{system.id}'s torus_block {'x'.join(map(str, block))} "
                           f"does not tile the {shape} torus with its {system.accelerators} accelerators: expected "
                           "sides dividing the torus', whose product is the system's accelerators",
                           count(math.prod(block)), count(system.accelerators))]
    return block_links(dims, block), []


def scale_up_cables(cluster: ClusterDesign) -> tuple[tuple[LinkOption, ...], Q]:
    """Link options and line rate of a torus domain's cables, for `analyse.cabling`'s tier totals.

    The cables between systems (`TorusDomain.cables`) are chip-to-chip links like a torus fabric's neighbour tier:
    the domain's `scale_up.link` part at both ends, one link per cable (its `links_per_cable` where it splits),
    counted without lengths (the fabric's torus is not wired to racks either). Without a `link` part the links are
    counted and left unpriced (no media), as a fabric tier that names none.
    """
    link = cluster.scale_up_link
    if link is None:
        return (), Q_(0, "Gbit/s")
    return (LinkOption(link, link, ("scale_up", "link")),), link.rate.to("Gbit/s")
