"""The MoE router's kernels beyond its GEMM and its fused top-k: the auxiliary loss and forced balancing.

`host` counts the router's GEMM, its fused top-k/softmax and their gradients (`host.MOE_MLP_OPS`). Megatron-core's
`TopKRouter` runs more per MoE layer and micro-batch in training (megatron/core/transformer/moe/router.py and
moe_utils.py at 2edffad, the Megatron-LM commit Megatron-Bridge v0.4.2 and 26.04.01 pin; 3097d81 alike; with
`moe_router_fusion` on, as Megatron-Bridge's performance configs set it, scripts/performance/configs/qwen/
qwen3_llm_pretrain.py line 36 at v0.4.2, each fused call is one Transformer Engine kernel, transformer_engine/
common/fused_router/*.cu at 366798ef, the commit v0.4.2 pins: one `<<<...>>>` launch per forward and backward
function). Every one is launched from Python (an eager call), so the host issues each like any other operation.
With `E` experts and one token's row of logits (BF16: `moe_router_dtype` unset, so the logits keep the input's
dtype, router.py `gating`):

**Load-balancing loss** (`moe_router_load_balancing_type` "aux_loss" with `moe_aux_loss_coeff` > 0; Megatron-
Bridge's Qwen3 MoE provider sets aux_loss and 1e-3, src/megatron/bridge/models/qwen/qwen3_moe_bridge.py lines 56-57
at v0.4.2). Forward (`TopKRouter.routing`, `_apply_aux_loss`): `compute_routing_scores_for_aux_loss`, fused (reads
the logits, 2E B a token; writes FP32 scores 4E, a bool routing map E and an FP32 intermediate 4E: router.cpp lines
106-110); `get_tokens_per_expert_and_token_count`'s `routing_map.sum(dim=0)` (reads E); `fused_moe_aux_loss`
(reads the scores, 4E); `save_to_aux_losses_tracker`'s `aux_loss / aux_loss_coeff` and `values[layer - 1] +=`
(scalars): 5 kernels, 16E B a token. The tokens-per-expert all-reduce runs over the TP x CP group (a collective at
tp·cp > 1, none at 1: not counted here). Backward: `MoEAuxLossAutoScaler.backward`'s `torch.ones_like(aux_loss)` and
its product with the loss scale (scalars), `fused_moe_aux_loss` backward (writes FP32 gradients of the scores, 4E),
the score function's backward (reads them, the intermediate and the map, 9E; writes the logits' gradient, 2E), and
autograd's sum of the logits' two gradients (the top-k's and the loss's: reads 4E, writes 2E): 5 kernels, 21E B.

**Forced balancing** (`moe_router_force_load_balancing`, which Megatron-Bridge's performance configs set for
every Qwen3 MoE run, qwen3_llm_pretrain.py line 44 at v0.4.2, "required for token dropless"): `RandomSTE.forward`
runs `logits.clone().normal_()` (moe_utils.py `apply_random_logits`): 2 kernels, the copy reads and writes 2E B, the
fill writes 2E; its backward passes the gradient through (no kernel).

**The router's GEMM runs in 16 bit** under FP8 and FP4 recipes, as the output layer does
(`kernels.training_core_dtype`): `TopKRouter.gating` (router.py lines 100-106 at 2edffad) passes the 16-bit input
and the router's own weight (a plain parameter, not a Transformer Engine module, so no FP8/FP4 autocast reaches it)
to `router_gating_linear` (moe_utils.py `RouterGatingLinearFunction`, lines 1293-1373), whose forward
(`te_general_gemm(weight, inp, router_dtype, ...)`) and both gradients multiply the unquantised 16-bit operands;
`moe_router_dtype` "fp32"/"fp64" only widens the output and the gradients' GEMMs, which no scored recipe sets.
`layer` times it so.

Not counted: the z-loss (`moe_z_loss_coeff`, unset in these recipes), input jitter, the sequence-level and global
variants of the loss (DeepSeek-style `seq_aux_loss` adds one division), the expert bias's token count
(`moe_router_enable_expert_bias`), the group-limited top-k: no scored recipe is read for them. So where a recipe
runs one of these instead, the count is the aux_loss's.
"""

from __future__ import annotations

from archgen.perf.hw.arch import Arch

#: Kernels of the load-balancing loss per MoE layer and micro-batch: (forward, backward) (module docstring).
AUX_LOSS_KERNELS = (5.0, 5.0)
#: Bytes per token and expert the loss's kernels move: (forward, backward) (module docstring).
AUX_LOSS_BYTES = (16.0, 21.0)
#: Kernels of forced balancing's random logits per MoE layer and micro-batch: (forward, backward).
FORCE_BALANCE_KERNELS = (2.0, 0.0)
#: Bytes per token and expert of the random logits' copy and fill: (forward, backward).
FORCE_BALANCE_BYTES = (6.0, 0.0)


def router_kernels(a: Arch, force_balance: bool) -> tuple[float, float]:
    """Kernels the router runs beyond `host.MOE_MLP_OPS`'s per MoE layer and micro-batch: (forward, backward).

    The load-balancing loss's, and with `force_balance` (the job's `moe_force_balance`) the random logits'.
    """
    if not a.moe_layers:
        return 0.0, 0.0
    force = 1.0 if force_balance else 0.0
    return (AUX_LOSS_KERNELS[0] + force * FORCE_BALANCE_KERNELS[0],
            AUX_LOSS_KERNELS[1] + force * FORCE_BALANCE_KERNELS[1])


def router_bytes(a: Arch, force_balance: bool) -> tuple[float, float]:
    """HBM bytes per router token (the rank's sequence-parallel tokens) those kernels move: (forward, backward)."""
    if not a.moe_layers:
        return 0.0, 0.0
    force = 1.0 if force_balance else 0.0
    return (a.experts * (AUX_LOSS_BYTES[0] + force * FORCE_BALANCE_BYTES[0]),
            a.experts * (AUX_LOSS_BYTES[1] + force * FORCE_BALANCE_BYTES[1]))
