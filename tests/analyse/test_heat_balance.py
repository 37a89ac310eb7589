"""Energy is conserved between two figures of one design: the racks' heat plus that of the parts in no rack is the
cluster's feed power (its IT power and its racks' own cooling units), to the watt (hall2's note, power3).

Before, the racks' heat summed each rack type's analysis over its instances, and that analysis carries the optics
of the type's most loaded instance (its budgets need the worst). The cluster's IT power counts each module once,
from the cabling. The shipped DGX B200 SuperPOD read 1,924.437 kW of rack heat for 1,923.568 kW at the feeds:
0.87 kW created, the 1,049 W by which the less loaded leaf, spine and compute racks were counted as the most loaded
one, less the 180 W of modules at link ends in no rack (endpoints stated as a count). hall2's 14 W on the GB200 SU
(before the OOB leaves were sized per rack, main d608e885) had the same cause: its Ethernet racks' optics were
5,070.8 W as the most loaded instance x count, 5,056.8 W instance by instance, as the cabling counts them.
"""

from __future__ import annotations

import pytest

from archgen.analyse.optics import instance_optics, rack_optics
from archgen.analyse.rack_heat import rack_heat, unracked_heat
from archgen.units import Q_


def _balance(run):
    for path, a in sorted(run.clusters.items()):
        m = run.metrics[path]
        if "it_power" not in m:
            continue
        heat = rack_heat(a, run.racks).total + unracked_heat(a)
        fed = m["it_power"] + m.get("rack_cooling_power", Q_(0, "kW"))
        yield path, heat.m_as("W"), fed.m_as("W")


def test_heat_is_feed_power_for_every_shipped_cluster(shipped, example):
    rows = [*_balance(shipped), *_balance(example)]
    assert len(rows) >= 5
    for path, heat, fed in rows:
        assert heat == pytest.approx(fed, abs=1.0), path


def test_each_rack_instance_counts_its_own_optics(shipped):
    a = shipped.clusters["cluster/dgx-b200-superpod"]
    racks = shipped.racks
    old = sum((racks[f"rack/{rid}"].cooling.heat * n for rid, n in a.cluster.rack_counts.items()), Q_(0, "kW"))
    worst = rack_optics(a)
    # PDU-fed racks: no shelf loss, so the over-count is the optics of the most loaded instance less each one's own
    over = sum(worst[rid].m_as("W") * n for rid, n in a.cluster.rack_counts.items() if rid in worst)
    over -= float(instance_optics(a).sum())
    # 1,049 W before review50: the instances now hold the leaves' 2 twin-port modules (34 W) the per-rack count
    # packed across two leaves, which their most loaded instance already held
    assert over == pytest.approx(1015.0)
    assert (old - rack_heat(a, racks).total).m_as("W") == pytest.approx(over, abs=1e-6)
    assert unracked_heat(a).m_as("W") == pytest.approx(180.0)   # modules at endpoints stated as a count
