"""review45: a headroom metric reads the facility's occupants as PWR010 sums them (`checks.occupants.over_facility`).

power30 summed a facility's occupants once for PWR010, COOL009 and PWR011: the run's clusters naming it and the halls
of other clusters' floors naming it. The headrooms (`analyse.facility.hall_headrooms`) still summed the clusters
naming it only (`hall_groups.fellows`), so a cluster naming building a beside another cluster's hall in it read the
building's capacity less its own load alone: more room than PWR010 judges. Fixture (tests/analyse/test_own_hall_site.py):
cluster c's hall a (one GB200 NVL72 rack, 131.60 kW of racks; c draws 8.13 kW outside its racks, not split by hall)
stands in building a (300 kW critical IT power; UPS N+1 of 3 x 150 kW, 300 kW usable; generator sets N+1 of
3 x 250 kW, 500 kW usable; peak PUE 1.3); cluster d (one rack, 135.66 kW) names building a as its `facility`.
"""

from __future__ import annotations

import pytest

from tests.analyse.test_own_hall_site import OTHER, _site


def _d(tmp_path, requirement: str = ""):
    r = _site(tmp_path, deployed_a="critical_it_power: 300 kW\n", more=OTHER + requirement)
    return r, r.metrics["cluster/d"], r.metrics["cluster/c"]


def test_a_headroom_counts_another_clusters_hall_in_the_facility(tmp_path) -> None:
    """d's IT capacity headroom: 300 - 135.66 - 131.60 = 32.7 kW (was 164.3 kW, c's hall left out), the UPS's the
    same (lossless distribution), the generators' 500 - (135.66 + 131.60) x 1.3 = 152.6 kW (was 323.6 kW)."""
    _, d, c = _d(tmp_path)
    load = d["it_power"].m_as("kW") + c["hall_power.a"].m_as("kW")
    assert load == pytest.approx(267.3, abs=0.05)
    assert d["it_capacity_headroom"].m_as("kW") == pytest.approx(300 - load)
    assert d["ups_headroom"].m_as("kW") == pytest.approx(300 - load)
    assert d["generator_headroom"].m_as("kW") == pytest.approx(500 - 1.3 * load)


def test_a_headroom_beside_a_hall_is_a_range_its_unsplit_rest_decides(tmp_path) -> None:
    """c's 8.13 kW outside its racks may stand in hall a: d's IT capacity headroom lies between 24.6 and 32.7 kW, so
    `it_capacity_headroom >= 30 kW` is not provided (met at one end only), `>= 20 kW` met, `>= 40 kW` not met."""
    req = """---
kind: Requirements
id: room
requirements:
- {{id: ROOM-30, statement: Room, metric: it_capacity_headroom, target: ">= 30 kW", subject: cluster/d}}
- {{id: ROOM-20, statement: Room, metric: it_capacity_headroom, target: ">= 20 kW", subject: cluster/d}}
- {{id: ROOM-40, statement: Room, metric: it_capacity_headroom, target: ">= 40 kW", subject: cluster/d}}
"""
    r, d, c = _d(tmp_path, req.format())
    rest = c["it_power"].m_as("kW") - c["it_power_racks"].m_as("kW")
    other, why = r.operations.unsettled["cluster/d"]["it_capacity_headroom"]
    assert other.m_as("kW") == pytest.approx(d["it_capacity_headroom"].m_as("kW") - rest)
    assert other.m_as("kW") == pytest.approx(24.6, abs=0.05) and "'c' hall 'a'" in why
    status = {j.outcome.requirement.id: j.outcome.status.value for j in r.requirements
              if j.outcome.requirement.id.startswith("ROOM")}
    assert "lies between 24.62 kW and 32.74 kW" in next(j.outcome.note for j in r.requirements
                                                          if j.outcome.requirement.id == "ROOM-30")
    assert status == {"ROOM-30": "not provided", "ROOM-20": "met", "ROOM-40": "not met"}


def test_the_cluster_document_gives_the_headroom_as_a_range_naming_the_hall(tmp_path) -> None:
    """d's document: "300 kW, headroom 24.6 kW to 32.7 kW ... (the hall's, with 'c' hall 'a')" (was 164.3 kW)."""
    from archgen.render.cluster import cluster_scope
    from archgen.render.datacentre import datacentre

    r, _, _ = _d(tmp_path)
    a = r.clusters["cluster/d"]
    scope, _ = cluster_scope(r, a, "r", "2026-01-01")
    rows = {b.id: dict(b.rows) for b in datacentre(scope, a).blocks if hasattr(b, "rows")}
    got = rows["dc-hall"]["Critical IT power"]
    assert got.startswith("300 kW, headroom 24.6 kW to 32.7 kW") and got.endswith("(the hall's, with 'c' hall 'a')")


def test_pwr010_warns_where_the_other_clusters_unsplit_rest_decides(tmp_path) -> None:
    """At 270 kW the racks fit (131.60 + 135.66 = 267.3 kW), but with c's 8.13 kW outside its racks, not split by
    hall, 275.4 kW would not: PWR010 warns d and c's hall a that the split decides (before, both passed silently,
    while the headroom reads -5.4 to 2.7 kW)."""
    r = _site(tmp_path, deployed_a="critical_it_power: 270 kW\n", more=OTHER)
    got = {f.object: f for f in r.findings if f.id == "PWR010" and f.severity != "info"}
    assert sorted(got) == ["cluster/c", "cluster/d"], [f.message for f in r.findings if f.id == "PWR010"]
    for f in got.values():
        assert f.severity == "warning" and "it would be 275.4 kW" in f.message and "the split decides" in f.message
        assert f.value.m_as("kW") == pytest.approx(267.3, abs=0.05)
    assert got["cluster/c"].key == "floor.halls[a].facility"


def test_a_halls_step_counts_with_the_clusters_naming_its_facility(tmp_path) -> None:
    """PWR022's summed step (`hall_step`) under building a's 200 kW `load_step_limit`: d's whole IT power 135.7 kW
    (no smoothing) and c's hall a at most its racks' 131.6 kW with all of c's 8.1 kW outside racks: 275.4 kW, over,
    not provided (info: no `deployed`). Before, d's step was judged alone (within by 64.3 kW) and c's hall unnamed."""
    r = _site(tmp_path, extra_a=", load_step_limit: 200 kW", more=OTHER)
    got = [f for f in r.findings if f.id == "PWR022" and f.object == "cluster/d" and "not provided" in f.message]
    assert len(got) == 1 and "'c' hall 'a' 139.7 kW" in got[0].message, [f.message for f in r.findings
                                                                          if f.id == "PWR022"]
    assert got[0].value.m_as("kW") == pytest.approx(275.4, abs=0.05) and got[0].severity == "info"


def test_diff_names_the_hall_that_joined_the_facility(tmp_path) -> None:
    """`archgen diff`: d's headroom moves by c's hall a's 131.6 kW of racks when c joins the run (power30's sum): the
    row says "cluster/c hall 'a' joined facility 'building-a'" (before, nothing: only clusters naming it were told)."""
    from archgen.compare.diff import compare
    from tests.analyse.test_own_hall_site import CLUSTER, HALL
    from tests.conftest import run_specs

    halls = "".join(HALL.format(id=i, pue=1.2, peak=1.3, extra="", deployed="critical_it_power: 300 kW\n")
                    for i in ("building-a", "building-b", "campus"))
    base = run_specs(tmp_path / "base", {"specs.yaml": halls + OTHER})
    head = run_specs(tmp_path / "head", {"specs.yaml": halls + CLUSTER + OTHER})
    [row] = [c for c in compare(base, head).metrics if (c.object, c.metric) == ("cluster/d", "it_capacity_headroom")]
    assert row.change.m_as("kW") == pytest.approx(-head.metrics["cluster/c"]["hall_power.a"].m_as("kW"))
    assert row.hall.startswith("cluster/c hall 'a' joined facility 'building-a'"), row.hall


def test_pwr011_warns_where_the_other_clusters_unsplit_rest_decides(tmp_path) -> None:
    """Building a's UPS (300 kW usable) behind a 0.9-efficient distribution: the racks put (135.66 + 131.60) / 0.9 =
    297.0 kW on it, with c's 8.13 kW outside its racks 306.0 kW: a warning on d and on c's hall a that the split
    decides (before, both passed)."""
    r = _site(tmp_path, extra_a=", distribution_efficiency: 0.9", more=OTHER)
    got = {f.object: f for f in r.findings if f.id == "PWR011" and "UPS" in f.message and f.severity != "info"}
    assert sorted(got) == ["cluster/c", "cluster/d"], [f.message for f in r.findings if f.id == "PWR011"]
    for f in got.values():
        assert f.severity == "warning" and "it would be 306.0 kW" in f.message and "the split decides" in f.message
        assert f.value.m_as("kW") == pytest.approx(297.0, abs=0.05)
