"""Distributed UPS redundancy (xN/y) and the UPS and generator headrooms as metrics (nu44power, newuser44).

Before: `ups: 4N/3` was refused ("expected N, N+1 (N+k spare units) or N+N (also written 2N)"), and a requirement on
the UPS or generator headroom was an "unknown metric". Distributed redundancy (Schneider Electric White Paper 75,
"Distributed redundant"): x systems, any y of which carry the load, so y / x of the modules are usable.
"""

from __future__ import annotations

import pytest

from archgen.model.base import spare_units
from tests.conftest import run_specs
from tests.one_hall import cluster  # two GB200 NVL72 racks in a hall

_HALL = """kind: Facility
id: h
floor_rating: 2500 kg/m**2
water: {{supply: 30 degC}}
air: {{supply: 25 degC}}
peak_pue: 1.3
feeds:
  ups: {ups}
  ups_units: {{count: {count}, capacity: {each}}}
  generators: N+1
  generator_units: {{count: 3, capacity: 500 kW}}
---
kind: Requirements
id: hall
requirements:
  - {{id: R-UPS, statement: UPS headroom, subject: cluster/c, metric: ups_headroom, target: ">= 0 kW"}}
  - {{id: R-GEN, statement: Generator headroom, subject: cluster/c, metric: generator_headroom, target: ">= 0 kW"}}
"""


def _hall(ups: str, count: int, each: str) -> str:
    return _HALL.format(ups=ups, count=count, each=each)


@pytest.mark.parametrize(("scheme", "count", "spare"), [("4N/3", 4, 1), ("4N/3", 8, 2), ("3N/2", 6, 2),
                                                          ("N+1", 8, 1), ("N+N", 8, 4)])
def test_spares_of_distributed_redundancy_are_the_units_of_x_less_y_systems(scheme, count, spare):
    assert spare_units(scheme, count) == spare


def test_4n3_is_accepted_and_judged_by_pwr011_on_three_of_four_systems(tmp_path):
    """Two GB200 NVL72 racks, 271.3 kW at their feeds: 4 x 100 kW at 4N/3 give 300 kW (pass, 28.7 kW headroom);
    4 x 90 kW give 270 kW (fail), where N+1 of the same units would give the same and N+N 180 kW."""
    run = run_specs(tmp_path / "ok", {"specs.yaml": _hall("4N/3", 4, "100 kW") + cluster("c", facility="h")})
    load = run.metrics["cluster/c"]["it_power"].m_as("kW")
    assert not [f for f in run.findings if f.id == "PWR011" and f.severity == "error"]
    assert run.metrics["cluster/c"]["ups_headroom"].m_as("kW") == pytest.approx(300 - load)
    short = run_specs(tmp_path / "short", {"specs.yaml": _hall("4N/3", 4, "90 kW") + cluster("c", facility="h")})
    [err] = [f for f in short.findings if f.id == "PWR011" and f.severity == "error"]
    assert err.limit.m_as("kW") == pytest.approx(270) and "(4N/3 of 4 x 90.0 kW UPS modules" in err.message
    assert [f.requirement for f in short.errors if f.id == "REQ001"] == ["R-UPS"]


@pytest.mark.parametrize(("ups", "count", "words"), [
    ("4N/3", 6, "ups_units.count 6 does not divide into 4"),
    ("3N/4", 4, "xN/y with more systems (x) than carry the load (y)"),
    ("4N-3", 4, "distributed xN/y"),
])
def test_a_scheme_that_cannot_hold_is_refused_with_its_place(tmp_path, ups, count, words):
    from archgen.errors import ValidateError
    with pytest.raises(ValidateError) as e:
        run_specs(tmp_path, {"specs.yaml": _hall(ups, count, "100 kW") + cluster("c", facility="h")})
    assert "specs/specs.yaml:" in str(e.value) and words in str(e.value)


def test_generator_headroom_is_usable_sets_at_the_site_less_it_power_x_peak_pue(tmp_path):
    """N+1 of 3 x 500 kW sets: 1,000 kW usable; the load is IT power x peak PUE 1.3 (PWR011's generator load)."""
    run = run_specs(tmp_path, {"specs.yaml": _hall("N+1", 4, "100 kW") + cluster("c", facility="h")})
    m = run.metrics["cluster/c"]
    assert m["generator_headroom"].m_as("kW") == pytest.approx(1000 - 1.3 * m["it_power"].m_as("kW"))
    assert m["ups_headroom"].m_as("kW") == pytest.approx(300 - m["it_power"].m_as("kW"))
    assert not [f for f in run.findings if "unknown metric" in f.message]


def test_headrooms_are_the_halls_with_every_cluster_naming_it(tmp_path):
    """Two such clusters in the hall: the UPS and generator headrooms subtract both clusters' loads."""
    both = run_specs(tmp_path, {"specs.yaml": _hall("4N/3", 8, "100 kW") + cluster("c", facility="h")
                                + cluster("d", facility="h")})
    it = both.metrics["cluster/d"]["it_power"].m_as("kW")
    m = both.metrics["cluster/c"]
    assert m["ups_headroom"].m_as("kW") == pytest.approx(600 - 2 * it)
    assert m["generator_headroom"].m_as("kW") == pytest.approx(1000 - 2 * 1.3 * it)


@pytest.mark.parametrize(("given", "read"), [(" N+1 ", "N+1"), (" 2N", "N+N"), (" 4N/3 ", "4N/3"), ("N", "N")])
def test_a_scheme_given_with_spaces_reads_as_without(given, read):
    """A document made in code (`in_code.document`) keeps a string's spaces, which YAML strips: ' 4N/3 ' was read and
    ' N+1 ' refused (review21b); both schemes now strip them."""
    from pydantic import TypeAdapter

    from archgen.model.base import Redundancy, UpsRedundancy
    assert TypeAdapter(UpsRedundancy).validate_python(given) == read
    if "/" not in given:
        assert TypeAdapter(Redundancy).validate_python(given) == read
