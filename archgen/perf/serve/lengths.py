"""The context an offline decode step reads, and a slot holds, when the requests' outputs differ in length.

A request's first output token comes out of its prefill (`FIRST_TOKEN`), so a request of L output tokens runs L - 1
decode steps, for tokens 2 to L: the step that makes token t + 1 feeds token t and attends I + t tokens
(1 <= t < L). In the offline scenario every slot of the batch is refilled as its request finishes, so a slot holds a
request for its L - 1 decode steps: the requests in flight are the requests weighted by L - 1, not the requests as
drawn. Over the steps of all requests the mean context is

    E[sum over t of (I + t)] / E[L - 1] = I + (E[L^2] - E[L]) / (2 (E[L] - 1))

for a prompt length I that does not vary with L, where E[L^2] = E[L]^2 (1 + CV^2) and CV is the outputs' coefficient
of variation (standard deviation over mean, `ServeJob.output_len_cv`). The closed form takes I + E[L] (1 + CV^2) / 2:
with every output of one length (CV = 0) both are I + L/2 exactly; with a spread it falls short of the exact mean by
E[L] CV^2 / (2 (E[L] - 1)) tokens (0.8 of 5,591 for MLPerf's DeepSeek-R1 outputs, E[L] 3,736 and CV 1.25), left out
so that the words beside an estimate can state the formula. A KV cache allocated as the sequence grows
(`kv_reserve: mean`) holds the same length-weighted mean per slot; one reserved whole at admission
(`kv_reserve: full`) holds what the request declares, `input_len + output_len`, unchanged.

Left out: the correlation of prompt and output lengths (E[L I] is taken as E[L] E[I]); on MLPerf's DeepSeek-R1
dataset the joint form gives 5,826 tokens of context where this one gives 5,998 (3 % less; the dataset's moments,
tests/perf/data/mlperf-deepseek-r1-lengths.yaml). A dataset's CV is of its reference outputs; what an engine
generates may spread differently (MLPerf's logs give only the mean).

`lengths_convention` and `kv_convention` say in words what a serving estimate takes (moved from
`perf.workload.serving_estimate` for its size). `offline_gap` is an offline run's TPOT as the benchmarks define it
(`OFFLINE_TPOT`): a request's mean time between its tokens after the first, by Little's law over the run.
"""

from __future__ import annotations

#: Why a request of `output_len` tokens runs `output_len - 1` decode steps: its first token comes from the prefill.
FIRST_TOKEN = ("a request's first output token is sampled from its prefill's logits, so its decode steps make tokens 2 "
               "to output_len, output_len - 1 of them: SGLang appends the token sampled at a prompt's last chunk to "
               "the request's output (sgl-project/sglang "
               "python/sglang/srt/managers/scheduler_output_processor_mixin.py at 004ec010d0, "
               "process_batch_result_prefill); trtllm-bench counts output tokens - 1 generated tokens a "
               "request (NVIDIA/TensorRT-LLM tensorrt_llm/bench/dataclasses/statistics.py at 385626572d, "
               "num_generated_tokens) and vLLM's benchmark divides latency - TTFT by output_len - 1 for TPOT "
               "(vllm-project/vllm benchmarks/benchmark_serving.py at 0049e29c41)")
#: What the tools that report a TPOT mean by it for a run that queues every request at once (offtpot37).
OFFLINE_TPOT = ("trtllm-bench times each request's (end - first token) / (output tokens - 1) and reports their "
                "average as 'Average time-per-output-token [TPOT]' (NVIDIA/TensorRT-LLM "
                "tensorrt_llm/bench/dataclasses/statistics.py at 77d7fe1eb2, intertoken_latency; reporting.py at "
                "0249976575, tpot_percentiles, printed with --streaming only), as vLLM's benchmark_serving.py does "
                "(latency - TTFT) / (output_len - 1) per request; vLLM's benchmark_throughput.py (at 018efffdeb) and "
                "SGLang's bench_offline_throughput.py (at ad8e67641c) print throughput only, and MLPerf's Offline "
                "scenario judges no latency")


def offline_gap(step, prefill_per_request, batch, output_len: int):
    """Mean time between a request's output tokens after the first in an offline run (`OFFLINE_TPOT`), in seconds.

    The closed form's replica makes `batch` · `output_len` tokens in batch · t_pre + (output_len - 1) · t_dec, so by
    Little's law each request lives that long; less its own prompt's share of a prefill pass (before its first
    token), the rest is spread over its output_len - 1 gaps: t_dec + (batch - 1) · t_pre / (output_len - 1), the
    decode `step` plus the other requests' prompts prefilled between the steps. Mean lengths, a steady state; one
    output token has no gap (the step is returned).
    """
    if output_len < 2:
        return step
    return step + (batch - 1) * prefill_per_request / (output_len - 1)


#: Why a spread of output lengths lengthens the offline decode context (the module docstring derives it).
LENGTH_WEIGHTED = ("a slot holds a request for its output_len - 1 decode steps, so the steps read the length-weighted "
                   "mean context, about E[L (I + L/2)] / E[L]")
#: What the offline closed form takes where a job states no `output_len_cv`.
ONE_LENGTH = "all outputs of one length (output_len_cv not stated)"


def decode_context(input_len: float, output_len: float, output_len_cv: float | None = None) -> float:
    """Mean tokens of context an offline decode step reads: input + output (1 + CV^2) / 2 (see the module).

    Args:
        input_len: Prompt tokens per request (every prompt of this length, or uncorrelated with the output's).
        output_len: Mean generated tokens per request, E[L].
        output_len_cv: The generated lengths' coefficient of variation; None takes every output of one length.
    """
    cv = output_len_cv or 0.0
    return input_len + output_len * (1.0 + cv * cv) / 2.0


def reserved_context(kv_reserve: str, input_len: float, output_len: float, output_len_cv: float | None = None
                     ) -> float:
    """Tokens of KV cache a slot holds: the whole request ('full'), or the mean it has grown to ('mean').

    'mean' allocates as the sequence grows, so a slot holds the length-weighted mean context (`decode_context`);
    'full' reserves the request's declared input + output at admission, whatever the spread.
    """
    if kv_reserve == "full":
        return input_len + output_len
    return decode_context(input_len, output_len, output_len_cv)


def lengths_convention(input_len: int, output_len: int, cv: float | None, simulated: bool) -> str:
    """How the estimate takes the requests' lengths: one in a simulated run; offline, the spread stated or not."""
    if simulated:
        return (f"every simulated request has {input_len:,} + {output_len:,} tokens (varying request lengths are not "
                "simulated)")
    ctx = f"{decode_context(input_len, output_len, cv):,.0f} tokens"
    if cv is None:
        return (f"{ONE_LENGTH}: a decode step reads input + output/2 = {ctx} of context; outputs that vary in length "
                "read more, input + output x (1 + CV^2) / 2 (state output_len_cv)")
    return (f"a decode step reads input + output x (1 + output_len_cv^2) / 2 = {ctx} of context (output_len_cv "
            f"{cv:g}): {LENGTH_WEIGHTED}")


def kv_convention(kv_reserve: str, cv: float | None) -> str:
    """What KV cache a sequence holds (`lengths.reserved_context`), in words."""
    held = "input + output" if kv_reserve == "full" else \
        "input + output/2" if cv is None else "input + output x (1 + output_len_cv^2) / 2, the length-weighted mean"
    return f"each sequence holds {held} tokens (kv_reserve: {kv_reserve})"
