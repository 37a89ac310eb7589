"""A hall's units rated in kVA (nu70fix): `Units.capacity` in volt-amperes, `Units.power_factor`, `feeds.power_factor`.

Real power is apparent power x power factor (IEEE Std 1459's definition of power factor, P / S). A unit rated in kVA
carries kVA x the lower of its rated power factor (a generator set's alternator: 0.8, ISO 8528-1 nameplates) and the
load's; a kW rating with a rated power factor carries kW / rated x load where the load's is lower (the kVA, a current
limit, binds). A kVA rating with neither stated is not provided: PWR011 warns, never reading kVA as kW.
"""

from __future__ import annotations

import pytest

from archgen.model.upstream_feeds import Units
from tests.conftest import case_files, run_specs


@pytest.mark.parametrize(("capacity", "rated", "load", "kw"), [
    ("2500 kVA", 0.8, None, 2000.0),      # a set's nameplate: 2,500 kVA at 0.8 is 2,000 kW
    ("2500 kVA", 0.8, 0.95, 2000.0),      # the load's higher power factor does not raise the engine's kW
    ("2500 kVA", 0.8, 0.7, 1750.0),       # a lower one: the alternator's current (kVA) binds, 2,500 x 0.7
    ("140 MVA", None, 0.95, 133000.0),    # a transformer: kVA x the load's power factor
    ("2000 kW", 0.8, 0.7, 1750.0),        # kW / 0.8 = 2,500 kVA, x 0.7
    ("2000 kW", None, 0.7, 2000.0),       # kW without a rated power factor: as stated (no kVA to bind)
])
def test_real_power_is_kva_times_the_lower_power_factor(capacity, rated, load, kw) -> None:
    units = Units(count=1, capacity=capacity, power_factor=rated)
    assert units.real(load).m_as("kW") == pytest.approx(kw)


def test_a_kva_rating_without_a_power_factor_is_not_provided() -> None:
    assert Units(count=1, capacity="1 MVA").real(None) is None


def _run(tmp_path, case: str):
    return run_specs(tmp_path, case_files("PWR011", case))


def test_the_load_power_factor_makes_ups_kva_real_power(tmp_path) -> None:
    run = _run(tmp_path, "fail_kva_at_load_power_factor")
    [f] = [f for f in run.findings if f.id == "PWR011"]
    assert f.severity == "error" and f.limit.m_as("kW") == pytest.approx(2 * 150 * 0.9)
    assert run.metrics["cluster/c"]["ups_headroom"].m_as("kW") == pytest.approx(270 - f.value.m_as("kW"))


def test_unstated_power_factor_leaves_the_feed_unjudged(tmp_path) -> None:
    run = _run(tmp_path, "fail_kva_without_power_factor")
    [f] = [f for f in run.findings if f.id == "PWR011"]
    assert f.severity == "warning" and f.message.startswith("not provided") and "1,000.0 kVA" in f.message


def test_generator_kva_at_its_rated_power_factor_carries_the_facility_power(tmp_path) -> None:
    run = _run(tmp_path, "pass_generator_kva_at_rated_power_factor")
    assert not [f for f in run.findings if f.id == "PWR011" and f.severity != "info"]
    assert run.metrics["cluster/c"]["generator_headroom"].m_as("kW") == pytest.approx(
        400 - 1.2 * run.metrics["cluster/c"]["it_power"].m_as("kW"), rel=1e-6)


def test_the_documents_row_gives_the_kva_and_its_real_power() -> None:
    from types import SimpleNamespace

    from archgen.render.datacentre import _units
    hall = SimpleNamespace(feeds=SimpleNamespace(power_factor=0.95), outdoor=lambda: {})
    row = _units("N+1", Units(count=3, capacity="2 MVA", power_factor=1.0), "modules", hall)
    assert row == "N+1 (3 x 2,000 kVA modules, 1,900 kW at the stated power factor)"    # 2,000 kVA x min(1.0, 0.95)
    bare = SimpleNamespace(feeds=SimpleNamespace(power_factor=None), outdoor=lambda: {})
    assert "real power not provided" in _units("N", Units(count=1, capacity="1 MVA"), "feeds", bare)


def test_generator_kva_without_its_rated_power_factor_is_refused() -> None:
    """A set's kW is kVA x its alternator's rated power factor (0.8 on ISO 8528-1 nameplates), not x the load's.

    Before, 2 x 2,500 kVA sets with only the load's 0.95 stated carried 2,375 kW each, 19 % above the 2,000 kW
    their nameplate gives; a transformer (utility) in kVA still takes the load's power factor, and a UPS module its
    own rated one where lower (review39: a module in kVA states it, `test_ups_kva_without_its_rated_power_factor`).
    """
    from pydantic import ValidationError

    from archgen.model.upstream_feeds import UpstreamFeeds

    with pytest.raises(ValidationError, match="generator sets rated 2500 kVA, an apparent power, state no rated"):
        UpstreamFeeds(power_factor=0.95, generators="N+1", generator_units={"count": 2, "capacity": "2500 kVA"})
    ok = UpstreamFeeds(power_factor=0.95, generators="N+1",
                       generator_units={"count": 2, "capacity": "2500 kVA", "power_factor": 0.8},
                       ups="N+1", ups_units={"count": 3, "capacity": "150 kVA", "power_factor": 1.0})
    assert ok.generator_units is not None and ok.generator_units.real(0.95).m_as("kW") == pytest.approx(2000)
    assert ok.ups_units is not None and ok.ups_units.real(0.95).m_as("kW") == pytest.approx(142.5)


def test_ups_kva_without_its_rated_power_factor_is_refused() -> None:
    """review39: a UPS module's inverter is rated in kW at its output power factor (0.8 to 1.0 on datasheets), so a
    150 kVA module at only the load's 0.9 carried 135 kW where a 0.8-rated one gives 120 kW (12.5 % over). Refused at
    `ups_units.power_factor`, as a generator set is; with it, kVA x the lower of the two."""
    from pydantic import ValidationError

    from archgen.model.upstream_feeds import UpstreamFeeds

    with pytest.raises(ValidationError, match="UPS modules rated 150 kVA, an apparent power, state no rated power"):
        UpstreamFeeds(power_factor=0.9, ups="N+1", ups_units={"count": 3, "capacity": "150 kVA"})
    rated = UpstreamFeeds(power_factor=0.9, ups="N+1", ups_units={"count": 3, "capacity": "150 kVA",
                                                                   "power_factor": 0.8})
    assert rated.ups_units is not None and rated.ups_units.real(0.9).m_as("kW") == pytest.approx(120)
    kw = UpstreamFeeds(power_factor=0.9, ups="N+1", ups_units={"count": 3, "capacity": "150 kW"})
    assert kw.ups_units is not None and kw.ups_units.real(0.9).m_as("kW") == pytest.approx(150)   # kW: as stated


def test_kva_at_a_power_factor_carries_the_load_over_the_distribution(tmp_path) -> None:
    """r36merge: nu70fix's kVA x power factor and review36's UPS load over `feeds.distribution_efficiency` at once:
    N+1 of 3 x 150 kVA at 0.94 is 282.0 kW, below 271.3 kW / 0.96 = 282.6 kW (either alone would pass)."""
    run = _run(tmp_path, "fail_kva_at_power_factor_over_the_distribution")
    it = run.metrics["cluster/c"]["it_power"]
    [f] = [f for f in run.findings if f.id == "PWR011"]
    assert f.severity == "error" and f.limit.m_as("kW") == pytest.approx(2 * 150 * 0.94)
    assert f.value.m_as("kW") == pytest.approx(it.m_as("kW") / 0.96)


def test_the_racks_floor_over_the_distribution_exceeds_kva_modules(tmp_path) -> None:
    """r36merge: where the IT power is not provided, the racks' own 114.6 kW over 0.96 (119.4 kW) is the floor under
    the UPS load, against N+1 of 3 x 60 kVA at their rated 0.96, 115.2 kW."""
    run = _run(tmp_path, "fail_racks_alone_over_kva_ups_and_its_distribution")
    racks = run.metrics["cluster/c"]["it_power_racks"]
    [f] = [f for f in run.findings if f.id == "PWR011" and f.severity == "error"]
    assert f.limit.m_as("kW") == pytest.approx(2 * 60 * 0.96)
    assert f.value.m_as("kW") == pytest.approx(racks.m_as("kW") / 0.96)


def test_a_kva_rating_is_written_in_va_in_json(tmp_path) -> None:
    """review39: pint converts volt-amperes to watts one to one, so PWR011's warning on a 1,000 kVA feed with no power
    factor gave `check --format json` the value `{"value": 1000000.0, "unit": "W"}`: a real power the finding says
    is not known. A rating written in kVA or MVA is "VA"; a real power stays "W"."""
    from archgen.output.envelope import finding, quantity
    from archgen.units import Q_

    [f] = [f for f in _run(tmp_path, "fail_kva_without_power_factor").findings if f.id == "PWR011"]
    assert finding(f)["value"] == {"value": 1_000_000.0, "unit": "VA"}
    assert quantity(Q_(2.5, "MVA")) == {"value": 2_500_000.0, "unit": "VA"}
    assert quantity(Q_(150, "kW")) == {"value": 150_000.0, "unit": "W"}


def test_only_utility_feeds_reach_the_kva_warning() -> None:
    """r39fix: every `Units` field of the feeds but `utility_units` needs its own rated power factor in kVA, so
    PWR011's "not provided" warning (`unit_rating.kva_not_provided`) is a utility feed's alone; its field is
    `feeds.utility_units`, and no UPS or generator wording is left to keep."""
    from pydantic import ValidationError

    from archgen.model.upstream_feeds import _KVA_RATED, UpstreamFeeds

    units = {k for k, f in UpstreamFeeds.model_fields.items() if "Units" in str(f.annotation)}
    assert units - {key for key, *_ in _KVA_RATED} == {"utility_units"}
    for key, *_ in _KVA_RATED:
        with pytest.raises(ValidationError, match="power_factor"):
            UpstreamFeeds(**{key: {"count": 2, "capacity": "500 kVA"}})


def test_the_load_power_factor_says_which_stage_reads_it() -> None:
    """r39fix: one `feeds.power_factor` for every stage: the UPS output's load (the PSUs) and the generator sets' and
    utility feeds' (the UPS input); the description says so and asks for the lower, the conservative reading."""
    from archgen.model.upstream_feeds import UpstreamFeeds

    said = UpstreamFeeds.model_fields["power_factor"].description
    assert "the UPS output carries the PSUs" in said and "the UPS input" in said and "state the lower" in said
