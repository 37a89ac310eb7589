"""A cluster document judges its hall checks in the hall the cluster names, not the hall its racks name (facility3).

The library GB200 NVL72 rack names `hall-liquid`, which states no critical IT power, cooling capacity, UPS or
generator units. A cluster of such racks in a hall of its own that states all of them (a COOL013 error: the racks
are analysed in their own hall) has PWR010, COOL009 and PWR011 to judge against that hall: the document must list
them as applying, not as "not applicable" (as it did, reading the racks' hall).
"""

from __future__ import annotations

from archgen.checks.scope import applies
from archgen.render.cluster import cluster_scope
from archgen.render.common import validation_section
from tests.conftest import run_specs

_SPECS = """kind: Facility
id: big-hall
floor_rating: 2500 kg/m**2
water: {supply: 30 degC}
air: {supply: 25 degC}
critical_it_power: 10 MW
cooling_capacity: 10 MW
peak_pue: 1.35
feeds: {ups: N+1, ups_units: {count: 3, capacity: 5 MW}, generators: N+1, generator_units: {count: 3, capacity: 7 MW}}
---
kind: Cluster
id: c
facility: big-hall
units:
- id: su
  racks:
  - {rack: gb200-nvl72, count: 2}
layout:
- {unit: su, count: 1}
floor: {racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3 m, tray_drop: 1.5 m}
"""
_HALL_CHECKS = ("PWR010", "COOL009", "PWR011")


def _not_applicable(text: str) -> list[str]:
    tail = text.split("Not applicable, so not listed: ", 1)
    return tail[1].split(" (", 1)[0].split(", ") if len(tail) > 1 else []


def test_cluster_document_reads_the_clusters_hall(tmp_path):
    run = run_specs(tmp_path, {"specs.yaml": _SPECS})
    a = run.clusters["cluster/c"]
    rack_hall = next(iter(a.cluster.rack_types.values())).facility
    assert a.cluster.facility.id == "big-hall" and rack_hall.id == "hall-liquid"   # they differ
    assert any(f.id == "COOL013" for f in run.findings)
    scope, _ = cluster_scope(run, a, "r", "2026-01-01")
    [para] = [b for b in validation_section(scope).blocks if getattr(b, "kind", "") == "para"]
    skipped = _not_applicable(para.text)
    assert skipped and not set(_HALL_CHECKS) & set(skipped), skipped
    # the racks' hall states none of them: read there, every one was "not applicable"
    racks = list(a.cluster.rack_types.values())
    assert not any(applies(cid, ["cluster/c"], racks) for cid in _HALL_CHECKS)
    assert all(applies(cid, ["cluster/c"], racks, [a.cluster.facility]) for cid in _HALL_CHECKS)
