"""A GEMM efficiency the catalog states as a range (no measurement on the part) reaches the estimate.

Sources (specs/catalog/accelerators/b200-sxm-180gb.yaml, gb200.yaml, gb300.yaml): Transformer Engine's GEMM profiling
guide (docs/examples/gemm_profiling/gemm_profiling.rst at d0067d0) on B300: FP8 tensor-wise 6.812 ms and NVFP4
3.764 ms per layer, i.e. 0.657 and 0.357 of B300's peaks; B300's FP8 MAMF 0.745 (ml-engineering).
"""

from __future__ import annotations

import pytest

from archgen.perf.efficiency_range import at_efficiency, efficiency_note, gemm_range, over_range
from archgen.perf.hardware import hardware_for


def test_nvfp4_range_is_derived_from_b300s_measurement(accelerators):
    mamf_basis = 0.357 * 0.745 / 0.657  # B300 NVFP4 at training shapes, on the MAMF basis of the FP8 figure
    assert mamf_basis == pytest.approx(0.405, abs=5e-4)
    rate = mamf_basis * 15000  # TFLOP/s (6,072), which B300's larger FP4 tensor peak bounds B200/GB200 by
    for part, peak in (("b200-sxm-180gb", 9000), ("gb200", 10000)):
        eff = accelerators[part].efficiency
        lo, hi = eff.gemm_range["fp4"]
        assert lo == 0.405 and hi == pytest.approx(rate / peak, abs=5e-4)
        assert eff.gemm["fp4"] == pytest.approx((lo + hi) / 2, abs=5e-4)  # the middle: no measurement to prefer
    gb300 = accelerators["gb300"].efficiency
    assert gb300.gemm == {"fp16": 0.786, "bf16": 0.786, "fp8": 0.745, "fp4": 0.405}  # B300's die, not GB200's
    assert gb300.gemm_range["fp8"] == (0.657, 0.745) and gb300.gemm_range["fp4"] == (0.357, 0.405)


def test_a_range_must_hold_its_point():
    from archgen.model.accelerator import Efficiency
    with pytest.raises(ValueError, match="must lie in"):
        Efficiency(gemm={"fp4": 0.7}, gemm_range={"fp4": (0.4, 0.6)})
    with pytest.raises(ValueError, match="must lie in"):
        Efficiency(gemm={}, gemm_range={"fp4": (0.4, 0.6)})


def test_the_range_reaches_the_estimate(accelerators):
    from archgen.perf.arch import Arch
    from archgen.perf.training import Job, Layout, estimate_training
    hw = hardware_for(accelerators["gb200"], scale_up_size=72)
    assert gemm_range(hw, "fp4") == (0.405, 0.607) and gemm_range(hw, "fp8") is None
    arch = Arch(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256, gated=True)
    job, lay = Job(arch, 8192, 16, "fp4"), Layout(1, 1, 8, 2)
    step = lambda h: float(estimate_training(h, job, lay).step_time)  # noqa: E731
    lo, hi = over_range(hw, "fp4", step)
    assert lo == step(at_efficiency(hw, "fp4", 0.607)) < step(hw) < hi == step(at_efficiency(hw, "fp4", 0.405))
    (note,) = efficiency_note(hw, "fp4", step)
    assert note.startswith("fp4 GEMM efficiency of gb200 is not measured (catalog point 0.506, stated range 0.405 "
                           "to 0.607)") and f"{hi:.4g} s" in note
    assert efficiency_note(hw, "fp8", step) == []


def test_gb200_nvfp4_case_range_spans_the_measurement(accelerators):
    """MLPerf Training v5.1 Llama 3.1 8B NVFP4 on 8 GB200 (0.4055 s): the range over the stated efficiency holds it."""
    from pathlib import Path

    from archgen.perf.cases import read_cases
    from archgen.perf.unstated import training_efficiency_range, unstated_range
    cases, _ = read_cases(Path(__file__).resolve().parents[1] / "data" / "validation-modern.yaml")
    (case,) = [c for c in cases if c.id == "mlperf-t51-llama31-8b-8xgb200-nvfp4"]
    case = case.model_copy(update={"training": case.training.model_copy(update={"stack": "nemo-2025"})})
    lo, hi = training_efficiency_range(case, accelerators)["step_time"]
    assert lo < 0.4055 < hi
    assert unstated_range(case, accelerators)["step_time"] == (lo, hi)  # the stack is stated: no profile range
