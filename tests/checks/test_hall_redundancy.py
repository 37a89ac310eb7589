"""The hall's UPS modules and generator sets as stated: an unstated redundancy is not shown as a stated N (hall2)."""

from __future__ import annotations

import pytest

from archgen.model.facility import Facility
from tests.one_hall import cluster

BASE = {"id": "h", "floor_rating": "1200 kg/m**2", "air": {"supply": "24 degC"}}


def test_units_without_redundancy_read_not_stated() -> None:
    """`ups_units` without `ups:` is judged as N (PWR011 says so in an info finding); the table must not read 'N'."""
    from archgen.render.datacentre import _units
    hall = Facility.model_validate({**BASE, "feeds": {"ups_units": {"count": 4, "capacity": "500 kW"}}})
    assert _units(hall.feeds.ups, hall.feeds.ups_units, "modules") == \
        "not stated (judged as N; 4 x 500 kW modules)"
    assert _units("N", hall.feeds.ups_units, "modules") == "N (4 x 500 kW modules)"


_AIR_HALL = """kind: Facility
id: h
floor_rating: 2500 kg/m**2
water: {supply: 30 degC}
air: {supply: 25 degC}
air_cooling_capacity: 0 kW
""" + cluster("c", facility="h")


def test_air_side_is_judged_and_shown(tmp_path) -> None:
    """A water-only plant (air side 0 kW) fails the two GB200 NVL72 racks' heat to air, 47.9 kW (COOL009).

    The 47.9 kW is each rack's heat_to_air x 2: the rack analysis' heat split, 24.0 kW of the rack's 135.7 kW of input
    power after the 111.7 kW its liquid loop takes. The cluster document's hall table gives the air side beside it.
    """
    from archgen.analyse.rack_heat import rack_heat
    from archgen.render.cluster import cluster_scope
    from archgen.render.datacentre import datacentre
    from tests.conftest import run_specs
    run = run_specs(tmp_path, {"specs.yaml": _AIR_HALL})
    a = run.clusters["cluster/c"]
    air = run.racks["rack/gb200-nvl72"].cooling.heat_air * 2
    assert rack_heat(a, run.racks).air == air.to("kW")
    [cool] = [f for f in run.findings if f.id == "COOL009"]
    assert cool.severity == "error" and cool.value == air.to("kW")
    scope, _ = cluster_scope(run, a, "r", "2026-01-01")
    rows = dict(next(b for b in datacentre(scope, a).blocks if getattr(b, "id", "") == "dc-hall").rows)
    assert rows["Air-side cooling capacity"] == "0 kW for 47.9 kW of heat to air (COOL009)"


_SHARED = """kind: Facility
id: h
floor_rating: 2500 kg/m**2
water: {supply: 30 degC}
air: {supply: 25 degC}
critical_it_power: 400 kW
cooling_capacity: 400 kW
air_cooling_capacity: 100 kW
---
kind: Requirements
id: hall
requirements:
  - {id: R-1, statement: Critical IT power, subject: cluster/c, metric: it_capacity_headroom, target: ">= 0 kW"}
  - {id: R-2, statement: Cooling, subject: cluster/c, metric: cooling_headroom, target: ">= 0 kW"}
"""


def test_headroom_is_the_halls_with_every_cluster_naming_it(tmp_path) -> None:
    """Two clusters of two GB200 NVL72 racks (271.3 kW each at their feeds) in a 400 kW hall: each alone leaves
    128.7 kW, together they are 142.6 kW over. PWR010 and COOL009 warn (1d77c42f); the headrooms, and a requirement
    on them, are the hall's: 400 - 2 x 271.3 kW, not met (before: 128.7 kW each, met)."""
    from tests.conftest import run_specs
    alone = run_specs(tmp_path / "a", {"specs.yaml": _SHARED + cluster("c", facility="h")})
    both = run_specs(tmp_path / "b", {"specs.yaml": _SHARED + cluster("c", facility="h") + cluster("d", facility="h")})
    feeds = alone.metrics["cluster/c"]["it_power"]
    for name in ("it_capacity_headroom", "cooling_headroom"):
        assert alone.metrics["cluster/c"][name].m_as("kW") == pytest.approx(400 - feeds.m_as("kW"))
        for cid in ("c", "d"):
            assert both.metrics[f"cluster/{cid}"][name].m_as("kW") == pytest.approx(400 - 2 * feeds.m_as("kW"))
    assert not [f for f in alone.errors if f.id == "REQ001"]
    assert sorted(f.requirement for f in both.errors if f.id == "REQ001") == ["R-1", "R-2"]
    from archgen.render.cluster import cluster_scope
    from archgen.render.datacentre import datacentre
    a = both.clusters["cluster/c"]
    scope, _ = cluster_scope(both, a, "r", "2026-01-01")
    rows = dict(next(b for b in datacentre(scope, a).blocks if getattr(b, "id", "") == "dc-hall").rows)
    assert rows["Critical IT power"] == "400 kW, headroom -142.6 kW (the hall's, with 'd')"
