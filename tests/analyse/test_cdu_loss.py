"""One CDU of a group lost, and the hall's air side per rack (nu67fix, after newuser67's findings 1, 3 and 7).

Input: the GB300 NVL72 scalable unit (examples/gb300-nvl72-su): 8 racks of 116.9 kW to liquid on 2 class in-row CDUs
(1.3 MW, 1,950 L/min each), N+1, PG25 at 10 K; hall-liquid states no air side. Before, the rack document gave no
failure case, and the 25.1 kW each rack puts in the air went unjudged without a finding. Flows are V̇ = Q̇ / (ρ c_p
ΔT): PG25 1,015 kg/m³, 3,930 J/(kg K) (ASHRAE Fundamentals ch. 31, as `analyse.rack.COOLANTS`); water 995.6 kg/m³,
4,180 J/(kg K) (NIST).
"""

from __future__ import annotations

import pytest

from archgen.analyse.cdu_loss import cdu_loss
from archgen.analyse.facility_water import facility_water
from archgen.render.rack_cooling import cooling


def _rows(a, table: str) -> dict[str, str]:
    [sub] = [s for s in cooling(a).sections if s.id == table]
    return dict(sub.blocks[-1].rows)


def test_one_cdu_lost_leaves_the_other_carrying_the_group(example):
    a = example.racks["rack/gb300-nvl72"]
    loss = cdu_loss(a)
    load = a.cooling.cdu_load.m_as("kW")
    assert load == pytest.approx(8 * a.cooling.heat_liquid.m_as("kW"))
    assert (loss.count, loss.left, loss.capacity.m_as("kW")) == (2, 1, pytest.approx(1300))
    assert loss.each_flow.m_as("L/min") == pytest.approx(load * 1000 / (1015 * 3930 * 10) * 60_000)   # ~1,407 L/min
    assert loss.short == ()
    row = _rows(a, "liquid")["One CDU lost (COOL020)"]
    assert row.startswith(f"1,300 kW left for {load:,.1f} kW (72 %); the one left carries {load:,.1f} kW and 1,407 "
                          "L/min of secondary flow of its 1,950 L/min (the rule 1.5 L/min/kW × capacity, not a "
                          "pump rating)")   # the class CDU's flow is no pump rating (facility43)


def test_the_group_facility_water_is_a_range_at_assumed_rises(example):
    fw = facility_water(example.racks["rack/gb300-nvl72"])
    load = fw.heat.m_as("kW")
    assert fw.flow is None
    assert [q.m_as("L/min") for q in fw.span] == pytest.approx(
        [load * 1000 / (995.6 * 4180 * dt) * 60_000 for dt in (5, 10)])   # ~2,696 and ~1,348 L/min


def test_the_air_side_per_rack_is_not_provided(example):
    a = example.racks["rack/gb300-nvl72"]
    assert _rows(a, "air")["Hall air side per rack (COOL021)"] == (
        f"{a.cooling.heat_air.m_as('kW'):.1f} kW to air / not provided (the hall states no air_cooling_per_rack)")
    assert [f.id for f in example.findings if f.id == "COOL021" and f.object == "rack/gb300-nvl72"] == ["COOL021"]
