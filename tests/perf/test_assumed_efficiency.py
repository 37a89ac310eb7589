"""An HBM, flash-attention or scale-up efficiency a part states none for: an assumed point inside a measured range.

The model gave such a part the field's default (HBM 0.85, flash 0.787, scale-up 0.8) with no range and no note. It
now states the catalog's measured range beside the point, as TPU v4's `hbm_range`, `flash_range` and
`scale_up_range` do, and the estimate's notes say the efficiency is not measured (`perf.hw.assumed_efficiency`).
"""

from __future__ import annotations

import pytest

from archgen.model.accelerator import Accelerator, Efficiency
from archgen.perf.hw.assumed_efficiency import (
    MEASURED_RANGE,
    NAMES,
    assumed_point,
    effective_range,
    point,
    unstated,
)
from archgen.perf.hw.from_spec import hardware_for
from archgen.scoring.catalog import load_accelerators

from .conftest import CASES, measured, user_accelerator

#: A user-written accelerator that states no `efficiency` at all.
USER = user_accelerator({"bf16": "900 TFLOPS"})


def _measured() -> dict[str, list[float]]:
    """Every shipped part's HBM, flash and scale-up efficiency that its file states as measured."""
    return measured(lambda acc: ((n, getattr(acc.efficiency, n)) for n in NAMES
                                 if n in acc.efficiency.model_fields_set), "efficiency.{}")


def test_the_measured_ranges_are_the_catalogs():
    """The table in `assumed_efficiency` is what the catalog measures today: a new or corrected measurement fails."""
    assert MEASURED_RANGE == {name: (min(v), max(v)) for name, v in _measured().items()}


def test_tpu_v4s_hand_stated_ranges_are_the_derived_table():
    """TPU v4 states its ranges by hand as 'the catalog's measured fractions': they agree with the table."""
    eff = load_accelerators()["tpu-v4"].efficiency
    assert {n: tuple(getattr(eff, f"{n}_range")) for n in NAMES} == MEASURED_RANGE


def test_the_defaults_lie_inside_the_ranges():
    """The point is the field's default, an assumption held inside the measured range."""
    for name in NAMES:
        default = Efficiency.model_fields[name].default
        lo, hi = MEASURED_RANGE[name]
        assert lo <= default <= hi
        assert assumed_point(name, default) == default
    assert assumed_point("hbm", 0.95) == pytest.approx(sum(MEASURED_RANGE["hbm"]) / 2)  # above: the middle


def test_every_shipped_part_states_each_efficiency_or_its_range():
    """Nothing shipped is assumed here, so no shipped or scored number moves."""
    for acc in load_accelerators().values():
        assert unstated(acc.efficiency) == (), acc.id


def test_a_user_part_gets_the_ranges_and_a_stated_figure_keeps_its_own():
    acc = Accelerator.model_validate(USER)
    assert unstated(acc.efficiency) == NAMES
    hw = hardware_for(acc, scale_up_size=8)
    assert (hw.hbm_efficiency, hw.flash_efficiency, hw.scale_up_efficiency) == (0.85, 0.787, 0.8)
    assert hw.hbm_efficiency_range == MEASURED_RANGE["hbm"]
    assert hw.flash_efficiency_range == MEASURED_RANGE["flash"]
    assert hw.scale_up_efficiency_range == MEASURED_RANGE["scale_up"]
    assert hw.assumed_efficiencies == NAMES
    stated = Accelerator.model_validate({**USER, "efficiency": {"hbm": 0.9, "flash_range": [0.7, 0.8],
                                                                "flash": 0.75}})
    assert unstated(stated.efficiency) == ("scale_up",)
    assert effective_range(stated.efficiency, "hbm") is None and point(stated.efficiency, "hbm") == 0.9
    assert effective_range(stated.efficiency, "flash") == (0.7, 0.8)
    hw = hardware_for(stated, scale_up_size=8)
    assert hw.hbm_efficiency_range == () and hw.assumed_efficiencies == ("scale_up",)
    h100 = hardware_for(load_accelerators()["h100-sxm5-80gb"], scale_up_size=8)
    assert h100.assumed_efficiencies == () and h100.hbm_efficiency_range == ()


def test_with_chip_keeps_the_fabrics_scale_up_and_takes_the_chips_hbm_and_flash():
    user = hardware_for(Accelerator.model_validate(USER), scale_up_size=8)
    h100 = hardware_for(load_accelerators()["h100-sxm5-80gb"], scale_up_size=8)
    assert h100.with_chip(user).assumed_efficiencies == ("hbm", "flash")
    assert user.with_chip(h100).assumed_efficiencies == ("scale_up",)


def test_the_estimate_says_each_efficiency_is_not_measured(minimal_estimate):
    """`archgen estimate` on the minimal user specs (accelerator `acc` states no efficiency) gives the band."""
    est, note, (lo, hi) = minimal_estimate
    for text in ("HBM efficiency (not measured: the part states none; assumed point 0.85, range 0.783 (mi300x) to "
                 "0.866 (h100-sxm5-80gb)", "flash-attention efficiency (not measured: the part states none; assumed "
                 "point 0.787, range 0.787 (h100-sxm5-80gb) to 0.85 (a100-sxm4-80gb)", "scale-up link efficiency (not "
                 "measured: the part states none; assumed point 0.8, range 0.61 (a100-sxm4-80gb) to 0.824 "
                 "(h100-sxm5-80gb)"):
        assert text in note
    assert lo < est.metrics["step_time"].m_as("s") < hi


@pytest.mark.parametrize("name", NAMES)
def test_a_stated_point_without_range_is_measured(name):
    """A user part that states the figure itself gets no range: its own figure is taken as measured."""
    eff = Efficiency.model_validate({name: 0.8})
    assert name not in unstated(eff) and effective_range(eff, name) is None


def test_a_case_on_a_user_part_spans_the_assumed_ranges():
    """A case run on a part that states no efficiency is re-timed at the ends of every assumed range."""
    from archgen.scoring.cases import predict, read_cases
    from archgen.scoring.unstated import open_knobs, unstated_range
    cases, _ = read_cases(CASES)
    (case,) = [c for c in cases if c.id == "nccl-8xb200-allreduce-ring"]
    accs = load_accelerators()
    b200 = accs["b200-sxm-180gb"]
    mine = Accelerator.model_validate({**USER, "id": b200.id, "peak": {"bf16": "2250 TFLOPS"},
                                       "scale_up": {"technology": "NVLink 5", "bandwidth": "900 GB/s"}})
    user = {**accs, b200.id: mine}
    assert open_knobs(case, user) == ("scale-up efficiency",)
    lo, hi = unstated_range(case, user)["busbw"]
    assert lo < predict(case, user)["busbw"] < hi
    assert (lo, hi) == pytest.approx(unstated_range(case, accs)["busbw"])  # B200 states the same range by hand


def test_both_assumed_efficiencies_hold_their_point_by_one_rule():
    """GEMM and the other efficiencies clamp an assumed point the same way (`perf.hw.measured_range.held_inside`)."""
    from archgen.perf.hw import assumed_gemm
    from archgen.perf.hw.measured_range import held_inside
    assert held_inside(0.5, (0.6, 0.8)) == 0.6 and held_inside(0.9, (0.6, 0.8)) == pytest.approx(0.7)  # the middle
    assert held_inside(0.7, (0.6, 0.8)) == 0.7
    for name, default in (("hbm", 0.95), ("flash", 0.1), ("scale_up", 0.7)):
        assert assumed_point(name, default) == held_inside(default, MEASURED_RANGE[name])
    for dtype in ("fp4", "fp8", "int8"):
        assert assumed_gemm.assumed_point(dtype, {}) == held_inside(0.7, assumed_gemm.measured_range(dtype))
