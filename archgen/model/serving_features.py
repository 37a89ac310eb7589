"""Serving features production engines turn on that a serving job's keys cannot switch, refused at their key.

A job that states speculative decoding, prefix caching, CUDA graphs or expert load balancing was refused as an
unknown key (newuser60): `mtp: 3` was answered "did you mean 'tp'?" (tensor parallelism) and `eplb: true` "did you
mean 'ep'?", and `num_speculative_tokens` or `enable_prefix_caching` got the list of allowed keys with no word of why.
Each is now refused at its line as what it is: not modelled, with what the estimate assumes instead and what to do
(as `engine.disaggregation_key` refuses a disaggregated pool). A key naming a field under another name (vLLM's
`kv_cache_dtype`, TensorRT-LLM's `wide_ep`) names the field to state. A spread of prompt lengths (`input_len_cv`,
newuser100: "did you mean 'input_len'?") is refused as `output_len_cv` is under a simulated run: one length is run.
"""

from collections.abc import Iterable

from archgen.model.engine import disaggregation_key
from archgen.model.spec import FieldError, raise_each

__all__ = ["DECODING", "FEATURES", "refuse_unmodelled", "unmodelled_key"]

#: The `decoding` convention of every serving estimate: what a decode step generates, so that a reader comparing it with
#: a figure published with speculative decoding (NVIDIA's DeepSeek-R1 records with MTP, an EAGLE-3 run) reads why
#: the estimate's TPOT is higher, though the job stated nothing about it (newuser60).
DECODING = ("one token per sequence a decode step, the target model alone: speculative decoding (DeepSeek's "
            "multi-token prediction, EAGLE, draft models) is not modelled, so a figure measured with it has a lower "
            "TPOT and more tokens/s per user than this, by about its mean accepted length a step less the draft's cost "
            "(docs/perf-model.md, Limitations)")
SPECULATIVE = (
    "speculative decoding (DeepSeek's multi-token prediction, EAGLE, a draft model, n-gram lookup) is not modelled: "
    "each decode step of the estimate runs the target model alone and generates one token per sequence "
    "(docs/perf-model.md, Limitations). A run with it accepts on average more than one token a step, so its published "
    "TPOT reads lower, and its tokens/s per user higher, than the estimate by about its mean accepted length, less "
    "the draft and verification cost; remove {key}, and compare the estimate with a figure measured without it")
PREFIX_CACHING = (
    "prefix caching (KV-cache reuse across requests: vLLM's enable_prefix_caching, SGLang's radix cache, "
    "TensorRT-LLM's enable_block_reuse) is not modelled: every request prefills its whole prompt and holds its own KV "
    "cache (docs/perf-model.md, Limitations), so for a shared system prompt the estimate's TTFT and prefill work are "
    "an upper bound; remove {key} (shortening input_len would also drop the prefix's KV cache, which the decode "
    "steps still read)")
CUDA_GRAPHS = (
    "CUDA graphs are stated with the field kernel_launch: 'graph' (the default: every kernel of a forward pass is "
    "charged the launch cost measured inside a CUDA graph, 1.3 us (perf/hw/kernels.py KERNEL_OVERHEAD)), "
    "'pytorch' (eager mode: vLLM's enforce_eager, SGLang's disable_cuda_graph) or 'tensorrt' (a TensorRT engine "
    "without graphs), where a pass takes at least its kernels' host launch time (perf/hw/launch.py); TensorRT-LLM's "
    "padding of decode batches to its captured sizes is the field graph_batch_sizes: state those instead of {key}")
LOAD_BALANCE = (
    "expert load balancing (DeepSeek's EPLB, redundant experts) is not a switch: the model times each pass's experts "
    "on the busiest EP rank under uniform random routing, a little above tokens x top_k / ep (docs/perf-model.md, "
    "Inference, Layout), and the estimate's note states the tokens/s with routing perfectly balanced, the balance "
    "EPLB aims at; redundant expert copies are the field redundant_experts (their memory and slots), EPLB's choice "
    "of which experts to copy by measured load is not modelled: remove {key}")
REDUNDANT = ("redundant expert copies are the field redundant_experts (SGLang's --ep-num-redundant-experts, "
             "TensorRT-LLM's num_slots less the experts): state redundant_experts instead of {key}")
KV_DTYPE = ("the KV cache's data type is the field kv_precision (fp16, bf16, fp8 or fp4; vLLM's kv_cache_dtype, "
            "TensorRT-LLM's kv_cache_config.dtype): state kv_precision instead of {key}")
INPUT_SPREAD = (
    "an input-length spread is not modelled: every request's prompt is input_len tokens, offline and in a simulated "
    "run alike (output_len_cv spreads only the generated lengths, offline; docs/perf-model.md, Limitations); remove "
    "{key} and state the prompts' mean as input_len (the prefill's attention, growing with the square of a prompt's "
    "length, then reads below the spread's)")
WIDE_EP = ("wide expert parallelism is stated with two fields: ep (expert-parallel ways of a replica, dividing tp, "
           "across a whole scale-up domain such as an NVL72) and attention_dp: true (each rank runs attention on its "
           "own requests): state those instead of {key}")

#: Each feature: the substrings (of a key, case aside) that name it, and why it is refused (`{key}` the key). A key
#: that is a field of the model is never refused (`unmodelled_key`).
FEATURES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("specul", "spec_dec", "mtp", "eagle", "draft", "medusa", "nextn", "lookahead"), SPECULATIVE),
    (("prefix", "radix", "cache_hit", "block_reuse", "kv_reuse", "cache_reuse"), PREFIX_CACHING),
    (("cuda_graph", "cudagraph", "eager"), CUDA_GRAPHS),
    (("num_redundant", "num_slots"), REDUNDANT),   # not "redundant_expert": the field's misspellings stay unknown
    (("eplb", "load_balanc"), LOAD_BALANCE),
    (("kv_cache_dtype", "kv_dtype", "kv_cache_type"), KV_DTYPE),
    (("wide_ep", "wideep"), WIDE_EP),
    (("input_len_cv", "input_cv", "input_len_std", "input_std", "prompt_len_cv", "prompt_cv", "prompt_len_std"),
     INPUT_SPREAD),   # newuser100: 'input_len_cv' was answered "did you mean 'input_len'?"
)


def unmodelled_key(key: object, fields: Iterable[str]) -> str | None:
    """Why `key`, not one of `fields`, is refused as a serving feature the model does not switch; else None."""
    if not isinstance(key, str) or key in fields:
        return None
    k = key.casefold()
    return next((why.format(key=key) for names, why in FEATURES if any(n in k for n in names)), None)


def refuse_unmodelled(data: object, fields: Iterable[str], title: str) -> None:
    """Raise for each key of a mapping `data` (a serving job's input) that either rule refuses; else return.

    A pool size or KV transfer (`engine.disaggregation_key`) and a serving feature (`unmodelled_key`) are judged in
    one pass, so a job stating both (`disaggregated: true` beside `mtp: 3`) hears of both in one run; before
    (newuser79) the disaggregation keys were raised first and the feature keys only once those were removed.
    """
    if isinstance(data, dict):
        names = tuple(fields)
        raise_each([FieldError((k,), why) for k in data
                    if (why := disaggregation_key(k, names) or unmodelled_key(k, names))], title)
