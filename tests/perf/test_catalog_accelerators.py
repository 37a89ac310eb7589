"""The shipped accelerator catalog covers the validation ids and cites its figures."""

from __future__ import annotations

import re

import pytest

from .conftest import CASES


def test_every_validation_accelerator_is_in_the_catalog(accelerators):
    header = CASES.read_text(encoding="utf-8").split("schema:")[0]
    listed = set(re.findall(r"\b(a100-sxm4-80gb|h100-sxm5-80gb|h200-sxm-141gb|h800-sxm5-80gb|b200-sxm-180gb|gb200|"
                            r"gb300|mi300x)\b", header))
    assert len(listed) == 8 and listed <= set(accelerators)


def test_every_accelerator_cites_sources_and_efficiencies(accelerators):
    for acc in accelerators.values():
        assert acc.source and acc.efficiency.source, acc.id
        assert set(acc.efficiency.gemm) >= {"bf16"} | ({"fp16"} & set(acc.peak)), acc.id   # TPUs have no fp16
        assert all(0 < e <= 1 for e in acc.efficiency.gemm.values()), acc.id
        assert "bf16" in acc.peak and acc.scale_up is not None, acc.id


def test_datasheet_figures(accelerators):
    h100 = accelerators["h100-sxm5-80gb"]
    assert h100.peak["bf16"].to("TFLOPS").m == 989 and h100.peak["fp8"].to("TFLOPS").m == 1979
    assert h100.memory_bandwidth.to("TB/s").m == 3.35 and h100.scale_up.bandwidth.to("GB/s").m == 450
    assert accelerators["b200-sxm-180gb"].peak["fp4"].to("TFLOPS").m == 9000
    assert accelerators["mi300x"].memory.to("GiB").m == 192     # vendor "192 GB" is 8 stacks x 24 GiB


def test_amd_fp8_and_fp16_gemm_efficiency_is_amd_max_achievable_flops(accelerators):
    """AMD ROCm blog, "Measuring Max-Achievable FLOPs - Part 2" (2025-02-28), Table 1, hipBLASLt: MAF FP8 1,273 and
    FP16 654 TFLOP/s on the MI300X (750 W), FP8 1,519 and FP16 794 on the MI325X (1,000 W); the catalog once assumed
    FP8 as efficient as BF16 (0.601 and 0.600 of peak)."""
    for acc, fp8, fp16 in (("mi300x", 1273, 654), ("mi325x", 1519, 794)):
        a = accelerators[acc]
        assert a.efficiency.gemm["fp8"] * a.peak["fp8"].to("TFLOPS").m == pytest.approx(fp8, rel=0.002), acc
        assert a.efficiency.gemm["fp16"] * a.peak["fp16"].to("TFLOPS").m == pytest.approx(fp16, rel=0.002), acc
