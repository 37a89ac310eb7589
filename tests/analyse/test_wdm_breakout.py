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
from tests.data.clusters.build import fabric, gb300_cluster, rack

SPECS = {
    "racks/net.yaml": rack("su-eth", [(3, "sn5600", 5)], [(1, 2)], name="SU Ethernet rack (SN5600)",
                           facility="hall-liquid"),
    "clusters/c.yaml": gb300_cluster("gb300-su", "su-eth", [
        fabric("storage", {"access": "[{a: mmf-400g-sr4, b: mmf-800g-sr8}]", "leaf_spine": "[smf-800g-fr4]"},
               topology="fat-tree", role="converged", nic_role="storage", ports_per_node=2, speed="200 Gb/s",
               switch="sn5600", tiers=2, leaf="{rack: su-eth}", spine="{rack: su-eth}")], sus=1),
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
