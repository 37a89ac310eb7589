"""hall29fix: on a site whose halls name their own facilities, the site's figures come from those facilities.

Before, `facility_power` and `facility_power_peak` were the cluster's IT power x the PUEs of its one `facility`
('campus' here: 1.6 and 1.9), which holds none of the halls once they name theirs; PWR023 named the campus's UPS
modules, and PWR020 refused a building's `deployed` listing a cluster whose hall stands in it ("names facility
'campus'"). Fixture: one GB200 NVL72 rack in each of two buildings (tests/analyse/test_own_hall_figures.py).
"""

from __future__ import annotations

import pytest

from tests.analyse.test_own_hall_figures import CLUSTER  # the same two-hall cluster (review44: was a copy)
from tests.conftest import run_specs

HALL = """kind: Facility
id: {id}
floor_rating: 2500 kg/m**2
water: {{supply: 30 degC}}
air: {{supply: 25 degC}}
peak_pue: {peak}
cost: {{energy: {{price: 0.09 USD/kWh, date: 2024-07, pue: {pue}, basis: assumed, source: test}},
       space_per_rack: 2000 USD/month, depreciation_years: 5, basis: assumed, source: test}}
feeds: {{ups: N+1, ups_units: {{count: 3, capacity: 150 kW}}, generators: N+1,
        generator_units: {{count: 3, capacity: 250 kW}}{extra}}}
{deployed}---
"""


#: A second cluster, with no halls, naming building a as its facility.
OTHER = """---
kind: Cluster
id: d
facility: building-a
units:
- id: su
  racks:
  - {rack: gb200-nvl72, count: 1}
layout:
- {unit: su, count: 1}
floor: {racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3 m, tray_drop: 1.5 m}
"""


def _site(tmp_path, b: tuple[float, float] = (1.2, 1.3), extra_a: str = "", deployed_a: str = "", more: str = ""):
    text = (HALL.format(id="building-a", pue=1.2, peak=1.3, extra=extra_a, deployed=deployed_a)
            + HALL.format(id="building-b", pue=b[0], peak=b[1], extra="", deployed="")
            + HALL.format(id="campus", pue=1.6, peak=1.9, extra="", deployed="") + CLUSTER + more)
    return run_specs(tmp_path, {"specs.yaml": text})


def test_facility_power_is_it_power_x_the_halls_common_pue_not_the_campus(tmp_path) -> None:
    """Both buildings at PUE 1.2 (peak 1.3): IT power x 1.2 and x 1.3; before, x the campus's 1.6 and 1.9."""
    m = _site(tmp_path).clusters["cluster/c"].metrics
    it = m["it_power"].m_as("kW")
    assert m["facility_power"].m_as("kW") == pytest.approx(it * 1.2)
    assert m["facility_power_peak"].m_as("kW") == pytest.approx(it * 1.3)


def test_facility_power_is_not_provided_where_the_halls_pues_differ(tmp_path) -> None:
    """Building b at 1.4 (peak 1.5): the cluster's draw outside its racks is not split by hall, so no one PUE."""
    r = _site(tmp_path, b=(1.4, 1.5))
    m = r.clusters["cluster/c"].metrics
    assert "facility_power" not in m and "facility_power_peak" not in m


def test_pwr023_names_each_halls_facility_not_the_campus(tmp_path) -> None:
    """Building a states its distribution's efficiency, building b does not: one info finding, at hall b's key."""
    r = _site(tmp_path, extra_a=", distribution_efficiency: 0.98")
    got = [f for f in r.findings if f.id == "PWR023"]
    assert [(f.key, "'building-b''s UPS modules" in f.message) for f in got] == [("floor.halls[b].facility", True)]
    assert not any("campus" in f.message for f in got)


def test_pwr020_takes_a_cluster_whose_hall_names_the_building_as_standing_in_it(tmp_path) -> None:
    """Building a's `deployed: [c, d]`: c's hall a stands in it, so no PWR020 finding (before: "which names facility
    'campus' (its `facility`)")."""
    r = _site(tmp_path, deployed_a="deployed: [c, d]\n", more=OTHER)
    assert [f.message for f in r.findings if f.id == "PWR020"] == []


def test_the_cluster_document_gives_each_halls_units_not_the_campus(tmp_path) -> None:
    """The campus's UPS and generator rows judge nothing; each hall's row holds its racks against its own units.

    Building a: N+1 of 3 x 150 kW UPS modules, 300 kW usable for its rack's 131.6 kW; N+1 of 3 x 250 kW sets, 500 kW
    for 131.6 kW x peak PUE 1.3 = 171.1 kW. Before, the rows read the campus's 2,000 kW against the whole cluster.
    """
    from archgen.render.cluster import cluster_scope
    from archgen.render.datacentre import datacentre

    r = _site(tmp_path, b=(1.4, 1.5))
    a = r.clusters["cluster/c"]
    scope, _ = cluster_scope(r, a, "r", "2026-01-01")
    rows = {b.id: dict(b.rows) for b in datacentre(scope, a).blocks if hasattr(b, "rows")}
    campus, halls = rows["dc-hall"], rows["dc-own-halls"]
    assert "not judged against this facility" in campus["UPS redundancy"]
    assert campus["Facility power (IT power × PUE)"].startswith("not provided: the halls holding racks read PUEs "
                                                                "hall a 'building-a' 1.2, hall b 'building-b' 1.4")
    assert "usable 300 kW for 131.6 kW" in halls["Hall a: facility building-a"]
    assert "usable 500 kW for 171.1 kW" in halls["Hall a: facility building-a"]


def test_hall_totals_are_not_provided_where_a_listed_cluster_stands_in_the_building_by_a_hall(tmp_path) -> None:
    """Building a lists c (by its hall a) and d: d's `hall_it_power` was its own 135.7 kW alone, c's hall left out.

    c's draw in building a is its hall a's racks (131.6 kW) and an unsplit share of the rest: no sum to give.
    """
    r = _site(tmp_path, deployed_a="deployed: [c, d]\n", more=OTHER)
    m = r.metrics["cluster/d"]
    assert not {"hall_it_power", "hall_facility_power", "hall_facility_energy_per_year"} & set(m)


def _shared(tmp_path, capacity: str, more: str = ""):
    """Both buildings on one campus connection; the campus facility names none (before: nothing judged)."""
    conn = f", shared_utility: {{id: campus-138kv, capacity: {capacity}}}"
    text = (HALL.format(id="building-a", pue=1.2, peak=1.3, extra=conn, deployed="")
            + HALL.format(id="building-b", pue=1.2, peak=1.3, extra=conn, deployed="")
            + HALL.format(id="campus", pue=1.6, peak=1.9, extra="", deployed="") + CLUSTER + more)
    return [f for f in run_specs(tmp_path, {"specs.yaml": text}).findings
            if f.id == "PWR011" and "campus-138kv" in f.message]


def test_halls_sharing_a_utility_connection_over_it_on_their_racks_alone_is_pwr011(tmp_path) -> None:
    """Each building's rack 131.6 kW x its peak PUE 1.3 = 171.1 kW; two on a 300 kW connection: 342.2 kW, an error."""
    (f,) = _shared(tmp_path, "300 kW")
    assert f.severity == "error" and f.key == "floor.halls[a].facility"
    assert f.value.m_as("kW") == pytest.approx(2 * 131.596 * 1.3, abs=0.01)


def test_halls_sharing_a_connection_within_it_on_their_racks_are_not_judged_past_them(tmp_path) -> None:
    """Within 1 MW on the racks' 342.2 kW: the rest (not split by hall) and other halls' clusters are not summed."""
    (f,) = _shared(tmp_path, "1 MW")
    assert f.severity == "info" and "not judged past" in f.message


def test_a_cluster_on_a_connection_that_another_clusters_halls_share_is_told_it_is_not_judged(tmp_path) -> None:
    """Cluster d names building a: the connection's load holds c's halls, not split by hall, so d's is not judged."""
    got = {f.object: f for f in _shared(tmp_path, "1 MW", more=OTHER)}
    assert got["cluster/d"].severity == "info" and "cluster 'c' has halls on it" in got["cluster/d"].message


def test_a_cluster_naming_a_building_is_told_of_another_clusters_hall_in_it(tmp_path) -> None:
    """Building a (200 kW): d's 135.7 kW fits alone, with c's hall a (131.6 kW of racks) it does not: both warned.

    Before, only c's hall was warned (`peers_over` counts d); d, naming the building as its facility, summed only
    the run's clusters naming it so, and passed.
    """
    r = _site(tmp_path, deployed_a="critical_it_power: 200 kW\n", more=OTHER)
    got = {f.object: f for f in r.findings if f.id == "PWR010" and f.severity != "info"}
    assert sorted(got) == ["cluster/c", "cluster/d"] and got["cluster/d"].severity == "warning"
    assert "'c' hall 'a' 131.6 kW" in got["cluster/d"].message


def test_another_cluster_in_the_building_whose_draw_is_not_provided_is_named_not_skipped(tmp_path, monkeypatch) -> None:
    """Cluster e's hall a also names building a; its three racks are not expanded (NET015, MAX_RACKS lowered to 2),
    so its hall's draw is not provided. c's hall a (131.6 kW) fits the 200 kW alone: before, e's hall was skipped
    and c's passed without a word; now an info finding names it.
    """
    import archgen.build.clusters as built

    monkeypatch.setattr(built, "MAX_RACKS", 2)
    other = "---\n" + CLUSTER.replace("id: c\n", "id: e\n").replace("count: 1, hall: a", "count: 2, hall: a")
    r = _site(tmp_path, deployed_a="critical_it_power: 200 kW\n", more=other)
    (f,) = [f for f in r.findings if f.id == "PWR010" and f.object == "cluster/c"]
    assert f.severity == "info" and "the draw of 'e' hall 'a' standing in it is not provided" in f.message, f.message
