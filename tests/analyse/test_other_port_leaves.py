"""Switch management ports are cabled to the nearest OOB leaf with a free port, not to the leaves in order.

Input (a network architect's trial, kept whole): 65 SUs of GB300 NVL72 on a 3-tier XDR fabric, a 200G front end and
an OOB fabric of SN2201 leaves in the compute racks (`endpoints.switches: true`), the spine racks in rows after the
SUs. The management ports of the switches took the leaves' free ports leaf by leaf in floor order, so the spine
rows' 720 Q3400 management ports landed on SN2201s in SUs 9 and 10: 4,276 Cat6a runs up to 229.4 m, CAB001, a
length no installer would pull past the SN2201s of the SUs beside the spine rows.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from archgen.pipeline import run
from tests.conftest import REPO, write_tree
from tests.data.clusters.build import ETH_200G_ACCESS, SU_IB_RACK, fabric, gb300_cluster, oob, rack, xdr_compute

RACKS = SU_IB_RACK + "---\n" + rack("spine-ib", [(3, "q3400", 8)], [(1, 2), (40, 2)], name="Spine rack (Q3400)",
                                    facility="hall-liquid")

CLUSTER = gb300_cluster("gb300-xdr", "su-ib", [
    xdr_compute(3, leaf="{rack: su-ib}", spine="{rack: spine-ib}", core="{rack: spine-ib}"),
    fabric("frontend", {"access": ETH_200G_ACCESS,
                        "leaf_spine": "[mmf-800g-sr8, smf-800g-dr8, smf-800g-fr4]",
                        "spine_core": "[smf-800g-dr8, smf-800g-fr4]"},
           topology="fat-tree", role="converged", nic_role="storage", ports_per_node=2, speed="200 Gb/s",
           switch="sn5600", tiers="auto", leaf="{rack: su-ib}"),
    oob("{nodes: false, switches: true, extra: 32688}")],
    sus=65, name="GB300 NVL72 cluster, XDR 3 tiers", racks_per_row=18,
    after=["{rack: spine-ib, count: 90, new_row: true}"])


def test_spine_row_management_ports_reach_a_near_leaf(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"racks/net.yaml": RACKS, "clusters/xdr.yaml": CLUSTER})
    r = run([REPO / "specs", root], select=("CAB",))
    assert not [f for f in r.findings if f.id == "CAB001" and f.object.endswith("/oob")]
    cab = r.clusters["cluster/gb300-xdr"].cabling
    tr = next(t for t in cab.runs if (t.fabric, t.tier) == ("oob", "access"))
    placed = tr.a_rack >= 0                                   # management ports; the BMC count has no rack
    # 7,220 switch management ports with one per switch; a GB300 rack's 9 NVLink switch trays have three each (BMC,
    # ComE1, ComE2: nvlink5-switch-tray), 65 SUs x 8 racks x 9 trays x 2 more = 9,360
    assert int(placed.sum()) == 7220 + 65 * 8 * 9 * 2 == 16580
    assert float(tr.length[placed].max()) < 40                # was 229.4 m, then 86.6 m (SUs 53-65 had no leaf)
    # the 832 OOB leaves (management and BMC-count ports only) spread over the 1,040 slots: every SU holds some
    assert len({cab.rack_names[i].split("/")[0] for i in set(tr.b_rack.tolist()) if i >= 0}) == 65
    spine = np.array([cab.rack_names[i].startswith("spine-ib") for i in tr.a_rack[placed]])
    # every spine-row management port on a leaf of the SUs beside the spine rows (before: SUs 49-51)
    assert {cab.rack_names[i].split("/")[0] for i in tr.b_rack[placed][spine]} <= {"su64", "su65"}
    assert tr.b_switch is not None and len(tr.b_switch) == len(tr.a_rack)
