"""The kernel model (`perf.hw.kernels`) against this project's own kernel measurements on an H200.

Data: tests/perf/data/h200-kernels.json, written by `bench/gpu/kernels.py` on one NVIDIA H200 SXM 141GB (GH100,
the H100's die and clocks with HBM3e; 700 W) on 2026-12-04: PyTorch 2.11.0+cu130, cuBLAS 13.1.0.3, cuDNN 9.19,
driver 580.159.04 (the file records them). GEMMs, gathers and small kernels are timed as 20 calls replayed from a
CUDA graph, so the host's launch time is not in them. The catalog's H200 figures come from other sources (MAMF
tables, BabelStream, FlashAttention-3 on an H100): these measurements check the model's shape dependence, not the
figures it was given. Nothing is fitted to them.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from archgen.perf.hw import gemm_floor as F
from archgen.perf.hw import kernels as K
from archgen.perf.hw.from_spec import hardware_for

DATA = json.loads((Path(__file__).parent / "data" / "h200-kernels.json").read_text(encoding="utf-8"))
SECTIONS = DATA["sections"]
GEMMS = ("gemm_square", "gemm_k_ramp", "gemm_expert_shapes", "grouped_gemm", "grouped_gemm_fp8")


@pytest.fixture(scope="module")
def h200(accelerators):
    """One H200: the kernels ran on one device."""
    return hardware_for(accelerators["h200-sxm-141gb"], scale_up_size=1)


def _gemm_errors(h200, smallest: int, below: int | None = None) -> dict[tuple, float]:
    """The model's GEMM time over the measured one, minus 1, by (section, GEMM, dtype, m, n, k, groups), for each
    GEMM whose smallest dimension is at least `smallest` (and under `below`)."""
    out = {}
    for section in GEMMS:
        for r in SECTIONS[section]["rows"]:
            dtype = r.get("dtype") or ("fp8" if section.endswith("fp8") else "bf16")
            m, groups = r.get("m", r.get("tokens_per_group")), r.get("groups", 1)
            least = min(m, r["n"], r["k"])
            if least >= smallest and (below is None or least < below):
                model = K.gemm_time(h200, dtype, m, r["n"], r["k"], groups)
                out[(section, r.get("gemm", ""), dtype, m, r["n"], r["k"], groups)] = model / r["s"] - 1
    return out


def test_gemms_of_1024_and_more_within_twenty_percent(h200):
    """59 GEMMs with every dimension at least 1,024 (square to 16,384, K from 1,024 to 16,384 at 4096 and 8192
    square, the Qwen3-30B-A3B expert shapes at 1,024 to 8,192 tokens, grouped BF16 and FP8): the model is within
    -16.0 % to +17.6 % of each (median +2.8 %, median |error| 9.3 %). The largest misses: long K in FP8 (the model
    15-16 % fast at K = 16,384: the catalog's FP8 efficiency is the MAMF maximum over shapes, 1,453 TFLOP/s, where
    this cuBLAS reached 1,147-1,216 at these), and the BF16 expert GEMMs at N = 1,536-2,048 (the model 15-18 % slow:
    cuBLAS ran them faster than the size ramp allows)."""
    errors = _gemm_errors(h200, 1024)
    assert len(errors) == 59
    worst = max(errors.items(), key=lambda kv: abs(kv[1]))
    assert abs(worst[1]) < 0.20, worst
    assert abs(statistics.median(errors.values())) < 0.05
    assert statistics.median(abs(e) for e in errors.values()) < 0.10


def test_fp8_grouped_gemms_measure_slower_than_the_model(h200):
    """FP8 grouped GEMMs (`torch._scaled_grouped_mm`, row-wise scales), 8 experts of 2,048 or 4,096 tokens at the
    Qwen3-30B-A3B expert shapes: the model is 13-19 % fast on all four, where the BF16 grouped GEMMs sit within
    -6 % to +10 %. One library's row-wise-scaled kernel, not Transformer Engine's: a finding for the MoE row
    (docs/perf-model.md, Kernel measurements on an H200), not a factor."""
    errors = {key: e for key, e in _gemm_errors(h200, 512).items() if key[0] == "grouped_gemm_fp8"}
    assert len(errors) == 4
    assert all(-0.20 < e < -0.12 for e in errors.values()), errors


def _kernel_errors(h200, smallest: int, below: int) -> dict[tuple, float]:
    """As `_gemm_errors`, for one GEMM kernel as training charges it: at least the part's floor
    (`gemm_floor.gemm_kernel_time`), plus the fixed cost every kernel pays (`kernels.KERNEL_OVERHEAD`), which the
    measurement holds too (a tiny kernel took 1.1 us in the same graph)."""
    out = {}
    for section in GEMMS:
        for r in SECTIONS[section]["rows"]:
            dtype = r.get("dtype") or ("fp8" if section.endswith("fp8") else "bf16")
            m, groups = r.get("m", r.get("tokens_per_group")), r.get("groups", 1)
            if smallest <= min(m, r["n"], r["k"]) < below:
                model = F.gemm_kernel_time(h200, dtype, m, r["n"], r["k"], groups) + K.KERNEL_OVERHEAD
                out[(section, r.get("gemm", ""), dtype, m, r["n"], r["k"], groups)] = model / r["s"] - 1
    return out


def test_the_gemm_floor_brings_the_smallest_gemms_from_74_to_46_percent(h200):
    """GEMMs with a dimension of 256 (16): the roofline alone is up to 74.2 % fast (1.2-3.7 us against 4.4-9.3 us;
    median |error| 45.1 %). With the floor (3.30 us on Hopper: the shortest GEMM measured here, 4.40 us, less the
    1.10 us a tiny kernel takes in the same graph) and the per-kernel 1.3 us, the worst is -46.3 % and the median
    |error| 8.2 %; 11 of the 16 come within 20 %. The worst five are M = 256 GEMMs that cuBLAS runs in one partial
    wave (256 x 1536 x 2048 BF16: 24 tiles of 128 x 128 on 132 SMs, each over the whole K at one SM's rate, 9.0 us
    at its share of the tensor peak against 9.26 measured), which neither the floor nor the size ramp sees
    (`test_wave_quantisation`: cuBLAS splits K elsewhere, so the wave count is not the model's either)."""
    errors = _kernel_errors(h200, 0, 512)
    assert len(errors) == 16
    worst = max(errors.items(), key=lambda kv: abs(kv[1]))
    assert worst[0][1:6] == ("fc1_fwd", "bf16", 256, 1536, 2048) and worst[1] == pytest.approx(-0.463, abs=0.002)
    assert statistics.median(abs(e) for e in errors.values()) == pytest.approx(0.082, abs=0.002)
    assert sum(abs(e) < 0.20 for e in errors.values()) == 11
    assert all(e > -0.20 for key, e in errors.items() if key[3] != 256), errors


@pytest.mark.xfail(strict=True, reason="M = 256 GEMMs in one partial wave: cuBLAS runs 24 tiles on 24 of 132 SMs "
                                       "(-46 % at 256 x 1536 x 2048 BF16 with the floor); the floor alone cannot "
                                       "see it")
def test_the_smallest_gemms_within_twenty_percent(h200):
    """GEMMs with a dimension of 256, as training charges each kernel (floor and per-kernel cost): five of the 16
    stay more than 20 % fast, all at M = 256 (-21 % to -46 %)."""
    errors = _kernel_errors(h200, 0, 512)
    assert len(errors) == 16
    assert all(abs(e) < 0.20 for e in errors.values()), errors


def test_the_floor_moves_none_of_the_large_gemms(h200):
    """The 59 GEMMs with every dimension at least 1,024 take 3.71 us or more by the roofline, above the 3.30 us
    floor: it moves none of them."""
    rows = [(r.get("dtype") or ("fp8" if s.endswith("fp8") else "bf16"), r.get("m", r.get("tokens_per_group")),
             r["n"], r["k"], r.get("groups", 1)) for s in GEMMS for r in SECTIONS[s]["rows"]]
    large = [x for x in rows if min(x[1:4]) >= 1024]
    assert len(large) == 59
    assert all(F.gemm_kernel_time(h200, *x) == K.gemm_time(h200, *x) for x in large)


def test_flash_attention_forward_within_ten_percent_of_cudnn(h200):
    """cuDNN's fused attention (PyTorch's SDPA cuDNN backend), BF16, 32 heads of 128, 4,096 and 16,384 tokens, with
    and without a causal mask: the forward is within -2.3 % to +7.6 % of the model's, whose flash efficiency (0.787)
    is FlashAttention-3's on an H100 (the catalog's H200 borrows it). 616.6 TFLOP/s at 16k tokens without a mask,
    against FlashAttention-3's 620.73 on an H100: the H200 figure is confirmed."""
    rows = SECTIONS["attention_cudnn"]["rows"]
    assert len(rows) == 4
    for r in rows:
        fwd, _ = K.attention_times(h200, "bf16", batch=r["batch"], q_len=r["seq"], kv_len=r["seq"], heads=r["heads"],
                                   head_dim=r["head_dim"], causal=r["causal"])
        assert abs(fwd / r["fwd_s"] - 1) < 0.10, r


def test_flash_attention_backward_within_twenty_percent_of_cudnn(h200):
    """The backward (forward and backward measured together, less the forward) at `FLASH_BWD_RATIO` = 63/73 of the
    forward rate (FlashAttention-2 on an A100): measured 0.75-0.86 of the forward rate here, lowest at 4,096 causal
    tokens, where the model's backward is 15 % fast; 1.4 % at 16k without a mask."""
    ratios = []
    for r in SECTIONS["attention_cudnn"]["rows"]:
        _, bwd = K.attention_times(h200, "bf16", batch=r["batch"], q_len=r["seq"], kv_len=r["seq"], heads=r["heads"],
                                   head_dim=r["head_dim"], causal=r["causal"])
        error = bwd / (r["fwd_bwd_s"] - r["fwd_s"]) - 1
        assert -0.20 < error < 0.05, r
        ratios.append(r["bwd_TFLOPs"] / r["fwd_TFLOPs"])
    assert min(ratios) < K.FLASH_BWD_RATIO and max(ratios) == pytest.approx(K.FLASH_BWD_RATIO, abs=0.01)


def test_streaming_kernels_at_the_catalog_hbm_efficiency(h200):
    """A 2 GiB device copy moves 4.25 TB/s and an elementwise multiply over 256 MiB (32,768 x 2,048 BF16, in and
    out) 4.16 TB/s: 0.885 and 0.866 of 4.8 TB/s, where the catalog's 0.835 is BabelStream's Copy on an ND H200 v5
    (double, 2^25 elements). The model's time for each is within 7 % (slow, so conservative)."""
    copy = SECTIONS["hbm_copy"]
    floor = SECTIONS["kernel_floor"]
    for nbytes, seconds in ((copy["bytes_moved"], copy["seconds"]),
                            (floor["bf16_32768x2048_mul_bytes"], floor["bf16_32768x2048_mul_s"])):
        assert 0.0 < K.memory_time(h200, nbytes) / seconds - 1 < 0.07


def _decode_errors(h200) -> dict[tuple, float]:
    """The model's time over the measured one, minus 1, for Llama 3.1 8B's GEMMs at 1 to 32 tokens (FP8 ran at 16
    rows below 16, as frameworks pad), by (GEMM, dtype, tokens)."""
    out = {}
    for r in SECTIONS["gemm_decode"]["rows"]:
        if r["tokens"] <= 32:
            model = K.gemm_time(h200, r["dtype"], r["m"], r["n"], r["k"])
            out[(r["gemm"], r["dtype"], r["tokens"])] = model / r["s"] - 1
    return out


def test_decode_gemms_stream_their_weights_at_most_28_percent_faster_than_measured(h200):
    """Decode-sized GEMMs (1 to 32 tokens against Llama 3.1 8B's fused QKV, output, gate+up and down weights, BF16
    and FP8): they stream their weights at 2.85-4.18 TB/s, where the model streams at 0.835 x 4.8 = 4.0 TB/s. The
    model is −28 % to +5 % of the measured time (median −11 %): fastest against the small FP8 weights (4096 x 4096
    and 14,336 x 4,096 in FP8 at 2.9 TB/s, −26 % to −28 %). A finding for FP8 decode on Hopper (the B200's NVFP4
    streaming rate is the catalog's `gemm_stream`), not a factor."""
    errors = _decode_errors(h200)
    assert len(errors) == 24
    assert all(-0.30 < e < 0.06 for e in errors.values()), errors
    assert -0.12 < statistics.median(errors.values()) < -0.08


@pytest.mark.xfail(strict=True, reason="PyTorch's one-kernel grouped GEMM streams few tokens per expert at 1.7-3.2 "
                                       "TB/s and fills its waves at 256 tokens; the model has neither")
def test_grouped_gemms_with_few_tokens_per_expert_within_twenty_percent(h200):
    """PyTorch's BF16 grouped GEMM (one CUTLASS kernel after a small setup kernel, GroupMM.cu), 8 to 128 experts of
    2,048 x 1,536 at 16 to 256 tokens each, against the roofline at least one GEMM floor plus the two kernels'
    fixed cost: -40.6 % to +39.7 % (the roofline alone -50.6 % to +38.9 %). At 8 experts and 16 or 64 tokens the
    kernel streams 50 MB at 1.7-1.9 TB/s (-41 %, -40 %); at 256 tokens over 32 or 128 experts it fills 0.97 of its
    waves where the size ramp gives 0.615 (+38 %, +40 %; `test_grouped_gemm_tiles`)."""
    for r in SECTIONS["grouped_small"]["rows"]:
        model = F.floored(h200, K.gemm_time(h200, "bf16", r["tokens_per_group"], r["n"], r["k"], r["groups"])) \
            + 2 * K.KERNEL_OVERHEAD
        assert abs(model / r["s"] - 1) < 0.20, r
