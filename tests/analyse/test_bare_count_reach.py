"""Ports given as a bare count take the floor's longest run as a bound: stated (CAB004), never a CAB001 error.

From the network architect's trial: 65 GB300 NVL72 SUs with an out-of-band fabric whose 32,688 tray BMC ports are
`endpoints.extra` (the trays carry no BMC NIC part). With no rack, each run took the floor's corner-to-corner
length (263.6 m with its spine racks; 240.2 m here), so every Cat6a run failed its 100 m reach (CAB001), though a BMC's run to its rack's SN2201 is a
few metres. Here the trial's floor with its OOB fabric alone.
"""

from __future__ import annotations

from pathlib import Path

RACKS = """kind: Rack
id: su-ib
name: SU InfiniBand rack (Q3400 leaves)
facility: hall-liquid
form_factor: {standard: eia-19, height: 48 U, width: 600 mm, depth: 1200 mm, max_payload: 1500 kg, weight: 180 kg}
slots:
  - {at: 3, part: q3400, count: 8}
  - {at: 35, part: sn5600, count: 4}
  - {at: 1, part: pdu-415v-60a-3ph, count: 2}
  - {at: 40, part: pdu-415v-60a-3ph, count: 2}
power:
  feeds: {count: 4, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}
  pdus: {redundancy: N+N}
cooling:
  air: {class: A2, delta_t: 20 K}
"""

CLUSTER = """kind: Cluster
id: gb300-xdr
facility: hall-liquid
units:
  - id: su
    racks:
      - {rack: gb300-nvl72, count: 4}
      - {rack: su-ib, count: 1}
      - {rack: gb300-nvl72, count: 4}
layout:
  - {unit: su, count: 65}
floor: {racks_per_row: 18, rack_pitch: 600 mm, row_pitch: 3.6 m, tray_drop: 1.5 m, slack: 2 m}
scale_up: {domain: rack, size: 72, bandwidth: 1.8 TB/s, switch: nvlink5-switch-tray, switches: 9,
           link: nvlink-copper-cartridge}
fabrics:
  - id: oob
    topology: fat-tree
    role: management
    speed: 1 Gb/s
    switch: sn2201
    tiers: auto
    endpoints: {nodes: false, switches: false, extra: 32688}
    leaf: {uplinks: 2, uplink_speed: 100 Gb/s, rack: gb300-nvl72}
    spine: {switch: sn4600c}
    core: {switch: sn4600c}
    links:
      access: [cat6a-1g]
      leaf_spine: [dac-100g-qsfp28, mmf-100g-sr4]
      spine_core: [mmf-100g-sr4]
"""


def test_a_bare_count_past_reach_at_its_bound_is_an_assumption_not_an_error(tmp_path: Path):
    from archgen.pipeline import run
    (tmp_path / "racks.yaml").write_text(RACKS, encoding="utf-8")
    (tmp_path / "cluster.yaml").write_text(CLUSTER, encoding="utf-8")
    r = run([tmp_path])
    reach = [f.message for f in r.findings if f.id == "CAB001" and f.message.startswith("access")]
    assert reach == []
    bound = [(f.severity, f.location.line, f.message) for f in r.findings
             if f.id == "CAB004" and "endpoints.extra" in f.message]
    assert bound == [("warning", 22, "access: 32688 link(s) from ports given as a count (endpoints.extra) have no "
                                     "rack; their length is bounded by 240.2 m, the longest run the floor holds, "
                                     "past the 100 m reach of cat6a-1g: reach not checked for them")]
