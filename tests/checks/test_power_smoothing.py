"""A hall's stated power smoothing judged by PWR022 (nu70fix): `feeds.power_smoothing`, `feeds.ramp_rate_limit`.

NVIDIA's GB300 NVL72 power smoothing holds the load above a floor and limits its ramps (NVIDIA Technical Blog, 2025;
NVML's power-smoothing profile: floor in percent, ramp-up and ramp-down rates in W/s). A training step's swing is at
most the IT power x (1 - floor); a job's start or stop is a ramp at the stated rates, else a step of up to the whole
IT power. Nothing is defaulted: without a floor the depth is not provided. The cases are two GB200 NVL72 racks,
271.3 kW of IT power (tests/checks/cases/PWR022.yml).
"""

from __future__ import annotations

import pytest

from archgen.model.smoothing import PowerSmoothing
from archgen.render.load_swing import LOAD_SWING, load_swing
from archgen.units import Q_
from tests.conftest import case_files, run_specs

SMOOTHED = "{load_step_limit: 50 kW, power_smoothing: {floor: 0.7, ramp_up: 10 kW/s, ramp_down: 10 kW/s}}"


def _pwr022(tmp_path, feeds: str):
    files = case_files("PWR022", "fail_smoothed_swing_above_the_step_limit")
    assert SMOOTHED in files["specs.yaml"]
    files["specs.yaml"] = files["specs.yaml"].replace(SMOOTHED, feeds)
    run = run_specs(tmp_path, files)
    return run.metrics["cluster/c"]["it_power"], [f for f in run.findings if f.id == "PWR022"]


def test_the_swing_is_the_it_power_above_the_floor(tmp_path) -> None:
    it, [f] = _pwr022(tmp_path, SMOOTHED)
    assert f.severity == "error" and f.value.m_as("kW") == pytest.approx(it.m_as("kW") * 0.3)   # 81.4 kW > 50 kW


def test_a_swing_within_the_limit_is_an_info_finding(tmp_path) -> None:
    it, [f] = _pwr022(tmp_path, SMOOTHED.replace("50 kW", "100 kW"))
    assert f.severity == "info" and f.value.m_as("kW") == pytest.approx(it.m_as("kW") * 0.3)


def test_without_ramps_a_start_or_stop_is_still_a_step_of_the_whole_load(tmp_path) -> None:
    it, [f] = _pwr022(tmp_path, "{load_step_limit: 100 kW, power_smoothing: {floor: 0.7}}")
    assert f.severity == "warning" and f.message.startswith("not provided")
    assert f.value.m_as("kW") == pytest.approx(it.m_as("kW"))          # 271.3 kW, not the 81.4 kW swing


def test_without_a_floor_the_depth_is_not_provided(tmp_path) -> None:
    _, [f] = _pwr022(tmp_path, "{load_step_limit: 100 kW, power_smoothing: {ramp_up: 1 kW/s, ramp_down: 1 kW/s}}")
    assert f.severity == "warning" and "swing is not provided" in f.message


def test_a_ramp_limit_without_stated_ramps_is_not_provided(tmp_path) -> None:
    _, [f] = _pwr022(tmp_path, "{ramp_rate_limit: 1 MW/min, power_smoothing: {floor: 0.9}}")
    assert f.severity == "warning" and f.value is None and f.limit.m_as("kW/s") == pytest.approx(1000 / 60)


def test_ramps_within_the_ramp_limit(tmp_path) -> None:
    _, [f] = _pwr022(tmp_path, "{ramp_rate_limit: 1 MW/min, power_smoothing: {ramp_up: 10 kW/s, ramp_down: 12 kW/s}}")
    assert f.severity == "info" and f.value.m_as("kW/s") == pytest.approx(12)        # the faster, ramp_down


def test_the_documents_row_gives_the_stated_depth_and_ramps() -> None:
    sm = PowerSmoothing(floor=0.9, ramp_up="2 MW/s", ramp_down="1 MW/s")
    row = load_swing(Q_(97514.8, "kW"), (), sm)
    assert row.startswith("depth at most 9,751.5 kW") and "2,000.0 kW/s up and 1,000.0 kW/s down" in row
    assert load_swing(Q_(1, "kW"), (), PowerSmoothing(ramp_up="1 kW/s")).startswith(LOAD_SWING)   # no floor


def test_the_swing_and_ramp_are_judged_over_the_distribution(tmp_path) -> None:
    """r36merge: review36's step over `feeds.distribution_efficiency` holds for nu70fix's swing and ramp: 81.4 kW
    within 83 kW at the rack feeds is 81.4 / 0.96 = 84.8 kW at the UPS output, an error; 10 kW/s is 10.4 kW/s."""
    it, [f] = _pwr022(tmp_path, SMOOTHED.replace("50 kW", "83 kW")[:-1] + ", distribution_efficiency: 0.96}")
    assert f.severity == "error" and f.value.m_as("kW") == pytest.approx(it.m_as("kW") * 0.3 / 0.96)
    _, [f] = _pwr022(tmp_path, "{ramp_rate_limit: 612 kW/min, distribution_efficiency: 0.96, power_smoothing: "
                               "{ramp_up: 10 kW/s, ramp_down: 10 kW/s}}")
    assert f.severity == "error" and f.value.m_as("kW/s") == pytest.approx(10 / 0.96)


def test_a_swing_within_the_limit_gives_the_margin_for_the_unstated_losses(tmp_path) -> None:
    it, [f] = _pwr022(tmp_path, SMOOTHED.replace("0.7", "0.9")[:-1] + ", distribution_efficiency: 0.96}")
    swing = it.m_as("kW") * 0.1 / 0.96                                                       # 28.3 kW
    assert f.severity == "info" and f.value.m_as("kW") == pytest.approx(swing)
    assert f"by {50 - swing:,.1f} kW" in f.message and "must fit in that margin" in f.message


def test_a_step_limit_without_the_it_power_is_not_provided_with_smoothing_too(tmp_path) -> None:
    """review36's not-provided finding where the IT power is not, kept beside nu70fix's ramp judgement."""
    files = case_files("PWR022", "fail_step_limit_where_the_it_power_is_not_provided")
    files["specs.yaml"] = files["specs.yaml"].replace(
        "feeds: {load_step_limit: 100 kW}", "feeds: {load_step_limit: 100 kW, ramp_rate_limit: 1 MW/min, "
        "power_smoothing: {floor: 0.9, ramp_up: 10 kW/s, ramp_down: 10 kW/s}}")
    run = run_specs(tmp_path, files)
    ramp, step = sorted((f for f in run.findings if f.id == "PWR022"), key=lambda f: f.limit.m)   # kW/s, kW
    assert step.severity == "warning" and step.value is None and step.message.startswith("not provided")
    assert ramp.severity == "info" and ramp.value.m_as("kW/s") == pytest.approx(10)


def _floored(monkeypatch, share: float | None, ramp: str | None = None) -> None:
    """Every system and switch states its own smoothing (nu81fix; no catalog part does): a floor of `share` of its
    maximum draw, and `ramp` (both ways) where given."""
    from archgen.analyse import job_swing
    from archgen.model.system import max_draw

    if share is not None:
        monkeypatch.setattr(job_swing, "low_draw", lambda p: max_draw(p) * share)
    if ramp is not None:
        monkeypatch.setattr(job_swing, "part_ramps", lambda p: (Q_(ramp), Q_(ramp)))


def test_the_parts_floor_bounds_the_swing_where_the_hall_states_none(tmp_path, monkeypatch) -> None:
    """A hall stating only its step limit, its racks' parts floored at 0.7: the swing is 0.3 of the systems' and
    switches' draw with its shelf loss, here 0.3 x the IT power (two racks, no fabric: no optics, which would not
    swing), 81.4 kW, an error over 50 kW."""
    _floored(monkeypatch, 0.7)
    it, [f] = _pwr022(tmp_path, "{load_step_limit: 50 kW}")
    assert f.severity == "error" and f.value.m_as("kW") == pytest.approx(0.3 * it.m_as("kW"))
    assert "`power.smoothing.floor`" in f.message and "governs" not in f.message


def test_hall_and_parts_floors_the_smaller_governs_and_is_named(tmp_path, monkeypatch) -> None:
    """Hall 0.9 (27.1 kW) and parts 0.7 (81.4 kW): the hall's governs, within 50 kW, the finding the whole-load start
    or stop's (no ramps stated); hall 0.5 (135.7 kW): the parts' 81.4 kW governs, an error."""
    _floored(monkeypatch, 0.7)
    it, [f] = _pwr022(tmp_path, "{load_step_limit: 50 kW, power_smoothing: {floor: 0.9}}")
    assert "x (1 - the smoothing's floor 0.9) = 27.1 kW; the parts' own bound, 81.4 kW, is larger, so the hall's " \
        "floor governs" in f.message and f.severity == "warning"
    _, [g] = _pwr022(tmp_path / "b", "{load_step_limit: 50 kW, power_smoothing: {floor: 0.5}}")
    assert "the hall's floor's bound, 135.7 kW, is larger, so the parts' governs" in g.message
    assert g.severity == "error" and g.value.m_as("kW") == pytest.approx(it.m_as("kW") * 0.3)


def test_the_parts_ramps_summed_stand_in_for_the_halls(tmp_path, monkeypatch) -> None:
    """Each system and switch ramping at 100 W/s: the cluster's load at the sum x count with the shelves' loss on it
    (2 racks of 18 trays, 9 switch trays and 2 SN2201: 58 parts, 5.8 kW/s at their inputs; the 54 on the busbar add
    their shelves' loss, 5.4 kW/s x (1 / efficiency - 1))."""
    _floored(monkeypatch, None, "100 W/s")
    _, [f] = _pwr022(tmp_path, "{ramp_rate_limit: 1 kW/s}")
    assert f.severity == "error" and "the parts' summed `power.smoothing` `ramp_" in f.message
    assert 5.8 < f.value.m_as("kW/s") < 5.8 + 5.4 * 0.05


def test_the_document_row_takes_the_parts_bound_where_the_hall_states_no_floor() -> None:
    from archgen.analyse.job_swing import PartsSwing

    parts = PartsSwing(Q_(81.4, "kW"), Q_(6, "kW/s"), Q_(6, "kW/s"))
    row = load_swing(Q_(271.3, "kW"), (), None, parts)
    assert row.startswith("depth at most 81.4 kW") and "6.0 kW/s up" in row and "states no `feeds" in row
    hall = load_swing(Q_(271.3, "kW"), (), PowerSmoothing(floor=0.5), parts)   # 135.7 kW: the parts' governs
    assert "below the hall's floor's bound 135.7 kW: the parts' governs" in hall
    tight = load_swing(Q_(271.3, "kW"), (), PowerSmoothing(floor=0.9), parts)  # 27.1 kW: the hall's governs
    assert tight.startswith("depth at most 27.1 kW") and "81.4 kW is larger: the hall's governs" in tight


def test_a_power_shelf_states_no_smoothing_of_its_own(tmp_path) -> None:
    """review44: nu81fix's docs said a shelf states `power.smoothing`; a PowerShelf has no `power` key, so it is refused.

    Only systems and switches carry a part's smoothing (`analyse.job_swing.parts_swing`); docs/facility.md says so.
    """
    from pathlib import Path

    from archgen.errors import ValidateError
    shelf = Path(__file__).parents[2].joinpath("specs/catalog/power/orv3-power-shelf-33kw.yaml").read_text(
        encoding="utf-8").replace("id: orv3-power-shelf-33kw", "id: my-shelf")
    with pytest.raises(ValidateError, match="power: unknown key 'power'"):
        run_specs(tmp_path, {"s.yaml": shelf + "power: {smoothing: {floor: 0.8}}\n"})


def test_the_slower_of_the_halls_and_the_parts_ramps_governs(tmp_path, monkeypatch) -> None:
    """review44: the hall's stated ramps replaced the parts' even where slower. Each is an upper bound on the same
    rate (a load cannot ramp faster than its parts allow, nor than the hall's smoothing lets through), so the smaller
    governs, each way. Every part at 100 W/s: the load at 5.8 kW/s plus the shelves' loss (as above); the hall's
    10 kW/s is faster, so the parts' governs; a hall at 2 kW/s is slower and governs."""
    _floored(monkeypatch, None, "100 W/s")
    _, [f] = _pwr022(tmp_path, "{ramp_rate_limit: 1 kW/s, power_smoothing: {ramp_up: 10 kW/s, ramp_down: 10 kW/s}}")
    assert f.severity == "error" and 5.8 < f.value.m_as("kW/s") < 5.8 + 5.4 * 0.05     # was 10.0 kW/s
    assert "the parts' summed `power.smoothing` `ramp_" in f.message
    assert "the smoothing's 10.0 kW/s is faster, so the parts' governs" in f.message
    _, [g] = _pwr022(tmp_path / "b", "{ramp_rate_limit: 1 kW/s, power_smoothing: {ramp_up: 2 kW/s, ramp_down: 2 kW/s}}")
    assert g.value.m_as("kW/s") == pytest.approx(2) and g.message.startswith("the smoothing's `ramp_")
    assert "is faster, so the smoothing's governs" in g.message and "`" not in g.public_message


def test_each_way_the_slower_ramp_governs() -> None:
    """The hall ramps up at 10 and down at 2 kW/s, the parts at 6 each way: up 6 (the parts'), down 2 (the hall's)."""
    from archgen.analyse.job_swing import PartsSwing, load_ramps

    r = load_ramps(PowerSmoothing(ramp_up="10 kW/s", ramp_down="2 kW/s"),
                   PartsSwing(None, Q_(6, "kW/s"), Q_(6, "kW/s")))
    assert r is not None and (r.up.m_as("kW/s"), r.down.m_as("kW/s")) == (6, 2)
    assert (r.by_parts(0), r.by_parts(1)) == (True, False)
    hall_only = load_ramps(PowerSmoothing(ramp_up="10 kW/s", ramp_down="2 kW/s"), None)
    assert hall_only is not None and hall_only.up.m_as("kW/s") == 10 and not hall_only.by_parts(0)


def test_the_document_row_gives_the_slower_ramps() -> None:
    """The hall's floor governs the depth; its 2 MW/s ramps are faster than the parts' 6 kW/s, which the row gives."""
    from archgen.analyse.job_swing import PartsSwing

    parts = PartsSwing(Q_(81.4, "kW"), Q_(6, "kW/s"), Q_(6, "kW/s"))
    row = load_swing(Q_(271.3, "kW"), (), PowerSmoothing(floor=0.9, ramp_up="2 MW/s", ramp_down="2 MW/s"), parts)
    assert row.startswith("depth at most 27.1 kW") and "ramps at most 6.0 kW/s up and 6.0 kW/s down" in row
