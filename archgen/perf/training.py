"""Training step time for Megatron-style 3D/4D/5D parallelism (TP, PP, DP, CP, EP), vectorised over layouts.

Schedule (per optimizer step, per accelerator of the slowest pipeline stage):

    step = (m + (p-1)/v) · (t_fwd + t_bwd) + p2p + exposed DP reduction + optimizer step

with m micro-batches per pipeline, p stages and v virtual stages per rank (bubble (p-1)/(v·m), Narayanan et al.
SC21). t_fwd and t_bwd are the stage's layers (plus the logits on the last stage) for one micro-batch: GEMM and
attention rooflines from `kernels`, memory-bound element-wise traffic, and the tensor-, context- and
expert-parallel collectives, which Megatron runs on the critical path (no overlap). Recomputation adds a forward
(full) or the attention core's forward (selective) to the backward. The DP gradient reduction overlaps with the
last micro-batch's backward when `overlap` is set; its exposed remainder is counted. Each micro-batch also
accumulates its weight gradients into the gradient buffer (a memory-bound pass over it). Under FP8/FP4 the
layers' linear GEMMs run at the low precision while the attention core and the logits stay in BF16
(`kernels.training_core_dtype`); MoE layers also move their tokens through permute and unpermute (`permute_h`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from archgen.perf import kernels as K
from archgen.perf.arch import Arch
from archgen.perf.collectives import collective_time, members_per_domain
from archgen.perf.hardware import Hardware
from archgen.perf.memory import TrainingMemory, params_per_gpu, training_memory

RECOMPUTE_CODES = {"none": 0, "selective": 1, "full": 2}

#: Element-wise bytes per token per layer in the forward pass, in units of h (activation dtype): two layer norms
#: (read + write), two bias-dropout-residual adds (read 2, write 1, mask 0.5), i.e. 2·2 + 2·3.5 = 11.
ELEMENTWISE_H = 11.0
#: Bytes per optimizer step and parameter for Adam: fp32 master (r+w 8), moments (r+w 16), fp32 grad read 4,
#: 16-bit weight write 2.
ADAM_BYTES = 30.0


def quant_bytes(dtype: str) -> float:
    """Bytes moved per element to quantise a 16-bit GEMM input for FP8/FP4 training.

    Transformer Engine reads the BF16 tensor and writes a row-wise copy for this GEMM and a column-wise one for the
    backward GEMM that needs it transposed ("tensor usages": TE docs, Low precision training, Performance
    considerations; "low-precision training ... involves extra cast operations": TE docs, Operation fuser API).
    The amax pass of current scaling is taken as fused. The backward quantises the output gradients; the model
    counts that as the forward traffic again, as for every memory-bound op (backward = 2 x forward).
    """
    return 2.0 + 2.0 * K.DTYPE_BYTES[dtype]


def permute_h(top_k):
    """Forward bytes per token of an MoE layer's token permutation, in units of h (activation dtype).

    The all-to-all dispatcher's permute reads each token and writes its `top_k` copies in expert order (1 + k);
    unpermute reads the k expert outputs and writes their weighted sum (k + 1).
    """
    return 2.0 * (1.0 + top_k)


@dataclass(frozen=True)
class Layout:
    """A parallel layout and its per-step options; numeric fields may be numpy arrays (one entry per layout)."""

    tp: np.ndarray | int
    pp: np.ndarray | int
    dp: np.ndarray | int
    micro_batch: np.ndarray | int
    cp: np.ndarray | int = 1
    ep: np.ndarray | int = 1
    interleave: np.ndarray | int = 1
    recompute: np.ndarray | int = 0
    sequence_parallel: np.ndarray | bool = True


@dataclass(frozen=True)
class Job:
    """What is trained and how, apart from the layout."""

    arch: Arch
    seq_len: int
    global_batch: int
    precision: str = "bf16"
    attention: str = "flash"
    distributed_optimizer: bool = True
    overlap_grad_reduce: bool = True
    overlap_tp_comm: bool = False
    overlap_p2p_comm: bool = True


@dataclass(frozen=True)
class TrainingEstimate:
    """Step-time breakdown (s), throughput and memory; arrays when evaluated for many layouts."""

    step_time: np.ndarray | float
    compute: np.ndarray | float
    tp_comm: np.ndarray | float
    cp_comm: np.ndarray | float
    ep_comm: np.ndarray | float
    pp_comm: np.ndarray | float
    dp_comm: np.ndarray | float
    bubble: np.ndarray | float
    optimizer: np.ndarray | float
    tokens_per_second: np.ndarray | float
    model_flops: float
    hardware_flops: np.ndarray | float
    tflops_per_gpu: np.ndarray | float
    mfu: np.ndarray | float
    peak: float
    memory: TrainingMemory
    capacity: float
    gpus: np.ndarray | int
    notes: tuple[str, ...] = field(default=())

    @property
    def fits(self):
        """Whether the busiest accelerator's memory fits its HBM."""
        return self.memory.total <= self.capacity


def _num(x):
    """A float for scalars (fast path), a float array otherwise."""
    return np.asarray(x, dtype=float) if isinstance(x, np.ndarray | list | tuple) else float(x)


def stage_layer_count(layers, pp, interleave=1):
    """Layers on the busiest pipeline rank: uneven partitions put ceil(l / (p·v)) layers in each virtual stage."""
    return np.ceil(layers / (pp * interleave)) * interleave


def _layer_forward(hw: Hardware, job: Job, T, mb, s_q, tp, sp, ep, moe: bool):
    """GEMM + attention + element-wise forward time of one layer for one micro-batch; (total, attention core)."""
    a, dt = job.arch, job.precision
    q = a.heads * a.head_dim
    t = K.gemm_time(hw, dt, T, (q + 2 * a.kv_heads * a.head_dim) / tp, a.hidden)
    t = t + K.gemm_time(hw, dt, T, a.hidden, q / tp)
    if moe:
        local = a.experts / ep  # experts held by this rank; tokens arrive balanced from the EP group
        m_e = T * a.top_k / local
        n_up = (a.ffn_mats - 1) * a.expert_ffn / tp
        t = t + K.gemm_time(hw, dt, m_e, n_up, a.hidden, local) + K.gemm_time(hw, dt, m_e, a.hidden,
                                                                              a.expert_ffn / tp, local)
        t = t + K.gemm_time(hw, dt, T, a.experts, a.hidden)
        if a.shared_experts:
            f = a.shared_experts * a.expert_ffn
            t = t + K.gemm_time(hw, dt, T, (a.ffn_mats - 1) * f / tp, a.hidden) + K.gemm_time(hw, dt, T, a.hidden,
                                                                                              f / tp)
    else:
        t = t + K.gemm_time(hw, dt, T, (a.ffn_mats - 1) * a.ffn / tp, a.hidden)
        t = t + K.gemm_time(hw, dt, T, a.hidden, a.ffn / tp)
    attn = K.attention_forward(hw, K.training_core_dtype(dt), batch=mb, q_len=s_q, kv_len=job.seq_len,
                               heads=a.heads / tp, head_dim=a.head_dim, kernel=job.attention, causal=True)
    return t + attn + K.memory_time(hw, elementwise_bytes(a, dt, T, tp, sp, moe)), attn


def elementwise_bytes(a: Arch, dtype: str, T, tp, sp, moe: bool):
    """Memory-bound bytes of one layer's forward pass for `T` tokens on one TP rank.

    Norms and residual adds (`ELEMENTWISE_H`), the FFN activation, an MoE layer's token permutation (`permute_h`)
    and, under FP8/FP4, the quantisation of every linear GEMM's input (`quant_bytes` per element): QKV, the
    projection, and FC1/FC2 or each routed token's expert up/down (and the shared experts').
    """
    h = a.hidden / np.where(sp, tp, 1)  # sequence parallelism splits the h-sized traffic
    if moe:
        f_elem, permute = a.top_k * a.expert_ffn, permute_h(a.top_k)
        linear_in = a.top_k * (a.hidden + a.expert_ffn / tp) + (
            a.hidden + a.shared_experts * a.expert_ffn / tp if a.shared_experts else 0.0)
    else:
        f_elem, permute = a.ffn, 0.0
        linear_in = h + a.ffn / tp
    ew = T * 2.0 * ((ELEMENTWISE_H + permute) * h + (a.ffn_mats * f_elem) / tp)  # 16-bit activations
    if dtype in ("fp8", "fp4"):
        ew = ew + T * (h + a.heads * a.head_dim / tp + linear_in) * quant_bytes(dtype)
    return ew


def estimate_training(hw: Hardware, job: Job, layout: Layout) -> TrainingEstimate:
    """Step time, throughput, MFU and memory of `job` under `layout` (vectorised over array fields).

    The caller has checked that the layout divides the GPUs, layers, heads and batch (see `search.check_layout`).
    """
    a = job.arch
    tp, pp, dp = (_num(x) for x in (layout.tp, layout.pp, layout.dp))
    cp, ep, v = (_num(x) for x in (layout.cp, layout.ep, layout.interleave))
    mb = _num(layout.micro_batch)
    rc = np.asarray(layout.recompute)
    sp = np.asarray(layout.sequence_parallel, dtype=bool) & (tp > 1)
    s_q = job.seq_len / cp
    T = mb * s_q
    m = job.global_batch / (dp * mb)
    gpus = tp * pp * dp * cp

    # Per layer, one micro-batch.
    dense_f, dense_attn = _layer_forward(hw, job, T, mb, s_q, tp, sp, ep, moe=False)
    if a.moe_layers:
        moe_f, moe_attn = _layer_forward(hw, job, T, mb, s_q, tp, sp, ep, moe=True)
    else:
        moe_f, moe_attn = 0.0, 0.0
    stage_layers = stage_layer_count(a.layers, pp, v)
    n_dense = stage_layers * (a.layers - a.moe_layers) / a.layers
    n_moe = stage_layers * a.moe_layers / a.layers
    fwd = n_dense * dense_f + n_moe * moe_f
    attn_f = n_dense * dense_attn + n_moe * moe_attn
    core = K.training_core_dtype(job.precision)  # attention core and logits (BF16 under FP8/FP4 recipes)
    bwd_kernel = K.attention_backward(hw, core, batch=mb, q_len=s_q, kv_len=job.seq_len,
                                      heads=a.heads / tp, head_dim=a.head_dim, kernel=job.attention)
    bwd = 2.0 * (fwd - attn_f) + (n_dense + n_moe) * bwd_kernel
    recompute = np.where(rc == 2, fwd, np.where(rc == 1, attn_f, 0.0))

    # Logits and loss on the last stage (not recomputed).
    logits_f = K.gemm_time(hw, core, T, a.vocab / tp, a.hidden) + K.memory_time(hw, 3 * 4.0 * T * a.vocab / tp)
    # Weight gradients are accumulated into the gradient buffer once per micro-batch: read it, read the new
    # 16-bit gradient, write it back (fp16 buffer: 6 B/param; fp32 main gradients: 10 B/param).
    params = params_per_gpu(a, tp, pp, ep)
    grad_bytes = 2.0 if job.precision == "fp16" else 4.0
    accumulate = K.memory_time(hw, params * (2.0 * grad_bytes + 2.0))
    compute_mb = fwd + bwd + recompute + 3.0 * logits_f + accumulate

    # Tensor-parallel collectives: 2 per layer forward (all-reduce, or all-gather + reduce-scatter with SP).
    act_bytes = 2.0
    k_tp = members_per_domain(hw, tp, 1)
    ar = collective_time(hw, "all_reduce", T * a.hidden * act_bytes, tp, k_tp)
    n_coll = 2.0 * (1.0 + 1.0 + (rc == 2)) * (n_dense + n_moe)
    tp_comm_mb = np.where(tp > 1, n_coll * ar, 0.0)
    if job.overlap_tp_comm:  # chunked GEMMs hide the collectives (TE userbuffers); only the excess shows
        gemm_window = (fwd - attn_f) * (3.0 + (rc == 2))  # the layer GEMMs of forward, backward (2x) and recompute
        tp_comm_mb = np.maximum(0.0, tp_comm_mb - gemm_window)

    # Context parallelism: K and V all-gathered forward, their gradients reduce-scattered backward; the ring
    # overlaps with the attention core, only the excess is exposed.
    kv_size = 2.0 * mb * job.seq_len * a.kv_heads * a.head_dim * act_bytes / tp
    k_cp = members_per_domain(hw, cp, tp)
    cp_t = collective_time(hw, "all_gather", kv_size, cp, k_cp)
    cp_comm_mb = np.where(cp > 1, (n_dense + n_moe) * np.maximum(0.0, 3.0 * cp_t - attn_f / (n_dense + n_moe)
                                                                 * 3.5), 0.0)

    # Expert parallelism: dispatch and combine all-to-all per MoE layer, forward and backward (+ recompute).
    if a.moe_layers:
        k_ep = members_per_domain(hw, ep, tp * cp)
        a2a = collective_time(hw, "all_to_all", T * a.top_k * a.hidden * act_bytes / tp, ep, k_ep)
        ep_comm_mb = np.where(ep > 1, 2.0 * (2.0 + (rc == 2)) * n_moe * a2a, 0.0)
    else:
        ep_comm_mb = 0.0 * tp

    stage_mb = compute_mb + tp_comm_mb + cp_comm_mb + ep_comm_mb
    # Pipeline: activations forward and gradients backward between stages, once per virtual stage. The slowest hop
    # sets the pace; it stays inside a scale-up domain only when every pipeline (pp ranks tp·cp·dp apart) lies in
    # one domain, i.e. the domain size is a multiple of a pipeline's span. Otherwise some hop crosses domains.
    k_pp = np.where(np.mod(hw.scale_up_size, tp * cp * dp * pp) == 0, 2.0, 1.0)
    p2p = collective_time(hw, "p2p", T * a.hidden * act_bytes / np.where(tp > 1, tp, 1), 2, k_pp)
    hops = 2.0 * v * m * p2p  # each chunk's activations out and gradients back, blocking
    if job.overlap_p2p_comm:  # interleaved 1F1B: steady-state sends overlap the next chunk; warmup and flush block
        steady = np.maximum(0.0, p2p - fwd / v)
        overlapped = 2.0 * (pp - 1) * p2p + 2.0 * np.maximum(v * m - (pp - 1), 0.0) * steady
        hops = np.where(v > 1, np.minimum(hops, overlapped), hops)
    pp_comm = np.where(pp > 1, hops, 0.0)
    bubble = (pp - 1) / v * stage_mb

    # Data-parallel gradient reduction (all-reduce, or reduce-scatter + all-gather with the distributed optimizer).
    k_dp = members_per_domain(hw, dp, tp * cp)
    dp_t = collective_time(hw, "all_reduce", params * grad_bytes, dp, k_dp)
    if job.distributed_optimizer:
        dp_t = collective_time(hw, "reduce_scatter", params * grad_bytes, dp, k_dp) + \
            collective_time(hw, "all_gather", params * 2.0, dp, k_dp)
    window = (bwd + recompute) if job.overlap_grad_reduce else 0.0
    dp_comm = np.where(dp > 1, np.maximum(0.0, dp_t - window), 0.0)
    opt_bytes = ADAM_BYTES * params / np.where(job.distributed_optimizer, dp, 1)
    optimizer = K.memory_time(hw, opt_bytes)

    compute = m * compute_mb
    step = m * stage_mb + bubble + pp_comm + dp_comm + optimizer

    tokens = job.global_batch * job.seq_len
    model_flops = a.model_flops(tokens, job.seq_len)
    rec_flops = np.where(rc == 2, 1.0, 0.0) * (model_flops / 3.0 - 2.0 * tokens * a.hidden * a.vocab) + np.where(
        rc == 1, 1.0, 0.0) * (4.0 * tokens * job.seq_len * a.heads * a.head_dim * a.layers)
    peak = hw.peak_for(job.precision)
    mem = training_memory(a, precision=job.precision, seq_len=job.seq_len, micro_batch=mb, tp=tp, pp=pp, dp=dp,
                          cp=cp, ep=ep, interleave=v, recompute=rc, sp=sp, flash=job.attention == "flash",
                          distributed_optimizer=job.distributed_optimizer, microbatches=m)
    return TrainingEstimate(
        step_time=step, compute=compute, tp_comm=m * tp_comm_mb, cp_comm=m * cp_comm_mb, ep_comm=m * ep_comm_mb,
        pp_comm=pp_comm, dp_comm=dp_comm, bubble=bubble, optimizer=optimizer, tokens_per_second=tokens / step,
        model_flops=model_flops, hardware_flops=model_flops + rec_flops,
        tflops_per_gpu=model_flops / (step * gpus), mfu=model_flops / (step * gpus * peak), peak=peak,
        memory=mem, capacity=hw.hbm_capacity, gpus=gpus)
