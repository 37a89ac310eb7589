"""The cluster document's scale-up domain table: what the domain is built of (technology, shape) and its counts.

A partner reads from it which interconnect joins the accelerators, as the cluster states it (`scale_up.technology`,
`scale_up.topology`): an AMD MI355X node's Infinity Fabric mesh is not an NVLink switch domain, and a document that
printed only counts left the reader to assume one.
"""

from __future__ import annotations

from typing import Any

from archgen.render import fmt

#: `scale_up.technology` in words (archgen/model/cluster.py `ScaleUp.technology`: AMD's xGMI is Infinity Fabric).
TECHNOLOGY = {"nvlink": "NVLink", "infinity-fabric": "Infinity Fabric (AMD xGMI)", "ethernet": "Ethernet",
              "ualink": "UALink", "neuronlink": "NeuronLink"}

#: `scale_up.topology` in words, as the model describes each shape.
TOPOLOGY = {"switched": "switched (one switch hop between any two accelerators)",
            "mesh": "full mesh (a direct link between every pair of accelerators, no switch)",
            "torus": "torus (direct links to the neighbours along each dimension, no switch)"}


def rows(a: Any) -> tuple[tuple[str, str], ...]:
    """Rows of the scale-up table of the cluster analysis `a` (which has a scale-up domain)."""
    su, spec = a.scale_up, a.cluster.spec.scale_up
    shape = spec.topology
    direct = {"mesh": "Links per domain (peer to peer)", "torus": "Links per domain (neighbour to neighbour)"}
    return (("Technology", TECHNOLOGY.get(spec.technology, spec.technology)),
            ("Topology", TOPOLOGY.get(shape, shape)),
            ("Domains", f"{su.domains:,}"), ("Accelerators per domain", str(su.size)),
            ("Links per accelerator", f"{su.links_per_accelerator:g}"),
            (direct.get(shape, "Links needed"), f"{su.links_needed:,}"),
            *((("Board traces / cables per domain", f"{su.board_links:,} / {su.cables:,}"),) if shape == "torus"
              else ()),
            ("Switch ports", f"{su.switch_ports:,}" if a.cluster.scale_up_switch is not None
             else "— (no switch part: switches inside the node or none)"),
            ("Aggregate bandwidth", fmt.q(su.bandwidth_total, "TB/s", 1)))
