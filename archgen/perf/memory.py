"""Memory per accelerator for training (weights, gradients, optimizer state, activations) and inference (KV cache).

Activation bytes per layer and micro-batch follow Korthikanti et al., "Reducing Activation Recomputation in Large
Transformer Models" (arXiv 2205.05198), Table 2, with 16-bit activations: s·b·h·(34 + 5·a·s/h) without
parallelism; tensor parallelism divides the 24 TP-sharded bytes (and, with sequence parallelism, the other 10);
selective recomputation and flash attention drop the 5·a·s/h term (the s×s scores are never stored); full
recomputation keeps only each layer's input, 2·s·b·h. 1F1B keeps p micro-batches in flight on the first stage,
i.e. the activations of all l layers, times (1 + (p-1)/(p·v)) when interleaved.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from archgen.perf.arch import Arch

#: Bytes per parameter of the optimizer state: fp32 master weights, Adam first and second moments.
OPTIMIZER_BYTES = 12.0
#: Bytes per parameter of the working weights (16-bit; FP8/FP4 recipes keep 16-bit master copies for GEMMs).
WEIGHT_BYTES = 2.0


@dataclass(frozen=True)
class TrainingMemory:
    """Bytes per accelerator (arrays when evaluated for many layouts)."""

    weights: np.ndarray | float
    gradients: np.ndarray | float
    optimizer: np.ndarray | float
    activations: np.ndarray | float

    @property
    def total(self):
        """Sum of the parts."""
        return self.weights + self.gradients + self.optimizer + self.activations


def params_per_gpu(arch: Arch, tp, pp, ep):
    """Parameters held by the busiest pipeline stage's accelerator (layers / pp, sharded by tp, experts by ep)."""
    dense = arch.layers - arch.moe_layers
    per_layer_dense = arch.layer_params(False)
    expert_part = (arch.experts * arch.expert_params) if arch.experts else 0
    per_layer_moe = arch.layer_params(True) - expert_part
    layers_dense = dense / pp
    layers_moe = arch.moe_layers / pp
    shard = (layers_dense * per_layer_dense + layers_moe * per_layer_moe) / tp \
        + layers_moe * expert_part / (tp * ep)
    embed = arch.vocab * arch.hidden / tp
    return shard + embed


def activation_bytes(arch: Arch, *, seq_len, micro_batch, tp, pp, cp, interleave, recompute, sp, flash: bool,
                     microbatches):
    """Activation bytes on the first pipeline stage (the one holding the most micro-batches).

    `recompute` is coded 0 = none, 1 = selective, 2 = full; `sp` is 1 with sequence parallelism.
    """
    s = seq_len / cp
    sbh = s * micro_batch * arch.hidden
    ffn_scale = (arch.ffn_mats / 2.0) * (arch.ffn if not arch.experts else arch.expert_ffn * arch.top_k) \
        / (4.0 * arch.hidden)
    sharded = 24.0 * (0.5 + 0.5 * ffn_scale)  # the 24 bytes scale with the FFN width (16 of them) and attention
    replicated = np.where(sp, 10.0 / tp, 10.0)
    scores = 0.0 if flash else 5.0 * arch.heads * s / arch.hidden
    per_layer = sbh * np.where(recompute == 2, 2.0 / np.where(sp, tp, 1),
                               replicated + sharded / tp + np.where(recompute == 1, 0.0, scores / tp))
    in_flight = np.minimum(microbatches, pp) / pp
    stage_layers = arch.layers / pp
    factor = 1.0 + np.where(interleave > 1, (pp - 1) / (pp * interleave), 0.0)
    return per_layer * stage_layers * pp * in_flight * factor


def training_memory(arch: Arch, *, precision: str, seq_len, micro_batch, tp, pp, dp, cp, ep, interleave, recompute,
                    sp, flash: bool, distributed_optimizer, microbatches) -> TrainingMemory:
    """Weights, gradients, optimizer state and activations per accelerator."""
    p = params_per_gpu(arch, tp, pp, ep)
    grad_bytes = 2.0 if precision == "fp16" else 4.0
    opt = OPTIMIZER_BYTES * p / np.where(distributed_optimizer, dp, 1)
    act = activation_bytes(arch, seq_len=seq_len, micro_batch=micro_batch, tp=tp, pp=pp, cp=cp,
                           interleave=interleave, recompute=recompute, sp=sp, flash=flash, microbatches=microbatches)
    return TrainingMemory(weights=WEIGHT_BYTES * p, gradients=grad_bytes * p, optimizer=opt, activations=act)


def kv_cache_bytes_per_token(arch: Arch, kv_bytes: float) -> float:
    """KV-cache bytes per token of context for the whole model: 2 · layers · kv_heads · head_dim · bytes."""
    return 2.0 * arch.layers * arch.kv_heads * arch.head_dim * kv_bytes
