"""PWR010 and COOL009 where the cluster's IT power is not provided (a fabric tier names no link media, CAB003).

Found in a university-lab trial (newuser29): two racks of four HGX H200 (81.6 kW at 10.2 kW each, the DGX H200
maximum in NVIDIA's DGX H100/H200 User Guide) in a room stating 80 kW of critical IT power and 70 kW of cooling,
with a one-switch fabric whose links named no media. `archgen check` was clean and the document read "pass" for
both checks: the cluster's IT power was not provided, and the checks skipped it. The racks' own draw
(`it_power_racks`) is a floor under the IT power (transceivers, unplaced switches, shelf loss and storage only
add), so a floor above the hall's capacity fails, and a floor within it is reported as not judged (info).

Here: 2 racks x (4 DGX B200 at 14.3 kW + one SN2201 at 98 W, their catalog `power.max`) = 114.596 kW.
"""

from __future__ import annotations

import pytest

from archgen.render.cluster import cluster_scope
from archgen.render.common import validation_section
from tests.conftest import run_specs

FLOOR_KW = 2 * (4 * 14.3 + 0.098)


def _specs(critical: str, cooling: str) -> str:
    return f"""kind: Facility
id: hall-air
floor_rating: 1200 kg/m**2
air: {{supply: 24 degC}}
critical_it_power: {critical}
cooling_capacity: {cooling}
---
kind: Cluster
id: c
facility: hall-air
units:
- id: su
  racks:
  - {{rack: dgx-b200-compute, count: 2}}
layout:
- {{unit: su, count: 1}}
floor: {{racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3 m, tray_drop: 1.5 m}}
fabrics:
- {{id: compute, topology: fat-tree, role: compute, speed: 400 Gb/s, switch: qm9700, tiers: 1}}
"""


def _hall_findings(tmp_path, critical: str, cooling: str):
    run = run_specs(tmp_path, {"specs.yaml": _specs(critical, cooling)})
    assert run.clusters["cluster/c"].metrics.get("it_power") is None     # the premise: not provided
    # COOL009's air-side finding (the hall states no `air_cooling_capacity`: info) is another test's (hall2)
    return run, {f.id: f for f in run.findings if f.id in ("PWR010", "COOL009") and "heat to air" not in f.message}


def test_racks_alone_over_the_hall_fail(tmp_path) -> None:
    _, found = _hall_findings(tmp_path, "100 kW", "100 kW")
    for cid in ("PWR010", "COOL009"):
        f = found[cid]
        assert f.severity == "error"
        assert f.value.m_as("kW") == pytest.approx(FLOOR_KW)
        assert f.limit.m_as("kW") == pytest.approx(100.0)
        assert "racks alone" in f.message and "link media" in f.message


def test_racks_within_the_hall_are_not_judged_and_not_passed(tmp_path) -> None:
    run, found = _hall_findings(tmp_path, "120 kW", "120 kW")
    for cid in ("PWR010", "COOL009"):
        assert found[cid].severity == "info" and found[cid].message.startswith("not judged: ")
    scope, _ = cluster_scope(run, run.clusters["cluster/c"], "r", "2026-01-01")
    table = next(b for b in validation_section(scope).blocks if getattr(b, "kind", "") == "table")
    status = {row[0]: row[3] for row in table.rows}
    assert status["PWR010"] == "info" and status["COOL009"] == "info"


def _ups_specs(ups: str, generators: str = "") -> str:
    return _specs("1000 kW", "1000 kW").replace(
        "critical_it_power: 1000 kW\n", f"critical_it_power: 1000 kW\nfeeds: {{ups: N+1, ups_units: {ups}"
        f"{', generators: N+1, generator_units: ' + generators if generators else ''}}}\npeak_pue: 1.3\n")


def test_ups_under_the_racks_alone_fails(tmp_path) -> None:
    """PWR011 (lab2, newuser29 open 1): N+1 of 2 x 100 kW leaves 100 kW usable, under the racks' 114.596 kW."""
    run = run_specs(tmp_path, {"specs.yaml": _ups_specs("{count: 2, capacity: 100 kW}")})
    assert run.clusters["cluster/c"].metrics.get("it_power") is None
    (f,) = [f for f in run.findings if f.id == "PWR011"]
    assert f.severity == "error" and "racks' own IT power alone" in f.message
    assert f.value.m_as("kW") == pytest.approx(FLOOR_KW) and f.limit.m_as("kW") == pytest.approx(100.0)


def test_ups_over_the_racks_alone_is_not_judged_and_generators_take_the_pue(tmp_path) -> None:
    """N+1 of 3 x 100 kW UPS (200 kW) is above the floor: not judged. Generators N+1 of 2 x 100 kW carry the floor x
    peak PUE 1.3 = 148.97 kW: over 100 kW usable, an error."""
    run = run_specs(tmp_path, {"specs.yaml": _ups_specs("{count: 3, capacity: 100 kW}",
                                                        "{count: 2, capacity: 100 kW}")})
    found = sorted((f for f in run.findings if f.id == "PWR011"), key=lambda f: f.severity)
    assert [f.severity for f in found] == ["error", "info"]
    assert found[0].value.m_as("kW") == pytest.approx(FLOOR_KW * 1.3)
    assert found[1].message.startswith("not judged: ") and found[1].limit.m_as("kW") == pytest.approx(200.0)


def test_network_share_without_it_power_is_not_judged(tmp_path) -> None:
    """NET021 (newuser29 open 1): the unknown transceivers add to both sides of the share, so an info finding."""
    run = run_specs(tmp_path, {"specs.yaml": _specs("1000 kW", "1000 kW")})
    (f,) = [f for f in run.findings if f.id == "NET021"]
    assert f.severity == "info" and f.message.startswith("network power share not judged: ")
