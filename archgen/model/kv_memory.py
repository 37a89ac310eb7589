"""The memory a serving engine gives its KV cache, and the key a job states it with (`Inference`).

Each engine sizes its KV cache by its own rule, read from its code (kvrule37; before, every job took vLLM's):

* TensorRT-LLM (PyTorch backend): `KvCacheConfig.free_gpu_memory_fraction`, 0.9 where unset, of the memory left
  after a profiling run: `available_kv_mem = (total_gpu_memory - peak_memory + <the profiling run's own KV>) x
  fraction`, the peak being the weights plus the run's activations (a pass of max_num_tokens dummy prompt tokens)
  plus what is held outside torch (NCCL, CUDA graphs) (NVIDIA/TensorRT-LLM tensorrt_llm/_torch/pyexecutor/_util.py
  at d8ae02ca, `KvCacheCreator._get_free_gpu_memory_fraction`, `estimate_max_tokens`, `_cal_max_tokens`).
* vLLM (V1): `gpu_memory_utilization`, 0.9 by default, of the whole memory, less the same kind of peak:
  `available_kv_cache_memory = total_gpu_memory x gpu_memory_utilization - peak_memory` (vllm-project/vllm
  vllm/v1/worker/gpu_worker.py at 0012cf69, `Worker.determine_available_memory`, after `profile_run`). Its peak,
  `non_kv_cache_memory`, is the weights, the profiling run's torch peak and the memory outside torch that grew since
  `Worker.init_device`'s `MemorySnapshot`, which is taken after `init_worker_distributed_environment` ("Initialize
  the distributed environment BEFORE taking memory snapshot. This ensures NCCL buffers are allocated before we
  measure available memory", gpu_worker.py at 35d5cda1; vllm/utils memory_profiling: `non_torch_increase` is from
  that snapshot): the CUDA context and NCCL are not in it (vllm-project/vllm#45517, 2026-06-13, proposes an opt-in
  to change that; review57: the model took them out of vLLM's budget too).
* SGLang: `mem_fraction_static` of the memory free before the weights load, less the weights (no profiling run:
  activations and CUDA graphs live in the 1 - fraction): `rest_memory = available_gpu_memory - total_gpu_memory x
  (1 - mem_fraction_static)` (sgl-project/sglang python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py at
  226149ac, `profile_max_num_token`), where `total_gpu_memory` is not the device's total but what
  `ModelRunner.init_torch_distributed` finds free once the CUDA context and NCCL are up, before the weights load
  (model_runner.py: `min_per_gpu_memory = self.init_torch_distributed()`, "Get memory before model loading", passed to
  `init_memory_pool`; review57: read before as the whole memory). Its default is no constant:
  `ServerArgs._handle_gpu_memory_settings` derives it from a reserve grown with chunked_prefill_size,
  cuda_graph_max_bs, tp x pp and DP attention, at least 10 GiB on a GPU of more than 60 GiB
  (python/sglang/srt/server_args.py at 469c63e5), so an SGLang job states it.

Where an engine profiles (TensorRT-LLM, vLLM), the model's peak is the weights plus `perf.serve.profile_peak`: the
activations of the max_num_tokens pass (the lower end of their range), the CUDA context and NCCL (kvpeak37); under
SGLang's rule `profile_peak` is the CUDA context and NCCL alone, held before it measures (review57); CUDA
graphs and workspaces are not modelled (an upper bound on the cache, said in the estimate's `memory_reserve`).
"""

from dataclasses import dataclass

__all__ = ["DEFAULT_FRACTION", "FRACTION_KEYS", "KV_RULES", "UNKNOWN_ENGINE", "KvRule", "fraction_problems",
           "kv_memory"]


@dataclass(frozen=True)
class KvRule:
    """How an engine sizes its KV cache.

    Attributes:
        engine: The engine (`model.engine.Engine`).
        key: The engine's own name for the fraction, the `Inference` key that states it.
        default: Its default, or None where it has no fixed one (the job states it).
        of_free: True where the fraction is of the memory left after the weights (TensorRT-LLM), False where it is of
            the whole memory (vLLM) or of what is free before the weights load (SGLang), the weights then taken out of
            that share.
        source: Where the rule and the default are read, in words.
        profiles: Whether the engine runs a profiling pass whose peak (beyond the weights) it takes out, as the
            fraction's rule says (TensorRT-LLM, vLLM); SGLang's activations live in 1 - its fraction.
        holds_runtime: Whether the CUDA context and NCCL's buffers, up before the weights load, come out of the
            cache's budget: TensorRT-LLM's peak is all the memory in use, SGLang's fraction is of what is free once
            they are up; vLLM's budget is total x fraction less what grew after its memory snapshot, which it takes
            once they are up, so they sit in its 1 - fraction (review57).
        documented: The fractions the engine's own documentation says its published runs take, (low, high), where it
            gives a range; None where it gives a default only (vLLM's gpu_memory_utilization 0.9) or none (SGLang).
            A validation case that states no fraction is reported over it beside its point at `default`
            (`scoring.unstated`); nothing is fitted and no score reads it.
        documented_source: Where each end of `documented` is read, and what the source leaves outside it.
    """

    engine: str
    key: str
    default: float | None
    of_free: bool
    source: str
    profiles: bool = True
    holds_runtime: bool = True
    documented: tuple[float, float] | None = None
    documented_source: str = ""

    def words(self, fraction: float | None, memory: str = "HBM") -> str:
        """The budget in words: '90% of the HBM left after its profiling peak (TensorRT-LLM's ...)'.

        A fraction of None (an SGLang job that states none, `perf.serve.engine_defaults.kv_rule_of`) is not provided.
        """
        if fraction is None:
            return f"a share of {memory} not provided ({self.engine_name}'s {self.key} is not stated)"
        if not self.profiles:   # SGLang: of what is free once the runtime is up, before the weights load
            where = f"of the {memory} free before the weights load, less the weights"
        else:
            where = f"of the {memory} left after its profiling peak" if self.of_free else \
                f"of {memory}, less its profiling peak"
        stated = "" if fraction == self.default else ", as the job states"
        return f"{fraction:.0%} {where} ({self.engine_name}'s {self.key}{stated})"

    @property
    def spanned(self) -> tuple[float, ...]:
        """The fractions a case that states none is reported over: `documented`'s ends and the default, its point.

        Ascending; none where the engine documents no range.
        """
        if self.documented is None:
            return ()
        return tuple(sorted({*self.documented, *((self.default,) if self.default is not None else ())}))

    @property
    def engine_name(self) -> str:
        """The engine as people write it."""
        return {"tensorrt-llm": "TensorRT-LLM", "vllm": "vLLM", "sglang": "SGLang"}.get(self.engine, self.engine)


#: TensorRT-LLM's free_gpu_memory_fraction and vLLM's gpu_memory_utilization where a run sets none: both 0.9.
DEFAULT_FRACTION = 0.9
#: Where TensorRT-LLM's documented fractions, 0.90 and 0.95, are read (frac39). Its performance overview runs
#: trtllm-bench, which passes `--kv_cache_free_gpu_mem_fraction` (default .90) as KvCacheConfig's
#: free_gpu_memory_fraction (tensorrt_llm/bench/dataclasses/configuration.py at 000a01de, get_kvcache_config).
TRTLLM_DOCUMENTED = ("NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md at 00f37686aa, 'Running the "
                     "Benchmark': 'In many cases, we also use a higher KV cache percentage by setting "
                     "--kv_cache_free_gpu_mem_fraction 0.95 ... We fall back to 0.90 or lower if out-of-memory errors "
                     "are encountered': 0.95 the high end, 0.90 the lowest it names; it allows lower, which no range "
                     "here spans")
KV_RULES: dict[str, KvRule] = {
    "tensorrt-llm": KvRule("tensorrt-llm", "free_gpu_memory_fraction", DEFAULT_FRACTION, True,
                           "NVIDIA/TensorRT-LLM tensorrt_llm/_torch/pyexecutor/_util.py at d8ae02ca, "
                           "KvCacheCreator._cal_max_tokens: (total - peak) x fraction, 0.9 where unset",
                           documented=(0.90, 0.95), documented_source=TRTLLM_DOCUMENTED),
    "vllm": KvRule("vllm", "gpu_memory_utilization", DEFAULT_FRACTION, False,
                   "vllm-project/vllm vllm/v1/worker/gpu_worker.py at 0012cf69, "
                   "Worker.determine_available_memory: total x gpu_memory_utilization - peak, 0.9 by default",
                   holds_runtime=False),
    "sglang": KvRule("sglang", "mem_fraction_static", None, False,
                     "sgl-project/sglang python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py at "
                     "226149ac, profile_max_num_token: free after loading - free before loading x (1 - "
                     "mem_fraction_static); its default is derived per server (server_args.py at 469c63e5), so it "
                     "is stated", False),
}
#: The fraction keys, each its engine's rule.
FRACTION_KEYS: dict[str, KvRule] = {r.key: r for r in KV_RULES.values()}
#: The rule a job of no known engine takes (a part of no cited vendor that states max_batch_size): vLLM's, the
#: smaller cache of the two defaults (0.9 x HBM - weights - activations is below 0.9 x (HBM - weights - activations -
#: runtime) while the weights and activations exceed 9 x the CUDA context and NCCL it leaves out, 3.6 to 9.8 GB).
UNKNOWN_ENGINE = KV_RULES["vllm"]


def kv_memory(rule: KvRule, fraction: float, capacity, weights, peak=0.0):
    """The bytes a rank's KV cache may take under `rule` at `fraction`, before what the model leaves out (arrays too).

    `peak`: what the engine holds beyond the weights when it measures (`perf.serve.profile_peak`): TensorRT-LLM:
    fraction x (capacity - weights - peak); vLLM: fraction x capacity - weights - peak; SGLang, whose `peak` is the
    runtime up before the weights load: fraction x (capacity - peak) - weights.
    """
    if not rule.profiles:
        return fraction * (capacity - peak) - weights
    held = weights + peak
    return fraction * (capacity - held) if rule.of_free else fraction * capacity - held


def fraction_problems(engine: str | None, stated: dict[str, float | None]) -> list[tuple[str, str]]:
    """The fraction keys a job of `engine` may not state, each as (key, why); SGLang's unstated one too.

    `stated`: each of `FRACTION_KEYS` to its value (None where left out). `engine` None: the engine is not known here
    (the part's vendor picks it, `model.engine.serving_engine`); a key is then only refused beside another.
    """
    given = [k for k, v in stated.items() if v is not None]
    out = []
    for key in given:
        owner = FRACTION_KEYS[key]
        if engine is not None and owner.engine != engine:
            own = KV_RULES[engine]
            out.append((key, f"{key} is {owner.engine_name}'s KV cache fraction, and this job runs {own.engine_name}, "
                             f"whose own is {own.key} ({own.source}): state {own.key}, or the engine {key} is "
                             f"{owner.engine_name}'s"))
        elif engine is None and len(given) > 1:
            out.append((key, f"{' and '.join(given)} are different engines' KV cache fractions; a job runs one "
                             "engine: state the one its engine reads"))
    if engine == "sglang" and stated.get("mem_fraction_static") is None:
        out.append(("mem_fraction_static", "SGLang has no fixed default for mem_fraction_static, the share of memory "
                    "its weights and KV cache take: it derives one per server from its chunked prefill size, CUDA "
                    "graph batch and parallel sizes (sgl-project/sglang python/sglang/srt/server_args.py at "
                    "469c63e5, _handle_gpu_memory_settings), which the model does not reproduce; state it (the "
                    "'mem_fraction_static' its server log prints)"))
    return out
