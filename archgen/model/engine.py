"""A serving engine's defaults where a job states none, and the serving jobs the model refuses."""

from __future__ import annotations

__all__ = ["DISAGGREGATED", "MAX_BATCH_SIZE", "MAX_NUM_TOKENS", "serving_problem", "spread_problem"]

#: Tokens per iteration of a serving replica unless stated: TensorRT-LLM's default max_num_tokens
#: (`BuildConfig.max_num_tokens`) and vLLM's max_num_batched_tokens under chunked prefill for its API server on a GPU
#: of 70 GiB or more other than an A100 (vllm-project/vllm vllm/engine/arg_utils.py at 99d7eb5d,
#: `EngineArgs._set_default_args`: OPENAI_API_SERVER 8,192; LLM_CLASS 16,384), both 8,192.
MAX_NUM_TOKENS = 8192
#: Sequences an engine rank schedules at once unless stated: TensorRT-LLM's default max_batch_size ("The default value
#: is 2048", NVIDIA/TensorRT-LLM docs/source/performance/tuning-max-batch-size-and-max-num-tokens.md at 16d2467ea8),
#: per rank under attention DP ("`--max_batch_size`: Max batch size in each rank", docs/source/blogs/
#: Best_perf_practice_on_DeepSeek-R1_in_TensorRT-LLM.md at f0c873f5ff). vLLM's own default max_num_seqs is lower and
#: this default does not stand for it: 1,024 on a GPU of 70 GiB or more other than an A100, 256 on others, for both the
#: API server and the offline LLM class (vllm-project/vllm vllm/engine/arg_utils.py at 99d7eb5d,
#: `EngineArgs._set_default_args`; at 001999d2, `EngineArgs.__post_init__`: 1,024 under VLLM_USE_V1, 256 on V0). A
#: vLLM job states its max_num_seqs as `max_batch_size`.
MAX_BATCH_SIZE = 2048

#: Why `inference.disaggregated` is refused: the model runs a request's prefill and decode on the same replica.
DISAGGREGATED = ("disaggregated prefill/decode serving (prompts on one pool of accelerators, decodes on another, the "
                 "KV cache sent between them) is not modelled: every replica runs both its prompts and its decodes "
                 "(docs/perf-model.md, Limitations); remove disaggregated")


def serving_problem(scenario: str, batch: int | str | None, tp: int | None, ep: int) -> tuple[str, str] | None:
    """The field at fault and why, when a serving job's scenario, batch and expert parallelism disagree; else None.

    A concurrency benchmark needs the requests it keeps in flight; `ep` splits the replica's tp ranks.
    """
    if scenario == "concurrency" and (batch is None or batch == "max"):
        return ("batch", "the concurrency scenario needs batch: the requests kept in flight per replica, e.g. 'batch: "
                         "1' (as many as fit is the offline scenario)")
    if tp is not None and tp % ep:
        return ("ep", f"ep ({ep}) must divide tp ({tp}): the replica's tp ranks hold the experts, ep ways by expert")
    return None


def spread_problem(scenario: str, arrival_rate: bool, output_len_cv: float | None) -> str | None:
    """Why a job may not state `output_len_cv` (a spread of output lengths), or None.

    Only the offline closed form reads it (perf/serve/lengths.py): a simulated run (the concurrency scenario, or
    server with an arrival rate) gives every request `output_len` tokens, so it would go unused there.
    """
    if output_len_cv is None or not (scenario == "concurrency" or arrival_rate):
        return None
    run = "a closed loop" if scenario == "concurrency" else "Poisson arrivals"
    return (f"output_len_cv applies to the offline closed form; this job's scenario '{scenario}' simulates {run} in "
            "which every request has output_len tokens (varying request lengths are not simulated): remove "
            "output_len_cv, or state the offline scenario")
