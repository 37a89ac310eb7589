"""Switch-end transceivers count in the budgets of the rack that holds the switch, and once in the cluster total.

Regression (issue 11 item 4): they were left out of the network rack's feed, PDU and heat checks and added on top
at the cluster level only.
"""

from __future__ import annotations

import pytest

from archgen.pipeline import run
from tests.conftest import SPECS
from tests.data.clusters.small import files


def test_switch_end_modules_are_in_the_network_rack(spec_tree):
    # One SU of one four-DGX H100 rack, one tier: 4 x 8 = 32 links of twin-port 800G SR8 (17 W, 2 links each)
    # from the nodes to a QM9700 leaf in the 'net' rack: 16 modules at each end, 16 x 17 W = 272 W per end.
    result = run([spec_tree(files(racks=1, sus=1, tiers=1))])
    net, c4 = result.racks["rack/net"], result.racks["rack/c4"]
    assert net.power.optics.m_as("W") == pytest.approx(16 * 17)
    assert net.power.it_power == net.power.equipment + net.power.optics
    assert net.cooling.heat_air.m_as("W") == pytest.approx(net.power.input_power.m_as("W"))  # air-cooled rack
    assert c4.power.optics.m_as("W") == 0  # the node ends are the systems' own
    cluster = result.clusters["cluster/c"]
    # Each transceiver once: racks' equipment + every module (both ends, 544 W) + switches outside racks (none).
    equipment = c4.power.equipment + net.power.equipment
    assert cluster.metrics["optics_power"].m_as("W") == pytest.approx(32 * 17)
    assert cluster.metrics["it_power"].m_as("W") == pytest.approx(equipment.m_as("W") + 32 * 17)


def test_shipped_clusters_count_each_transceiver_once():
    result = run([SPECS])
    for cluster in result.clusters.values():
        racks = sum(result.racks[f"rack/{rid}"].power.equipment * n for rid, n in cluster.cluster.rack_counts.items())
        unplaced = sum((line.total_power for line in cluster.cabling.bom if line.note == "not placed in a rack"),
                       0 * racks)
        expected = racks + cluster.metrics["optics_power"] + unplaced
        assert cluster.metrics["it_power"].m_as("kW") == pytest.approx(expected.m_as("kW"))
    # The leaf racks of the DGX B200 SuperPOD now carry their leaves' transceivers (5.07 kW, before: none).
    leaf = result.racks["rack/dgx-b200-leaf"]
    assert leaf.power.optics.m_as("kW") > 4
    assert leaf.power.input_power == leaf.power.it_power
