"""Leaves stand beside the nodes they serve, and no slot holds two switches (a network architect's trial).

Input: two scalable units of GB300 NVL72 racks, each SU one row with its own network rack holding the XDR rail
leaves (Q3400) and the storage / in-band leaves (SN5600); the compute spines share the Q3400 slots of those racks,
the storage spines the SN5600 ones. Before:

- the storage leaves (a plain fat tree, no rail groups; 36 ports broken out 4 x 200G, one leaf per SU's 144
  BlueField-3 ports) filled the SN5600 slots in floor order: SU 0's rack took both leaves, so SU 1's 144 storage
  ports crossed to the other row (11.0 m runs) while free slots stood in their own rack;
- the compute spines took the Q3400 slots after the leaves' count in floor order (`slots[16:]`), which in SU 1's
  rack were the slots its rail leaves already held: two switches in one slot, their runs and optics charged twice
  to that rack.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from archgen.pipeline import run
from tests.conftest import write_tree
from tests.data.clusters.build import ETH_200G_ACCESS, fabric, gb300_cluster, rack, xdr_compute

NET_RACK = rack("su-net", [(1, "q3400", 10), (41, "sn5600", 4)], [(1, 4)], facility="hall-liquid",
                name="SU network rack (8 x Q3400 rail leaves, SN5600 storage leaves)")

CLUSTER = gb300_cluster("gb300-two-su", "su-net", [
    xdr_compute(2, leaf="{rack: su-net}", spine="{rack: su-net}"),
    fabric("storage", {"access": ETH_200G_ACCESS, "leaf_spine": "[dac-800g-osfp, mmf-800g-sr8]"},
           topology="fat-tree", role="converged", nic_role="storage", ports_per_node=1, speed="200 Gb/s",
           switch="sn5600", tiers=2,
           leaf="{rack: su-net, down: {ports: 1-36, breakout: 4x200G}, up: {ports: 37-64}}",  # 144 x 200G down
           spine="{rack: su-net}")])


def _analysis(tmp_path):
    root = write_tree(tmp_path, {"racks/net.yaml": NET_RACK, "clusters/c.yaml": CLUSTER})
    r = run([root])
    return r, r.clusters["cluster/gb300-two-su"]


def test_plain_leaves_stand_in_the_unit_of_their_nodes(tmp_path):
    _, a = _analysis(tmp_path)
    inst = a.cluster.instances
    runs = next(t for t in a.cabling.runs if (t.fabric, t.tier) == ("storage", "access"))
    node_su = np.array([inst[r].unit_index for r in runs.a_rack])
    leaf_su = np.array([inst[r].unit_index if r >= 0 else -1 for r in runs.b_rack])
    # was {(0, 0): 144, (1, 0): 144}: both leaves in SU 0's rack
    assert Counter(zip(node_su.tolist(), leaf_su.tolist(), strict=True)) == {(0, 0): 144, (1, 1): 144}
    assert round(float(runs.length.max()), 1) == 7.4     # within the row (was 11.0 m, across to the other row)
    uplinks = next(t for t in a.cabling.runs if (t.fabric, t.tier) == ("storage", "leaf_spine"))
    assert round(float(uplinks.length.max()), 1) == 8.6  # SU 1's leaf to the spines in SU 0's rack: 28 uplinks cross


def test_no_slot_holds_two_switches(tmp_path):
    r, a = _analysis(tmp_path)
    at: dict[tuple[int, int], set[str]] = {}
    for t in a.cabling.runs:
        lower, upper = {"access": (None, "leaf"), "leaf_spine": ("leaf", "spine")}[t.tier]
        for tier, racks, us in ((lower, t.a_rack, t.a_u), (upper, t.b_rack, t.b_u)):
            if tier is None:
                continue
            for pos in {(int(x), int(u)) for x, u in zip(racks, us, strict=True) if x >= 0}:
                at.setdefault(pos, set()).add(f"{t.fabric} {tier}")
    assert {pos: who for pos, who in at.items() if len(who) > 1} == {}   # compute spines sat on SU 1's leaves
    assert Counter(who for s in at.values() for who in s) == {
        "compute leaf": 16, "compute spine": 4, "storage leaf": 2, "storage spine": 2}
    short, = (f for f in r.findings if f.id == "NET012")
    assert short.message == ("cluster/gb300-two-su/fabric/compute: spine needs 8 x q3400; the 'su-net' racks hold "
                             "20, 16 already taken (16 by compute leaf)")   # was "16 taken by other fabrics"
