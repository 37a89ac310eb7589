"""Gradient-accumulation fusion (`grad_accum_fusion`): the weight-gradient GEMM accumulates into the main gradient.

Unfused, each micro-batch's weight gradient is written by the GEMM in 16 bits and a separate pass adds it to the
main gradient: read the 16-bit gradient (2 B), read and write the fp32 main gradient (4 + 4 B), 10 B per parameter.
Fused, the GEMM runs with beta = 1 into the fp32 buffer (Megatron-LM 83b1e42 megatron/fused_kernels/
fused_weight_gradient_dense.cu: cublasGemmEx, C in CUDA_R_32F, beta 1.0; Transformer Engine d0067d0
transformer_engine/pytorch/module/linear.py: `out=main_grad`, `out_dtype=main_grad.dtype`, `accumulate`): its
epilogue reads and writes 4 + 4 B where it would have written 2 B, so 6 B per parameter beyond the output the GEMM's
roofline already counts, and the pass is gone: 4 B per GEMM weight saved per micro-batch. Parameters no linear
layer's GEMM computes (the norms, the MoE router, the input embedding's lookup) keep the pass (DDP hook
`main_grad.add_(grad)`).
"""

from __future__ import annotations

import pytest

from archgen.perf.hw import kernels as K
from archgen.perf.hw.arch import Arch
from archgen.perf.train.job import Job
from archgen.perf.train.ranks import class_times
from archgen.perf.train.stacks import resolve

LLAMA3_70B = Arch(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256, gated=True, rope=True, qk_norm=False)
#: One Llama 3 70B layer's GEMM weights: Q and O 8192^2 each, K and V 8192 x 1024 each, gate/up/down 3 x 8192 x 28672.
LAYER_GEMM_WEIGHTS = 2 * 8192**2 + 2 * 8192 * 1024 + 3 * 8192 * 28672


def _accumulate(hw, fused: bool, precision: str = "bf16", *, layers=1.0, embedding=0.0, loss=0.0):
    job = Job(LLAMA3_70B, 8192, 1024, precision, grad_accum_fusion=fused)
    return float(class_times(hw, job, 0.0, 0.0, 0.0, 1, 1, 1, layers, embedding, loss)[2])


def test_one_layer_saves_four_bytes_per_gemm_weight_per_micro_batch(h100):
    """855,638,016 GEMM weights x 4 B = 3.42 GB less HBM traffic per micro-batch for one layer (bf16, fp32 main
    gradients); its two norms (16,384 weights) keep their 10 B."""
    assert LAYER_GEMM_WEIGHTS == 855_638_016
    saved = _accumulate(h100, False) - _accumulate(h100, True)
    assert saved == pytest.approx(float(K.memory_time(h100, 4.0 * LAYER_GEMM_WEIGHTS)), rel=1e-12)
    norms = 2 * 8192
    fused = float(K.memory_time(h100, 6.0 * LAYER_GEMM_WEIGHTS + 10.0 * norms))
    assert _accumulate(h100, True) == pytest.approx(fused, rel=1e-12)


def test_fp16_gradients_save_the_same_four_bytes(h100):
    """fp16 training keeps fp16 main gradients (wgrad_gemm_accum_fp16): unfused 2 + 2 + 2 B, fused 2 + 2 - 2 B."""
    saved = _accumulate(h100, False, "fp16") - _accumulate(h100, True, "fp16")
    assert saved == pytest.approx(float(K.memory_time(h100, 4.0 * LAYER_GEMM_WEIGHTS)), rel=1e-12)


def test_the_input_embedding_keeps_its_pass_and_the_output_layer_fuses(h100):
    """The embedding's gradient is a scatter-add, not a GEMM: nothing saved; the output layer (ColumnParallelLinear,
    megatron/core/models/gpt/gpt_model.py at core_v0.9.0) saves 4 B per weight, 128,256 x 8,192 of them."""
    assert _accumulate(h100, False, layers=0.0, embedding=1.0) == _accumulate(h100, True, layers=0.0, embedding=1.0)
    saved = _accumulate(h100, False, layers=0.0, loss=1.0) - _accumulate(h100, True, layers=0.0, loss=1.0)
    assert saved == pytest.approx(float(K.memory_time(h100, 4.0 * 128256 * 8192)), rel=1e-12)


def test_the_profiles():
    """Megatron-LM v2.x had no such fusion (it arrived in 83b1e42, Feb 2022); Megatron-LM's arguments turn it on by
    default (--no-gradient-accumulation-fusion at core_v0.9.0); Megatron-Bridge 26.04's GPT provider enables it
    wherever Transformer Engine imports."""
    assert [resolve(s, {}, "bf16").grad_accum_fusion for s in ("megatron-lm-2021", "megatron-core-2024",
                                                               "nemo-2025")] == [False, True, True]
    assert resolve("nemo-2025", {"grad_accum_fusion": False}, "bf16").grad_accum_fusion is False
