"""hall29: on a floor whose halls name their own facility, each hall's air side, UPS and generators are its own.

Before, PWR011, COOL009's air side and the headroom metrics judged the cluster's one `facility` ('campus' here),
which holds none of the halls once they name theirs: a building's 10 kW air side under its rack's 24.0 kW of heat
to air, or its 100 kW of usable UPS under its rack's 131.6 kW, passed on the campus' figures, and
`it_capacity_headroom` was the campus' 100 kW less both buildings' load (-171.3 kW). Fixture: one GB200 NVL72 rack
in each of two halls (each rack's own draw 131.6 kW, as tests/checks/cases/PWR010.yml gives).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_specs

HALL = """kind: Facility
id: {id}
floor_rating: 2500 kg/m**2
water: {{supply: 30 degC}}
air: {{supply: 25 degC}}
critical_it_power: {it}
cooling_capacity: 300 kW
air_cooling_capacity: {air}
peak_pue: 1.35
feeds: {{ups: N+1, ups_units: {{count: {ups}, capacity: {ups_each}}}, generators: N+1,
        generator_units: {{count: 3, capacity: 200 kW}}}}
---
"""
CLUSTER = """kind: Cluster
id: c
facility: campus
units:
- id: su
  racks:
  - {rack: gb200-nvl72, count: 1}
layout:
- {unit: su, count: 1, hall: a}
- {unit: su, count: 1, hall: b}
floor: {racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3 m, tray_drop: 1.5 m,
        halls: [{id: a, facility: building-a}, {id: b, y: 300 m, facility: building-b}]}
"""


def _site(tmp_path, air_b: str = "100 kW", ups_b: tuple[int, str] = (3, "150 kW")):
    text = (HALL.format(id="building-a", it="150 kW", air="100 kW", ups=3, ups_each="150 kW")
            + HALL.format(id="building-b", it="150 kW", air=air_b, ups=ups_b[0], ups_each=ups_b[1])
            + HALL.format(id="campus", it="100 kW", air="1000 kW", ups=3, ups_each="1000 kW") + CLUSTER)
    return run_specs(tmp_path, {"specs.yaml": text})


def _found(r, check_id: str) -> list:
    return [f for f in r.findings if f.id == check_id and f.severity != "info"]


def test_each_hall_within_its_own_facility_passes_and_the_campus_headrooms_are_not_provided(tmp_path) -> None:
    r = _site(tmp_path)
    assert not _found(r, "COOL009") and not _found(r, "PWR011")
    m = r.clusters["cluster/c"].metrics
    for name in ("it_capacity_headroom", "cooling_headroom", "ups_headroom", "generator_headroom"):
        assert name not in m   # the campus holds neither hall: its headroom would be every hall's load against it


def test_a_halls_air_side_under_its_racks_heat_to_air_is_cool009_at_the_halls_key(tmp_path) -> None:
    """Building b's 10 kW air side, under its rack's heat to air (the two racks' 47.9 kW of COOL009.yml, halved)."""
    r = _site(tmp_path, air_b="10 kW")
    (f,) = _found(r, "COOL009")
    assert f.severity == "error" and f.key == "floor.halls[b].facility"
    assert f.value.m_as("kW") == pytest.approx(47.9 / 2, abs=0.06)
    assert "hall 'b''s racks 24.0 kW exceeds its facility 'building-b''s air-side cooling capacity 10.0 kW" in \
        f.message


def test_a_halls_ups_under_its_racks_draw_is_pwr011_at_the_halls_key(tmp_path) -> None:
    """Building b's N+1 of 2 x 100 kW UPS modules: 100 kW usable, under its rack's own 131.6 kW."""
    r = _site(tmp_path, ups_b=(2, "100 kW"))
    (f,) = _found(r, "PWR011")
    assert f.severity == "error" and f.key == "floor.halls[b].facility"
    assert f.value.m_as("kW") == pytest.approx(131.596) and f.limit.m_as("kW") == pytest.approx(100.0)
    assert "facility 'building-b''s usable UPS capacity 100.0 kW (N+1 of 2 x 100.0 kW UPS modules)" in f.message


def test_the_halls_rack_heat_sums_to_the_clusters(tmp_path) -> None:
    """`hall_rack_heat` by hall adds up to `rack_heat` over the cluster, medium by medium."""
    from archgen.analyse.rack_heat import hall_rack_heat, rack_heat

    r = _site(tmp_path)
    c = r.clusters["cluster/c"]
    halls, whole = hall_rack_heat(c, r.racks), rack_heat(c, r.racks)
    assert sorted(halls) == [0, 1]
    for medium in ("air", "liquid", "total"):
        assert sum(getattr(h, medium).m_as("kW") for h in halls.values()) == pytest.approx(
            getattr(whole, medium).m_as("kW"))


def _two_clusters(tmp_path, deployed: str = ""):
    """tests/checks/cases/PWR010.yml's two clusters, each with one 131.6 kW rack in building a (200 kW)."""
    from ruamel.yaml import YAML

    cases = YAML(typ="safe").load((Path(__file__).parents[1] / "checks" / "cases" / "PWR010.yml").read_text(encoding="utf-8"))
    (case,) = [k for k in cases["cases"] if k["name"] == "fail_two_clusters_place_racks_in_one_building"]
    text = case["files"]["specs.yaml"].replace("critical_it_power: 200 kW\n", f"critical_it_power: 200 kW\n{deployed}")
    return run_specs(tmp_path, {"specs.yaml": text})


def test_clusters_a_building_lists_as_deployed_are_summed_as_an_error(tmp_path) -> None:
    """Listed together in building a's `deployed`, the two racks' 263.2 kW over its 200 kW is an error on each."""
    got = [f for f in _two_clusters(tmp_path, "deployed: [c, d]\n").findings if f.id == "PWR010"]
    assert [(f.object, f.severity) for f in got] == [("cluster/c", "error"), ("cluster/d", "error")]
    assert all(f.value.m_as("kW") == pytest.approx(2 * 131.596) for f in got)


def test_a_cluster_the_building_does_not_list_is_judged_alone(tmp_path) -> None:
    """Building a lists only c: d is a candidate judged alone (it fits), and c is not summed with it."""
    got = [f for f in _two_clusters(tmp_path, "deployed: [c]\n").findings if f.id == "PWR010" and f.severity != "info"]
    assert got == []
