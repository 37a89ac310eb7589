"""The memory a serving engine's profiling pass takes out before it sizes its KV cache (kvpeak37, issue 20).

TensorRT-LLM and vLLM size the cache from the peak of a profiling run (`model.kv_memory`): the weights, plus the
activations of one forward over max_num_tokens dummy prompt tokens, plus what is held outside torch (the CUDA
context, NCCL's buffers). What each runs:

* TensorRT-LLM: dummy context requests of min(max_num_tokens, the prompt length) tokens each, max_tokens=1, until
  max_num_tokens tokens are queued, repeated tp times under attention DP (NVIDIA/TensorRT-LLM
  tensorrt_llm/_torch/pyexecutor/_util.py at 00043967, `KvCacheCreator._create_dummy_context_requests`), so each
  rank runs a pass of max_num_tokens tokens; the logits are one row per request, a few rows (left out).
* vLLM: `profile_run` runs `_dummy_run(self.max_num_tokens, is_profile=True)`, its tokens spread over
  min(max_num_tokens, max_num_seqs) requests (vllm-project/vllm vllm/v1/worker/gpu_model_runner.py at 4e179065,
  `_dummy_run`: `num_reqs = min(num_tokens, max_num_reqs)`), then `_dummy_sampler_run` on the last hidden state of
  each request: `compute_logits` gathers the whole vocabulary, and the sampler casts it to FP32 ("Use float32 for the
  logits", vllm/v1/sample/sampler.py at 3e342658, `Sampler.forward`).

The activation peak is that of the largest set of tensors alive at once in a layer, which no source found states for
these engines' fused kernels. It lies between the largest single tensor the pass makes (lower end) and the sum of a
layer's tensors (upper end, never all alive: the attention's are freed before the FFN's are made). The model takes the
lower end: the model's KV cache is already stated as an upper bound (workspaces, CUDA graphs and fragmentation are not
held), and the lower end of the peak keeps it one. The tensors are BF16 as the engines hold activations (FP8 GEMM
inputs are quantised copies, smaller than the BF16 output they come from); the sampler's logits FP32. The CUDA
context and an NCCL communicator for tp > 1 are `hw.reserve`'s cited figures (none on a TPU, `holds_reserve`).
"""

from __future__ import annotations

from archgen.model.accelerator import AMD, NVIDIA, is_nvidia, vendor_name
from archgen.model.kv_memory import KvRule
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.kernels import ACT_BYTES
from archgen.perf.hw.numeric import maximum
from archgen.perf.hw.reserve import CUDA_CONTEXT_BYTES, NCCL_COMM_BYTES, holds_reserve, runtime_reserve

__all__ = ["LOGIT_BYTES", "activation_peak", "memory_reserve", "profile_peak", "runtime_words"]

#: Bytes of a logit in vLLM's sampler: FP32 ("Use float32 for the logits", vllm/v1/sample/sampler.py at 3e342658).
LOGIT_BYTES = 4.0


def activation_peak(a: Arch, tokens: float, tp, attention_dp: bool):
    """The largest single BF16 tensor of one layer's forward over `tokens` a rank (arrays of tp too), in bytes.

    The residual stream (tokens x hidden), each attention projection's output (split tp ways, whole under attention
    DP), the dense FFN's up/gate output (split tp ways) and the routed experts' up/gate output over every token's
    top_k experts (the replica's tokens, tp x tokens under attention DP, spread evenly over the tp ranks by expert or
    within one: the mean rank's, not the busiest's).
    """
    attn_tp = 1.0 if attention_dp else tp
    up = a.ffn_mats - 1  # the gate and up outputs, one GEMM
    sizes = [a.hidden + 0.0 * tp, *(n for _, n, _ in a.attn_gemms(attn_tp))]
    if a.layers > a.moe_layers:
        sizes.append(up * a.ffn / tp)
    if a.experts:
        sizes.append((tp if attention_dp else 1.0) * a.top_k * up * a.expert_ffn / tp)
    peak = sizes[0]
    for s in sizes[1:]:
        peak = maximum(peak, s)
    return tokens * peak * ACT_BYTES


def profile_peak(rule: KvRule, a: Arch, tp, *, tokens: float, seqs: float, attention_dp: bool, vendor: str):
    """What the engine holds beyond the weights when it sizes its KV cache, a rank (`kv_memory.kv_memory`'s `peak`).

    The CUDA context and NCCL (`hw.reserve`, none on a TPU) where the rule takes them out (`KvRule.holds_runtime`:
    not vLLM's, whose memory snapshot is taken once they are up), plus, under a rule with a profiling run, its
    activations. SGLang runs none: it measures what is free once the CUDA context and NCCL are up, before the weights
    load (`model.kv_memory`; review57: that runtime was left out, its cache read fraction x 1.09 GB large at tp > 1,
    and vLLM's held it, its cache 0.4 to 1.09 GB small).
    `tokens`: max_num_tokens a rank; `seqs`: max_num_seqs (the job's max_batch_size), for vLLM's sampler rows.
    """
    held = runtime_reserve(tp, 1, 1, 1, 1) if rule.holds_runtime and holds_reserve(vendor) else 0.0 * tp
    if not rule.profiles:
        return held
    act = activation_peak(a, tokens, tp, attention_dp)
    if rule.engine == "vllm":
        act = maximum(act, min(tokens, seqs) * a.vocab * LOGIT_BYTES)
    return act + held


#: The runtime, collective library and graphs a part's serving engine runs, by vendor (`runtime_words`).
_RUNTIMES = {NVIDIA: ("the CUDA context", "NCCL", "CUDA graphs"), AMD: ("the HIP runtime", "RCCL", "HIP graphs")}


def runtime_words(vendor: str) -> tuple[str, str, str]:
    """A part of `vendor`'s runtime, collective library and captured graphs, in words.

    NVIDIA's CUDA context, NCCL and CUDA graphs; AMD's HIP runtime, RCCL (ROCm's NCCL, `render.glossary`) and HIP
    graphs; else the vendor's runtime, its collective library and its captured graphs, unnamed (review57: AMD parts
    were said to hold a CUDA context).
    """
    return _RUNTIMES.get(vendor_name(vendor), (f"{vendor}'s runtime", "its collective library", "captured graphs"))


def memory_reserve(memory: str, rule: KvRule, fraction: float | None, vendor: str) -> str:
    """What the memory a serving estimate compares with `memory` holds back and leaves out, in words (`conventions`).

    `rule` and `fraction` are the job's (`engine_defaults.kv_rule_of`), `vendor` the part's: the runtime is named by
    it (`runtime_words`), and on a part that is not NVIDIA's the figures held are said to be NVIDIA GPUs'.
    """
    context, library, graphs = runtime_words(vendor)
    cache = f"the KV cache's batch is sized in {rule.words(fraction, memory)}"
    runtime = (f"the CUDA context {CUDA_CONTEXT_BYTES / 1e9:g} GB and, for tp > 1, one NCCL communicator "
               f"{NCCL_COMM_BYTES / 1e9:g} GB, the training reserve's cited figures (hw/reserve.py)"
               if holds_reserve(vendor) else
               "no runtime figure (the part's runtime holds no CUDA context or NCCL communicator, and no source "
               "found states its own)")
    if holds_reserve(vendor) and not is_nvidia(vendor):
        runtime += f", NVIDIA GPUs' figures held in place of what {context} and {library} take, which no source states"
    if not rule.holds_runtime:   # vLLM: up before its memory snapshot, so in the rest
        runtime = (f"no runtime figure ({rule.engine_name} takes its memory snapshot once {context} and {library} "
                   "are up: they sit in the rest)")
    if rule.profiles:
        peak = (f"; its profiling peak is the weights, {runtime}, and the activations of one forward over "
                "an iteration's whole token budget (max_num_tokens), taken at the lower end of their range: the "
                "largest single BF16 tensor of a layer (residual stream, an attention projection's or the FFN's "
                "up/gate output), or vLLM's FP32 logits of min(max_num_tokens, max_num_seqs) rows where larger; the "
                "upper end, the sum of a layer's tensors, is not taken: no source states which are alive at once "
                "(perf/serve/profile_peak.py)")
    else:
        peak = (f"; {rule.engine_name} runs no profiling pass: its activations live in the rest, and the memory free "
                f"before the weights load is the {memory} less {runtime}")
    return (f"{cache}{peak}; {graphs}, kernel workspaces, the MoE all-to-all's buffers and allocator fragmentation "
            f"are not held back, and a batch the spec sets is judged against the whole {memory}; fits means the "
            f"total is at most the {memory} capacity, and the headroom is an upper bound")
