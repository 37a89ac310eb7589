"""The MoE router's load-balancing loss and forced balancing, counted from the code (`archgen.perf.train.router`).

Megatron-core 2edffad (megatron/core/transformer/moe/router.py `TopKRouter.forward`, `routing`, `_apply_aux_loss`;
moe_utils.py `compute_routing_scores_for_aux_loss`, `get_tokens_per_expert_and_token_count`,
`switch_load_balancing_loss_func`, `save_to_aux_losses_tracker`, `MoEAuxLossAutoScaler`, `RandomSTE`) with
`moe_router_fusion` on, and Transformer Engine 366798ef (transformer_engine/pytorch/csrc/extensions/router.cpp: the
tensors each fused call allocates; transformer_engine/common/fused_router/*.cu: one launch per function).
"""

from __future__ import annotations

import dataclasses

import pytest

from archgen.model.switches import SWITCHES
from archgen.perf.hw import kernels as K
from archgen.perf.hw.arch import Arch
from archgen.perf.train import host as H
from archgen.perf.train import router as R
from archgen.perf.train.job import Job

QWEN3_30B = Arch(layers=48, hidden=2048, heads=32, kv_heads=4, head_dim=128, ffn=6144, vocab=151936, gated=True,
                 experts=128, top_k=8, expert_ffn=768, rope=True, qk_norm=True)
LLAMA3_8B = Arch(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256, gated=True, rope=True, qk_norm=False)


def test_the_loss_and_the_random_logits_by_hand():
    """Forward, the loss: fused scores (1), `routing_map.sum(dim=0)` (1), the fused loss (1), the tracker's
    `aux_loss / coeff` and `values[layer - 1] +=` (2); backward: `ones_like` and its product with the scale (2),
    the fused loss's and the fused scores' gradients (2), the logits' two gradients summed (1). Forced balancing:
    `logits.clone()` and `.normal_()` forward, its backward passes the gradient through."""
    assert R.AUX_LOSS_KERNELS == (1 + 1 + 1 + 2, 2 + 2 + 1)
    assert R.FORCE_BALANCE_KERNELS == (2.0, 0.0)
    assert R.router_kernels(QWEN3_30B, False) == (5.0, 5.0)
    assert R.router_kernels(QWEN3_30B, True) == (7.0, 5.0)
    assert R.router_kernels(LLAMA3_8B, True) == (0.0, 0.0)  # no router


def test_the_bytes_from_the_tensors_each_call_allocates():
    """Per token and expert (BF16 logits, `moe_router_dtype` unset): the fused scores read the logits (2 B) and write
    FP32 scores (4), a bool map (1) and an FP32 intermediate (4) (router.cpp lines 106-110); the sum reads the map
    (1); the fused loss reads the scores (4): 16 B. Backward: the loss's gradient of the scores, FP32 (4, router.cpp
    lines 168-169); the scores' backward reads it, the intermediate and the map (9) and writes the logits' gradient
    (2); the sum of the two logit gradients reads 2 x 2 and writes 2: 21 B. The random logits: a copy (2 + 2) and a
    fill (2): 6 B."""
    assert R.AUX_LOSS_BYTES == (2 + 4 + 1 + 4 + 1 + 4, 4 + 9 + 2 + 4 + 2)
    assert R.FORCE_BALANCE_BYTES == (2 + 2 + 2, 0)
    assert R.router_bytes(QWEN3_30B, True) == (128 * 22.0, 128 * 21.0)
    assert R.router_bytes(LLAMA3_8B, True) == (0.0, 0.0)


def test_the_switch_by_stack():
    """Forced balancing is a recipe's choice: Megatron-Bridge's performance configs set it, Primus's MoE examples
    mostly do, Megatron-core's default is off."""
    row = SWITCHES["moe_force_balance"]
    assert [row.default(s) for s in ("megatron-lm-2021", "megatron-core-2024", "nemo-2025", "primus-2025")] == [
        False, False, True, True]
    assert "qwen3_llm_pretrain.py:44" in row.source("nemo-2025")


def test_the_card_layer_against_its_profile():
    """The BF16 card's layer (HybridEP, permutation fused, EP 16, forced balancing): 91 kernels counted a layer and
    micro-batch (87 before the QK norms' 4, rope40; 75 before the router's), against 150.8 the profile captured
    (including the dispatcher's and the collectives' kernels and the graphed ones). A `moe_router` graph captures the router's kernels: the host issues
    the same 28 and 46 operations as before they were counted (26 and 44 before the QK norms)."""
    job = Job(QWEN3_30B, 4096, 1024, "bf16", moe_dispatcher="hybridep", ep_dedup=True, permute_in_dispatch=True,
              moe_force_balance=True, rope_fusion=True)
    assert tuple(float(x) for x in H.layer_kernels(job, 16.0, (0.0, 0.0))) == (30.0 + 7.0, 49.0 + 5.0)
    graphed = dataclasses.replace(job, cuda_graphs="moe_router")
    assert tuple(float(x) for x in H.layer_ops(graphed, 16.0, (0.0, 0.0))) == (28.0, 46.0)
    from pathlib import Path

    import yaml

    profile = yaml.safe_load((Path(__file__).parent / "data" / "bridge-moe-overlap-profile.yaml").read_text("utf-8"))
    captured = profile["captured_kernels"] / (64 * 48)
    assert captured == pytest.approx(150.8, abs=0.1) and captured - 91 == pytest.approx(59.8, abs=0.1)


def test_charged_like_every_element_wise_kernel(accelerators):
    """The layer's time grows by the kernels' fixed cost and the bytes at the HBM rate, nothing else: forward 7 x
    1.3 µs + 22 B x 128 x 4,096 tokens; backward 5 x 1.3 µs + 21 B x 128 x 4,096 (not twice the forward's)."""
    from archgen.perf.hw.from_spec import hardware_for
    from archgen.perf.train.training import layer_times

    hw = hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8)
    on = Job(QWEN3_30B, 4096, 1024, "bf16", moe_dispatcher="hybridep", ep_dedup=True, moe_force_balance=True, rope_fusion=True)
    kw = dict(tp=1, mb=1, cp=1, ep=16, rc=0, sp=False)
    with_ = layer_times(hw, on, **kw)
    fwd_bytes, bwd_bytes = (4096.0 * b for b in R.router_bytes(QWEN3_30B, True))
    import unittest.mock as mock

    with mock.patch.object(H, "router_kernels", lambda a, f: (0.0, 0.0)), \
            mock.patch.object(R, "router_bytes", lambda a, f: (0.0, 0.0)):
        without = layer_times(hw, on, **kw)
    assert float(with_.forward - without.forward) == pytest.approx(
        7 * K.KERNEL_OVERHEAD + float(K.memory_time(hw, fwd_bytes)), rel=1e-9)
    assert float(with_.backward - without.backward) == pytest.approx(
        5 * K.KERNEL_OVERHEAD + float(K.memory_time(hw, bwd_bytes)), rel=1e-9)
