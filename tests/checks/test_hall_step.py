"""PWR022 on a hall's `feeds.load_step_limit` with the clusters counted together in it (`hall_swing.hall_step`).

review39: each cluster's step was held to the limit alone; the hall's supply sees their sum where their jobs start or
stop together (a fault or restart common to them). The case file pins the deployed pair (a warning); these pin the
other branches: alternatives (no `deployed`, info), a sum within the limit (nothing), a candidate (judged alone).
"""

from __future__ import annotations

import pytest

from tests.conftest import case_files, run_specs

CASE = "fail_deployed_clusters_step_together_above_the_limit"


def _steps(tmp_path, old: str = "", new: str = "") -> list:
    files = case_files("PWR022", CASE)
    files["specs.yaml"] = files["specs.yaml"].replace(old, new)
    run = run_specs(tmp_path, files)
    return [f for f in run.findings if f.id == "PWR022" and "if their jobs start or stop together" in f.message]


def test_deployed_clusters_stepping_together_are_a_warning(tmp_path) -> None:
    steps = _steps(tmp_path)
    assert [f.severity for f in steps] == ["warning", "warning"]
    assert steps[0].value.m_as("kW") == pytest.approx(2 * 271.32, abs=0.01)   # two clusters' IT power, lossless
    assert "`deployed`" not in steps[0].message   # no advice to list them: they are listed


def test_clusters_the_hall_does_not_list_may_be_alternatives(tmp_path) -> None:
    steps = _steps(tmp_path, "deployed: [c, d]\n")
    assert [f.severity for f in steps] == ["info", "info"] and "list them in the hall's `deployed`" in steps[0].message
    assert "`" not in steps[0].public_message


def test_a_sum_within_the_limit_says_nothing_more(tmp_path) -> None:
    assert _steps(tmp_path, "load_step_limit: 300 kW", "load_step_limit: 600 kW") == []


def test_a_candidate_is_judged_alone(tmp_path) -> None:
    assert _steps(tmp_path, "deployed: [c, d]", "deployed: [c]") == []


def test_the_parts_smoothing_bounds_the_summed_step_where_the_hall_states_none(tmp_path, monkeypatch) -> None:
    """nu81fix left `hall_step` on the hall's smoothing alone: with none there, each cluster's bound was its whole IT
    power even where its parts state a floor and ramps, as `step_within` already takes them. Every system and switch
    floored at 0.7 and ramping at 100 W/s: each cluster's step is its swing, 0.3 x 271.3 = 81.4 kW (two racks, no
    fabric: no optics), 162.8 kW summed, over a 150 kW limit (before: 542.6 kW, its whole IT power twice)."""
    from tests.checks.test_power_smoothing import _floored

    _floored(monkeypatch, 0.7, "100 W/s")
    steps = _steps(tmp_path, "load_step_limit: 300 kW", "load_step_limit: 150 kW")
    assert [f.severity for f in steps] == ["warning", "warning"]
    assert steps[0].value.m_as("kW") == pytest.approx(2 * 0.3 * 271.32, abs=0.01)
    assert _steps(tmp_path / "b", "load_step_limit: 300 kW", "load_step_limit: 170 kW") == []
