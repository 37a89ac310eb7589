"""B300 (HGX, 1,100 W) takes the HGX B300 column of NVIDIA's datasheet, not the GB300 NVL72 column.

newuser42's audit: b300-sxm-288gb carried the GB300's HBM bandwidth (8 TB/s) and FP32 rate (80 TFLOPS) while its
memory (270 GB) and TGP (1,100 W) were already the HGX part's. The sources, quoted:

* NVIDIA Blackwell Ultra datasheet (resources.nvidia.com/en-us-blackwell-architecture/blackwell-ultra-datasheet,
  footer OCT25), Technical Specifications, HGX B300 column, per GPU: "GPU Memory | Bandwidth 270 GB HBM3E | 7.7 TB/s",
  "Max TDP Configurable up to 1,100 W"; GB300 NVL72 column: 279 GB, 8 TB/s, up to 1,400 W. Read in two public
  transcriptions of the datasheet (code search, 2026-12-05); NVIDIA's PDF itself was not read here.
* https://verda.com/blog/gb300-nvl72-architecture (already a gb300 source), "Per-GPU specifications", "Performance
  numbers without sparsity": B300 "GPU Memory Bandwidth 7.7 TB/s", "FP32 0.075 PFLOPS", "GPU Memory 270 GB HBM3E",
  "Max Thermal Design Power (TDP) 1.1 kW"; GB300 8 TB/s, 0.080 PFLOPS, 1.4 kW.
* NVIDIA HGX platform page (https://www.nvidia.com/en-us/data-center/hgx/), HGX B300, 8 GPUs: "FP32 Performance
  600 TFLOPS" (600 / 8 = 75 per GPU), as transcribed in the same public files.
"""

from __future__ import annotations

import pytest

from archgen.units import Q_

# The datasheet's HGX B300 column, per GPU (module docstring).
HGX_B300_HBM_BANDWIDTH = Q_(7.7, "TB/s")
HGX_B300_FP32 = Q_(600, "TFLOPS") / 8
HGX_B300_FP4_DENSE = Q_(14, "PFLOPS")  # "FP4 Tensor Core 18 PFLOPS | 14 PFLOPS" (sparse | dense), per GPU


def test_b300_hbm_bandwidth_is_the_hgx_columns(accelerators):
    """"270 GB HBM3E | 7.7 TB/s" (HGX B300 column); 8 TB/s is the GB300 NVL72 column's."""
    b300, gb300 = accelerators["b300-sxm-288gb"], accelerators["gb300"]
    assert b300.memory_bandwidth.to("TB/s").magnitude == pytest.approx(HGX_B300_HBM_BANDWIDTH.to("TB/s").magnitude)
    assert gb300.memory_bandwidth.to("TB/s").magnitude == pytest.approx(8.0)


def test_b300_fp32_vector_rate_is_the_hgx_boards_over_eight(accelerators):
    """HGX B300 "FP32 Performance 600 TFLOPS" for 8 GPUs = 75 TFLOPS (Verda: B300 FP32 0.075 PFLOPS, GB300 0.080)."""
    b300, gb300 = accelerators["b300-sxm-288gb"], accelerators["gb300"]
    assert b300.vector_peak.to("TFLOPS").magnitude == pytest.approx(HGX_B300_FP32.to("TFLOPS").magnitude)
    assert gb300.vector_peak.to("TFLOPS").magnitude == pytest.approx(80.0)


def test_b300_dense_fp4_peak_is_the_hgx_columns(accelerators):
    """"FP4 Tensor Core 18 PFLOPS | 14 PFLOPS" (sparse | dense) in the HGX B300 column (Verda: B300 FP4 14 PFLOPS
    without sparsity); 15 PFLOPS is the GB300 NVL72 column's (20 | 15, and 1,080 PFLOPS dense over 72 GPUs). The
    HGX page's board figure, 108 PFLOPS dense over 8 GPUs, is 13.5: NVIDIA's two B300 figures differ by 3.6 %."""
    b300, gb300 = accelerators["b300-sxm-288gb"], accelerators["gb300"]
    assert b300.peak["fp4"].to("TFLOPS").magnitude == pytest.approx(HGX_B300_FP4_DENSE.to("TFLOPS").magnitude)
    assert gb300.peak["fp4"].to("TFLOPS").magnitude == pytest.approx(15000)


def test_b300_measured_nvfp4_rate_is_kept(accelerators):
    """The efficiency is the Transformer Engine guide's measured NVFP4 rate over the peak, so the corrected peak
    leaves the measured rate (about 5,355 TFLOP/s, 3.764 ms per layer) where it was: 0.357 x 15,000 = 0.3825 x 14,000,
    within the 3-decimal rounding of the efficiency."""
    b300 = accelerators["b300-sxm-288gb"]
    rate = b300.efficiency.gemm["fp4"] * b300.peak["fp4"].to("TFLOPS").magnitude
    assert rate == pytest.approx(0.357 * 15000, rel=2e-3)
