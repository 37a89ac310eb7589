"""The metric registry's rows of a serving job read as a disaggregated deployment, as `archgen.metrics` holds them.

Split from `archgen.metrics` for its size only: the registry is one table (STYLE.md habit 13). A serving estimate reads
its replica as the two pools of a first-order disaggregated deployment (`perf.serve.colocation.pool_times`,
newuser79, nu79fix, pd2): each pool's tokens/s per accelerator, the prefill:decode ratio that balances them, and the
time each decode rank takes to receive its share of a prompt's KV cache, bytes / link bandwidth. No published run of a
disaggregated pool is scored, so none of them carries a measured band (`perf.workload.band_families.UNSCORED`): a
target they meet is at risk (REQ004), never plainly met.
"""

from __future__ import annotations

from archgen.metric import Metric

_P = "perf/serve/colocation.py"
_I = ("inference",)
#: Why a reading's figures are first-order: the replica's own layout and time split, not pools laid out apart.
_FIRST_ORDER = ("both pools at the replica's own layout, each timed from passes of its own (the decode pool at the "
                "replica's sequences in flight, no pool's own batch being stated); a pool laid out otherwise (a decode "
                "pool's wider EP or another batch) is not modelled.")

POOLS: tuple[Metric, ...] = (
    Metric("workload", "prefill_tokens_per_second_per_gpu", "1/s", "1/s", 0, "Prefill pool tokens/s per accelerator",
           "Input tokens per second per accelerator of a prefill pool: input_len / the time of prefill-only passes "
           "per prompt / tp, with " + _FIRST_ORDER, _P, _I, True, sweep=False, counts="tokens",
           synonyms=("prefill_tokens_per_second_per_accelerator", "prefill_throughput_per_gpu",
                     "input_tokens_per_second_per_gpu")),
    Metric("workload", "decode_tokens_per_second_per_gpu", "1/s", "1/s", 0, "Decode pool tokens/s per accelerator",
           "Output tokens per second per accelerator of a decode pool: decode-only steps of the replica's "
           "sequences, each reading every weight and their KV cache: sequences / step time / tp, with "
           + _FIRST_ORDER + " SGLang's published decode rates per GPU "
           "(lmsys.org/blog/2025-09-25-gb200-part-2) are such figures; the aggregated `tokens_per_second_per_gpu` "
           "is not.", _P, _I, True, sweep=False, counts="tokens",
           synonyms=("decode_tokens_per_second_per_accelerator", "decode_throughput_per_gpu",
                     "output_tokens_per_second_per_gpu")),
    Metric("workload", "prefill_decode_ratio", "", "", 2, "Prefill:decode accelerator ratio", "Prefill "
           "accelerators per decode accelerator that balance the two pools, the prefill pool's time over the "
           "decode pool's per request (DistServe, Zhong et al., OSDI 2024, section 4; SGLang's 'PD ratio', "
           "sgl-project/sglang issue 10903), with " + _FIRST_ORDER, _P, _I, sweep=False,
           synonyms=("pd_ratio", "p_d_ratio", "prefill_to_decode_ratio")),
    Metric("workload", "kv_transfer_time", "s", "ms", 3, "KV transfer time (lower bound)", "The prompt KV cache "
           "each decode rank receives (its share of input_len x the KV bytes per token) over one accelerator's "
           "scale-up link, pools in one domain: bytes / bandwidth at the stated rate, no protocol, efficiency or "
           "contention charged, so a lower bound; TTFT adds it unless it hides behind the prefill.", _P, _I,
           sweep=False, minimise=True, synonyms=("kv_cache_transfer_time", "kv_transfer_latency")),
    Metric("workload", "kv_transfer_time_across_domains", "s", "ms", 3, "KV transfer time across domains (lower "
           "bound)", "`kv_transfer_time` over one accelerator's scale-out share instead (RDMA, pools in different "
           "scale-up domains): a lower bound as that is; not provided for a cluster of one domain.", _P, _I,
           sweep=False, minimise=True),
)
