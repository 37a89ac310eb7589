"""Small cluster specs for the topology and network tests: a DGX H100 cluster and an 8-port test switch."""

from __future__ import annotations

from tests.data.clusters.build import rack

#: The racks of the small clusters: 42 U (the builder's default is the GB300 trial's 48 U).
RACK_42U = {"height": 42, "max_payload": 1360, "weight": 170}

#: A 42 U air-cooled rack of four DGX H100 on three 60 A feeds (N+1): the compute rack of the small test clusters.
DGX_H100_RACK = rack("c4", [(3, "dgx-h100", 4)], [(1, 3)], **RACK_42U, redundancy="N+1")

RACKS = DGX_H100_RACK + "---\n" + rack("net", [(3, "SWITCH", 36)], [(1, 2)], **RACK_42U) + """---
kind: Switch
id: sw8
name: Eight-port test switch
source: test fixture (not a real part)
technology: infiniband
ports: {count: 8, speed: 400 Gbit/s}
mechanical: {height: 1 U, weight: 5 kg}
power: {max: 100 W}
"""

CLUSTER = """kind: Cluster
id: c
units:
- id: su
  racks: [{{rack: c4, count: {racks}}}, {{rack: net, count: 1}}]
layout:
- {{unit: su, count: {sus}}}
floor: {{racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3 m, tray_drop: 1.5 m}}
scale_up: {{domain: node, size: 8, bandwidth: 900 GB/s}}
fabrics:
- id: f
  topology: fat-tree
  role: compute
  speed: 400 Gb/s
  switch: {switch}
  tiers: {tiers}
  planes: {planes}
  rail_optimized: {rail}
  oversubscription: "{over}"
{tier_racks}  links:
    access: [dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8, smf-800g-dr8]
{upper_links}"""


def files(racks: int = 2, sus: int = 2, switch: str = "qm9700", tiers: object = 2, planes: int = 1,
          rail: bool = True, over: str = "1:1") -> dict[str, str]:
    """Spec files of a small cluster: `sus` units of `racks` four-DGX racks and one network rack each."""
    return {"racks/r.yaml": RACKS.replace("SWITCH", switch),
            "clusters/c.yaml": CLUSTER.format(racks=racks, sus=sus, switch=switch, tiers=tiers, planes=planes,
                                              rail=str(rail).lower(), over=over, upper_links=_upper_links(tiers),
                                              tier_racks=_tier_racks(tiers))}


def _tier_racks(tiers: object) -> str:
    """The tiers' `rack` lines, for the tiers built (a fixed `tiers` refuses the keys of a tier it does not build)."""
    built = ("leaf", "spine", "core")[:tiers if isinstance(tiers, int) else 3]
    return "".join(f"  {name}: {{rack: net}}\n" for name in built)


def _upper_links(tiers: object) -> str:
    """The `links` lines for the tiers built (links to a tier a fixed `tiers` does not build are refused)."""
    options = "[dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8, smf-800g-dr8]"
    built = ("leaf_spine", "spine_core")[:0 if tiers == 1 else 1 if tiers == 2 else 2]
    return "".join(f"    {name}: {options}\n" for name in built)
