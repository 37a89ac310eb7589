"""LLM inference: prefill and decode rooflines, KV-cache capacity, TTFT, TPOT and throughput.

A replica runs on `tp` accelerators of one scale-up domain (tensor parallel, two all-reduces per layer). Decode
advances every active sequence by one token per step: its GEMMs have M = batch (weights re-read each step, so
small batches are bandwidth-bound) and its attention reads each sequence's KV cache. Prefill processes prompts in
chunks of `PREFILL_CHUNK` tokens (TensorRT-LLM's default `max_num_tokens`), compute-bound. Offline throughput
assumes continuous batching with `batch` sequences in flight:

    tokens/s per replica = batch · out / (batch · t_prefill_per_request + out · t_decode_step)

TTFT is one request's prefill plus one decode step; TPOT is the decode step at the given batch.

Each sequence holds KV cache for `RESERVED_CONTEXT[kv_reserve]` tokens, in `MEMORY_UTILISATION` of HBM (vLLM's
`gpu_memory_utilization` default) after the weights: by default the whole request (input + output), as
TensorRT-LLM's default capacity scheduler, GUARANTEED_NO_EVICT, admits a request only when its whole KV cache is
guaranteed (docs/source/performance/perf-best-practices.md; trtllm-bench throughput keeps that default); or the
mean context (input + output/2) under a scheduler that allocates as sequences grow and may pause them
(`kv_reserve: mean`: vLLM, TensorRT-LLM's MAX_UTILIZATION). Decode attention reads the mean context either way.
The KV cache and the attention core use `kernels.serving_kv_dtype` (FP8 under FP4 weights).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from archgen.perf import kernels as K
from archgen.perf.arch import Arch
from archgen.perf.collectives import collective_time, members_per_domain
from archgen.perf.hardware import Hardware
from archgen.perf.memory import kv_cache_bytes_per_token

PREFILL_CHUNK = 8192
MEMORY_UTILISATION = 0.9
ACT_BYTES = 2.0
#: Tokens of KV cache a sequence holds, as a function of (input, output), per `kv_reserve`.
RESERVED_CONTEXT = {"full": lambda i, o: i + o, "mean": lambda i, o: i + o / 2.0}


@dataclass(frozen=True)
class ServeJob:
    """An inference job for one model."""

    arch: Arch
    input_len: int
    output_len: int
    precision: str = "fp8"
    kv_precision: str | None = None
    kv_reserve: str = "full"


@dataclass(frozen=True)
class InferenceEstimate:
    """Per-replica latencies, throughput and memory (arrays when evaluated for many layouts)."""

    tp: np.ndarray | int
    batch: np.ndarray | float
    max_batch: np.ndarray | float
    ttft: np.ndarray | float
    tpot: np.ndarray | float
    prefill_per_request: np.ndarray | float
    tokens_per_second_replica: np.ndarray | float
    tokens_per_second_per_gpu: np.ndarray | float
    weights_per_gpu: np.ndarray | float
    kv_per_sequence_per_gpu: np.ndarray | float
    memory_per_gpu: np.ndarray | float
    capacity: float

    @property
    def fits(self):
        """Whether at least one sequence is in flight and the weights and the KV cache of `batch` sequences fit."""
        return (self.batch >= 1) & (self.memory_per_gpu <= self.capacity)


def _forward(hw: Hardware, job: ServeJob, tokens, tp, *, context, batch, prefill: bool):
    """One forward pass over `tokens` tokens (a decode step or a prefill chunk) on one replica rank."""
    a, dt = job.arch, job.precision
    q = a.heads * a.head_dim
    moe = a.moe_layers
    dense = a.layers - moe
    g = K.gemm_time(hw, dt, tokens, (q + 2 * a.kv_heads * a.head_dim) / tp, a.hidden) \
        + K.gemm_time(hw, dt, tokens, a.hidden, q / tp)
    ffn_dense = K.gemm_time(hw, dt, tokens, (a.ffn_mats - 1) * a.ffn / tp, a.hidden) \
        + K.gemm_time(hw, dt, tokens, a.hidden, a.ffn / tp)
    if moe:
        active = np.minimum(a.experts, tokens * a.top_k)
        m_e = tokens * a.top_k / active
        f = a.expert_ffn
        ffn_moe = K.gemm_time(hw, dt, m_e, (a.ffn_mats - 1) * f / tp, a.hidden, active) \
            + K.gemm_time(hw, dt, m_e, a.hidden, f / tp, active)
    else:
        ffn_moe = 0.0
    kv_local = np.maximum(a.kv_heads / tp, 1.0)
    kv_dt = K.serving_kv_dtype(dt, job.kv_precision)
    if prefill:
        attn = K.attention_forward(hw, kv_dt, batch=tokens / context, q_len=context, kv_len=context,
                                   heads=a.heads / tp, head_dim=a.head_dim, kernel="flash", causal=True)
    else:
        attn = K.decode_attention(hw, batch=batch, context=context, kv_heads=kv_local, head_dim=a.head_dim,
                                  kv_bytes=K.DTYPE_BYTES[kv_dt], heads=a.heads / tp, dtype=kv_dt)
    ew = K.memory_time(hw, tokens * ACT_BYTES * 11.0 * a.hidden)
    k_tp = members_per_domain(hw, tp, 1)
    ar = np.where(tp > 1, collective_time(hw, "all_reduce", tokens * a.hidden * ACT_BYTES, tp, k_tp), 0.0)
    per_layer = g + attn + ew + 2.0 * ar
    logits = K.gemm_time(hw, dt, tokens if not prefill else tokens / context, a.vocab / tp, a.hidden)
    return a.layers * per_layer + dense * ffn_dense + moe * ffn_moe + logits


def estimate_inference(hw: Hardware, job: ServeJob, tp, batch=None) -> InferenceEstimate:
    """Latency, throughput and memory of one replica on `tp` accelerators with `batch` sequences in flight.

    Args:
        hw: Hardware.
        job: Model and request shape.
        tp: Tensor-parallel size (array allowed).
        batch: Concurrent sequences; None for the most the KV cache holds.

    Returns:
        The estimate; `fits` is False where the weights alone do not fit.
    """
    a = job.arch
    tp = np.asarray(tp, dtype=float)
    w_bytes = K.DTYPE_BYTES[job.precision]
    kv_bytes = K.DTYPE_BYTES[K.serving_kv_dtype(job.precision, job.kv_precision)]
    weights = a.params() * w_bytes / tp
    kv_heads_local = np.maximum(a.kv_heads / tp, 1.0)
    per_tok = kv_cache_bytes_per_token(a, kv_bytes) / a.kv_heads * kv_heads_local
    mean_ctx = job.input_len + job.output_len / 2.0
    kv_seq = per_tok * RESERVED_CONTEXT[job.kv_reserve](job.input_len, job.output_len)
    usable = hw.hbm_capacity * MEMORY_UTILISATION - weights
    max_batch = np.maximum(np.floor(usable / kv_seq), 0.0)
    b = max_batch if batch is None else np.asarray(batch, dtype=float) + 0.0 * tp
    b_eff = np.maximum(b, 1.0)
    t_dec = _forward(hw, job, b_eff, tp, context=mean_ctx, batch=b_eff, prefill=False)
    chunk = max(PREFILL_CHUNK, job.input_len)
    t_chunk = _forward(hw, job, float(chunk), tp, context=float(job.input_len), batch=1.0, prefill=True)
    pre_req = t_chunk * job.input_len / chunk
    t_single = _forward(hw, job, float(job.input_len), tp, context=float(job.input_len), batch=1.0, prefill=True)
    t_first_dec = _forward(hw, job, 1.0, tp, context=float(job.input_len), batch=1.0, prefill=False)
    tps = b_eff * job.output_len / (b_eff * pre_req + job.output_len * t_dec)
    return InferenceEstimate(
        tp=tp, batch=b, max_batch=max_batch, ttft=t_single + t_first_dec, tpot=t_dec, prefill_per_request=pre_req,
        tokens_per_second_replica=tps, tokens_per_second_per_gpu=tps / tp, weights_per_gpu=weights,
        kv_per_sequence_per_gpu=kv_seq, memory_per_gpu=weights + b * kv_seq, capacity=hw.hbm_capacity)
