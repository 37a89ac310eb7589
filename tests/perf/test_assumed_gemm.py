"""A data type an accelerator states no GEMM efficiency for: an assumed point inside the catalog's measured range.

The model gave such a data type 0.7 (or the part's lowest stated figure), a constant no source states, and the
estimate did not say so. It now states the catalog's measured range beside the assumed point, as TPU v4's
`gemm_range` does, and the estimate's notes say the efficiency is not measured (`perf.hw.assumed_gemm`).
"""

from __future__ import annotations

import pytest

from archgen.model.accelerator import Accelerator
from archgen.perf.hw.assumed_gemm import (
    ASSUMED_GEMM_EFFICIENCY,
    MEASURED_GEMM_RANGE,
    MEASURED_GEMM_RANGE_ANY,
    assumed_point,
    measured_range,
)
from archgen.perf.hw.from_spec import hardware_for
from archgen.scoring.catalog import load_accelerators

from .conftest import measured, user_accelerator

#: A user-written accelerator that states no `efficiency` at all.
USER = user_accelerator({"bf16": "900 TFLOPS", "fp8": "1800 TFLOPS", "fp4": "3600 TFLOPS", "int8": "1800 TFLOPS"})


def _measured() -> dict[str, list[float]]:
    """Every shipped part's GEMM efficiency that its file states as measured, per data type."""
    return measured(lambda acc: acc.efficiency.gemm.items(), "efficiency.gemm.{}")


def test_the_measured_ranges_are_the_catalogs():
    """The table in `assumed_gemm` is what the catalog measures today: a new or corrected measurement fails here."""
    measured = _measured()
    assert MEASURED_GEMM_RANGE == {dt: (min(v), max(v)) for dt, v in measured.items()}
    every = [x for v in measured.values() for x in v]
    assert MEASURED_GEMM_RANGE_ANY == (min(every), max(every))


def test_the_point_is_an_assumption_inside_the_range():
    assert assumed_point("bf16", {}) == ASSUMED_GEMM_EFFICIENCY == 0.7
    assert assumed_point("fp8", {"bf16": 0.6, "fp16": 0.65}) == 0.6         # the part's own lowest figure
    assert assumed_point("fp8", {"bf16": 0.3}) == MEASURED_GEMM_RANGE["fp8"][0]  # below the range: its low end
    assert measured_range("int8") == MEASURED_GEMM_RANGE_ANY                 # no part measures int8
    for dt in (*MEASURED_GEMM_RANGE, "tf32"):
        lo, hi = measured_range(dt)
        assert lo <= assumed_point(dt, {}) <= hi


def test_a_point_above_the_range_is_its_middle_not_its_optimistic_end():
    """newuser46: 0.7 lies above every measured fp4 (0.382 b300 to 0.574 mi355x, MI355X's best MXFP4, above every
    NVIDIA NVFP4 figure); an unmeasured part (Rubin, MI455X) ran fp4 at 0.574. It now runs at the middle, (0.382 +
    0.574) / 2 = 0.478, and the estimate still spans the whole range (`gemm_efficiency_range`)."""
    lo, hi = MEASURED_GEMM_RANGE["fp4"]
    assert assumed_point("fp4", {}) == pytest.approx((lo + hi) / 2) == pytest.approx(0.478)
    assert assumed_point("fp8", {"bf16": 0.9}) == pytest.approx(sum(MEASURED_GEMM_RANGE["fp8"]) / 2)
    hw = hardware_for(Accelerator.model_validate(USER), scale_up_size=8)
    assert hw.gemm_efficiency_range["fp4"] == (lo, hi)


def test_a_user_part_gets_the_range_and_a_stated_part_keeps_its_own():
    hw = hardware_for(Accelerator.model_validate(USER), scale_up_size=8)
    assert hw.gemm_efficiency == {}
    assert hw.gemm_efficiency_range == {dt: measured_range(dt) for dt in USER["peak"]}
    assert hw.gemm_rate("bf16") == pytest.approx(900e12 * 0.7)
    assert hw.gemm_rate("fp4") == pytest.approx(3600e12 * sum(MEASURED_GEMM_RANGE["fp4"]) / 2)
    h100 = hardware_for(load_accelerators()["h100-sxm5-80gb"], scale_up_size=8)
    assert "bf16" not in h100.gemm_efficiency_range and "fp8" not in h100.gemm_efficiency_range


def test_the_estimate_says_the_efficiency_is_not_measured(minimal_estimate):
    """`archgen estimate` on the minimal user specs (accelerator `acc` states no efficiency) gives the band."""
    est, note, (lo, hi) = minimal_estimate
    assert "bf16 GEMM efficiency (not measured: the part states none; assumed point 0.7, range 0.511 (mi300x) to 0.859 " \
           "(a100-sxm4-80gb)" in note
    assert lo < est.metrics["step_time"].m_as("s") < hi


def test_a_figure_is_unconfirmed_where_it_or_a_field_above_it_is_marked():
    """The rule the measured tables are recomputed by (`Part.is_unconfirmed`)."""
    marked = Accelerator.model_validate({**USER, "unconfirmed": ["efficiency.gemm", "tdp"]})
    assert marked.is_unconfirmed("efficiency.gemm.bf16") and marked.is_unconfirmed("efficiency.gemm")
    assert not marked.is_unconfirmed("efficiency.hbm") and not marked.is_unconfirmed("efficiency")
    assert marked.is_unconfirmed("tdp") and not marked.is_unconfirmed("tdp_max")
    whole = Accelerator.model_validate({**USER, "unconfirmed": True})
    assert whole.is_unconfirmed("memory") and not Accelerator.model_validate(USER).is_unconfirmed("memory")
