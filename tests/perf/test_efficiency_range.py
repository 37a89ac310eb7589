"""A GEMM efficiency the catalog states as a range (no measurement on the part) reaches the estimate.

Sources (specs/catalog/accelerators/b200-sxm-180gb.yaml, gb200.yaml, gb300.yaml): Transformer Engine's GEMM profiling
guide (docs/examples/gemm_profiling/gemm_profiling.rst at d0067d0) on B300: BF16 13.102, FP8 tensor-wise 6.812 and
NVFP4 3.764 ms per layer, i.e. 0.683, 0.657 and 0.382 of B300's peaks (NVFP4 5,350 TFLOP/s over 14,000); B300's MAMF 0.786 and 0.745 (ml-engineering).
"""

from __future__ import annotations

import pytest

from archgen.model.pcie import PCIE_COPY_RANGE
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.workload.efficiency_range import (
    at_efficiency,
    at_flash,
    at_hbm,
    at_scale_up,
    efficiency_note,
    flash_range,
    gemm_range,
    hbm_range,
    over_range,
    range_ends,
)


def test_blackwell_points_are_at_training_shapes_and_ranges_reach_mamf(accelerators):
    """B300 measures 0.683 / 0.657 / 0.382 of peak at training shapes (BF16 / FP8 / NVFP4; NVFP4 over its dense
    14,000 TFLOP/s, the HGX B300 column of NVIDIA's Blackwell Ultra datasheet) against MAMF 0.786 /
    0.745: B200 and GB200 take their MAMF times those ratios, ranges up to MAMF; NVFP4 from B300's rate (the
    guide's 3.764 ms per layer, which the model times at 1.824 ms with 0.736 of the 15,000 TFLOP/s it was derived at:
    5,350 TFLOP/s) as a fraction of B300's own dense 14,000 TFLOP/s (0.382; 0.357 while B300 carried the GB300's
    15,000) to the best rate measured on the die (DeepGEMM PR 348: MXFP4 5,702 TFLOP/s at 8,192^3 on B200, through
    the size ramp), point the middle of that fraction and B300's rate on the part; GB300 is B300's die."""
    rate, measured = 0.736 * 1.824 / 3.764 * 15000, 5702 / (8192 / (8192 + 128)) ** 3
    assert accelerators["b300-sxm-288gb"].efficiency.gemm["fp4"] == pytest.approx(rate / 14000, abs=5e-4)
    for part, bf16, fp8, peak in (("b200-sxm-180gb", 0.776, 0.763, 9000), ("gb200", 0.729, 0.723, 10000)):
        eff = accelerators[part].efficiency
        assert eff.gemm["bf16"] == pytest.approx(bf16 * 0.683 / 0.786, abs=5e-4)
        assert eff.gemm["fp8"] == pytest.approx(fp8 * 0.657 / 0.745, abs=5e-4)
        assert eff.gemm_range["bf16"] == (eff.gemm["bf16"], bf16) and eff.gemm_range["fp8"] == (eff.gemm["fp8"], fp8)
        lo, hi = eff.gemm_range["fp4"]
        assert lo == pytest.approx(rate / 14000, abs=5e-4) and hi == pytest.approx(measured / peak, abs=5e-4)
        assert eff.gemm["fp4"] == pytest.approx((rate / 14000 + rate / peak) / 2, abs=5e-4)  # no measurement
    gb300 = accelerators["gb300"].efficiency
    assert gb300.gemm == accelerators["b300-sxm-288gb"].efficiency.gemm  # its die's, not GB200's
    assert gb300.gemm_range["fp8"] == (0.657, 0.745)
    assert gb300.gemm_range["fp4"] == (0.382, pytest.approx(0.382 * 0.745 / 0.657, abs=5e-4))


def test_a_range_must_hold_its_point():
    from archgen.model.accelerator import Efficiency
    with pytest.raises(ValueError, match="must lie in"):
        Efficiency(gemm={"fp4": 0.7}, gemm_range={"fp4": (0.4, 0.6)})
    with pytest.raises(ValueError, match=r"is given without gemm\.fp4, the point estimates use"):   # margin43
        Efficiency(gemm={}, gemm_range={"fp4": (0.4, 0.6)})


def test_the_range_reaches_the_estimate(accelerators):
    from archgen.perf.hw.arch import Arch
    from archgen.perf.train.job import Job, Layout
    from archgen.perf.train.training import estimate_training
    hw = hardware_for(accelerators["gb200"], scale_up_size=72)
    assert gemm_range(hw, "fp4") == (0.382, 0.597)
    assert gemm_range(hw, "tf32") == (0.382, 0.859)  # no tf32 GEMM figure at all: the catalog's measured range
    assert hbm_range(hw) == (0.783, 0.866)  # no copy measurement of GB200: the catalog's measured Copy fractions
    assert flash_range(hw) == (0.787, 0.85)  # no flash-attention measurement: FlashAttention-3 H100 to -2 A100
    arch = Arch(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256, gated=True, rope=True, qk_norm=False)
    job, lay = Job(arch, 8192, 16, "fp4"), Layout(1, 1, 8, 2)
    step = lambda h: float(estimate_training(h, job, lay).step_time)  # noqa: E731
    lo, hi = over_range(hw, "fp4", step)
    assert len(range_ends(hw, "fp4")) == 16  # every combination of the four ranges' ends
    fast = at_scale_up(at_flash(at_hbm(at_efficiency(hw, "fp4", 0.597), 0.866), 0.85), 0.824)
    slow = at_scale_up(at_flash(at_hbm(at_efficiency(hw, "fp4", 0.382), 0.783), 0.787), 0.61)
    assert lo == step(fast) < step(hw) < hi == step(slow)
    assert step(at_efficiency(hw, "fp4", 0.597)) > lo  # the HBM and flash ends move it too
    (note,) = efficiency_note(hw, "fp4", step)
    assert note.startswith("fp4 GEMM efficiency (catalog point 0.459, range 0.382 to 0.597) and HBM efficiency "
                           "(catalog point 0.85, range 0.783 to 0.866) and flash-attention efficiency (catalog "
                           "point 0.787, range 0.787 to 0.85) and scale-up link efficiency (catalog point 0.824, "
                           "range 0.61 to 0.824) of gb200 are stated ranges, not measurements: over "
                           "those ranges the step time spans") and f"{hi:.4g} s" in note
    (note,) = efficiency_note(hw, "tf32", step)  # no tf32 GEMM figure: an assumed point, said to be one
    assert note.startswith("tf32 GEMM efficiency (not measured: the part states none; assumed point 0.459, range "
                           "0.382 (b300-sxm-288gb) to 0.859 (a100-sxm4-80gb), the catalog's measured fractions) and "
                           "HBM efficiency (catalog point 0.85, range 0.783 to 0.866) and flash-attention")
    # H100 measures each efficiency; only its K loop's fixed steps are a range (DeepGEMM's rows disagree, kfixed42)
    h100 = hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8)
    step16 = lambda h: float(estimate_training(h, Job(arch, 8192, 16, "bf16"), lay).step_time)  # noqa: E731
    (note,) = efficiency_note(h100, "bf16", step16)
    assert note.startswith("GEMM tile fixed cost in K-loop steps (catalog point 5.35, range 1.33 to 5.98) of "
                           "h100-sxm5-80gb is a stated range, not one measurement: over that range the step time spans")
    lo, hi = over_range(h100, "bf16", step16)
    assert lo < step16(h100) < hi


def test_flash_efficiency_is_per_part(accelerators):
    """FlashAttention-2 on A100: 73 % of peak forward (arXiv 2307.08691) over the A100's 0.859 GEMM; FlashAttention-3
    on H100: 620.73 TFLOP/s at 16k tokens (pytorch/benchmark PR 2391) over 794.5 TFLOP/s BF16 MAMF through the size
    ramp 16,384 / 16,512. The attention rate follows the part's figure."""
    from archgen.perf.hw import kernels as K
    a100, h100 = accelerators["a100-sxm4-80gb"].efficiency, accelerators["h100-sxm5-80gb"].efficiency
    assert a100.flash == pytest.approx(0.73 / 0.859, abs=5e-4) and a100.flash_range is None
    assert h100.flash == pytest.approx(620.73 / 794.5 / (16384 / 16512), abs=5e-4) and h100.flash_range is None
    hw = hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8)
    shape = {"batch": 1, "q_len": 16384, "kv_len": 16384, "heads": 16, "head_dim": 128, "causal": False}
    t = K.attention_forward(hw, "bf16", **shape)
    assert K.attention_forward(at_flash(hw, 0.85), "bf16", **shape) == pytest.approx(t * 0.787 / 0.85)


def test_measured_hbm_is_babelstream_copy_over_peak(accelerators):
    """Azure/AI-benchmarking-guide, HBM Bandwidth tables (BabelStream Copy, TB/s): ND A100 v4 (A100-SXM4-80GB) 1.61,
    ND H100 v5 2.90, ND H200 v5 4.01; ND MI300X v5 4.15 (samuel-bohman's fork with the AMD runner), where
    rocprofiler-compute's copy roofline expects 3,910.62 GB/s (ROCm/rocm-systems PR 2934): efficiency = copy / peak."""
    for part, copy_tbs in (("a100-sxm4-80gb", 1.61), ("h100-sxm5-80gb", 2.90), ("h200-sxm-141gb", 4.01),
                           ("mi300x", 4.15)):
        acc = accelerators[part]
        assert acc.efficiency.hbm == pytest.approx(copy_tbs / acc.memory_bandwidth.to("TB/s").m, abs=5e-4), part
        assert "efficiency.hbm" not in acc.unconfirmed_fields(), part
    assert accelerators["mi300x"].efficiency.hbm_range == (pytest.approx(3910.62 / 5300, abs=5e-4), 0.783)
    for acc in accelerators.values():  # every other part: an assumed point inside a stated range
        if acc.id not in ("a100-sxm4-80gb", "h100-sxm5-80gb", "h200-sxm-141gb", "mi300x", "h800-sxm5-80gb"):
            lo, hi = acc.efficiency.hbm_range
            assert lo <= acc.efficiency.hbm <= hi == 0.866, acc.id


def test_a_serving_case_spans_the_hbm_range(accelerators):
    """A B200 serving case (no HBM or flash-attention measurement of B200) is re-timed at the ends of both ranges."""
    from pathlib import Path

    from archgen.scoring.cases import predict, read_cases
    from archgen.scoring.unstated import open_knobs, serving_range
    cases, _ = read_cases(Path(__file__).resolve().parents[1] / "data" / "validation-modern.yaml")
    (case,) = [c for c in cases if c.id == "trtllm-b200-llama33-70b-fp4-tp1-20000-2000"]
    assert "HBM efficiency" in open_knobs(case, accelerators)
    case = case.model_copy(update={"inference": case.inference.model_copy(update={"kv_precision": "fp8"})})
    assert open_knobs(case, accelerators) == ("TensorRT-LLM KV cache fraction", "HBM efficiency", "flash efficiency",
                                              "scale-up efficiency")   # frac39: it states no KV cache fraction
    lo, hi = serving_range(case, accelerators)["tokens_per_second"]
    assert lo < predict(case, accelerators)["tokens_per_second"] < hi


def test_gb200_nvfp4_case_range_spans_the_measurement(accelerators):
    """MLPerf Training v5.1 Llama 3.1 8B NVFP4 on 8 GB200 (0.4055 s): the range over the stated efficiency holds it."""
    from pathlib import Path

    from archgen.scoring.cases import read_cases
    from archgen.scoring.unstated import training_efficiency_range, unstated_range
    cases, _ = read_cases(Path(__file__).resolve().parents[1] / "data" / "validation-modern.yaml")
    (case,) = [c for c in cases if c.id == "mlperf-t51-llama31-8b-8xgb200-nvfp4"]
    case = case.model_copy(update={"training": case.training.model_copy(update={"stack": "nemo-2025"})})
    lo, hi = training_efficiency_range(case, accelerators)["step_time"]
    assert lo < 0.4055 < hi
    assert unstated_range(case, accelerators)["step_time"] == (lo, hi)  # the stack is stated: no profile range


def test_unmeasured_scale_up_links_state_the_measured_range(accelerators):
    """Scale-up bus bandwidth over link bandwidth is measured on three parts: A100 0.61 (microsoft/vidur
    a100_dgx all_reduce.csv, 8 GPUs, 64 MiB), H100 0.824 (ASTRA-sim HGX-H100 validation, 741.34 / 900 GB/s), MI300X
    0.75 (AMD ROCm blog, ~48 of 64 GB/s per xGMI link); the H200 takes the H100's (same NVLink 4 and NVSwitch). Every
    part whose figure is unconfirmed states the range those measurements span, holding its point."""
    measured = {"a100-sxm4-80gb": 0.61, "h100-sxm5-80gb": 0.824, "mi300x": 0.75}
    for part, value in measured.items():
        eff = accelerators[part].efficiency
        assert eff.scale_up == value and eff.scale_up_range is None, part
    span = (min(measured.values()), max(measured.values()))
    unconfirmed = [a for a in accelerators.values()
                   if {"efficiency", "efficiency.scale_up"} & set(a.unconfirmed_fields())]
    assert len(unconfirmed) == 13  # trainium2 (session trn2) joined the ten, tpu-v5p (newuser71) and l40s (newuser73)
    for acc in unconfirmed:   # a card over PCIe peer-to-peer (no NVLink) states the measured PCIe copy range
        pcie = acc.host_interface is not None and acc.scale_up is None
        assert acc.efficiency.scale_up_range == (PCIE_COPY_RANGE if pcie else span), acc.id


def test_the_scale_up_range_reaches_a_collective(accelerators):
    """The scored 8 x B200 ring all-reduce (tests/data/validation-modern.yaml: 682.2 GB/s busbw, 0.758 of the 900 GB/s
    NVLink 5; the model's point, H100's 0.824, gives +8.4 %) lies within the busbw over B200's stated range."""
    from pathlib import Path

    from archgen.scoring.cases import read_cases
    from archgen.scoring.unstated import open_knobs, unstated_range
    cases, _ = read_cases(Path(__file__).resolve().parents[1] / "data" / "validation-cases.yaml")
    (case,) = [c for c in cases if c.id == "nccl-8xb200-allreduce-ring"]
    assert open_knobs(case, accelerators) == ("scale-up efficiency",)
    lo, hi = unstated_range(case, accelerators)["busbw"]
    assert lo < 682.2e9 < hi
