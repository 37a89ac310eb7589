"""The fixed costs of one serving forward pass: the kernels it launches and the GEMMs among them.

Split from `archgen.perf.serve.inference` (the pass's rooflines and the scenarios) for its size. Every kernel costs
`kernels.KERNEL_OVERHEAD` of launch and every GEMM `kernels.GEMM_FILL` of pipeline fill and drain, in which no
weights stream; the reasons and sources are in those constants' comments and in `inference`'s docstring.
"""

from __future__ import annotations

import numpy as np

from archgen.perf.hw import kernels as K
from archgen.perf.hw import quant as Q
from archgen.perf.hw.arch import Arch
from archgen.perf.serve.ffn import ffn_kernels_saved

#: Kernels of one transformer layer as this model times them: attention side (norm, QKV GEMM, RoPE and KV-cache
#: append, attention core, output GEMM) and dense FFN side (norm, up/gate GEMM, activation, down GEMM).
ATTENTION_KERNELS = 5
DENSE_FFN_KERNELS = 4
#: MoE FFN side: norm, router GEMM, top-k and permute, grouped up/gate GEMM, activation, grouped down GEMM,
#: unpermute and combine; shared experts add their up/gate GEMM, activation and down GEMM.
MOE_FFN_KERNELS = 7
SHARED_EXPERT_KERNELS = 3
#: Once per forward pass: embedding lookup, final norm, logits GEMM and the fused sampling kernel.
STEP_KERNELS = 4


def kernels_per_pass(arch: Arch, tp, attention_dp: bool = False, dtype: str = "bf16", ffn_activation: str = "separate",
                     quantised_attention: str = "all"):
    """Kernels one forward pass launches (see `ATTENTION_KERNELS` ...) with the TP or EP collectives.

    In FP8 or FP4 serving the activation casts (`quant.serving_casts`) are kernels too; an FFN activation in the GEMM's
    epilogue (`ffn.ffn_kernels_saved`) is not.
    """
    a = arch
    moe = a.moe_layers
    dense = a.layers - moe
    moe_side = MOE_FFN_KERNELS + (SHARED_EXPERT_KERNELS if a.shared_experts else 0)
    comm = np.where(np.asarray(tp) > 1, 2.0, 0.0)  # two all-reduces, or dispatch and combine, per (MoE) layer
    per_layer_comm = comm * (moe if attention_dp else a.layers)
    casts = Q.serving_casts(a, dtype, tp, attention_dp, qkv_quantised=quantised_attention == "all")[1]
    attention = ATTENTION_KERNELS + len(a.attn_gemms(1)) - 2 + a.attn_norms  # MLA's further GEMMs and norms
    return a.layers * attention + dense * DENSE_FFN_KERNELS + moe * moe_side + per_layer_comm + STEP_KERNELS \
        + casts - ffn_kernels_saved(a, ffn_activation)


def gemm_kernels_per_pass(arch: Arch, tp):
    """GEMM kernels one forward pass launches, each paying `kernels.GEMM_FILL`.

    QKV and output projections (MLA's five, `Arch.attn_gemms`), up/gate and down (dense), the router and the grouped
    up/gate and down (MoE), the shared experts' two, and the logits GEMM (`tp` only shapes the array).
    """
    a = arch
    moe = a.moe_layers
    moe_side = 3 + (2 if a.shared_experts else 0)
    return 0.0 * np.asarray(tp, dtype=float) + a.layers * len(a.attn_gemms(1)) + (a.layers - moe) * 2 \
        + moe * moe_side + 1


def fixed_per_pass(arch: Arch, tp, attention_dp: bool = False, dtype: str = "bf16", ffn_activation: str = "separate",
                   quantised_attention: str = "all"):
    """Fixed time of one forward pass (seconds).

    Every kernel's launch (`kernels.KERNEL_OVERHEAD`) and every GEMM's pipeline fill and drain (`kernels.GEMM_FILL`).
    """
    return kernels_per_pass(arch, tp, attention_dp, dtype, ffn_activation, quantised_attention) * K.KERNEL_OVERHEAD \
        + gemm_kernels_per_pass(arch, tp) * K.GEMM_FILL


def host_floor(job, tp):
    """Least time of one forward pass of serving job `job` whose host launches each kernel (seconds; 0 under a graph).

    The host issues the pass's kernels (`kernels_per_pass`) one by one, `job.launch_host` each (`perf.hw.launch`), ahead
    of the GPU: the pass takes the larger of that and its GPU time (`perf.train.host` takes the same maximum per layer).
    A CUDA graph replays the pass from one host call, whose time is not charged.
    """
    if not job.launch_host:
        return 0.0
    return kernels_per_pass(job.arch, tp, job.attention_dp, job.precision, job.ffn_activation,
                            job.quantised_attention) * job.launch_host
