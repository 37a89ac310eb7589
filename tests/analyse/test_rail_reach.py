"""The reach of a rail-optimized fat tree counts the ports its rail leaves hold, not every down port.

From the new-user trial of a multi-plane 800G Ethernet fabric (newuser54): HGX B300 on two SN5600 planes at 400G,
2 tiers at 2:1. An SN5600 at 400G has 128 ports; 2:1 in whole 2 x 400G cages gives 86 down and 42 up
(docs/clusters.md, tier split). A rail leaf of a 32-node SU holds ⌊86 / 32⌋ = 2 rails of 32 = 64 ports, so the 8
rails of a plane take 4 leaves per SU and 22 down ports of each leaf stay free. The reach was k·d = 128 x 86 = 11,008
ports per plane, though 128 spine ports take 128 / 4 = 32 SUs = 8,192 ports; at 40 SUs NET003 said "reach 11008
ports per plane; 10240 needed ... use 3 tiers", a reach above the need it refused.
"""

from __future__ import annotations

from pathlib import Path

from tests.data.clusters.build import b300_planes

FABRIC = "cluster/b300-dual/fabric/compute"
DUAL = {"speed": "400 Gb/s", "nic_breakout": "2x400G", "tiers": 2, "planes": 2, "oversubscription": '"2:1"'}


def test_reach_counts_whole_rail_groups_on_the_spines(tmp_path: Path):
    fa = b300_planes(tmp_path, "b300-dual", 1, **DUAL).metrics[FABRIC]
    assert (fa["leaf.switches"].m, fa["links.access"].m) == (8, 512)   # 4 rail leaves a plane, 256 ports a plane
    # 128 spine ports / 4 leaves per SU = 32 SUs x 8 rails x 32 nodes = 8,192 ports a plane, 2 planes; 16 ports a node
    assert fa["max_endpoints"].m == 2 * 8192
    assert fa["max_accelerators"].m == 2 * 8192 // 16 * 8 == 8192


def test_net003_states_the_reach_it_refuses_on(tmp_path: Path):
    r = b300_planes(tmp_path, "b300-dual", 40, **DUAL)
    found = [f.message for f in r.findings if f.id == "NET003"]
    assert found == ["2 tiers of 128-port spines reach 8192 ports per plane; 10240 needed (160 leaves > 128 spine "
                     "ports): use 3 tiers, with link media for the spine-core links (`links.spine_core`)"]
