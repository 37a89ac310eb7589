"""Kernel rooflines against their closed forms."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from archgen.errors import AnalyseError
from archgen.perf.hw import kernels as K


def test_large_gemm_is_compute_bound_at_measured_efficiency(h100):
    m = n = k = 16384
    t = K.gemm_time(h100, "bf16", m, n, k)
    size = (m / (m + 128)) ** 2  # K = 16,384 BF16 is 256 K-loop steps, past the reference shape's 112: no K loss
    assert K.k_loop_efficiency(h100, "bf16", k) == 1.0
    assert t == pytest.approx(2 * m * n * k / (989e12 * 0.803 * size), rel=1e-9)


def test_skinny_gemm_is_bandwidth_bound(h100):
    # decode with batch 1: read the 8192 x 8192 fp8 weight once, at H100's BabelStream Copy (2.90 of 3.35 TB/s)
    t = K.gemm_time(h100, "fp8", 1, 8192, 8192)
    assert t == pytest.approx((8192 * 8192 + 8192 + 8192) / (3.35e12 * 0.866), rel=1e-9)


def test_nvfp4_gemm_reads_its_block_scales(accelerators):
    """An NVFP4 operand carries one E4M3 scale per 16 values: a decode GEMV on B200 reads the 8192 x 8192 weight
    at 0.5 + 1/16 B per element (12.5 % more than its FP4 data), its input likewise, and writes its output."""
    from archgen.perf.hw.from_spec import hardware_for
    b200 = hardware_for(accelerators["b200-sxm-180gb"], scale_up_size=8)
    nbytes = (8192 * 8192 + 8192) * (0.5 + 1 / 16) + 8192 * 0.5
    assert K.gemm_bytes("fp4", 1, 8192, 8192) == nbytes
    assert K.gemm_bytes("fp8", 1, 8192, 8192) == 8192 * 8192 + 2 * 8192  # no block scales
    streaming = dataclasses.replace(b200, gemm_stream_efficiency={})
    assert K.gemm_time(streaming, "fp4", 1, 8192, 8192) == pytest.approx(nbytes / (8e12 * 0.85), rel=1e-9)


def test_nvfp4_decode_gemm_streams_at_the_measured_rate(accelerators):
    """B200's NVFP4 GEMMs at decode shapes stream their weights at 3.24 TB/s at best (pytorch/helion PR 3046, B200,
    N 8192 x K 28672 in 40.73 us), not at a copy's 0.85 x 8 TB/s: the catalog's gemm_stream.fp4 = 3.24 / 8. An
    FP8 GEMM of the same shape keeps the HBM rate, and a large NVFP4 GEMM stays compute-bound."""
    from archgen.perf.hw.from_spec import hardware_for
    b200 = hardware_for(accelerators["b200-sxm-180gb"], scale_up_size=8)
    assert b200.gemm_stream_efficiency == {"fp4": 0.405}
    weights = 8192 * 28672 * (0.5 + 1 / 16)
    assert weights / 40.73e-6 / 8e12 == pytest.approx(0.405, abs=5e-4)
    t = K.gemm_time(b200, "fp4", 1, 8192, 28672)
    assert t == pytest.approx(K.gemm_bytes("fp4", 1, 8192, 28672) / (8e12 * 0.405), rel=1e-9)
    assert t == pytest.approx(40.73e-6, rel=0.01)
    assert K.gemm_time(b200, "fp8", 1, 8192, 28672) == pytest.approx(
        K.gemm_bytes("fp8", 1, 8192, 28672) / (8e12 * 0.85), rel=1e-9)
    m = n = k = 16384
    assert K.gemm_time(b200, "fp4", m, n, k) == pytest.approx(
        2 * m * n * k / (9000e12 * 0.488 * (m / (m + 128)) ** 3), rel=1e-9)  # no K-loop measurement: the ramp


def test_size_efficiency_ramps_towards_one(h100):
    assert K.size_efficiency(h100, 128) == pytest.approx(0.5)
    assert K.size_efficiency(h100, 1 << 20) > 0.999


def test_flash_causal_attention_halves_the_work(h100):
    args = dict(batch=1, q_len=8192, kv_len=8192, heads=64, head_dim=128, kernel="flash")
    full = K.attention_forward(h100, "bf16", causal=False, **args)
    causal = K.attention_forward(h100, "bf16", causal=True, **args)
    assert causal == pytest.approx(full / 2)
    # backward: 2.5x the forward FLOP at 63/73 of the forward rate (FlashAttention-2 on A100)
    assert K.attention_backward(h100, "bf16", causal=True, **args) == pytest.approx(2.5 * 73 / 63 * causal)


def test_materialized_attention_pays_for_the_scores(h100):
    args = dict(batch=1, q_len=2048, kv_len=2048, heads=32, head_dim=128, causal=True)
    assert K.attention_forward(h100, "bf16", kernel="materialized", **args) > \
        K.attention_forward(h100, "bf16", kernel="flash", **args)


def test_memory_time_uses_l2_when_the_working_set_fits(accelerators):
    from archgen.perf.hw.from_spec import hardware_for
    mi = hardware_for(accelerators["mi300x"], scale_up_size=8)
    assert K.memory_time(mi, 1e6, working_set=1e6) < K.memory_time(mi, 1e6, working_set=1e9)


def test_missing_dtype_is_a_clear_error(a100):
    with pytest.raises(AnalyseError, match=r"accelerator 'a100-sxm4-80gb' has no fp8 peak \(it has: bf16, fp16, "
                                         r"fp64, int8, tf32\)"):
        K.gemm_time(a100, "fp8", 1024, 1024, 1024)


def test_a_slow_vector_pipe_limits_flash_attention(h100):
    args = dict(batch=1, q_len=8192, kv_len=8192, heads=64, head_dim=128, kernel="flash")
    base = K.attention_forward(h100, "bf16", **args)
    assert K.attention_forward(h100.scaled("vector_peak", 0.01), "bf16", **args) > 5 * base


def test_unknown_parameter(h100):
    with pytest.raises(AnalyseError, match="unknown hardware parameter 'clock'"):
        h100.scaled("clock", 2.0)


def test_flash_forward_matches_flashattention3_on_h100():
    """FlashAttention-3 forward on H100, BF16, head dimension 128, batch x sequence = 16k tokens, 16 heads, no causal
    mask (tests/perf/data/fa3-h100-forward.yaml, from pytorch/benchmark PR 2391). The model's rate is the best
    measured BF16 GEMM x efficiency.flash x s/(s + 128). The 16k row sets the H100's efficiency.flash (620.73 /
    794.5 / (16,384 / 16,512) = 0.787), so it agrees by construction; the shorter rows check the size ramp: within 8 %
    from 1k tokens up, and 16 % fast at 512."""
    from archgen.model.accelerator import Efficiency
    from archgen.perf.hw.hardware import Hardware
    from archgen.perf.hw.kernels import FLASH_EFFICIENCY
    from archgen.scoring.cases import flash_attention_check
    assert FLASH_EFFICIENCY == pytest.approx(620.73 / (794.5 * 16384 / 16512), abs=5e-4)
    assert FLASH_EFFICIENCY == Efficiency().flash == Hardware.flash_efficiency  # one default, three declarations
    rows = flash_attention_check(Path(__file__).parent / "data" / "fa3-h100-forward.yaml")
    assert len(rows) == 6
    for row, predicted in rows:
        assert predicted == pytest.approx(row["tflops"], rel=0.08 if row["seq_len"] >= 1024 else 0.17), row
    assert rows[-1][1] == pytest.approx(rows[-1][0]["tflops"], rel=2e-3)


def test_gemm_time_of_plain_numbers_is_the_array_paths_to_the_bit(accelerators, monkeypatch):
    """`kernels.gemm_time` of plain numbers (a plain float, without `size_efficiency`'s call) against the same of
    arrays, on every catalog part (with and without a measured K-loop fill) and data type, compute- and bandwidth-bound
    shapes."""
    import numpy as np

    from archgen.perf.hw.from_spec import hardware_for
    shapes = [(1, 8192, 8192, 1.0), (7, 3, 5, 2.0), (4096.0, 10240.0, 8192, 1.0), (16384.0, 128, 53248.0, 3.0),
              (128.0, 128.0, 4096.0, 64.0)]
    filled = 0
    for acc in accelerators.values():
        hw = hardware_for(acc, scale_up_size=8)
        filled += bool(hw.gemm_k_fixed_steps)
        for dtype in hw.peak:
            for m, n, k, batch in shapes:
                one = K.gemm_time(hw, dtype, m, n, k, batch)
                assert type(one) is float
                arrays = K.gemm_time(hw, dtype, np.array([m], dtype=float), np.array([n], dtype=float),
                                     np.array([k], dtype=float), batch)
                assert one == float(arrays[0]), (acc.id, dtype, m, n, k)
    assert filled  # some parts have a measured K-loop fill, so both branches ran
    monkeypatch.setattr(K, "size_efficiency", None)  # plain numbers take no helper
    assert K.gemm_time(hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8), "bf16", 8.0, 8, 8) > 0
