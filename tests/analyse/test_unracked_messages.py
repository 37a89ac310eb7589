"""A switch partly in no rack is named once in the unpriced and unconfirmed-power lists, and never as "placed".

From the network architect's trial (a GB300 NVL72 cluster on Q3400 XDR whose spines name no rack): the BOM holds a
racked and an unracked line for the Q3400. COST002 listed "q3400 x4216, q3400 x768" (one part twice) and PWR012 said
"q3400 power.max (768 placed)" of switches that stand in no rack. Here two SUs whose rack holds the 8 rail leaves
and not the 8 spines (fabric `spine:` names no rack).
"""

from __future__ import annotations

from pathlib import Path

from archgen.pipeline import run
from tests.data.clusters.build import gb300_cluster, rack, xdr_compute

RACK = rack("su-net", [(1, "q3400", 8)], [(1, 4)], name="SU network rack (8 x Q3400 rail leaves)",
            facility="hall-liquid")
CLUSTER = gb300_cluster("gb300-two-su", "su-net", [xdr_compute(2, leaf="{rack: su-net}")])


def test_a_partly_unracked_switch_is_named_once_and_not_as_placed(tmp_path: Path):
    (tmp_path / "racks.yaml").write_text(RACK, encoding="utf-8")
    (tmp_path / "cluster.yaml").write_text(CLUSTER, encoding="utf-8")
    r = run([tmp_path])
    cost = [f.message for f in r.findings if f.id == "COST002"]
    assert len(cost) == 1 and cost[0].count("q3400 x") == 1, cost
    assert "q3400 x24" in cost[0], cost       # 16 racked rail leaves + 8 spines in no rack
    power = [f.message for f in r.findings if f.id == "PWR012"]
    unconfirmed, psus = power[0].split("; IT power and the budgets on it are upper bounds")   # PWR012's two parts
    assert len(power) == 1 and unconfirmed.count("q3400 power.max") == 1, power
    assert "q3400 power.max and power_includes_optics (16 placed; 8 in no rack)" in unconfirmed, power
    # its maximum is its active PSUs' output (q3400.yaml: 4 of 8 x 875 W, N+N), named once there too (nu73fix)
    assert psus.count("q3400 power.max 3.5 kW, its active PSUs' output") == 1 and "(16 placed; 8 in no rack)" in psus
