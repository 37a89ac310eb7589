"""LLM inference: prefill and decode rooflines, fixed per-kernel costs, KV-cache capacity, TTFT, TPOT and throughput.

A replica runs on `tp` accelerators of one scale-up domain. Without attention data parallelism every rank holds
1/tp of every weight and sees every token (tensor parallel, two all-reduces per layer). With `attention_dp` (as
TensorRT-LLM's `enable_attention_dp` and SGLang's DP attention run DeepSeek-style MoE models) each rank holds the
whole attention (and every non-expert weight) and serves 1/tp of the replica's requests with their whole KV cache;
the experts stay split over the replica, `ep` ways by expert and tp/ep ways within an expert, and tokens reach them
by a dispatch all-to-all (FP8 under FP8/FP4 weights, else BF16) and return by a BF16 combine all-to-all, as DeepEP
does. Without attention DP the experts take their tokens from the TP all-reduce that already replicates them.

Decode advances every active sequence by one token per step: its GEMMs have M = batch (weights re-read each step,
so small batches are bandwidth-bound) and its attention reads each sequence's KV cache. Every forward pass also
pays `kernels.KERNEL_OVERHEAD` per kernel it launches (`pass_costs.kernels_per_pass`): on an H100, even inside a CUDA
graph, each kernel costs about 1.3 us of setup and teardown in which no weights stream (Hazy Research, "Look Ma, No
Bubbles! Designing a Low-Latency Megakernel for Llama-1B", 2025-05-27: vLLM and SGLang reach at most 50 % of H100
bandwidth at batch 1 for that reason). Sampling is one fused kernel per step (FlashInfer's sampling from logits
runs its rounds of rejection sampling in a single kernel) reading the FP32 logits once.

Weights: the linear layers inside the transformer blocks are stored in the serving precision, FP4 in the part's
format (`generation.fp4_format`: NVFP4 with one FP8 E4M3 scale per 16 values, or on AMD's CDNA 4 OCP MXFP4 with one
E8M0 scale per 32); the embedding and the output layer stay in BF16, as NVIDIA's
ModelOpt checkpoints keep them ("Only the weights and activations of the linear operators within transformers
blocks are quantized", nvidia/Llama-3.1-405B-Instruct-FP4 model card), so the logits GEMM runs in BF16. A checkpoint
may leave attention projections out too (`quantised_attention`, `attention_quant.ATTENTION_SOURCE`): those GEMMs run in
BF16, their weights are BF16, and their input needs no cast.

Scenarios (uniform requests of `input_len` + `output_len` tokens; t_pre is one request's prefill, t_dec(b) a decode
step with b sequences, both with their fixed costs):

* offline (`trtllm-bench throughput`: every request queued at once, `batch` in flight):
  tokens/s = b · out / (b · t_pre,chunked + (out - 1) · t_dec(b)): the prefill gives a request's first token and
  its decode steps tokens 2 to out (`lengths.FIRST_TOKEN`); TTFT = t_pre on an idle replica (no queueing);
  TPOT = t_dec(b) + (b - 1) · t_pre,chunked / (out - 1), a request's mean gap (`lengths.offline_gap`). Prompts
  are prefilled in passes of the job's `max_num_tokens` (TensorRT-LLM's token budget per iteration, `PREFILL_CHUNK`
  by default; per rank under attention DP), several prompts a pass; a prompt longer than that runs whole in a pass
  of its own (`WHOLE_PROMPTS`).
* concurrency and server under load: simulated iteration by iteration (`perf.serve.scheduler`: continuous batching with
  chunked prefill, admission by KV cache, queueing), with this module's forward pass as the iteration time.

Each sequence holds KV cache for `lengths.reserved_context` tokens, in the memory its engine gives the cache
(`model.kv_memory`: TensorRT-LLM's free_gpu_memory_fraction of the HBM left after its profiling peak, vLLM's
gpu_memory_utilization of HBM less that peak, SGLang's mem_fraction_static of the HBM free before the weights load
less the weights; `ServeJob.kv_rule`, `profile_peak`): by default the
whole request (input + output), as TensorRT-LLM's default capacity scheduler, GUARANTEED_NO_EVICT, admits a request
only when its whole KV cache is guaranteed (docs/source/performance/perf-best-practices.md; trtllm-bench throughput
keeps that default); or the mean context (input + output/2) under a scheduler that allocates as sequences grow and
may pause them (`kv_reserve: mean`: vLLM, TensorRT-LLM's MAX_UTILIZATION).
Decode attention reads the mean context either way.
Where the outputs differ in length (`output_len_cv`, offline only) the mean context is weighted by length, input +
output (1 + CV^2) / 2, and so is a 'mean' reservation (`lengths`).
The KV cache and the attention core use `kv_cache_dtype.serving_kv_dtype` (FP8 under FP4 weights).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from archgen.model.engine import MAX_BATCH_SIZE, MAX_NUM_TOKENS
from archgen.model.kv_memory import DEFAULT_FRACTION, KV_RULES, KvRule, kv_memory
from archgen.perf.comm.placement import replica_members
from archgen.perf.comm.racks import group_times
from archgen.perf.hw import kernels as K
from archgen.perf.hw import kv_cache_dtype as KV
from archgen.perf.hw import quant as Q
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.kernels import ACT_BYTES
from archgen.perf.hw.kv_cache_dtype import kv_cache_bytes_per_token_per_rank
from archgen.perf.hw.numeric import maximum, minimum, where
from archgen.perf.serve.attention_quant import UNQUANTISED_DTYPE, attention_dtypes
from archgen.perf.serve.ffn import ffn_bytes
from archgen.perf.serve.lengths import decode_context, offline_gap, reserved_context
from archgen.perf.serve.pass_costs import fixed_per_pass, host_floor
from archgen.perf.serve.profile_peak import profile_peak
from archgen.perf.serve.routing import busiest_rank_load, load_factor

#: Tokens per iteration unless the job states its own (`model.workload.MAX_NUM_TOKENS`).
PREFILL_CHUNK = MAX_NUM_TOKENS
#: Why the sequences in flight are at most the token budget: a decoding request takes one token of it each iteration.
TOKEN_BUDGET_SOURCE = ("TensorRT-LLM schedules the requests in generation first, each taking one token of the "
                       "max_num_tokens budget (NVIDIA/TensorRT-LLM docs/source/performance/"
                       "tuning-max-batch-size-and-max-num-tokens.md at 16d2467ea8)")
#: Why a replica under attention DP has tp of each engine limit (`scheduling_ranks`), the rule the model takes.
RANK_LIMITS = ("under attention DP each rank schedules its own requests within its own max_num_tokens and "
               "max_batch_size: TensorRT-LLM admits tp x max_num_active_requests to the replica (NVIDIA/TensorRT-LLM "
               "tensorrt_llm/_torch/pyexecutor/executor_request_queue.py at 007a7508b8, "
               "_fetch_new_requests_attention_dp), and NVIDIA's DeepSeek-R1 B200 run states '--max_batch_size: Max "
               "batch size in each rank', 384 with max_num_tokens 1,536 at concurrency 3,072 on tp 8 "
               "(docs/source/blogs/Best_perf_practice_on_DeepSeek-R1_in_TensorRT-LLM.md at f0c873f5ff), where one "
               "budget for the replica would not hold its 3,072 decodes")
#: Why an offline prompt longer than max_num_tokens is prefilled whole, not in chunks: context chunking is opt-in in
#: TensorRT-LLM, and without it max_num_tokens must cover the longest prompt.
WHOLE_PROMPTS = ("TensorRT-LLM chunks a prompt only with context chunking on, which is opt-in (trtllm-bench "
                 "'--enable_chunked_context', docs/source/blogs/Best_perf_practice_on_DeepSeek-R1_in_TensorRT-LLM.md "
                 "at f0c873f5ff; 'it's recommended that you always enable it', docs/source/performance/"
                 "tuning-max-batch-size-and-max-num-tokens.md at 16d2467ea8), and without it 'max num tokens [must] "
                 "be at least as large as the longest prompt' (the same document)")
#: Why the sequences in flight are at most `max_batch_size`, and its default.
BATCH_SIZE_SOURCE = ("TensorRT-LLM's max_batch_size, the requests a rank schedules at once ('The default value is "
                     "2048', NVIDIA/TensorRT-LLM docs/source/performance/tuning-max-batch-size-and-max-num-tokens.md "
                     "at 16d2467ea8; per rank under attention DP)")


#: Element-wise bytes per token and layer of a serving forward pass, in units of h: the training count as it stood
#: before its dropout masks were split out (`kernels.ELEMENTWISE_H` 10 h of norms and residual adds, plus 1 h of the
#: masks, which inference does not write). Kept so, not re-derived from the serving engines' fused kernels: open.
SERVING_ELEMENTWISE_H = K.ELEMENTWISE_H + K.DROPOUT_MASK_H

#: Embedding and output layer stay in BF16 under quantised serving (ModelOpt quantises the blocks' linear layers).
EMBEDDING_DTYPE = "bf16"


@dataclass(frozen=True)
class ServeJob:
    """An inference job for one model.

    Its defaults are one engine's, TensorRT-LLM's (its max_batch_size, max_num_tokens, whole-request KV reservation
    and KV rule); a job of an engine is built with that engine's values (`engine_defaults.job_of`). kvtidy38: the KV
    rule was vLLM's beside TensorRT-LLM's other defaults, a stack no engine runs.

    Attributes:
        arch: Model shape.
        input_len: Prompt tokens per request.
        output_len: Generated tokens per request.
        precision: Weight and GEMM data type.
        kv_precision: KV-cache data type (default `kv_cache_dtype.serving_kv_dtype`).
        kv_reserve: KV cache a sequence holds ('full' or 'mean', see `lengths.reserved_context`).
        ep: Expert-parallel ways of a replica's MoE layers (divides tp; the rest splits each expert).
        attention_dp: Attention data parallel: each rank runs the whole attention on 1/tp of the requests.
        scenario: 'offline' / 'server' (throughput at `batch`) or 'concurrency' (closed loop of `batch` requests);
            the closed form here is the offline one, `perf.serve.scheduler` simulates the others.
        max_num_tokens: Tokens per iteration (TensorRT-LLM's `max_num_tokens`, vLLM's `max_num_batched_tokens`):
            the offline prefill chunk and the simulated iteration's budget, per rank under attention DP.
        batcher: Server scenario: a harness batcher's (group size, timeout in seconds), `perf.serve.batcher`.
        prefill: How the simulated replica takes prompts: 'chunked' (mixed with the decodes, cut to the budget) or
            'separate' (whole, in iterations of their own while the decodes wait), `perf.serve.scheduler`.
        ffn_activation: The FFN activation as a kernel of its own ('separate') or in the up/gate GEMM's epilogue
            ('fused'), `perf.serve.ffn`.
        max_batch_size: Sequences scheduled at once (TensorRT-LLM's `max_batch_size`, `model.workload.MAX_BATCH_SIZE`),
            per rank under attention DP.
        quantised_attention: Which attention projections take `precision` ('all', 'output' or 'none',
            `attention_quant.ATTENTION_SOURCE`); the others run and are stored in BF16.
        output_len_cv: The generated lengths' coefficient of variation (offline closed form only; None: every
            output of `output_len` tokens), `lengths.decode_context`.
        imbalance: The busiest EP rank's routed load as (max - mean)/mean; None for uniform random routing's
            expected busiest rank (`routing.busiest_rank_load`).
        redundant_experts: Extra expert copies over the EP ranks (`Inference.redundant_experts`); `arch.experts`
            already counts them as slots (`serving_arch`), so this is what the routing note takes off for the model's
            own experts.
        adp_balance: Attention DP: TensorRT-LLM's context balancer, (batching_wait_iters, timeout_iters) of its
            `attention_dp_config`, or None where it is off (`perf.serve.adp_balance`; simulated runs only).
        graph_sizes: CUDA-graph batch sizes a decode-only iteration is padded to (ascending), or None where it is
            not padded (`perf.serve.graph_padding`; simulated runs only).
        launch_host: Host seconds a kernel's launch takes without a CUDA graph (0 under one), `pass_costs.host_floor`.
        kv_rule, kv_fraction: How the engine sizes its KV cache, at what fraction (`model.kv_memory`); TensorRT-LLM's
            free_gpu_memory_fraction 0.9 by default.
    """

    arch: Arch
    input_len: int
    output_len: int
    precision: str = "fp8"
    kv_precision: str | None = None
    kv_reserve: str = "full"
    ep: int = 1
    attention_dp: bool = False
    scenario: str = "offline"
    max_num_tokens: int = PREFILL_CHUNK
    batcher: tuple[int, float] | None = None
    prefill: str = "chunked"
    ffn_activation: str = "separate"
    max_batch_size: int = MAX_BATCH_SIZE
    quantised_attention: str = "all"
    output_len_cv: float | None = None
    imbalance: float | None = None
    redundant_experts: int = 0
    adp_balance: tuple[int, int] | None = None
    graph_sizes: tuple[int, ...] | None = None
    launch_host: float = 0.0
    kv_rule: KvRule = KV_RULES["tensorrt-llm"]
    kv_fraction: float = DEFAULT_FRACTION


@dataclass(frozen=True)
class InferenceEstimate:
    """Per-replica latencies, throughput and memory (arrays for many layouts); kv_space/kv_words: a rank's KV budget."""

    tp: np.ndarray | int
    batch: np.ndarray | float
    max_batch: np.ndarray | float
    ttft: np.ndarray | float
    tpot: np.ndarray | float   # a request's mean gap between tokens after the first; `decode_step` the step alone
    prefill_per_request: np.ndarray | float
    tokens_per_second_replica: np.ndarray | float
    tokens_per_second_per_gpu: np.ndarray | float
    weights_per_gpu: np.ndarray | float
    kv_per_sequence_per_gpu: np.ndarray | float
    memory_per_gpu: np.ndarray | float
    capacity: float
    overhead_per_step: np.ndarray | float = 0.0
    kv_batch: np.ndarray | float = 0.0
    decode_step: np.ndarray | float = 0.0
    kv_space: np.ndarray | float = 0.0
    kv_words: str = ""

    @property
    def fits(self):
        """Whether at least one sequence is in flight and the weights and the KV cache of `batch` sequences fit."""
        return (self.batch >= 1) & (self.memory_per_gpu <= self.capacity)


def scheduling_ranks(job: ServeJob, tp):
    """Ranks of a replica that each schedule their own requests: its tp under attention DP, else one.

    Each has its own max_num_tokens and max_batch_size (`RANK_LIMITS`).
    """
    return tp if job.attention_dp else 1


def weights_per_gpu(arch: Arch, dtype: str, tp, attention_dp: bool = False, quantised_attention: str = "all",
                    fp4: str = "nvfp4"):
    """Weight bytes on one rank of a replica of `tp`: experts split tp ways, the rest tp ways or whole under DP.

    The blocks' linear layers take `dtype` (plus the block scales of FP4 format `fp4`, `kernels.element_bytes`), the
    embedding and output layer BF16, and so do the attention projections `quantised_attention` leaves out
    (`attention_dtypes`).
    """
    a = arch
    per = K.element_bytes(dtype, fp4)
    embed = float(a.embedding_params)
    experts = float(a.moe_layers * a.experts * a.expert_params)
    rest = a.params() - embed - experts
    dtypes = attention_dtypes(a, dtype, quantised_attention)
    kept = a.layers * sum(n * k for (_, n, k), d in zip(a.attn_gemms(1), dtypes, strict=True)
                          if d != dtype)  # attention weights left in BF16
    shared = 1.0 if attention_dp else tp
    return experts * per / tp + (rest - kept) * per / shared \
        + (embed * K.DTYPE_BYTES[EMBEDDING_DTYPE] + kept * K.DTYPE_BYTES[UNQUANTISED_DTYPE]) / shared


def _forward(hw: Hardware, job: ServeJob, tokens, tp, *, context, batch, prefill: bool, local=None,
             attention: bool = True, sampled=None):
    """One forward pass over `tokens` tokens of a replica (a decode step or a prefill) on its busiest rank.

    `batch` sequences of `context` tokens are attended; under attention DP a rank attends `local` of the tokens
    (default tokens / tp) and batch / tp of the sequences with every head, and the experts see all `tokens`.
    Kernel times only: the fixed per-kernel costs are `pass_costs.fixed_per_pass`. The scheduler
    (`perf.serve.scheduler`) asks for the pass without its attention core (`attention=False`, timed per sequence by
    `attention_core`) and names the tokens whose logits are sampled (`sampled`, default every decode token or the
    last token of each prompt).
    """
    a, dt = job.arch, job.precision
    adp = job.attention_dp
    moe = a.moe_layers
    dense = a.layers - moe
    t_tp = 1.0 if adp else tp  # ways the attention and dense weights are split
    mine = (tokens / tp if local is None else local) if adp else tokens
    seqs = batch / tp if adp else batch
    g = sum(K.gemm_time(hw, d, mine, n, k)
            for (_, n, k), d in zip(a.attn_gemms(t_tp), attention_dtypes(a, dt, job.quantised_attention), strict=True))
    ffn_dense = K.gemm_time(hw, dt, mine, (a.ffn_mats - 1) * a.ffn / t_tp, a.hidden) \
        + K.gemm_time(hw, dt, mine, a.hidden, a.ffn / t_tp)
    if moe:
        ffn_moe = routed_expert_time(hw, a, dt, tokens, tp, job.ep, job.imbalance)
        if a.shared_experts:
            s_f = a.shared_experts * a.expert_ffn / t_tp
            ffn_moe = ffn_moe + K.gemm_time(hw, dt, mine, (a.ffn_mats - 1) * s_f, a.hidden) \
                + K.gemm_time(hw, dt, mine, a.hidden, s_f)
    else:
        ffn_moe = 0.0
    attn = attention_core(hw, job, tp, tokens=mine, context=context, batch=seqs, prefill=prefill) if attention \
        else 0.0
    fp4 = hw.fp4
    load = load_factor(tokens, a.top_k, a.experts, job.ep, job.imbalance) if moe else 1.0
    ffn_local, ffn_routed = ffn_bytes(a, dt, tp, ep=job.ep, attention_dp=adp, activation=job.ffn_activation, fp4=fp4,
                                      load=load)
    ew = K.memory_time(hw, mine * (ACT_BYTES * SERVING_ELEMENTWISE_H * a.hidden * a.layers + ffn_local)
                       + tokens * ffn_routed)
    k_tp = replica_members(hw, tp)  # the replica lies inside one domain, whatever else the job holds (and one rack,
    # of a domain over several, where tp divides the rack: `comm.racks`)
    if adp:  # dispatch and combine all-to-alls around each MoE layer, none around attention
        send = mine * a.top_k * a.hidden * load  # the busiest rank receives, and returns, `load` x the mean's rows
        a2a = sum(group_times(hw, (("all_to_all", send * K.DTYPE_BYTES[_dispatch_dtype(dt)]),
                                   ("all_to_all", send * ACT_BYTES)), tp, k_tp))
        comm = moe * where(tp > 1, a2a, 0.0)
    else:
        ar = where(tp > 1, group_times(hw, (("all_reduce", tokens * a.hidden * ACT_BYTES),), tp, k_tp)[0], 0.0)
        comm = a.layers * 2.0 * ar
    if sampled is None:  # the logits of the last prompt token, or of every step
        sampled = mine if not prefill else mine / context
    casts = K.memory_time(hw, mine * Q.serving_casts(a, dt, tp, adp, job.quantised_attention == "all", fp4)[0])
    return a.layers * (g + attn) + ew + dense * ffn_dense + moe * ffn_moe + comm + casts \
        + output_time(hw, a, sampled, t_tp)


def routed_expert_time(hw: Hardware, arch: Arch, dtype: str, tokens, tp, ep: int, imbalance: float | None = None):
    """One MoE layer's routed-expert GEMMs (up/gate and down) on its busiest EP rank, for `tokens` entering the layer.

    The rank's copies are `routing.busiest_rank_load`'s, spread over the experts they reach (at most its E/ep), each
    expert split tp/ep ways; a grouped GEMM of M = copies per expert.
    """
    a = arch
    routed = busiest_rank_load(tokens, a.top_k, a.experts, ep, imbalance)  # the busiest rank's copies
    active = minimum(a.experts / float(ep), routed)
    m_e = routed / active
    f = a.expert_ffn * float(ep) / tp  # each expert split tp/ep ways
    return K.gemm_time(hw, dtype, m_e, (a.ffn_mats - 1) * f, a.hidden, active) \
        + K.gemm_time(hw, dtype, m_e, a.hidden, f, active)


def attention_core(hw: Hardware, job: ServeJob, tp, *, tokens, context, batch, prefill: bool):
    """One layer's attention core on a rank.

    `tokens` prompt tokens in causal prompts of `context`, or a decode step of `batch` sequences reading `context`
    tokens each (the rank's own sequences under attention DP).
    """
    a = job.arch
    adp = job.attention_dp
    kv_local = a.kv_heads if adp else np.maximum(a.kv_heads / tp, 1.0)
    heads = a.heads / (1.0 if adp else tp)
    kv_dt = KV.serving_kv_dtype(job.precision, job.kv_precision)
    kv_bytes, core = KV.kv_element_bytes(kv_dt), KV.kv_attention_dtype(kv_dt)
    if prefill:
        return K.attention_forward(hw, core, batch=tokens / context, q_len=context, kv_len=context,
                                   heads=heads, head_dim=a.qk_head_dim, kernel="flash", causal=True, v_dim=a.v_dim)
    if a.kv_lora_rank:  # multi-head latent attention: every local head reads the one latent cache
        return K.latent_decode_attention(hw, batch=batch, context=context, rank=a.kv_lora_rank, rope=a.kv_rope_dim,
                                         kv_bytes=kv_bytes, heads=heads, dtype=core)
    return K.decode_attention(hw, batch=batch, context=context, kv_heads=kv_local, head_dim=a.head_dim,
                              kv_bytes=kv_bytes, heads=heads, dtype=core)


def output_time(hw: Hardware, arch: Arch, sampled, tp):
    """The logits GEMM (BF16, vocabulary split `tp` ways) and the sampling kernel's read of the FP32 logits."""
    logits = K.gemm_time(hw, EMBEDDING_DTYPE, sampled, arch.vocab / tp, arch.hidden)
    return logits + K.memory_time(hw, sampled * arch.vocab * 4.0)


def _dispatch_dtype(dtype: str) -> str:
    """Data type of the MoE dispatch all-to-all: FP8 under FP8/FP4 weights (DeepEP's FP8 dispatch), else 16-bit."""
    return "fp8" if dtype in ("fp8", "fp4") else "bf16"


def estimate_inference(hw: Hardware, job: ServeJob, tp, batch=None) -> InferenceEstimate:
    """Latency, throughput and memory of one replica on `tp` accelerators with `batch` sequences in flight.

    Args:
        hw: Hardware.
        job: Model, request shape, layout switches and scenario.
        tp: Accelerators per replica (array allowed).
        batch: Concurrent sequences per replica; None for the most the KV cache holds.

    Returns:
        The estimate; `fits` is False where the weights alone do not fit.
    """
    a = job.arch
    tp = np.asarray(tp, dtype=float)
    adp = job.attention_dp
    kv_bytes = KV.kv_element_bytes(KV.serving_kv_dtype(job.precision, job.kv_precision))
    weights = weights_per_gpu(a, job.precision, tp, adp, job.quantised_attention,
                              hw.fp4)
    per_tok = kv_cache_bytes_per_token_per_rank(a, kv_bytes, tp, adp)
    mean_ctx = decode_context(job.input_len, job.output_len, job.output_len_cv)
    kv_seq = per_tok * reserved_context(job.kv_reserve, job.input_len, job.output_len, job.output_len_cv)
    peak = profile_peak(job.kv_rule, a, tp, tokens=job.max_num_tokens, seqs=job.max_batch_size,
                        attention_dp=adp, vendor=hw.vendor)
    usable = kv_memory(job.kv_rule, job.kv_fraction, hw.hbm_capacity, weights, peak)
    ranks = scheduling_ranks(job, tp) + 0.0  # ranks that each hold and schedule their own sequences (`RANK_LIMITS`)
    kv_batch = np.maximum(np.floor(usable / kv_seq), 0.0) * ranks
    # each decoding sequence is one token of an iteration's budget (`TOKEN_BUDGET_SOURCE`): no more than
    # max_num_tokens are in flight per rank that schedules its own, nor more than the engine's max_batch_size,
    # whatever the KV cache would hold
    max_batch = np.minimum(kv_batch, min(job.max_num_tokens, job.max_batch_size) * ranks)
    b = max_batch if batch is None else np.asarray(batch, dtype=float) + 0.0 * tp
    b_eff = np.maximum(b, 1.0)
    fixed, floor = fixed_per_pass(a, tp, adp, job.precision, job.ffn_activation, job.quantised_attention), \
        host_floor(job, tp)   # an eager pass takes at least its launches' host time (0 under a CUDA graph)

    def step(sequences):
        return maximum(_forward(hw, job, sequences, tp, context=mean_ctx, batch=sequences, prefill=False) + fixed,
                       floor)

    inp = float(job.input_len)
    t_dec = step(b_eff)
    t_pre = maximum(_forward(hw, job, inp, tp, context=inp, batch=1.0, prefill=True, local=inp) + fixed, floor)
    # a pass of max_num_tokens prompt tokens a rank, or one whole prompt where it is longer (`WHOLE_PROMPTS`)
    chunk = max(job.max_num_tokens, job.input_len) * ranks
    t_chunk = maximum(_forward(hw, job, chunk, tp, context=inp, batch=chunk / inp, prefill=True) + fixed, floor)
    pre_req = t_chunk * inp / chunk
    ttft, tpot = t_pre, offline_gap(t_dec, pre_req, b_eff, job.output_len)
    # the prefill makes each request's first token, its decode steps the other output_len - 1 (`FIRST_TOKEN`)
    tps = b_eff * job.output_len / (b_eff * pre_req + (job.output_len - 1) * t_dec)
    return InferenceEstimate(
        tp=tp, batch=b, max_batch=max_batch, ttft=ttft, tpot=tpot, prefill_per_request=pre_req,
        tokens_per_second_replica=tps, tokens_per_second_per_gpu=tps / tp, weights_per_gpu=weights,
        kv_per_sequence_per_gpu=kv_seq, memory_per_gpu=weights + b / ranks * kv_seq, capacity=hw.hbm_capacity,
        overhead_per_step=fixed, kv_batch=kv_batch, decode_step=t_dec, kv_space=usable,
        kv_words=job.kv_rule.words(job.kv_fraction, hw.memory_type))
