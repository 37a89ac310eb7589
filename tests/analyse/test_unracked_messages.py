"""A switch partly in no rack is named once in the unpriced and unconfirmed-power lists, and never as "placed".

From the network architect's trial (a GB300 NVL72 cluster on Q3400 XDR whose spines name no rack): the BOM holds a
racked and an unracked line for the Q3400. COST002 listed "q3400 x4216, q3400 x768" (one part twice) and PWR012 said
"q3400 power.max (768 placed)" of switches that stand in no rack. Here two SUs whose rack holds the 8 rail leaves
and not the 8 spines (fabric `spine:` names no rack).
"""

from __future__ import annotations

from pathlib import Path

from archgen.pipeline import run

RACK = """kind: Rack
id: su-net
name: SU network rack (8 x Q3400 rail leaves)
facility: hall-liquid
form_factor: {standard: eia-19, height: 48 U, width: 600 mm, depth: 1200 mm, max_payload: 1500 kg, weight: 180 kg}
slots:
  - {at: 1, part: q3400, count: 8}
  - {at: 1, part: pdu-415v-60a-3ph, count: 4}
power:
  feeds: {count: 4, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}
  pdus: {redundancy: N+N}
cooling:
  air: {class: A2, delta_t: 20 K}
"""

CLUSTER = """kind: Cluster
id: gb300-two-su
facility: hall-liquid
units:
  - id: su
    racks:
      - {rack: gb300-nvl72, count: 4}
      - {rack: su-net, count: 1}
      - {rack: gb300-nvl72, count: 4}
layout:
  - {unit: su, count: 2}
floor: {racks_per_row: 9, rack_pitch: 600 mm, row_pitch: 3.6 m, tray_drop: 1.5 m, slack: 2 m}
scale_up: {domain: rack, size: 72, bandwidth: 1.8 TB/s, switch: nvlink5-switch-tray, switches: 9,
           link: nvlink-copper-cartridge}
fabrics:
  - id: compute
    topology: fat-tree
    role: compute
    speed: 800 Gb/s
    switch: q3400
    tiers: 2
    rail_optimized: true
    group: su
    leaf: {rack: su-net}
    links:
      access: [{a: smf-800g-dr4-rhs, b: smf-1.6t-2xdr4}]
      leaf_spine: [lacc-1.6t-xdr, smf-1.6t-2xdr4]
"""


def test_a_partly_unracked_switch_is_named_once_and_not_as_placed(tmp_path: Path):
    (tmp_path / "racks.yaml").write_text(RACK, encoding="utf-8")
    (tmp_path / "cluster.yaml").write_text(CLUSTER, encoding="utf-8")
    r = run([tmp_path])
    cost = [f.message for f in r.findings if f.id == "COST002"]
    assert len(cost) == 1 and cost[0].count("q3400 x") == 1, cost
    assert "q3400 x24" in cost[0], cost       # 16 racked rail leaves + 8 spines in no rack
    power = [f.message for f in r.findings if f.id == "PWR012"]
    assert len(power) == 1 and power[0].count("q3400 power.max") == 1, power
    assert "q3400 power.max (16 placed; 8 in no rack)" in power[0], power
