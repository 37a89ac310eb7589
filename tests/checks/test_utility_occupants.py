"""sites31: another cluster's hall on a facility's utility feeds counts x the facility's PUE, as on its generator sets.

PWR011 holds the utility feeds to the facility power (IT power x `peak_pue`, else the annual PUE), as the generator
sets. A cluster naming the facility summed another cluster's hall in it by `analyse.facility.hall_load` under the
stage key "utility", which it reads as the feeds' x 1, so that hall counted its racks' bare draw there while the
hall's own finding counted them x the PUE: one facility, two sums. Fixture (tests/analyse/test_own_hall_site.py):
cluster c's hall a (131.6 kW of racks, 8.1 kW of c's draw outside its racks not split by hall) and cluster d (135.66 kW,
x peak PUE 1.3 = 176.4 kW) in building a, whose utility feeds are N of 1 x 320 kW.
"""

from __future__ import annotations

import pytest

from tests.analyse.test_own_hall_site import OTHER, _site


def _utility(tmp_path, capacity: str) -> dict:
    r = _site(tmp_path, extra_a=f", utility: N, utility_units: {{count: 1, capacity: {capacity}}}", more=OTHER)
    return {f.object: f for f in r.findings if f.id == "PWR011" and "utility" in f.message and f.severity != "info"}


def test_a_cluster_naming_the_building_counts_the_halls_racks_on_its_utility_x_the_pue(tmp_path) -> None:
    """d: 176.4 + 131.6 x 1.3 = 347.4 kW, over 320 kW by 27.4 kW, as c's hall a reads it. Before: 176.4 + 131.6 =
    308.0 kW, 318.6 kW with c's rest x 1.3: d passed while c's hall a was warned on 347.4 kW."""
    got = _utility(tmp_path, "320 kW")
    assert sorted(got) == ["cluster/c", "cluster/d"]
    d = got["cluster/d"]
    assert d.severity == "warning" and "'c' hall 'a' 171.1 kW" in d.message, d.message
    assert d.value.m_as("kW") == pytest.approx(got["cluster/c"].value.m_as("kW")) == pytest.approx(347.4, abs=0.05)

