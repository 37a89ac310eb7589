"""Switch management ports are cabled to the nearest OOB leaf with a free port, not to the leaves in order.

Input (a network architect's trial, kept whole): 65 SUs of GB300 NVL72 on a 3-tier XDR fabric, a 200G front end and
an OOB fabric of SN2201 leaves in the compute racks (`endpoints.switches: true`), the spine racks in rows after the
SUs. The management ports of the switches took the leaves' free ports leaf by leaf in floor order, so the spine
rows' 720 Q3400 management ports landed on SN2201s in SUs 9 and 10: 4,276 Cat6a runs up to 229.4 m, CAB001, a
length no installer would pull past the SN2201s of the SUs beside the spine rows.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np

from archgen.pipeline import run
from tests.conftest import REPO, write_tree

RACKS = textwrap.dedent("""\
    kind: Rack
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
    ---
    kind: Rack
    id: spine-ib
    name: Spine rack (Q3400)
    facility: hall-liquid
    form_factor: {standard: eia-19, height: 48 U, width: 600 mm, depth: 1200 mm, max_payload: 1500 kg, weight: 180 kg}
    slots:
      - {at: 3, part: q3400, count: 8}
      - {at: 1, part: pdu-415v-60a-3ph, count: 2}
      - {at: 40, part: pdu-415v-60a-3ph, count: 2}
    power:
      feeds: {count: 4, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}
      pdus: {redundancy: N+N}
    cooling:
      air: {class: A2, delta_t: 20 K}
""")

CLUSTER = textwrap.dedent("""\
    kind: Cluster
    id: gb300-xdr
    name: GB300 NVL72 cluster, XDR 3 tiers
    facility: hall-liquid
    units:
      - id: su
        racks:
          - {rack: gb300-nvl72, count: 4}
          - {rack: su-ib, count: 1}
          - {rack: gb300-nvl72, count: 4}
    layout:
      - {unit: su, count: 65}
      - {rack: spine-ib, count: 90, new_row: true}
    floor: {racks_per_row: 18, rack_pitch: 600 mm, row_pitch: 3.6 m, tray_drop: 1.5 m, slack: 2 m}
    scale_up:
      domain: rack
      size: 72
      bandwidth: 1.8 TB/s
      switch: nvlink5-switch-tray
      switches: 9
      link: nvlink-copper-cartridge
    fabrics:
      - id: compute
        topology: fat-tree
        role: compute
        speed: 800 Gb/s
        switch: q3400
        tiers: 3
        rail_optimized: true
        group: su
        leaf: {rack: su-ib}
        spine: {rack: spine-ib}
        core: {rack: spine-ib}
        links:
          access:
            - {a: smf-800g-dr4-rhs, b: smf-1.6t-2xdr4}
          leaf_spine: [lacc-1.6t-xdr, smf-1.6t-2xdr4]
          spine_core: [smf-1.6t-2xdr4]
      - id: frontend
        topology: fat-tree
        role: converged
        nic_role: storage
        ports_per_node: 2
        speed: 200 Gb/s
        switch: sn5600
        tiers: auto
        leaf: {rack: su-ib}
        links:
          access:
            - {a: dac-400g, b: dac-800g-osfp}
            - {a: mmf-400g-sr4, b: mmf-800g-sr8}
          leaf_spine: [mmf-800g-sr8, smf-800g-dr8, smf-800g-fr4]
          spine_core: [smf-800g-dr8, smf-800g-fr4]
      - id: oob
        topology: fat-tree
        role: management
        speed: 1 Gb/s
        switch: sn2201
        tiers: auto
        endpoints: {nodes: false, switches: true, extra: 32688}
        leaf: {uplinks: 2, uplink_speed: 100 Gb/s, rack: gb300-nvl72}
        spine: {switch: sn4600c}
        core: {switch: sn4600c}
        links:
          access: [cat6a-1g]
          leaf_spine: [dac-100g-qsfp28, mmf-100g-sr4]
          spine_core: [mmf-100g-sr4]
""")


def test_spine_row_management_ports_reach_a_near_leaf(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"racks/net.yaml": RACKS, "clusters/xdr.yaml": CLUSTER})
    r = run([REPO / "specs", root], select=("CAB",))
    assert not [f for f in r.findings if f.id == "CAB001" and f.object.endswith("/oob")]
    cab = r.clusters["cluster/gb300-xdr"].cabling
    tr = next(t for t in cab.runs if (t.fabric, t.tier) == ("oob", "access"))
    placed = tr.a_rack >= 0                                   # management ports; the BMC count has no rack
    assert int(placed.sum()) == 7220
    assert float(tr.length[placed].max()) < 40                # was 229.4 m, then 86.6 m (SUs 53-65 had no leaf)
    # the 832 OOB leaves (management and BMC-count ports only) spread over the 1,040 slots: every SU holds some
    assert len({cab.rack_names[i].split("/")[0] for i in set(tr.b_rack.tolist()) if i >= 0}) == 65
    spine = np.array([cab.rack_names[i].startswith("spine-ib") for i in tr.a_rack[placed]])
    # every spine-row management port on a leaf of the SUs beside the spine rows (before: SUs 49-51)
    assert {cab.rack_names[i].split("/")[0] for i in tr.b_rack[placed][spine]} <= {"su64", "su65"}
    assert tr.b_switch is not None and len(tr.b_switch) == len(tr.a_rack)
