"""Megatron-core's DDP buckets as its buffer forms them: a greedy walk over a rank's weight tensors (issue 20).

`_ParamAndGradBuffer.__init__` (megatron/core/distributed/param_and_grad_buffer.py, NVIDIA/Megatron-LM at 0011998,
the loop `for param in params[::-1]`) walks the parameters in reverse registration order ("to roughly follow
backprop order") and closes a bucket once `param_end_index - bucket_start_index >= bucket_size`: a bucket ends on a
whole tensor, so it holds `bucket_size` parameters plus the rest of the tensor that crossed the threshold, and a
tensor larger than the bucket is a bucket of its own. Llama 3.1 8B at tp 1 with a 134,217,728 bucket: each bucket
is one layer's attention (its projection and QKV, with the fused norm) and the next-lower layer's FC2 and FC1,
about 218M parameters (Dell's MLPerf Training v5.1 log prints 33 such buckets plus the embedding's and the output
layer's), not 134M.

`mean_bucket` is that walk's mean closed bucket over the model's transformer layers on one rank of `tp`, which the
exposure model divides a rank's parameters by (`exposure.bucket_params`, `dp_exposure`'s count). The walk is done
once per (bucket, tp) pair and kept on the Arch; a sweep's layouts share a handful of pairs.

The bucket group a rank gathers first and reduces last is more than a bucket (`edge_params`; Megatron-core at the
MLPerf Training v5.1 NeMo containers' pin, NVIDIA/Megatron-LM tag 25.09-alpha.rc1, d339190, megatron/core/
distributed/param_and_grad_buffer.py): the walk ends on the input embedding, the first parameter registered, so
the last bucket holds it; and under the FP8 parameter gather every parameter that is not an FP8 weight (the input
embedding, the output layer, the norms and a MoE router: `sixteen_bit_params`) lies in a second buffer whose buckets
`partition_buckets` merges into the last FP8 bucket group (lines 957-982, "merge all non-fp8 buckets into the last
fp8 bucket group"), gathered in 16 bits.
"""

from __future__ import annotations

import numpy as np

from archgen.perf.hw.arch import Arch


def layer_tensors(a: Arch, tp: float, moe: bool) -> tuple[float, ...]:
    """Weight tensors of one layer on a rank of `tp` that the data-parallel buffer holds, in registration order.

    Megatron-core's Transformer Engine layer registers the attention's output projection before its QKV (`Attention.
    __init__` builds `linear_proj`, `SelfAttention.__init__` then `linear_qkv`, with the input norm fused into it as
    `layer_norm_weight`), then the MLP's FC1 (with the pre-MLP norm fused) and FC2. A MoE layer's data-parallel
    buffer holds the router and any shared experts in place of the dense MLP (the routed experts are the expert
    group's buffer). Multi-head latent attention: its projections in `Arch.attn_gemms` order, with its latent norms.
    """
    h = float(a.hidden)
    attn = [n * k for _, n, k in a.attn_gemms(tp)]
    norms = [float(a.kv_lora_rank), float(a.q_lora_rank)][:a.attn_norms]  # MLA's latent norms (none without MLA)
    attn = [attn[-1], h, *attn[:-1], *norms]  # the projection first, then the rest
    if moe:
        mlp = [h * a.experts]
        if a.shared_experts:
            f = a.shared_experts * a.expert_ffn / tp
            mlp += [h, (a.ffn_mats - 1) * f * h, f * h]
    else:
        mlp = [h, (a.ffn_mats - 1) * a.ffn / tp * h, a.ffn / tp * h]
    return tuple(attn + mlp)


def _walk(a: Arch, bucket: float, tp: float) -> float:
    """Mean closed bucket of Megatron-core's greedy walk over the model's layers on one rank of `tp`.

    Kept on the Arch per (bucket, tp), as its cached properties are (hashing the Arch per call cost an estimate ~2 us).
    """
    kept = a.__dict__.setdefault("_bucket_walks", {})
    got = kept.get((bucket, tp))
    if got is None:
        # a layer's tensors depend on the layer only through whether it is a MoE one: listed once for each kind; and
        # the walk is a function of those lists, the layer counts and the bucket, so models built apart (each case,
        # sweep point and test makes its own Arch) share it
        dense = tuple(reversed(layer_tensors(a, tp, False)))
        moe = tuple(reversed(layer_tensors(a, tp, True))) if a.experts else dense
        key = (dense, moe, a.layers, a.dense_layers if a.experts else a.layers, bucket)
        got = _WALKS.get(key)
        if got is None:
            got = _WALKS[key] = _mean_closed(dense, moe, a.layers, key[3], bucket)
        kept[(bucket, tp)] = got
    return got


#: `_walk`'s results by (a dense layer's tensors, a MoE layer's, layers, dense layers, bucket), as walked backwards.
_WALKS: dict[tuple[tuple[float, ...], tuple[float, ...], int, int, float], float] = {}


def _mean_closed(dense: tuple[float, ...], moe: tuple[float, ...], layers: int, dense_layers: int,
                 bucket: float) -> float:
    """The mean closed bucket of the greedy walk, or `bucket` where none closes (one of all).

    From the last layer down (layers from `dense_layers` on are MoE ones), each layer's tensors as listed (backwards).
    """
    closed, size = [], 0.0
    for i in reversed(range(layers)):
        for t in moe if i >= dense_layers else dense:
            size += t
            if size >= bucket:
                closed.append(size)
                size = 0.0
    return sum(closed) / len(closed) if closed else bucket


def mean_bucket(a: Arch, bucket, tp=1.0):
    """Parameters per DDP bucket as Megatron-core forms them from a `bucket`-size threshold (arrays broadcast)."""
    if isinstance(bucket, float | int) and isinstance(tp, float | int):  # one layout: a plain float (issue 25)
        return _walk(a, float(bucket), float(tp))
    b, t = np.broadcast_arrays(np.asarray(bucket, dtype=float), np.asarray(tp, dtype=float))
    (ub, ib), (ut, it) = (np.unique(q, return_inverse=True) for q in (b, t))  # a sweep's few distinct values
    table = np.array([[_walk(a, float(p), float(q)) for q in ut] for p in ub])
    return table[ib.reshape(b.shape), it.reshape(b.shape)]


def sixteen_bit_params(a: Arch, tp, layers, embedding, loss):
    """Parameters of a rank that the FP8 parameter gather leaves in 16 bits (arrays broadcast).

    Transformer Engine keeps the GEMM weights of its modules in FP8 (`fp8_param_gather`); the rest are ordinary
    16-bit parameters in their own data-parallel buffer: each layer's norms (the input norm fused into QKV, the
    pre-MLP norm, MLA's latent norms) and a MoE layer's router and shared experts' norm, as `layer_tensors` lists
    them, the input embedding (`embedding` 1 on its rank), and on the loss rank the final norm and the output
    layer (untied; a tied one is the embedding on a rank that holds both). `layers` is the rank's layer count.
    """
    h = float(a.hidden)
    norms = h + sum([float(a.kv_lora_rank), float(a.q_lora_rank)][:a.attn_norms])
    share = a.moe_layers / a.layers
    moe = h * a.experts + (h if a.shared_experts else 0.0)
    per_layer = norms + (1.0 - share) * h + share * moe
    vocab = a.vocab * h / tp
    output = vocab * (1.0 - embedding) if a.tied else vocab
    return layers * per_layer + embedding * vocab + loss * (h + output)


def edge_params(a: Arch, bucket, tp, embedding, high, fp8: bool):
    """Parameters of the bucket group a rank gathers first and reduces last (arrays broadcast).

    One bucket of layers (`bucket`, the walk's mean) and what joins it: under the FP8 parameter gather the rank's
    16-bit parameters `high` (`sixteen_bit_params`, merged into that group: `fp8`), else the input embedding where the
    rank holds it (`embedding` 1: the walk's last tensor). Megatron-core starts the group's reduce-scatter only once
    every gradient in it is final (`register_grad_ready`), the embedding's at the very end of the backward, and the
    first forward pre-hook waits for its gather before any compute (`finish_param_sync`).
    """
    return bucket + (high if fp8 else embedding * a.vocab * a.hidden / tp)
