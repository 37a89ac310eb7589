"""PyTorch's grouped GEMM on an H200 read through its own tiles and waves (issue 20, part 3): a finding, not the model.

Data: tests/perf/data/h200-kernels.json, sections grouped_gemm and grouped_small (`torch._grouped_mm`, BF16, one
H200, PyTorch 2.11.0+cu130; bench/gpu/kernels.py). The kernel (pytorch/pytorch aten/src/ATen/native/cuda/GroupMM.cu
at 06c0cf01, `dispatch_bf16_grouped_kernel_on_tile_size` and `bf16bf16_grouped_gemm_impl_sm90_sm100`; the run's 2.11.0
build was not read and may differ): on SM90 a small
`prepare_grouped_gemm_data` kernel writes each group's pointers and shape, then one persistent CUTLASS ptr-array
kernel (`KernelPtrArrayTmaWarpSpecialized*`, cluster 2 x 1 x 1, `hw_info.sm_count` the SM count) runs every group's
tiles: 64 x 128 (pingpong) where the per-group M or N is at most 128, else 128 x 256 (cooperative). So each group's M
rounds up to whole tiles (tile quantisation per group), and the waves run over all groups' tiles together
(ceil(tiles / SMs), NVIDIA's Matrix Multiplication Background guide §3.2), each tile over the whole K at one SM's
share of the best GEMM rate times the K loop's efficiency (`kernels.k_loop_efficiency`); the weights stream at the
copy rate, whichever is slower.

Why it is not in `kernels.gemm_time`: the model's training experts run Transformer Engine's grouped GEMM, on Hopper
one cuBLAS GEMM per expert (`perf.hw.gemm_floor`), each with the size ramp of its own tokens; its serving experts run
each engine's MoE kernels, whose tiles are autotuned per shape, not PyTorch's. The tiles here are one library's.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from archgen.perf.hw import kernels as K
from archgen.perf.hw.from_spec import hardware_for

SECTIONS = json.loads((Path(__file__).parent / "data" / "h200-kernels.json").read_text(encoding="utf-8"))["sections"]


@pytest.fixture(scope="module")
def h200(accelerators):
    """One H200, as the kernels ran."""
    return hardware_for(accelerators["h200-sxm-141gb"], scale_up_size=1)


def _tile(m: int, n: int) -> tuple[int, int]:
    """PyTorch's SM90 BF16 grouped tile for a per-group M x N (`dispatch_bf16_grouped_kernel_on_tile_size`)."""
    return (64, 128) if m <= 128 or n <= 128 else (128, 256)


def _tiles(groups: int, m: int, n: int) -> int:
    """Output tiles of `groups` GEMMs of M x N, each group's M and N rounded up to whole tiles."""
    tm, tn = _tile(m, n)
    return groups * math.ceil(m / tm) * math.ceil(n / tn)


def _tiled_time(hw, groups: int, m: int, n: int, k: int) -> float:
    """Waves of tiles at one SM's share of the best BF16 GEMM rate, or the weights' streaming, whichever is slower."""
    tm, tn = _tile(m, n)
    sms = hw.multiprocessors
    waves = math.ceil(_tiles(groups, m, n) / sms)
    compute = waves * 2.0 * tm * tn * k / (hw.gemm_rate("bf16") * K.k_loop_efficiency(hw, "bf16", k) / sms)
    stream = K.gemm_bytes("bf16", m, n, k, groups) / (hw.hbm_bandwidth * hw.hbm_efficiency)
    return max(compute, stream)


def _rows():
    """(groups, tokens per group, n, k, measured seconds) of every BF16 grouped GEMM measured."""
    for section in ("grouped_gemm", "grouped_small"):
        for r in SECTIONS[section]["rows"]:
            yield r["groups"], r["tokens_per_group"], r["n"], r["k"], r["s"]


def test_256_tokens_over_many_experts_fill_their_waves(h200):
    """At 256 tokens an expert the tile is 128 x 256: two whole tiles of M, six of N = 1,536, so 32 and 128 experts
    make 384 and 1,536 tiles, 0.97 of 3 and 12 waves of 132 SMs, where the size ramp gives 256/384 x 1536/1664 =
    0.615 of the best rate. The roofline is +35.3 % and +38.9 % of the measured time; the tile count -14.1 % and
    -11.9 %. At 8 experts (96 tiles, one wave 0.73 full) the count gives -19.5 % where the ramp gave -4.8 %."""
    got = {(g, m): (K.gemm_time(h200, "bf16", m, n, k, g) / s - 1, _tiled_time(h200, g, m, n, k) / s - 1)
           for g, m, n, k, s in _rows() if m == 256}
    assert _tiles(32, 256, 1536) == 384 and _tiles(128, 256, 1536) == 1536
    for key, (today, tiled) in {(32, 256): (0.353, -0.141), (128, 256): (0.389, -0.119),
                                (8, 256): (-0.048, -0.195)}.items():
        assert got[key][0] == pytest.approx(today, abs=0.002), key
        assert got[key][1] == pytest.approx(tiled, abs=0.002), key


def test_the_large_grouped_gemms_stay_inside_fifteen_percent(h200):
    """The four large grouped GEMMs (8 experts of 2,048 or 4,096 tokens, 32 of 1,024): the roofline is -6.3 % to
    +10.2 % of the measured time, the tile count -13.7 % to +1.8 % (0.97 of their waves full)."""
    errors = [_tiled_time(h200, g, m, n, k) / s - 1 for g, m, n, k, s in _rows() if m >= 1024]
    assert len(errors) == 4
    assert min(errors) == pytest.approx(-0.137, abs=0.002) and max(errors) == pytest.approx(0.018, abs=0.002)


def test_few_tokens_stream_below_the_copy_rate(h200):
    """At 16 and 64 tokens an expert the kernel streams its weights: 50 MB over 8 experts in 25.9-28.8 us (1.7-1.9
    TB/s), 805 MB over 128 in 253-274 us (2.9-3.2 TB/s), against the copy rate's 4.0 TB/s (0.835 of 4.8). Neither
    the tiles (64 x 128: 96 tiles on 132 SMs at 8 experts) nor the waves carry it: the count leaves the rows -19 %
    to -53 %, as the roofline leaves them -14 % to -51 %."""
    rows = [(g, m, n, k, s) for g, m, n, k, s in _rows() if m <= 64]
    assert len(rows) == 6
    rates = [g * n * k * 2 / s for g, m, n, k, s in rows]
    assert 1.7e12 < min(rates) and max(rates) < 3.2e12
    tiled = [_tiled_time(h200, g, m, n, k) / s - 1 for g, m, n, k, s in rows]
    today = [K.gemm_time(h200, "bf16", m, n, k, g) / s - 1 for g, m, n, k, s in rows]
    assert min(tiled) == pytest.approx(-0.532, abs=0.002) and max(tiled) == pytest.approx(-0.192, abs=0.002)
    assert min(today) == pytest.approx(-0.506, abs=0.002) and max(today) == pytest.approx(-0.142, abs=0.002)
