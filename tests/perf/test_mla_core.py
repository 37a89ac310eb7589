"""MLA's attention core in a training step and a prefill (mla35): query and key at qk_nope_head_dim +
qk_rope_head_dim per head, the value at v_head_dim, not the model's `heads` x `head_dim` stand-in."""

from __future__ import annotations

import dataclasses

import pytest

from archgen.perf.hw import kernels as K
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.memory import layer_activation_bytes

#: A small MLA layer with nothing else (no FFN, no vocabulary): h 256, 4 heads, query latent 64, KV latent 32,
#: RoPE key 16, 32 per head without RoPE, value 32 per head. `head_dim` 64 is the stand-in the core no longer reads.
SMALL = Arch(layers=1, hidden=256, heads=4, kv_heads=4, head_dim=64, ffn=0, vocab=0, kv_lora_rank=32,
             kv_rope_dim=16, q_lora_rank=64, qk_nope_dim=32, v_head_dim=32)


def _megatron_mla_forward(a: Arch, s: int) -> tuple[float, float]:
    """One MLA layer's forward FLOP per token by Megatron-LM's formula: (projections and norms, core attention).

    megatron/training/training.py at d98e8a6, `num_floating_point_operations`, the `multi_latent_attention` branch
    (lines 1079-1135), over its forward/backward factor 3 (the fma factor 2 kept): q_term = q_lora_rank·(h +
    n·(qk_head_dim + qk_pos_emb_head_dim) + 1), kv_lora_rank·(h + n·(qk_head_dim + v_head_dim) + 1) + h·rope,
    n·v_head_dim·h, and the core n·(qk_head_dim + qk_pos_emb_head_dim)/2 + n·v_head_dim/2 per token of the sequence
    (its /2 the causal mask).
    """
    n, h = a.heads, a.hidden
    q_term = a.q_lora_rank * (h + n * (a.qk_nope_dim + a.kv_rope_dim) + 1)
    kv_term = a.kv_lora_rank * (h + n * (a.qk_nope_dim + a.v_head_dim) + 1) + h * a.kv_rope_dim
    o_term = n * a.v_head_dim * h
    core = s * (n * (a.qk_nope_dim + a.kv_rope_dim) / 2 + n * a.v_head_dim / 2)
    return 2.0 * (q_term + kv_term + o_term), 2.0 * core


def test_one_mla_layer_forward_flops_match_megatrons_formula():
    s = 128
    linear, core = _megatron_mla_forward(SMALL, s)
    # by hand: q 64·(256 + 4·48 + 1) = 28,736; kv 32·(256 + 4·64 + 1) + 256·16 = 20,512; o 4·32·256 = 32,768;
    # core 128·(4·48/2 + 4·32/2) = 20,480 (causal)
    assert (linear, core) == (2.0 * (28_736 + 20_512 + 32_768), 2.0 * 20_480)
    ours = SMALL.forward_flops_per_token(s)
    # archgen leaves out the two latent norms Megatron counts (its "+ 1"s, no layer's norms are counted here) and
    # counts the full s² square, twice Megatron's causal core (`Arch` module docstring), of which a causal kernel
    # runs half: `causal_share`
    assert ours == linear - 2.0 * (SMALL.q_lora_rank + SMALL.kv_lora_rank) + 2.0 * core
    assert SMALL.causal_share(s) * ours == pytest.approx(core)


def test_deepseek_v3_core_dims():
    a = Arch(layers=61, hidden=7168, heads=128, kv_heads=128, head_dim=56, ffn=18432, vocab=129280,
             kv_lora_rank=512, kv_rope_dim=64, q_lora_rank=1536, qk_nope_dim=128, v_head_dim=128, rope=True, qk_norm=False)
    assert (a.qk_head_dim, a.v_dim, a.core_head_dim) == (192, 128, 160.0)
    plain = dataclasses.replace(a, kv_lora_rank=0)
    assert (plain.qk_head_dim, plain.v_dim, plain.core_head_dim) == (56, 56, 56.0)


def test_flash_core_counts_qk_and_v_dims_apart(h100):
    """A flash kernel's time is its FLOP over one rate: 2·(192 + 128) = 4·160 per score, not 4·192 or 4·128."""
    args = dict(batch=1.0, q_len=4096, kv_len=4096, heads=16, kernel="flash", causal=True)
    mla = K.attention_forward(h100, "bf16", head_dim=192, v_dim=128, **args)
    assert mla == K.attention_forward(h100, "bf16", head_dim=160, **args)
    assert K.attention_forward(h100, "bf16", head_dim=128, **args) < mla < \
        K.attention_forward(h100, "bf16", head_dim=192, **args)
    fwd, bwd = K.attention_times(h100, "bf16", head_dim=192, v_dim=128, **args)
    assert (fwd, bwd) == (mla, 2.5 / K.FLASH_BWD_RATIO * mla)
    m = dict(args, kernel="materialized")
    assert K.attention_forward(h100, "bf16", head_dim=192, v_dim=128, **m) != \
        K.attention_forward(h100, "bf16", head_dim=192, **m)


def test_mla_activations_by_hand():
    """Megatron-core's MLASelfAttention keeps Q, K (48 a head), V and O (32), the two latents' norm and
    up-projection inputs, and under FP8 a second quantised copy of the down-projections' input."""
    kw = dict(seq_len=1, micro_batch=1, tp=1, cp=1, recompute=0, sp=False, flash=True, dropout=False)
    bf16 = layer_activation_bytes(SMALL, precision="bf16", **kw)
    fp8 = layer_activation_bytes(SMALL, precision="fp8", **kw)
    h, core, latents = 256, 2.0 * 4 * (48 + 48 + 32 + 32), 64 + 32
    ffn = 0.0  # no FFN: its terms are 0
    # bf16: LN1 in 2h, down-projections' input 2h, LN2 in 2h, FC1 in 2h; latents 2 + 2 bytes each
    assert bf16 == 8.0 * h + core + 4.0 * latents + ffn
    # fp8: LN1 2h, the two down-projections' 1-byte copies 2h, LN2 2h, FC1 1h; latents 2 + 1 bytes each
    assert fp8 == 7.0 * h + core + 3.0 * latents + ffn
    sp = layer_activation_bytes(SMALL, precision="bf16", **dict(kw, tp=2, sp=True))
    assert sp == (8.0 * h + 4.0 * latents) / 2 + core / 2


def test_mla_fp8_casts_by_hand():
    """Under FP8 every linear input (forward) and output gradient (backward) is cast: MLA's are its own layers'."""
    from archgen.perf.hw import quant as Q

    other, normed, grad = (Q.tensor_bytes("mxfp8", 10.0), Q.tensor_bytes("mxfp8", 10.0, norm_output=True),
                           Q.tensor_bytes("mxfp8", 10.0))
    h = 256
    # forward: latents 64 + 32 from the fused latent norms; the two down-projections' h each and the projection's
    # 4 x 32 cast as any other input; FC1 (no FFN: 0 wide, but its norm output is h) and FC2 (0)
    assert Q.forward_bytes(SMALL, "mxfp8", 10.0, 1, h, False) == (96 + h) * normed + (2 * h + 128) * other
    # backward: the down-projections' 64 + 32 + 16, the up-projections' 4 x 48 and 4 x (32 + 32), the projection's h
    assert Q.backward_bytes(SMALL, "mxfp8", 10.0, 1, h, False) == (112 + 192 + 256 + h + h) * grad


def test_the_assumed_core_rate_is_noted_for_mla_alone():
    from archgen.perf.workload.defaults_note import mla_core_note

    (train,) = mla_core_note(SMALL, training=True)
    assert "training step" in train and "48 values per head" in train and "value at 32" in train
    assert "assumption" in train
    assert "prefill" in mla_core_note(SMALL, training=False)[0]
    assert mla_core_note(dataclasses.replace(SMALL, kv_lora_rank=0), training=True) == []
