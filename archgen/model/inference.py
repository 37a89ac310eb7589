"""A serving job (`Workload.inference`): replicas of a model, how requests arrive and how each replica schedules them.

Split from `archgen.model.workload` for its size; the engine defaults it reads and the serving it refuses are
`archgen.model.engine`'s.
"""

from typing import ClassVar, Literal, Self

from pydantic import Field, field_validator, model_validator

from archgen.model.engine import (
    MAX_NUM_TOKENS,
    SGLANG_UNSTATED,
    Engine,
    serving_problem,
    spread_problem,
    unhonoured,
)
from archgen.model.field_types import PositiveFraction, Precision
from archgen.model.kv_memory import FRACTION_KEYS, fraction_problems
from archgen.model.serving_features import refuse_unmodelled
from archgen.model.spec import FieldError, Spec, raise_each
from archgen.units import Duration, RequestRate

KvReserve = Literal["full", "mean"]
PrefillPolicy = Literal["chunked", "separate"]
#: How a serving pass runs the FFN activation: a kernel of its own (every engine's default) or in the up/gate
#: GEMM's epilogue (`archgen.perf.serve.ffn`).
FfnActivation = Literal["separate", "fused"]
QuantisedAttention = Literal["all", "output", "none"]
KernelLaunch = Literal["graph", "pytorch", "tensorrt"]
Scenario = Literal["offline", "server", "concurrency"]


class Batcher(Spec):
    """A benchmark harness that gathers the system's queries and hands them to the replicas in groups."""

    size: int = Field(gt=0, description="Queries that make a full group, handed over at once.")
    timeout: Duration = Field(description="A group that is not full leaves this long after the previous one.")


class AdpBalance(Spec):
    """TensorRT-LLM's attention-DP context balancer: `attention_dp_config` with `enable_balance: true`."""

    batching_wait_iters: int = Field(
        ge=0, description="Iterations prompts are held, once every rank has one and every rank is decoding, to "
                          "batch more (TensorRT-LLM's default 10).")
    timeout_iters: int = Field(
        ge=0, description="Iterations prompts are held at most while some rank has none, counted over every "
                          "iteration, so under load prompts run every timeout_iters-th iteration (TensorRT-LLM's "
                          "default 50).")


class Inference(Spec):
    """A serving job: replicas of a model, each on `tp` accelerators of one scale-up domain."""

    #: Whether a setting that changes nothing in the estimate is refused (`engine.unhonoured`): a job's is; a
    #: validation case records the engine's settings as the published run stated them (`model.cases`).
    REFUSE_UNHONOURED: ClassVar[bool] = True

    precision: Precision = Field("fp8", description="Weight and GEMM data type.")
    kv_precision: Precision | None = Field(
        None, description="KV-cache data type; defaults to `precision` (FP8 under FP4 weights).")
    tp: int | None = Field(None, gt=0, description="Tensor-parallel size of a replica; searched when left out.")
    replicas: int | None = Field(None, gt=0, description="Replicas; defaults to as many as lie inside the scale-up "
                                 "domains, none straddling two (accelerators / tp where tp divides the domain).")
    batch: int | Literal["max"] | None = Field(
        None, gt=0, description="Concurrent sequences per replica; defaults to (or 'max' asks for) the most that fits "
                                "the KV cache, at most `max_num_tokens` (one decode token each per iteration).")
    input_len: int = Field(gt=0, description="Prompt tokens per request.")
    output_len: int = Field(gt=0, description="Generated tokens per request.")
    scenario: Scenario = Field(
        "offline", description="'offline' (throughput with `batch` sequences in flight, as many as fit by default), "
                               "'server' (Poisson arrivals at `arrival_rate`, simulated; without one, the offline "
                               "figures) or 'concurrency' (a serving benchmark's closed loop: `batch` requests in "
                               "flight, each replaced when it finishes, simulated, with TTFT, TPOT and tokens/s as "
                               "genai-perf reports them).")
    arrival_rate: RequestRate | None = Field(
        None, description="Server scenario: requests per second arriving at the whole workload, a Poisson process "
                          "(seeded, so deterministic) split evenly over the replicas, as MLPerf's Server scenario "
                          "issues queries. TTFT, TPOT and tokens/s then come from a simulated run "
                          "(continuous batching, chunked prefill, queueing), with p50 and p99 latencies.")
    kv_reserve: KvReserve = Field(
        "full", description="KV cache a sequence holds: 'full' (input + output, reserved at admission: "
                            "TensorRT-LLM's default scheduler) or 'mean' (input + output/2: allocated as it grows, "
                            "as vLLM does). Left out, 'mean' where the job runs vLLM (stated, or its part's "
                            "vendor's engine), else 'full'.")
    max_num_tokens: int = Field(
        MAX_NUM_TOKENS, gt=0, description="Tokens per iteration of a replica (TensorRT-LLM's max_num_tokens, vLLM's "
                                "max_num_batched_tokens under chunked prefill; 8,192 by default in both): the "
                                "decodes, one token each, then prompt chunks within what is left; so at most this "
                                "many sequences are in flight (per rank under attention_dp).")
    engine: Engine | None = Field(
        None, description="The serving engine whose defaults fill what the job leaves out (max_batch_size): 'tensorrt-"
                          "llm', 'vllm', 'sglang'; left out, vLLM on AMD, Intel, AWS and Google parts, "
                          "TensorRT-LLM on NVIDIA's; on another vendor's part state it or max_batch_size.")
    max_batch_size: int | None = Field(
        None, gt=0, description="Sequences a replica schedules at once (per rank under attention_dp): the sequences "
                                "in flight are at most this, the KV cache's capacity and max_num_tokens. Left out, "
                                "the engine's default: TensorRT-LLM's max_batch_size 2,048; vLLM's max_num_seqs "
                                "1,024 on GPUs of 70 GiB+ but the A100, 256 on others; SGLang's must be stated.")
    free_gpu_memory_fraction: PositiveFraction | None = Field(
        None, description="TensorRT-LLM's KvCacheConfig.free_gpu_memory_fraction: the share of the memory "
                                      "left after its profiling peak (the weights, a max_num_tokens pass's "
                                      "activations) its KV cache takes; left out, 0.9, its default "
                                      "(model/kv_memory.py). Refused under another engine.")
    gpu_memory_utilization: PositiveFraction | None = Field(
        None, description="vLLM's gpu_memory_utilization: the share of the whole memory its weights and "
                                      "KV cache take (the cache gets it less its profiling peak); left out, 0.9, its "
                                      "default. Refused under another engine.")
    mem_fraction_static: PositiveFraction | None = Field(
        None, description="SGLang's --mem-fraction-static: the share of the whole memory its weights and "
                                      "KV cache take; SGLang derives its default per server, so an SGLang job states "
                                      "it. Refused under another engine.")
    prefill: PrefillPolicy = Field(
        "chunked", description="How a simulated replica takes prompts: 'chunked' (vLLM V1, vLLM 0.x with chunked "
                               "prefill, TensorRT-LLM's in-flight batching: the decodes, then prompts within what is "
                               "left of max_num_tokens, mixed in one iteration) or 'separate' (vLLM 0.x without "
                               "chunked prefill, its default: waiting prompts run whole, up to max_num_tokens, in an "
                               "iteration of their own while the decodes wait; vllm/core/scheduler.py "
                               "`_schedule_default`). The offline closed form runs prompts as passes of their own "
                               "either way, so 'separate' is refused under the offline scenario.")
    batcher: Batcher | None = Field(
        None, description="Server scenario: the harness gathers the queries of the whole workload and hands each "
                          "group (`size` queries, or what has gathered `timeout` after the previous group) whole to "
                          "the next replica in turn, as AMD's MLPerf Inference v4.1 harness does; TTFT counts from "
                          "each query's arrival.")
    ffn_activation: FfnActivation = Field(
        "separate", description="How the FFN activation runs: 'separate' (a kernel of its own between the up/gate and "
                                "down GEMMs, reading their 16-bit output: the default of TensorRT-LLM's PyTorch and "
                                "TensorRT backends and of vLLM) or 'fused' (in the up/gate GEMM's epilogue, as a "
                                "TensorRT-LLM engine built with gemm_swiglu_plugin, FP8 on Hopper, runs the dense "
                                "FFN); routed experts run it separately either way (perf/serve/ffn.py).")
    quantised_attention: QuantisedAttention = Field(
        "all", description="Attention projections stored in `precision`: 'all', 'output' (nvidia/DeepSeek-R1-FP4-v2) "
                           "or 'none' (nvidia/DeepSeek-R1-FP4); the rest are BF16 (perf/serve/attention_quant.py), so "
                           "at precision bf16 any but 'all' changes nothing and is refused.")
    output_len_cv: float | None = Field(
        None, ge=0, allow_inf_nan=False, description="Coefficient of variation (standard deviation / mean) of the "
        "generated tokens per request, read from the dataset (the scored MLPerf rows state theirs): the offline decode "
        "steps then read input + output_len (1 + cv^2) / 2 tokens of context, each slot holding a request as long as "
        "it generates (perf/serve/lengths.py). Left out, every output has output_len tokens, as the estimate says. "
        "Offline only: a simulated run (concurrency, or server with an arrival_rate) gives every request one length.")
    ep: int = Field(1, gt=0, description="Expert-parallel ways of a replica's MoE layers (divides tp; each expert is "
                                         "split tp/ep ways).")
    redundant_experts: int = Field(
        0, ge=0, description="Extra routed-expert copies spread over a replica's EP ranks (SGLang's "
        "--ep-num-redundant-experts, TensorRT-LLM's num_slots less the experts; DeepSeek-V3 prefills with 32): each "
        "rank holds (experts + redundant_experts) / ep of them, so an ep the experts do not divide (48 or 72 with 32 "
        "copies of DeepSeek-V3's 256) can be stated. The copies' memory and the slots routing spreads over are "
        "counted; EPLB's choice of which experts to copy, by measured load, is not.")
    attention_dp: bool = Field(
        False, description="Attention data parallelism (TensorRT-LLM's enable_attention_dp, SGLang's DP attention): "
                           "each of the replica's tp ranks runs the whole attention on its own requests; the experts "
                           "stay split over the replica.")

    adp_balance: AdpBalance | None = Field(
        None, description="Attention DP under TensorRT-LLM's context balancer (attention_dp_config with "
                          "enable_balance: true; the MLPerf v5.1 DeepSeek-R1 Server runs'): a simulated run holds "
                          "admitted prompts back as its executor does (perf/serve/adp_balance.py). Left out, off, "
                          "TensorRT-LLM's default.")

    graph_batch_sizes: tuple[int, ...] | None = Field(
        None, description="The decode batches TensorRT-LLM captures as CUDA graphs with padding on (cuda_graph_config: "
                          "batch_sizes with enable_padding: true; the MLPerf v5.1 DeepSeek-R1 Server runs' 128, 256, "
                          "384, 512): a simulated run's decode-only iteration runs the next of these sizes a rank, "
                          "dummy requests added (perf/serve/graph_padding.py). Left out, unpadded, TensorRT-LLM's "
                          "default.")
    kernel_launch: KernelLaunch | None = Field(
        None, description="How the run launches a forward pass's kernels: 'graph' (replayed from a CUDA or HIP graph: "
                          "one host call a pass), 'pytorch' (each kernel from eager PyTorch: vLLM's enforce_eager "
                          "true, SGLang's disable_cuda_graph, TensorRT-LLM's PyTorch backend with cuda_graph_config "
                          "null) or 'tensorrt' (a TensorRT engine's C++ enqueue without graphs: TensorRT-LLM's "
                          "executor with cudaGraphMode false, MLPerf's use_graphs False). An eager pass takes at least "
                          "its kernels times the host time of one launch (perf/hw/launch.py). Left out, 'graph', "
                          "the engines' default.")

    def fractions(self) -> dict[str, float | None]:
        """The KV cache fraction keys (`kv_memory.FRACTION_KEYS`) to what the job states of each (None: left out)."""
        return {k: getattr(self, k) for k in FRACTION_KEYS}

    @field_validator("graph_batch_sizes")
    @classmethod
    def _graph_sizes(cls, value: tuple[int, ...] | None) -> tuple[int, ...] | None:
        """Whole batch sizes above 0, kept in ascending order as TensorRT-LLM sorts them."""
        if value is None:
            return None
        if not value or any(v < 1 for v in value):
            raise ValueError(f"expected batch sizes above 0, got {list(value)}")
        return tuple(sorted(set(value)))

    @model_validator(mode="before")
    @classmethod
    def _not_modelled(cls, data: object) -> object:
        """A key naming serving the model does not run is refused as such, not as an unknown key."""
        refuse_unmodelled(data, cls.model_fields, cls.__name__)   # disaggregation and serving features, one pass
        return data

    @field_validator("batch", mode="before")
    @classmethod
    def _max_batch(cls, value):
        """'max' (as in validation cases) is the default: as many as the KV cache holds."""
        if value is None or value == "max":
            return None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
        raise ValueError(f"expected a whole number of sequences above 0, or 'max', got {value!r}")

    @model_validator(mode="after")
    def _serving_layout(self) -> Self:
        errors = []
        if problem := serving_problem(self.scenario, self.batch, self.tp, self.ep):
            errors.append(FieldError((problem[0],), problem[1]))
        if spread := spread_problem(self.scenario, self.arrival_rate is not None, self.output_len_cv):
            errors.append(FieldError(("output_len_cv",), spread))
        if self.arrival_rate is not None and self.scenario != "server":
            errors.append(FieldError(("arrival_rate",), "arrival_rate applies to the server scenario (Poisson "
                                                        f"arrivals); this job's scenario is '{self.scenario}'"))
        if self.redundant_experts and self.ep == 1:
            errors.append(FieldError(("redundant_experts",), "redundant expert copies spread over expert-parallel "
                                                             "ranks: they need ep above 1"))
        if self.prefill == "separate" and self.input_len > self.max_num_tokens:
            errors.append(FieldError(("prefill",), "prefill 'separate' runs each prompt whole in one iteration: "
                                                   f"input_len ({self.input_len}) must be at most max_num_tokens "
                                                   f"({self.max_num_tokens}), as vLLM refuses a longer prompt"))
        if self.adp_balance is not None and not self.attention_dp:
            errors.append(FieldError(("adp_balance",), "the context balancer spreads prompts over attention-DP "
                                                       "ranks: it needs attention_dp: true"))
        simulated = self.scenario == "concurrency" or self.arrival_rate is not None
        if self.adp_balance is not None and self.attention_dp and self.REFUSE_UNHONOURED and not simulated:
            errors.append(FieldError(("adp_balance",), "the context balancer holds prompts in a simulated run "
                                                       "(scenario 'concurrency', or 'server' with an arrival_rate); "
                                                       "the offline closed form has no iterations to hold them: "
                                                       "remove adp_balance"))
        if self.graph_batch_sizes is not None and self.REFUSE_UNHONOURED and not simulated:
            errors.append(FieldError(("graph_batch_sizes",), "CUDA-graph padding pads a simulated run's decode "
                                     "iterations (scenario 'concurrency', or 'server' with an arrival_rate); the "
                                     "offline closed form does not run it: remove graph_batch_sizes"))
        if self.graph_batch_sizes is not None and self.kernel_launch not in (None, "graph"):
            errors.append(FieldError(("graph_batch_sizes",), "CUDA-graph padding pads the batches a graph replays; "
                                     f"kernel_launch '{self.kernel_launch}' replays none: remove one of the two"))
        fields = {e.field[0] for e in errors}
        if self.REFUSE_UNHONOURED:   # one error a field: a prompt too long for `separate` is said first
            errors += [FieldError((k,), why) for k, why in unhonoured(self.scenario, self.prefill, self.precision,
                                                                      self.quantised_attention) if k not in fields]
        errors += [FieldError((k,), why) for k, why in fraction_problems(self.engine, self.fractions())]
        if self.engine == "sglang" and self.max_batch_size is None:
            errors.append(FieldError(("max_batch_size",), SGLANG_UNSTATED))
        if self.batcher is not None and self.arrival_rate is None:
            errors.append(FieldError(("batcher",), "a batcher groups arriving queries: it needs the server "
                                                   "scenario's arrival_rate"))
        raise_each(errors, type(self).__name__)
        return self
