"""A 1:2 copper splitter is one cable assembly: one 800G end in the switch cage, two 400G legs at the nodes.

Hand count: a rack of 2 GB200 compute trays, each with 4 ConnectX-7 single-port 400G OSFP NICs (DGX GB200 user
guide, hardware.html: "4x NVIDIA ConnectX-7 single port 400G OSFP NIC"), and one QM9700 leaf (twin-port 800G OSFP
cages) in the same rack, cabled by `{a: dac-400g, b: dac-800g-osfp}`: NVIDIA's MCP7Y00 splitter, one twin-port 800G
OSFP end to 2 x 400G OSFP legs (MCP7Y00-Nxxx product specifications). 2 x 4 = 8 node ports, 8 / 2 = 4 assemblies,
each 1 end at the leaf and 2 at the nodes: 4 x (0.1 W + 2 x 0.1 W) = 1.2 W (power per end < 0.1 W, LinkX).
Before, the BOM, the length bins and the port map each counted one whole assembly per node end: 8.
"""

from __future__ import annotations

import pytest

from archgen.analyse.portmap import port_map
from archgen.render.cabling import run_list
from tests.conftest import run_specs
from tests.data.clusters.build import rack
from tests.data.clusters.small import RACK_42U

RACK = rack("r", [(3, "gb200-compute-tray", 2), (10, "qm9700", 1)], [(1, 2)],
            name="Two GB200 compute trays and their leaf", **RACK_42U)

CLUSTER = """\
kind: Cluster
id: c
units:
- id: su
  racks:
  - {rack: r, count: 1}
layout:
- {unit: su, count: 1}
floor: {racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3 m, tray_drop: 1.5 m}
scale_up: {domain: node, size: 4, bandwidth: 900 GB/s}
fabrics:
- id: compute
  topology: fat-tree
  role: compute
  speed: 400 Gb/s
  switch: qm9700
  tiers: 1
  leaf: {rack: r}
  links:
    access: [LINKS]
"""

NODE_PORTS, LEGS = 2 * 4, 2


def _access(tmp_path, links: str):
    run = run_specs(tmp_path, {"racks/r.yaml": RACK, "clusters/c.yaml": CLUSTER.replace("[LINKS]", links)})
    a = run.clusters["cluster/c"]
    [tier] = [t for t in a.cabling.tiers if (t.fabric, t.tier) == ("compute", "access")]
    return a, tier


def test_a_splitter_is_counted_once_in_the_bom_bins_and_run_lists(tmp_path):
    a, tier = _access(tmp_path, "[{a: dac-400g, b: dac-800g-osfp}]")
    assemblies = NODE_PORTS // LEGS
    assert tier.links == NODE_PORTS
    assert tier.cables == {"dac-400g/dac-800g-osfp": assemblies} == {"dac-400g/dac-800g-osfp": 4}   # was 8
    assert [(ln.part, ln.quantity) for ln in a.cabling.bom if ln.kind == "Link"] == [("dac-400g", assemblies)]
    assert sum(tier.cables_by_bin.values()) == assemblies                                     # the length bins
    rows = [r for r in port_map(a).rows if r.fabric == "compute"]
    assert len(rows) == assemblies and {r.links for r in rows} == {LEGS}                    # portmap.csv
    assert all(len(r.a.port.split(", ")) == LEGS and "-" in r.b.port for r in rows)         # 2 legs, one cage
    assert sum(row[-1] for row in run_list(a).rows if row[0] == "compute") == assemblies     # cabling.csv
    assert tier.optics_power.m_as("W") == pytest.approx(assemblies * (0.1 + LEGS * 0.1))    # was 8 x 0.2 W


def test_a_straight_dac_into_single_port_cages_stays_one_a_port(tmp_path):
    """The same rack on straight 400G DACs (one part at both ends): one assembly per node port, as before."""
    _, tier = _access(tmp_path, "[dac-400g]")
    assert tier.cables == {"dac-400g": NODE_PORTS}
