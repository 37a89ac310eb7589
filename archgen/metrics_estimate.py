"""The metric registry's rows of a job's performance estimate, declared as `archgen.metrics.REGISTRY` holds them.

Split from `archgen.metrics` for its size only: the registry is one table (STYLE.md habit 13). What the performance
model estimates for a workload and each point of a sweep: a training job's step time, model FLOP/s and MFU; a serving
job's TTFT and TPOT (a simulated run's medians and 99th percentiles as MLPerf's loadgen reads them), tokens/s per
user and per rack, concurrency and replica capacity, with its disaggregated pools (`archgen.metrics_pools`); both
kinds' tokens/s and memory; a collective's bus bandwidth and time (docs/perf-model.md).
"""

from __future__ import annotations

from archgen.metric import Metric
from archgen.metrics_pools import POOLS

#: Metrics of one kind of job come from its own module; those of both kinds (and collectives) from the entry point.
_E, _ET, _EI = "perf/workload/estimate.py", "perf/workload/training_estimate.py", "perf/workload/serving_estimate.py"
_T, _I, _X = ("training",), ("inference",), ("collective",)
#: Why a requirement met on a job's memory is at risk where the estimate gives it no range (`Metric.unmeasured`): no
#: published run's measured memory is scored into an error band (tests/perf/data/bridge-26.10.yaml: "peak memory is
#: not a scored metric"; one test holds the model to one published peak, tests/perf/test_folding.py). A training job
#: on a part whose runtime holds the CUDA/NCCL reserve has a range, the caching allocator's measured waste
#: (`memory_per_gpu_low/high`, perf/hw/reserve.py `memory_ends`), and is judged across it, as a figure with a range of
#: its own is (`model.requirements.spread`): this reason is for the rest, a serving job's memory (its engine's CUDA
#: graphs, activations and the unused part of its KV pool, which no cited source sizes together) and a TPU's.
MEMORY_UNMEASURED = ("the memory model is scored against no measured peak, and where the estimate gives the memory no "
                     "range (a serving job's; a job on a TPU) it holds back the runtime's CUDA context and "
                     "communication buffers (a serving engine, its KV-cache budget) but nothing for the allocator's "
                     "fragmentation, CUDA graphs or kernel workspaces: the memory per accelerator may be low, and the "
                     "headroom high, by that much")
#: The ends of a training job's memory band (`reserve.memory_ends`), each in the words of its end.
_ENDS = {"low": "no allocator waste: the caching allocator holding its tensors alone",
         "high": "the most allocator waste a published measurement found, a share of its reserved memory holding no "
                 "tensor (arXiv:2507.16274)"}

ESTIMATE: tuple[Metric, ...] = (
    Metric("workload", "step_time", "s", "s", 2, "Step time", "Time of one training step (one global batch).", _ET,
           _T),  # no better direction: a step is a global batch, and a smaller batch takes less time
    Metric("workload", "ttft", "s", "ms", 1, "TTFT", "Time to first token: one request's prefill on an idle "
           "replica (offline), or the mean over a simulated run's requests of first token - arrival (concurrency, "
           "server with an arrival rate).", _EI, _I, minimise=True),
    Metric("workload", "tpot", "s", "ms", 2, "TPOT", "Time per output token after the first, the mean over the "
           "requests of (latency - TTFT) / (output - 1), as trtllm-bench and vLLM's benchmark_serving.py report it: "
           "of a simulated run (concurrency, server with an arrival rate), or offline by Little's law over the run, "
           "a decode step plus the other requests' prompts prefilled between the steps (decode_step_time alone is "
           "the least gap).", _EI, _I, minimise=True),
    Metric("workload", "decode_step_time", "s", "ms", 2, "Decode step", "One decode step with the offline batch in "
           "flight: the least time between a request's output tokens, not a benchmark's TPOT (an offline run "
           "prefills other requests' prompts between the steps). Offline only.", _EI, _I, minimise=True),
    Metric("workload", "ttft_p50", "s", "ms", 1, "TTFT p50", "Median time to first token over a simulated run "
           "(concurrency, or server with an arrival rate): the sorted requests' element at floor(n / 2), as MLPerf's "
           "loadgen reads it.", "perf/serve/scheduler.py", _I,
           minimise=True),
    Metric("workload", "ttft_p99", "s", "ms", 1, "TTFT p99", "99th-percentile time to first token over a simulated "
           "run, the sorted requests' element at floor(0.99 n) as MLPerf's loadgen reads it (loadgen/results.cc): "
           "MLPerf Inference's Server-scenario TTFT constraint. Every request has the workload's one length (a "
           "dataset's long prompts, which set a measured tail, are not simulated).", "perf/serve/scheduler.py", _I,
           minimise=True),
    Metric("workload", "tpot_p50", "s", "ms", 2, "TPOT p50", "Median time per output token over a simulated run "
           "(the sorted requests' element at floor(n / 2), as loadgen reads it).",
           "perf/serve/scheduler.py", _I, minimise=True),
    Metric("workload", "tpot_p99", "s", "ms", 2, "TPOT p99", "99th-percentile time per output token over a "
           "simulated run, the sorted requests' element at floor(0.99 n) as MLPerf's loadgen reads it: MLPerf "
           "Inference's Server-scenario TPOT constraint.", "perf/serve/scheduler.py", _I,
           minimise=True),
    Metric("workload", "tokens_per_second", "1/s", "1/s", 0, "Tokens/s", "Tokens per second of the whole job: a "
           "training job's every token of its batches; a serving job's output tokens only, its prompts' not counted "
           "(MLPerf's 'Completed tokens per second', trtllm-bench's 'Total Output Throughput', AIPerf's output "
           "token throughput), so a figure that counts input + output (vLLM's 'Total Token throughput', "
           "vllm-project/vllm benchmarks/benchmark_serving.py at 0049e29c41) is (input_len + output_len) / "
           "output_len times it.", _E, _T + _I, True, counts="tokens"),
    Metric("workload", "tokens_per_second_per_gpu", "1/s", "1/s", 0, "Tokens/s per accelerator", "Tokens per "
           "second over the accelerators used (idle ones count); a serving job's output tokens.", _E, _T + _I, True,
           counts="tokens", synonyms=("tokens_per_second_per_accelerator", "tokens_per_second_per_device")),
    Metric("workload", "tokens_per_second_per_user", "1/s", "1/s", 1, "Tokens/s per user", "Interactivity: the "
           "output tokens per second each request receives while it decodes, 1 / TPOT (InferenceMAX's 'intvty', "
           "tok/s/user, `1000.0 / tpot_ms`: InferenceMAX/InferenceMAX utils/process_result.py at 19f43e0a87, line "
           "42); the reciprocal of the mean TPOT, not the mean of each request's reciprocal. A serving SLA's "
           "per-user rate is a TPOT limit: MLPerf's llama2-70b-interactive TPOT of 40 ms is 25 tokens/s per user "
           "(`perf.serve.mlperf`). Its band is TPOT's, turned.", _EI, _I, True, counts="tokens"),
    Metric("workload", "tokens_per_second_per_rack", "1/s", "1/s", 0, "Tokens/s per rack", "Tokens per second per "
           "accelerator times the accelerators of the largest rack.", _EI, _I, True, counts="tokens"),
    *POOLS,  # a serving job read as a disaggregated deployment's pools (archgen/metrics_pools.py)
    Metric("workload", "concurrency", "", "", 0, "Concurrency", "Sequences in flight per replica: a closed loop's "
           "N, an open loop's arrival rate x mean latency (Little's law), or offline the KV cache's capacity or "
           "`batch`. No better direction: `diff` marks its change neither better nor worse (under an arrival rate "
           "more in flight is more requests waiting, not more served).", _EI, _I),
    Metric("workload", "replica_capacity", "1/s", "1/s", 3, "Replica capacity", "Requests per second one replica "
           "completes when full: a simulated closed loop that keeps as many requests in flight as it admits (the KV "
           "cache's capacity, or `batch`); an open loop above it does not keep up (its queue grows without bound, "
           "MLPerf judges such a Server run INVALID). Simulated runs only (concurrency, or server with an arrival "
           "rate).", "perf/serve/run.py", _I, True, counts="requests"),
    Metric("workload", "replicas_to_keep_up", "", "", 0, "Replicas to keep up", "Fewest replicas whose capacity "
           "covers a server job's arrival rate, ceil(arrival_rate / replica_capacity): a lower bound, not the "
           "count that meets a latency limit (near capacity the queue stretches TTFT p99; a sweep over `replicas` "
           "finds that count).", "perf/serve/run.py", _I, minimise=True),
    Metric("workload", "model_flops_per_gpu", "FLOPS", "TFLOPS", 0, "Model FLOP/s per accelerator", "Model FLOPs "
           "(3 × forward, no recomputation) per second per accelerator.", _ET, _T, True),
    Metric("workload", "mfu", "", "percent", 1, "MFU", "Model FLOP/s per accelerator over its dense peak at the "
           "job's precision.", _ET, _T, True),
    Metric("workload", "memory_per_gpu", "B", "GB", 1, "Memory per accelerator", "Accelerator memory (HBM, or "
           "the part's `memory_type`: GDDR6 on an L40S) the job needs on the busiest accelerator.", _E, _T + _I,
           unmeasured=MEMORY_UNMEASURED),
    Metric("workload", "memory_headroom", "B", "GB", 1, "Memory headroom", "Accelerator memory capacity (HBM, or "
           "the part's `memory_type`) less the memory per accelerator.", _E, _T + _I, True,
           unmeasured=MEMORY_UNMEASURED),
    *(Metric("workload", f"memory_per_gpu_{end}", "B", "GB", 1, f"Memory per accelerator ({end})", "Memory per "
             f"accelerator at the {end} end of its band: {words}; the CUDA context and NCCL's buffers at their "
             "figure (docs/perf-model.md, Memory band). A training job on a part with a GPU runtime.", _ET, _T)
      for end, words in _ENDS.items()),
    *(Metric("workload", f"memory_headroom_{end}", "B", "GB", 1, f"Memory headroom ({end})", "Memory headroom at "
             f"the {end} end of its band, the capacity less memory_per_gpu_{other}: {_ENDS[other]} (docs/perf-model"
             ".md, Memory band). A training job on a part with a GPU runtime.", _ET, _T, True)
      for end, other in (("low", "high"), ("high", "low"))),
    Metric("workload", "busbw", "B/s", "GB/s", 1, "Bus bandwidth", "Collective bus bandwidth as nccl-tests defines "
           "it.", _E, _X, True),
    Metric("workload", "time", "s", "ms", 3, "Collective time", "Time of one collective.", _E, _X, minimise=True),
)
