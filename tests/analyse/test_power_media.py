"""Links without link media leave IT power not provided, as they do the capex (buyer trial, issue 22, item 2).

Proposal A (the shipped GB200 SU grown to four SUs, compute fabric `tiers: auto`) has a third tier that names no
link media (CAB003: 3,072 links). Its capex was already not provided (COST002), but its IT power counted those
links' transceivers as 0 W: 4,615 kW against 4,668 kW with the tier's media named, so a facility-power requirement
read "met" on a figure short by the optics nobody chose.
"""

from __future__ import annotations

from archgen.analyse.conversion import POWER_METRICS
from archgen.compare.gap import judge_proposal
from archgen.model.requirements import Status
from archgen.pipeline import run
from tests.analyse.test_cost_media import CLUSTER, _proposal

POWER_REQUIREMENT = """\
kind: Requirements
id: buyer
requirements:
  - {id: RFP-PWR-001, statement: Facility power, subject: "cluster/*", metric: facility_power, target: "<= 7 MW"}
"""


def test_links_without_media_withhold_the_power(tmp_path):
    root = _proposal(tmp_path / "a")
    (root / "req.yaml").write_text(POWER_REQUIREMENT, encoding="utf-8")
    r = run([root])
    m = r.metrics[CLUSTER]
    assert not set(POWER_METRICS) & set(m)                     # it_power was 4,615 kW (4,668 kW with media)
    assert "network_power" not in r.metrics[f"{CLUSTER}/fabric/compute"]
    why = r.operations.withheld[CLUSTER]["it_power"]
    assert "links without link media (compute spine_core x3072; CAB003)" in why
    assert r.operations.cost[CLUSTER].energy_per_year is None
    row, = judge_proposal(r, {"buyer"}, [root / "cluster.yaml"]).rows
    assert row.status is Status.NOT_PROVIDED and "without link media" in row.note   # was met


def test_media_on_the_tier_give_the_power(tmp_path):
    r = run([_proposal(tmp_path / "a", "      spine_core: [dac-800g-osfp, mmf-800g-sr8]\n")])
    m = r.metrics[CLUSTER]
    assert {"it_power", "facility_power", "power_average", "energy_cost_per_year", "network_power"} <= set(m)
    # 4,654.96 kW before the shelves' loss (130.2 kW); 4,797.9 kW before each SU's storage leaves stood in its own
    # rack and the compute spines stopped sharing the rail leaves' slots (tests/analyse/test_leaf_placement.py)
    # 4,785.2 kW before rackfix fed the AC SN2201s from outside the busbar (no shelf loss on them); 4,785.0 kW
    # before a copper assembly was counted per pair of switches (newuser26): the 960 compute leaf-spine pairs of one
    # 400G link each take 960 twin-port DACs, not 480 (0.1 W a plug, 2 plugs, 480 more: +96 W); 4,785.1 kW before
    # the SN5600's power.max held its ports' modules (newuser26): its 288 access and 432 leaf-spine twin-port SR8
    # modules, 720 x 17 W = 12.24 kW, are inside its figure, not added on top; 4,772.9 kW before the OOB leaves were
    # sized per rack: 64 SN2201 for the 4 SUs, not 23 pooled, 82 more uplinks, 164 SR4 modules x 3.5 W = +0.57 kW
    # sized per rack: 64 SN2201 for the 4 SUs, not 23 pooled, 82 more uplinks, 164 SR4 modules x 3.5 W = +0.57 kW;
    # 4,773.4 kW before the leaf-spine runs past the twin-port DAC's longest length sold (2 m, MCP4Y10) took SR8
    # modules at 17 W (tests/analyse/test_sold_lengths.py); 4,777.9 kW before those runs took a 3 m LACC at 1.5 W an
    # end, its shortest length sold, in place of two SR8 modules (tests/analyse/test_copper_shortest_sold.py)
    assert round(m["it_power"].m_as("kW"), 1) == 4774.2
