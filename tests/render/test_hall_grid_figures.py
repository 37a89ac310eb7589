"""What the cluster document tells a hall's electrical engineer about its load over time and its upstream plant."""

from __future__ import annotations

from tests.checks.test_hall_redundancy import _CLUSTER


def _hall_rows(tmp_path, hall: str, table: str) -> dict[str, str]:
    from archgen.render.cluster import cluster_scope
    from archgen.render.datacentre import datacentre
    from tests.conftest import run_specs
    run = run_specs(tmp_path, {"specs.yaml": hall + _CLUSTER.format(id="c")})
    a = run.clusters["cluster/c"]
    scope, _ = cluster_scope(run, a, "r", "2026-01-01")
    return dict(next(b for b in datacentre(scope, a).blocks if getattr(b, "id", "") == table).rows)


_HALL = """kind: Facility
id: h
floor_rating: 2500 kg/m**2
water: {supply: 30 degC}
air: {supply: 25 degC}
"""


def test_load_swing_is_said_to_be_not_provided(tmp_path) -> None:
    """A grid operator asks for the swing in MW and MW/s (NVIDIA's GB300 NVL72 power smoothing exists for it);
    archgen models no power over time, so the needs table says "not provided" with what it would need (before, no
    row: the question went unanswered and unflagged)."""
    rows = _hall_rows(tmp_path, _HALL, "dc-needs")
    swing = rows["Load swing and ramp rate (MW, MW/s)"]
    assert swing.startswith("not provided: no power over time is computed")
    assert "ramp limits" in swing and "MW" not in swing.split(":", 1)[1]
