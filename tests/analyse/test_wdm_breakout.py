"""A wavelength-multiplexed module serves no more links than its optical ports (a network architect's trial).

Input: one GB300 NVL72 SU whose storage / in-band fabric runs the trays' BlueField-3 ports at 200G on SN5600s
(256 x 200G each: 3 leaves of 128 down and 128 up, 2 spines), the leaf-spine links over twin-port 2 x FR4 modules
(NVIDIA MMS4X50-NM: two duplex LC, "no splitters with CWDM4"). Before, a module end was counted as serving
800G / 200G = 4 links, a 4 x 200G breakout the two duplex LC ports cannot make: 384 links took 192 modules
(3.3 kW); each FR4 port reaches one far end, so they take 384 (6.5 kW).
"""

from __future__ import annotations

from archgen.pipeline import run
from tests.conftest import write_tree

SPECS = {
    "racks/net.yaml": """\
kind: Rack
id: su-eth
name: SU Ethernet rack (SN5600)
facility: hall-liquid
form_factor: {standard: eia-19, height: 48 U, width: 600 mm, depth: 1200 mm, max_payload: 1500 kg, weight: 180 kg}
slots:
  - {at: 3, part: sn5600, count: 5}
  - {at: 1, part: pdu-415v-60a-3ph, count: 2}
power:
  feeds: {count: 2, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}
  pdus: {redundancy: N+N}
cooling:
  air: {class: A2, delta_t: 20 K}
""",
    "clusters/c.yaml": """\
kind: Cluster
id: gb300-su
facility: hall-liquid
units:
  - id: su
    racks: [{rack: gb300-nvl72, count: 4}, {rack: su-eth, count: 1}, {rack: gb300-nvl72, count: 4}]
layout:
  - {unit: su, count: 1}
floor: {racks_per_row: 9, rack_pitch: 600 mm, row_pitch: 3.6 m, tray_drop: 1.5 m, slack: 2 m}
scale_up: {domain: rack, size: 72, bandwidth: 1.8 TB/s, switch: nvlink5-switch-tray, switches: 9,
           link: nvlink-copper-cartridge}
fabrics:
  - id: storage
    topology: fat-tree
    role: converged
    nic_role: storage
    ports_per_node: 2
    speed: 200 Gb/s
    switch: sn5600
    tiers: 2
    leaf: {rack: su-eth}
    spine: {rack: su-eth}
    links:
      access: [{a: mmf-400g-sr4, b: mmf-800g-sr8}]
      leaf_spine: [smf-800g-fr4]
""",
}


def test_fr4_modules_serve_one_link_per_duplex_lc(tmp_path):
    r = run([write_tree(tmp_path, SPECS)])
    a = r.clusters["cluster/gb300-su"]
    up = next(t for t in a.cabling.tiers if (t.fabric, t.tier) == ("storage", "leaf_spine"))
    assert up.links == 384
    assert up.modules == {"smf-800g-fr4": 384}              # was 192: 4 x 200G through two duplex LC ports
    assert round(up.optics_power.m_as("W"), 1) == 384 * 17   # 6,528 W, was 3,264 W
    down = next(t for t in a.cabling.tiers if (t.fabric, t.tier) == ("storage", "access"))
    assert down.modules["mmf-800g-sr8"] == 72                 # parallel fibre (2 x SR4) still splits 4 x 200G
