"""The UPS batteries' recharge after a ride-through (power29): `feeds.ups_recharge`, PWR011, once per hall.

The PWR011 cases' hall: two GB200 NVL72 racks (271.3 kW at their feeds, x peak PUE 1.35 = 366.3 kW) on N+1 of 3 x 200
kW generator sets. Every module's battery recharges after a ride-through, so the hall's recharge is the modules'
count x each one's stated charging power (a datasheet figure: Eaton 93PS, up to 25 A of charge current per 20 kW
module), added to the facility power the sets and utility feeds carry, once for the hall as a shared checkpoint
storage is (`analyse.facility.recharge_excess`). Not stated, it is left out and PWR011 says so, never a default.
"""

from __future__ import annotations

import pytest

from archgen.model.facility import Facility
from archgen.units import Q_
from tests.conftest import case_files, run_specs


def _run(tmp_path, case: str):
    return run_specs(tmp_path, case_files("PWR011", case))


def test_the_sets_carry_the_facility_power_and_every_modules_recharge(tmp_path) -> None:
    run = _run(tmp_path, "fail_generators_carry_the_ups_recharge")
    m = run.metrics["cluster/c"]
    load = m["facility_power_peak"] + 3 * Q_(15, "kW")             # 366.3 + 45 = 411.3 kW
    assert load.m_as("kW") == pytest.approx(411.3, abs=0.05)
    assert m["generator_headroom"].m_as("kW") == pytest.approx(400 - load.m_as("kW"))
    [f] = [f for f in run.findings if f.id == "PWR011"]
    assert f.severity == "error" and f.value.m_as("kW") == pytest.approx(load.m_as("kW"))
    assert "UPS battery recharge after a ride-through (at most 3 x 15.0 kW = 45.0 kW, the chargers' full power, once for the hall)" in f.message


def test_unstated_the_recharge_is_left_out_and_said_so_with_its_margin(tmp_path) -> None:
    run = _run(tmp_path, "info_ups_recharge_left_out")
    m = run.metrics["cluster/c"]
    margin = 400 - m["facility_power_peak"].m_as("kW")             # 400 - 366.3 = 33.7 kW
    assert m["generator_headroom"].m_as("kW") == pytest.approx(margin)
    [f] = [f for f in run.findings if f.id == "PWR011"]
    assert f.severity == "info" and f.message.startswith("not provided:")
    assert f"generator sets (within by {margin:,.1f} kW)" in f.message and "`feeds.ups_recharge`" in f.message
    assert "ups_recharge" not in f.public and "(the datasheet's charging power)" in f.public


def test_clusters_deployed_together_count_the_halls_recharge_once(tmp_path) -> None:
    run = _run(tmp_path, "pass_deployed_clusters_share_the_ups_recharge_once")
    hall = 2 * run.metrics["cluster/c"]["facility_power_peak"] + 5 * Q_(15, "kW")    # 732.6 + 75 = 807.6 kW
    assert hall.m_as("kW") == pytest.approx(807.6, abs=0.05)
    for path in ("cluster/c", "cluster/d"):
        assert run.metrics[path]["generator_headroom"].m_as("kW") == pytest.approx(840 - hall.m_as("kW"))
    assert not [f for f in run.findings if f.id == "PWR011"]       # 882.6 kW, were it counted with each, fails


def test_halls_sharing_a_utility_connection_each_add_their_recharge(tmp_path) -> None:
    files = case_files("PWR011", "fail_halls_over_their_shared_connection")
    feeds = "feeds: {utility: N+1"
    assert files["specs.yaml"].count(feeds) == 2
    files["specs.yaml"] = files["specs.yaml"].replace(
        feeds, "feeds: {ups: N+1, ups_units: {count: 3, capacity: 150 kW}, ups_recharge: 10 kW, utility: N+1")
    run = run_specs(tmp_path, files)
    each = run.metrics["cluster/ca"]["facility_power_peak"] + 3 * Q_(10, "kW")       # 366.3 + 30 = 396.3 kW
    campus = [f for f in run.findings if f.id == "PWR011" and "utility connection 'campus'" in f.message]
    assert len(campus) == 2 and all(f.severity == "error" for f in campus)
    assert [f.value.m_as("kW") for f in campus] == pytest.approx([2 * each.m_as("kW")] * 2)   # 792.6 kW > 600 kW


def test_a_charging_power_without_ups_modules_is_refused() -> None:
    with pytest.raises(ValueError, match="state the modules it is counted for"):
        Facility.model_validate({"id": "h", "floor_rating": "1200 kg/m**2", "air": {"supply": "24 degC"},
                                 "feeds": {"ups_recharge": "20 kW"}})


def test_a_shared_connection_counts_a_halls_recharge_once(tmp_path) -> None:
    """The deployed pair on a 820 kW shared connection: 807.6 kW within it; 882.6 kW were the 75 kW counted twice."""
    files = case_files("PWR011", "pass_deployed_clusters_share_the_ups_recharge_once")
    files["specs.yaml"] = files["specs.yaml"].replace(
        "feeds: {ups: N+1", "feeds: {shared_utility: {id: campus, capacity: 820 kW}, ups: N+1")
    run = run_specs(tmp_path, files)
    hall = 2 * run.metrics["cluster/c"]["facility_power_peak"] + 5 * Q_(15, "kW")
    campus = [f for f in run.findings if f.id == "PWR011" and "utility connection 'campus'" in f.message]
    assert len(campus) == 2 and all(f.severity == "info" for f in campus)
    assert [f.value.m_as("kW") for f in campus] == pytest.approx([hall.m_as("kW")] * 2)
    assert "facility 'small-hall''s UPS battery recharge counted once at 75.0 kW" in campus[0].message
