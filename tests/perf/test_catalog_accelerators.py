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
        if acc.efficiency.gemm or "efficiency" not in acc.unconfirmed_fields():   # l40s: none measured, so left
            assert set(acc.efficiency.gemm) >= {"bf16"} | ({"fp16"} & set(acc.peak)), acc.id   # out (the catalog's
        assert all(0 < e <= 1 for e in acc.efficiency.gemm.values()), acc.id   # range); TPUs have no fp16
        assert "bf16" in acc.peak and (acc.scale_up is not None or acc.host_interface is not None), acc.id


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


def test_mi355x_and_mi350x_gemm_efficiency_from_amd_measurements(accelerators):
    """MI355X fp8: hipBLASLt at M = N = K = 8,192, 3,130.21 TFLOP/s (ROCm/rocm-blogs cdna4-gemm-kernels README.md at
    c9ef806, Table 5, ROCm 7.1.0); fp4: AITER's best MXFP4 GEMM, 5,775 TFLOP/s on MI355X and 5,094 on MI350X
    (ROCm/aiter PR 2037); bf16: ml-engineering MAMF 1,565.0. The MI350X has no bf16/fp8 measurement: a range from the
    MI355X's fraction scaled by the two parts' fp4 ratio (the point) up to the MI355X's fraction."""
    mi355x, mi350x = accelerators["mi355x"], accelerators["mi350x"]
    for acc, dt, tflops in ((mi355x, "fp8", 3130.21), (mi355x, "fp4", 5775), (mi355x, "bf16", 1565.0),
                            (mi350x, "fp4", 5094)):
        assert acc.efficiency.gemm[dt] * acc.peak[dt].to("TFLOPS").m == pytest.approx(tflops, rel=0.002), (acc.id, dt)
        assert dt not in acc.efficiency.gemm_range, (acc.id, dt)                # measured: a point, no range
    ratio = (5094 / mi350x.peak["fp4"].to("TFLOPS").m) / (5775 / mi355x.peak["fp4"].to("TFLOPS").m)
    for dt, tflops in (("bf16", 1565.0), ("fp8", 3130.21)):
        lo, hi = mi350x.efficiency.gemm_range[dt]
        measured = tflops / mi355x.peak[dt].to("TFLOPS").m                     # the MI355X's, unrounded
        assert hi == mi355x.efficiency.gemm[dt] and lo == pytest.approx(measured * ratio, abs=5e-4)
        assert mi350x.efficiency.gemm[dt] == lo


def test_amd_bf16_is_a_range_between_the_two_published_methods(accelerators):
    """ml-engineering's MAMF v2 (caches reset): MI300X 668.4, MI325X 784.9 TFLOP/s (the points); AMD's MAF, Table 1
    of "Measuring Max-Achievable FLOPs - Part 2": 708 and 843 (the high ends). The MI300X's 781.9 was the v1 table's."""
    for acc, mamf, maf in (("mi300x", 668.4, 708), ("mi325x", 784.9, 843)):
        a = accelerators[acc]
        peak = a.peak["bf16"].to("TFLOPS").m
        assert a.efficiency.gemm["bf16"] == pytest.approx(mamf / peak, abs=5e-4)
        assert a.efficiency.gemm_range["bf16"] == (a.efficiency.gemm["bf16"], pytest.approx(maf / peak, abs=5e-4))


def test_ml_engineering_citations_name_a_revision(accelerators):
    """The MAMF table changed under its citations (v1 figures were dropped after f0cca2f): every efficiency source
    that quotes ml-engineering names the revision it read."""
    for acc in accelerators.values():
        lines = [acc.efficiency.source] if isinstance(acc.efficiency.source, str) else acc.efficiency.source
        for line in lines:
            if "stas00/ml-engineering" in line:
                assert re.search(r"\bat [0-9a-f]{7,40}\b", line), (acc.id, line)
