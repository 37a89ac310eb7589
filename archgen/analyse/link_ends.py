"""What one link end serves: links per module and per cable, a fat tree's line rate per tier, a NIC cage's ports.

Split from `archgen.analyse.cabling` so that it stays small; the cabling totals, the optics per rack, the cable bins,
the split legs, the port map and the media checks import them from here.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from archgen.build import LinkOption
from archgen.model.network import COPPER_MEDIA, Link, nic_split_of
from archgen.units import Q_, Q

if TYPE_CHECKING:
    from collections.abc import Sequence

    from archgen.analyse.fabric import FabricAnalysis
    from archgen.analyse.nodes import NodeType

__all__ = ["_ports_per_module", "connector_links", "cords_per_link", "fans_out", "leaf_split", "link_speed",
           "links_per_cable", "module_power", "nic_cages", "node_cage_ports", "optics_inside", "splitter_legs"]

#: The switch tier at each end (A, B) of a fat tree's tier of links; an access link's A end is a node's (or no device).
SWITCH_ENDS = {"access": (None, "leaf"), "leaf_spine": ("leaf", "spine"), "spine_core": ("spine", "core")}


def _ports_per_module(link, speed: Q, cage_ports: int | None = None) -> int:
    """Links one module end serves: rate / line rate, within its cage's ports and WDM optical ports (2 x FR4: 2)."""
    n = _rate_ratio(link.rate.magnitude, link.rate._units, speed.magnitude, speed._units)
    n = min(n, link.optical_ports) if getattr(link, "optical_ports", None) else n
    return min(n, cage_ports) if cage_ports else n


@functools.lru_cache(maxsize=1024)
def _rate_ratio(rate: float, rate_units: Any, speed: float, speed_units: Any) -> int:
    """max(1, round(rate / speed)), once per pair of rates: the cabling asks it of every run's ends (issue 25)."""
    return max(1, round(float((Q_(rate, rate_units) / Q_(speed, speed_units)).to("").magnitude)))


def module_power(link, speed: Q, cage_ports: int | None = None) -> Q:
    """Power of one module end serving `_ports_per_module` links at line rate `speed`.

    Where those links run below the module's rate (a 400G module in a single-port NIC cage on a 200G fabric), the
    part's `power_at` figure for that rate, if it states one (fewer lanes lit); else `power_per_end`.
    """
    running = speed * _ports_per_module(link, speed, cage_ports)
    for at in getattr(link, "power_at", ()):
        if abs(float((at.rate - running).m_as("Gbit/s"))) < 1e-6 and running < link.rate:
            return at.power
    return link.power_per_end


def splitter_legs(opt: LinkOption) -> int:
    """A-end legs of one copper assembly: the B end's rate over the A end's where the A part is narrower, else 1.

    A copper option whose A end is a narrower part than its B end (``{a: dac-400g, b: dac-800g-osfp}``) is a
    splitter: one assembly with one end in the switch cage and rate(B) / rate(A) legs at the ports below it (an 800G
    twin-port OSFP to 2 x 400G: NVIDIA MCP7Y00; 1:4 to 4 x 200G: MCP7Y50).
    """
    if opt.a.media not in COPPER_MEDIA or opt.a.id == opt.b.id or opt.b.rate <= opt.a.rate:
        return 1
    return _rate_ratio(opt.b.rate.magnitude, opt.b.rate._units, opt.a.rate.magnitude, opt.a.rate._units)


def _per_connector(end: Link, speed: Q, cage_ports: int | None = None) -> int:
    """Links one fibre connector of a module end carries, where its part states `connectors`; else 1 (a cable each).

    A single-port 800G DR4 (one MPO-12/APC) in a ConnectX-8 cage split 2 x 400G over two planes serves 2 links
    through its one connector: one cable, split at the far end (NVIDIA DGX SuperPOD B300 RA, Table 3: 512 node-leaf
    cables for 512 GPUs on two planes).
    """
    if not end.connectors:
        return 1
    return max(1, _ports_per_module(end, speed, cage_ports) // end.connectors)


def connector_links(opt: LinkOption, speed: Q, a_cage: int | None = None, ends: str = "ab") -> int:
    """Links one fibre connector of `opt`'s `ends` ('a', 'b' or both) carries (`_per_connector`).

    Above 1 at the A end, a NIC cage's links leave on one cable to several far ports (the port map groups them by
    the NIC's cage, not by the far device); at the B end, a switch connector's links to several nodes.
    """
    return max(_per_connector(opt.a, speed, a_cage) if "a" in ends else 1,
               _per_connector(opt.b, speed) if "b" in ends else 1)


def cords_per_link(opt: LinkOption, speed: Q) -> int:
    """Fibre cables one link of an optical option takes: a module end's connectors over the links it serves.

    Each connector takes its own cable (`Link.connectors`), so an end with more connectors than links gives each
    link several.

    A twin-port 2 x SR4 or 2 x DR4 module (`mmf-800g-sr8`, `smf-800g-dr8`: "two, 4-channel MPO-12/APC optical
    connectors with two 4-channel fiber cables", NVIDIA MMA4Z00-NS-T and MMS4X00-NS-T overviews) on one 800G link of
    8 lanes: 2 cords of 8 fibres, 4 lanes each way on each (an 800GBASE-SR8 or DR8 link needs 16 fibres). Copper: 1.
    """
    if opt.a.media in COPPER_MEDIA:
        return 1
    return max(_cords(opt.a, speed), _cords(opt.b, speed))


def _cords(end: Link, speed: Q) -> int:
    """Connectors of a module end each of its links takes: its connectors over the links its rate carries at `speed`.

    Not over those its cage leaves it (a twin-port module in a single-port cage, a UFM appliance's port, serves one
    400G link on one connector, the other dark).
    """
    return max(1, (end.connectors or 1) // _ports_per_module(end, speed))


def fans_out(opt: LinkOption, speed: Q, a_cage: int | None) -> bool:
    """Whether an access option's one cable leaves a node's NIC cage for several far ports (several planes' leaves).

    An optical part split to several far ports (`links_per_cable`: NVIDIA's DGX SuperPOD B300 Spectrum-X SuperNIC
    port, 2 x 400G to two planes, one cable in its Table 3), or a module at the cage whose one connector carries
    several links (`connectors`). A copper splitter is `splitter_legs`'.
    """
    split = max(opt.a.links_per_cable, opt.b.links_per_cable) > 1
    return opt.a.media not in COPPER_MEDIA and (split or connector_links(opt, speed, a_cage, "a") > 1)


def leaf_split(opt: LinkOption, speed: Q, a_cage: int | None) -> bool:
    """Whether an access option's one cable at a leaf port serves several node ports, whichever nodes they are.

    A copper splitter (`splitter_legs`: MCP7Y00, one twin-port 800G end, two 400G legs), or a leaf module whose one
    connector carries several links where the node's cage does not split them itself (`fans_out`): a twin-port SR8 at
    200G, each connector on a "1:2 splitter fiber cable" to two 400G modules (NVIDIA MMA4Z00-NS400-T, Connectivity
    Scenarios). Its legs are the leaf's ports in floor order, so they may be at two nodes in two racks (`split_legs`).
    """
    if opt.a.media in COPPER_MEDIA:
        return splitter_legs(opt) > 1
    return not fans_out(opt, speed, a_cage) and connector_links(opt, speed, a_cage, "b") > 1


def nic_cages(node_key: np.ndarray, planes: int) -> np.ndarray:
    """Per node port (`placement.access_ports` order, a node's ports plane-major), the NIC cage it leaves by.

    Port p of a node of P fabric ports sits in cage p mod (P / planes): its halves on two planes share a cage.
    A Python pass, not `np.unique`, which imports numpy.ma (tests/test_startup.py keeps it out of `check`).
    """
    rank = np.zeros(len(node_key), dtype=np.int64)
    seen: dict[int, int] = {}
    keys = node_key.tolist()
    for i, k in enumerate(keys):
        rank[i] = seen.get(k, 0)
        seen[k] = int(rank[i]) + 1
    per_node = np.array([seen[k] for k in keys], dtype=np.int64)
    return rank % np.maximum(per_node // max(planes, 1), 1)


def links_per_cable(opt: LinkOption, speed: Q, a_cage: int | None = None) -> int:
    """Links one physical cable of `opt` carries at line rate `speed`.

    Its parts' `links_per_cable` (a split cable) or the links one connector of a module end carries (`connectors`:
    a single-port module serving several planes), and for a copper assembly the links of its narrower end's module,
    if more; a splitter (`splitter_legs`) carries its legs' links, each leg those of its A end's module in its cage,
    at most the B end's. The BOM's cable counts, the length bins and the port map's cables all use it.
    """
    split = max(opt.a.links_per_cable, opt.b.links_per_cable, connector_links(opt, speed, a_cage))
    if opt.a.media in COPPER_MEDIA:
        legs = splitter_legs(opt)
        if legs > 1:   # one assembly: one B end in the switch, `legs` A ends at the ports below
            leg = _ports_per_module(opt.a, speed, a_cage)
            return max(min(legs * leg, _ports_per_module(opt.b, speed)), split)
        return max(min(_ports_per_module(opt.a, speed, a_cage), _ports_per_module(opt.b, speed)), split)
    return split


def link_speed(fa: FabricAnalysis, tier: str) -> Q:
    """Line rate of a fat tree's links at `tier`: the leaves' down rate for access, else the lower tier's up rate."""
    lower = {"access": "leaf", "leaf_spine": "leaf", "spine_core": "spine"}[tier]
    t = fa.tier(lower)
    assert t is not None, f"a fat tree with {tier} links has a {lower} tier"
    return t.speed if tier == "access" else t.up_speed


def node_cage_ports(nodes: Sequence[NodeType], fa: FabricAnalysis) -> int:
    """NIC ports per cage at the node end of a fabric's access links (the fewest over the cluster's node types).

    The system's NIC slot `per_cage` (a DGX twin-port OSFP serves two), else the NIC part's own `ports.per_cage`
    (a ConnectX-8 SuperNIC's twin-port cage), else 1 (`archgen.analyse.nodes.cage_ports`).
    """
    role = fa.fabric.spec.nic_role or fa.fabric.spec.role
    per = [nt.per_cage[role] for nt in nodes if fa.ports_per_node.get(nt.part.id) and role in nt.per_cage]
    return min(per, default=1) * nic_split_of(fa.fabric.spec)   # '2x400G': 2 each


def optics_inside(fa: FabricAnalysis, tier: str, typical: bool = False) -> tuple[str, ...]:
    """The ends ('a', 'b') of a fat tree's `tier` in switches whose `power.max` holds their ports' modules.

    Optical modules only: a copper assembly is one BOM item with both ends built in, so its active ends stay added.
    `typical`: only those whose typical draw holds them too, the switches that state no `typical` (their maximum
    stands for it); a stated typical is taken with passive cables, as datasheets give it.
    """
    return tuple(side for side, name in zip(("a", "b"), SWITCH_ENDS[tier], strict=True)
                 if name and (t := fa.tier(name)) is not None and t.switch is not None
                 and t.switch.power_includes_optics and not (typical and t.switch.power.typical is not None))
