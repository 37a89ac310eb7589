"""sites31: where another cluster's hall stands in a facility and that cluster's rest is not provided, it is said.

review45's open item 3: `occupants.over_facility` summed another cluster's hall by its racks and, where the racks fit,
looked at that cluster's draw outside its racks (not split by hall) to tell whether the split decides; where that
draw was not provided (its IT power unknown) it said nothing, a pass. Fixture (tests/analyse/test_own_hall_site.py):
cluster c's hall a (131.6 kW of racks) and cluster d (135.66 kW) in building a, 300 kW of critical IT power.
"""

from __future__ import annotations

from tests.analyse.test_own_hall_site import OTHER, _site


def test_a_halls_cluster_whose_rest_is_not_provided_is_named_not_passed(tmp_path) -> None:
    """review45's open item: c's IT power not provided (as where a fabric names no link media, CAB003), so its draw
    outside its racks is not known; d and c's hall a's racks (267.3 kW) fit 300 kW. Before: d passed silently; now an
    info finding names c's share as not provided, not judged past the racks."""
    from archgen.checks.hall_load import over_hall

    r = _site(tmp_path, deployed_a="critical_it_power: 300 kW\n", more=OTHER)
    del r.clusters["cluster/c"].metrics["it_power"]
    got = [(sev, str(msg)) for p, _, _, msg, _, _, sev in over_hall(r.clusters, "critical_it_power",
                                                                       "critical IT power") if p == "cluster/d"]
    assert [sev for sev, _ in got] == ["info"], got
    assert "'c''s draw outside its racks" in got[0][1] and "not judged past" in got[0][1], got
