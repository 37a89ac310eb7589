"""A cluster's IT power is at the rack feeds: power-shelf conversion losses count (buyer trial, issue 22).

A GB200 NVL72 rack's parts draw 131.61 kW from its DC busbar; its eight shelves at 97 % efficiency draw
131.61 / 0.97 = 135.68 kW from the feeds (the rack's `input_power`). Before, the cluster's `it_power`,
`facility_power`, energy and the hall's headroom summed the busbar figure (the shipped SU: 1,114.96 kW), while
DGX B200 and MI355X racks, fed by PDUs, count at their AC feeds: two bases in one comparison. Now every cluster's
IT power is the sum of its racks' feed draws (optics counted once), so the SU reads 1,146.25 kW.
"""

from __future__ import annotations

import pytest

from archgen.units import Q_


@pytest.mark.parametrize("cid", ["gb200-nvl72-su", "dgx-b200-superpod", "mi355x-th5"])
def test_it_power_is_the_racks_feed_draw(shipped, cid):
    a = shipped.clusters[f"cluster/{cid}"]
    feeds = sum((shipped.racks[f"rack/{rid}"].power.input_power * n for rid, n in a.cluster.rack_counts.items()),
                Q_(0, "kW"))
    # the racks' optics are those of their most loaded instance (DGX: 0.9 kW over); the cluster counts each once
    assert a.metrics["it_power"].m_as("kW") == pytest.approx(feeds.m_as("kW"), rel=1e-3)  # GB200: was 2.8 % under


def test_the_shelf_loss_is_stated_and_carried_into_facility_and_energy(shipped):
    m = shipped.metrics["cluster/gb200-nvl72-su"]
    rack = shipped.racks["rack/gb200-nvl72"].power
    # The shelves carry all but the SN2201 pair (0.197 kW, fed from outside the busbar: power.external)
    assert m["shelf_loss"].m_as("kW") == pytest.approx(8 * (131.61 - 0.197) * (1 / 0.97 - 1), abs=0.01)
    assert rack.input_power.m_as("kW") == pytest.approx(135.67, abs=0.01)     # 135.68 before rackfix
    # 1147.48 before SN5600 held its 72 x 17 W; 1146.25 before the OOB leaves sized per rack (16, not 6: 20 more uplinks, 40 more 100G SR4 modules x 3.5 W = +0.14 kW)
    # + the leaf-spine runs past the DAC's 2 m longest length sold: 66 LACC at 3 m (2 ends x 1.5 W) in place of 66
    # DACs (2 ends x 0.1 W); they took 132 twin-port SR8 modules x 17 W before newuser80: catalog power_per_end figures
    assert m["it_power"].m_as("kW") == pytest.approx(1146.25 + 40 * 0.0035 + 66 * 2 * (0.0015 - 0.0001), abs=0.01)
    pue = shipped.clusters["cluster/gb200-nvl72-su"].cluster.facility.cost.energy.pue
    assert m["facility_power"].m_as("kW") == pytest.approx(m["it_power"].m_as("kW") * pue)
    assert m["power_average"].m_as("kW") == pytest.approx(m["it_power_typical"].m_as("kW"))
    # was 1,090.08; + 32.56 before rackfix put the SN2201s off the busbar; + 0.14 kW of OOB uplink modules since the
    # OOB leaves are sized per rack
    # + 66 LACC x 3 W less 66 DACs x 0.2 W of the leaf-spine runs past the DAC's 2 m longest length sold (132 SR8
    # modules x 17 W until newuser80)
    assert m["power_average"].m_as("kW") == pytest.approx(1090.08 + 32.51 + 40 * 0.0035 + 66 * (0.003 - 0.0002),
                                                          abs=0.01)
    for cid in ("dgx-b200-superpod", "mi355x-th5"):                                  # fed by PDUs: no shelf loss
        assert shipped.metrics[f"cluster/{cid}"]["shelf_loss"].m == 0
