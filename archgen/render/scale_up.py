"""The cluster document's scale-up domain table: what the domain is built of (technology, shape) and its counts.

A partner reads from it which interconnect joins the accelerators, as the cluster states it (`scale_up.technology`,
`scale_up.topology`): an AMD MI355X node's Infinity Fabric mesh is not an NVLink switch domain, and a document that
printed only counts left the reader to assume one.
"""

from __future__ import annotations

from typing import Any

from archgen.analyse.cabling import longest_trunk
from archgen.display import figure
from archgen.model.technology import TECHNOLOGIES
from archgen.perf.workload.racks_note import stated_hop
from archgen.render import fmt

#: `scale_up.technology` in words (`model.technology.TECHNOLOGIES`: AMD's xGMI is Infinity Fabric).
TECHNOLOGY = {name: kind.words for name, kind in TECHNOLOGIES.items()}

#: `scale_up.topology` in words, as the model describes each shape.
TOPOLOGY = {"switched": "switched (one switch hop between any two accelerators)",
            "mesh": "full mesh (a direct link between every pair of accelerators, no switch)",
            "torus": "torus (direct links to the neighbours along each dimension, no switch)"}


def rows(a: Any) -> tuple[tuple[str, str], ...]:
    """The scale-up table of `a`: technology, shape, domains, links, switch ports, racks and trunks.

    A rack domain states its racks; one that spans several racks also its trunks, and its topology says two switch
    hops between racks (it read "one switch hop between any two accelerators" above the row that said two).

    Trunk links per pair of racks and in all come from `analyse.scale_up_racks` (the network analysis), their cables
    from the cabling's `scale_up` trunk tier (the bill of materials' count).
    """
    su, spec = a.scale_up, a.cluster.spec.scale_up
    shape = spec.topology
    topology = TOPOLOGY.get(shape, shape)
    if spec.switch_rack is not None:   # one switch stage in racks of their own (analyse.scale_up_pod)
        topology = (f"a pod of one switch stage in {spec.switch_rack} racks, every accelerator's links cabled to "
                    "them: one switch hop between any two accelerators, in one rack or two")
    elif shape == "switched" and spec.racks > 1:   # switches in each rack, joined by trunks (analyse.scale_up_racks)
        topology = (f"switched over {spec.racks} racks (one switch hop inside a rack, two between racks: each "
                    "rack's switches joined to the other racks' by trunk links)")
    direct = {"mesh": "Links per domain (peer to peer)", "torus": "Links per domain (neighbour to neighbour)"}
    rows = [("Technology", TECHNOLOGY.get(spec.technology, spec.technology)), ("Topology", topology),
            ("Domains", f"{su.domains:,}"), ("Accelerators per domain", str(su.size))]
    if spec.domain == "rack":
        rows.append(("Racks per domain", f"{spec.racks} (consecutive racks with accelerators in floor order)"
                     if spec.racks > 1 else "1"))
    rows += [("Links per accelerator", f"{su.links_per_accelerator:g}"),
             (direct.get(shape, "Links needed"), f"{su.links_needed:,}"),
             *((("Board traces / cables per domain", f"{su.board_links:,} / {su.cables:,}"),) if shape == "torus"
               else ()),
             ("Switch ports", f"{su.switch_ports:,}" if a.cluster.scale_up_switch is not None
              else "— (no switch part: switches inside the node or none)")]
    if spec.racks > 1 and spec.switch_rack is None:
        trunk = next((t for t in getattr(a.cabling, "tiers", ()) if (t.fabric, t.tier) == ("scale_up", "trunk")), None)
        pairs = spec.racks * (spec.racks - 1) // 2
        rows += [("Trunk link (switch to switch between racks)", spec.trunk_link or "—"),
                 ("Trunk links per pair of racks", f"{su.trunk_links // max(pairs, 1):,}"),
                 ("Trunk links / cables per domain", f"{su.trunk_links:,} / "
                  f"{trunk.physical // max(su.domains, 1):,}" if trunk is not None else f"{su.trunk_links:,} / —"),
                 ("Switch hops between accelerators", "1 in one rack, 2 between racks; " + _second_hop(a))]
    # Both directions, as `scale_up.bandwidth` is stated (NVIDIA's 1.8 TB/s an NVLink 5 GPU): the fabrics' section
    # says its bandwidths are one direction, so the row says which it is (newuser66).
    each = spec.bandwidth / 2
    rows.append(("Aggregate bandwidth, both directions", f"{fmt.q(su.bandwidth_total, 'TB/s', 1)} ("
                 f"{figure(spec.bandwidth.to(_unit(spec.bandwidth)))} per accelerator, {figure(each.to(_unit(each)))} "
                 "each way)"))
    return tuple(rows)


def _unit(bandwidth: Any) -> str:
    """TB/s from 1 TB/s up, else GB/s."""
    return "TB/s" if bandwidth.to("TB/s").magnitude >= 1 else "GB/s"


def _second_hop(a: Any) -> str:
    """What the estimate takes for the second switch hop, or that it takes none (the switch states no `latency`).

    The switch's `latency` with the trunk's flight and modules, as the estimate composes it (`racks_note.stated_hop`).
    """
    sw = a.cluster.scale_up_switch
    if sw is not None and sw.latency is not None:
        hop, words = stated_hop(sw.latency, sw.id, a.cluster.scale_up_trunk, longest_trunk(a.cluster))
        return (f"the second hop's {hop * 1e9:.4g} ns ({words}) is added on the ring steps that cross racks "
                "(docs/perf-model.md)")
    return (f"the second hop's latency is not modelled: {sw.id if sw is not None else 'the switch part'} states no "
            "`latency` (docs/perf-model.md)")
