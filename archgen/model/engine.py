"""A serving engine's defaults where a job states none, and the serving jobs the model refuses."""

from collections.abc import Iterable
from typing import Literal

from archgen.model.accelerator import is_nvidia
from archgen.model.spec import FieldError, raise_each

__all__ = ["DISAGGREGATED", "DISAGGREGATION_PREFIXES", "MAX_BATCH_SIZE", "MAX_NUM_TOKENS", "SGLANG_UNSTATED",
           "Engine", "VENDOR_ENGINES", "VLLM_NO_DEVICE_MEMORY", "default_max_batch_size", "disaggregation_key",
           "balancer_problem", "engine_problem", "foreign_engine_problem", "refuse_disaggregation", "serving_engine",
           "vendor_engine", "serving_problem", "spread_problem", "unhonoured"]

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
#: The serving engines whose defaults the model knows (`Inference.engine`).
Engine = Literal["tensorrt-llm", "vllm", "sglang"]
#: vLLM's default max_num_seqs (V1, the API server and the LLM class alike): 1,024 on a GPU of at least 70 GiB whose
#: name has no "a100", 256 on others (vllm-project/vllm vllm/engine/arg_utils.py at 99d7eb5d,
#: `EngineArgs._set_default_args`: `device_memory >= 70 * GiB_bytes and "a100" not in device_name`).
VLLM_MAX_NUM_SEQS, VLLM_SMALL_MAX_NUM_SEQS, VLLM_LARGE_GPU = 1024, 256, 70 * 2**30
#: Why SGLang's default is not taken: it is no constant.
SGLANG_UNSTATED = ("SGLang has no fixed default for the requests it runs at once: it derives --max-running-requests "
                   "from its KV token pool and the model's context length (sgl-project/sglang "
                   "python/sglang/srt/model_executor/model_runner.py, `ModelRunner._resolve_max_num_reqs`: "
                   "int(tokens / context_len x 512) held between 2,048 and 4,096, at most tokens / 2), which the "
                   "model does not reproduce; state max_batch_size (the server's --max-running-requests, or the "
                   "'max_running_requests' its log prints)")


#: The engine a part's vendor serves with, where a job states none, and the source that says so (keyed on the
#: vendor, case aside; NVIDIA's parts run TensorRT-LLM, NVIDIA's own, the rows cited beside AMD's; any other vendor's
#: part has no default and a job on it states its engine or max_batch_size, `engine_problem`).
VENDOR_ENGINES: dict[str, tuple[str, str]] = {
    "amd": ("vllm", "AMD's own serving results run vLLM (its MLPerf Inference v4.1 and v5.1 Llama 2 70B harnesses, "
                    "tests/perf/data/serving-under-load.yaml and mlperf-inference-v5.yaml)"),
    "intel": ("vllm", "Intel serves LLMs on Gaudi with vLLM (the vLLM Hardware Plugin for Intel Gaudi, 'developed and "
                      "maintained by the Intel Gaudi team', docs.vllm.ai/projects/gaudi; before it Intel's "
                      "HabanaAI/vllm-fork, docs.habana.ai PyTorch/vLLM_Inference/vLLM_Inference.html); Gaudi does "
                      "not run TensorRT-LLM, a CUDA engine"),
    "aws": ("vllm", "AWS serves LLMs on Trainium and Inferentia with vLLM over NxD Inference, whose 'scheduling ... "
                    "follow the default vLLM behavior' (awsdocs-neuron.readthedocs-hosted.com libraries/nxd-inference/"
                    "developer_guides/vllm-user-guide-v1.html); Trainium does not run TensorRT-LLM, a CUDA engine; "
                    "a Neuron model is compiled for a batch size, which a job states as max_batch_size"),
    "google": ("vllm", "Google serves LLMs on Cloud TPU with vLLM (its TPU backend, vllm-project/tpu-inference; "
                       "'Serve an LLM using TPU Trillium on GKE with vLLM', cloud.google.com/kubernetes-engine/docs/"
                       "tutorials/serve-vllm-tpu; Google also documents JetStream with MaxText, google/JetStream "
                       "docs/online-inference-with-maxtext-engine.md, whose decode batch is the run's "
                       "per_device_batch_size per chip, 4 to 12 in that guide; not modelled here); a TPU does not run "
                       "TensorRT-LLM, a CUDA engine"),
}
#: Vendors whose vLLM platform reports no device memory, and the code that shows it. vLLM's batch defaults read
#: `current_platform.get_device_total_memory()`, and where it raises take device_memory = 0 ("except Exception: ...
#: device_memory = 0", vllm-project/vllm vllm/engine/arg_utils.py, `EngineArgs.get_batch_defaults`, before it
#: `_set_default_args` at 99d7eb5d), which is below the 70 GiB threshold: such a part gets vLLM's small-device default,
#: 256 sequences, whatever its HBM. No vendor's guide states the default; it is read from this code.
VLLM_NO_DEVICE_MEMORY: dict[str, str] = {
    "google": ("`TpuPlatform.get_device_total_memory` raises NotImplementedError in vLLM's TPU platform "
               "(vllm-project/vllm vllm/platforms/tpu.py at 60d375cb) and in its TPU backend (vllm-project/"
               "tpu-inference tpu_inference/platforms/tpu_platform.py at b0c2f7dc); vLLM's TPU guide says to tune "
               "--max-num-seqs to the KV cache the chips hold (docs.vllm.ai/en/v0.11.2/configuration/tpu)"),
    "intel": ("the Gaudi plugin's `HpuPlatform.get_device_total_memory` returns 0 'to preserve the current logic in "
              "vllm/vllm/engine/arg_utils.py → get_batch_defaults()' (vllm-project/vllm-gaudi vllm_gaudi/platform.py "
              "at 091bbadd, since b03c6bd0; at 00db4836 it did not define it, and vLLM's base Platform raised "
              "NotImplementedError)"),
    "aws": ("`NeuronPlatform` defines no get_device_total_memory, so vLLM's base Platform raises NotImplementedError "
            "(vllm-project/vllm-neuron vllm_neuron/platform.py at a5ef7c88); that plugin's custom scheduler also sets "
            "max_num_seqs to 32 where none is set by then ('Set default batch size for Neuron to 32'), which vLLM's "
            "own default is read here to precede, and a Neuron model is compiled for its batch size: state it"),
}


def vendor_engine(vendor: str) -> tuple[str, str] | None:
    """The engine `vendor`'s parts serve with and its source (`VENDOR_ENGINES`), or None (TensorRT-LLM on NVIDIA's)."""
    return VENDOR_ENGINES.get(vendor.strip().casefold())


def serving_engine(stated: str | None, vendor: str) -> str:
    """The serving engine a job runs on: the one it states, else its part's vendor's, TensorRT-LLM on NVIDIA's.

    `VENDOR_ENGINES` gives vLLM on AMD, Intel, AWS and Google parts; TensorRT-LLM is NVIDIA's. Any other vendor's part
    has no default: a job on it is refused unless it states one (`engine_problem`), and this raises ValueError.
    """
    if stated is not None:
        return stated
    own = vendor_engine(vendor)
    if own is not None:
        return own[0]
    if is_nvidia(vendor):
        return "tensorrt-llm"
    raise ValueError(engine_problem(None, None, vendor))


def engine_problem(stated: str | None, max_batch_size: int | None, vendor: str) -> str | None:
    """Why a serving job on a part of `vendor` must state its `engine` or `max_batch_size`, or None where it need not.

    The engine matters only for the batch limit a job leaves out: a part neither NVIDIA's nor a `VENDOR_ENGINES`
    vendor's has no cited engine, and TensorRT-LLM (a CUDA engine) and its 2,048 would be a guess it may not run.
    """
    if stated is not None or max_batch_size is not None or is_nvidia(vendor) or vendor_engine(vendor) is not None:
        return None
    whose = f"{vendor.strip()}'s parts" if vendor.strip() else "parts whose vendor is not stated"
    return (f"no serving engine stated, and {whose} have no cited default (model/engine.py: TensorRT-LLM on NVIDIA's, "
            "vLLM on AMD's, Intel's, AWS's and Google's, VENDOR_ENGINES): TensorRT-LLM's max_batch_size 2,048 would "
            "be a guess on a part that may not run that CUDA engine; state `engine:` (tensorrt-llm, vllm or sglang) "
            "or `max_batch_size:` (the requests a replica runs at once)")


def foreign_engine_problem(stated: str | None, vendor: str) -> str | None:
    """Why a job may not state `stated` on a part of `vendor`, or None: TensorRT-LLM on a part not NVIDIA's.

    TensorRT-LLM is NVIDIA's CUDA engine ("TensorRT LLM supports the full spectrum of NVIDIA GPU architectures:
    NVIDIA Blackwell ..., Hopper ..., Ada Lovelace ..., Ampere", nvidia.github.io/TensorRT-LLM supported-hardware.html);
    taken on an AMD part it set the batch limit to its 2,048 (newuser93). A part of no stated vendor is not known not
    to run it (`engine_problem` asks such a job to state its engine). vLLM and SGLang are not refused here.
    """
    if stated != "tensorrt-llm" or not vendor.strip() or is_nvidia(vendor):
        return None
    return (f"engine tensorrt-llm is NVIDIA's CUDA engine, which runs on NVIDIA GPUs only (nvidia.github.io/"
            f"TensorRT-LLM supported-hardware.html), and this part is {vendor.strip()}'s: state the engine it serves "
            "with (vllm, sglang), or leave engine out for its vendor's (model/engine.py VENDOR_ENGINES)")


def balancer_problem(stated: str | None, vendor: str, balanced: bool) -> str | None:
    """Why a job may not state `adp_balance` under its engine (stated, else its vendor's), or None where it may.

    The context balancer is TensorRT-LLM's PyTorch executor's (`attention_dp_config: {enable_balance: true,
    batching_wait_iters, timeout_iters}`, its `AttentionDpConfig`; docs/perf-model.md, Attention DP under
    TensorRT-LLM), and `perf.serve.adp_balance` holds prompts as that executor does. Under vLLM (an AMD part's
    engine) or SGLang it was run all the same (newuser93: DeepSeek-R1 FP8 on mi355x-th5 at 10 requests/s, TTFT
    76 -> 165 ms). A part of no known vendor with no engine stated runs no engine known to have it.
    """
    if not balanced:
        return None
    own = vendor_engine(vendor)
    runs = stated or (own[0] if own else "tensorrt-llm" if is_nvidia(vendor) else None)
    if runs == "tensorrt-llm":
        return None
    under = f"engine {runs}" if runs else "no engine known (state engine: tensorrt-llm)"
    return (f"adp_balance is TensorRT-LLM's attention-DP context balancer (its executor's attention_dp_config with "
            f"enable_balance), which the model runs as that executor holds prompts; this job runs {under}: remove "
            "adp_balance, or state the engine that runs it")


def default_max_batch_size(engine: str, hbm_bytes: float, accelerator: str, vendor: str = "") -> int | None:
    """The sequences an `engine` rank schedules at once unless stated; None under SGLang (`SGLANG_UNSTATED`).

    vLLM reads no memory on a `VLLM_NO_DEVICE_MEMORY` vendor's part (TPU, Gaudi, Trainium) and so takes its 256.
    """
    if engine == "vllm":
        reported = 0.0 if vendor.strip().casefold() in VLLM_NO_DEVICE_MEMORY else hbm_bytes
        large = reported >= VLLM_LARGE_GPU and "a100" not in accelerator.casefold()
        return VLLM_MAX_NUM_SEQS if large else VLLM_SMALL_MAX_NUM_SEQS
    return None if engine == "sglang" else MAX_BATCH_SIZE


#: Why `inference.disaggregated` is refused: the model runs a request's prefill and decode on the same replica.
DISAGGREGATED = ("disaggregated prefill/decode serving (prompts on one pool of accelerators, decodes on another, the "
                 "KV cache sent between them) is not modelled: every replica runs both its prompts and its decodes "
                 "(docs/perf-model.md, Limitations); remove disaggregated")


#: The key prefixes `disaggregation_key` refuses as a pool size, KV transfer or P:D ratio (besides any "disagg").
DISAGGREGATION_PREFIXES = ("prefill_", "decode_", "kv_transfer", "pd_")


def disaggregation_key(key: object, fields: Iterable[str]) -> str | None:
    """Why `key`, not one of `fields`, is refused as a disaggregated deployment the model does not run; else None.

    A key that sizes a pool of its own (`prefill_tp`, `decode_replicas`), a KV transfer (`kv_transfer`), a P:D
    ratio (`pd_ratio`) or names disaggregation states a deployment with prefill and decode apart. Refused as unknown,
    `prefill_tp` was answered "did you mean 'prefill'?", whose `separate` still runs both on one replica (newuser52).
    """
    if not isinstance(key, str) or key in fields:
        return None
    k = key.casefold()
    if "disagg" in k or k.startswith(DISAGGREGATION_PREFIXES):
        return DISAGGREGATED.replace("remove disaggregated", f"remove {key}")
    return None


def refuse_disaggregation(data: object, fields: Iterable[str], title: str) -> None:
    """Raise for each key of a mapping `data` (a model's input) that `disaggregation_key` refuses; else return.

    One rule for a serving job (`Inference`) and a sweep's axes (`sweep.Axes`): refused as not modelled, not unknown.
    """
    if isinstance(data, dict):
        raise_each([FieldError((k,), why) for k in data if (why := disaggregation_key(k, fields))], title)


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


#: Why `prefill: separate` is refused under the offline scenario (nu52fix: newuser52 found it accepted, with no note).
OFFLINE_PREFILL = ("prefill 'separate' changes nothing under the offline scenario: the offline closed form runs every "
                   "prompt as a pass of its own whatever the policy (docs/perf-model.md, Scenarios); the policy "
                   "applies to a simulated run (scenario: concurrency, or server with an arrival_rate): remove "
                   "prefill, or state such a scenario")
#: The data type a checkpoint keeps the attention projections it does not quantise in (`perf.serve.attention_quant`).
UNQUANTISED_ATTENTION = "bf16"


def unhonoured(scenario: str, prefill: str, precision: str, quantised_attention: str) -> list[tuple[str, str]]:
    """The settings of a serving job that change nothing in its estimate, each as (field, why): to be refused.

    `prefill: separate` under the offline scenario (`OFFLINE_PREFILL`); `quantised_attention` other than 'all' at the
    precision the projections it leaves out stay in (`UNQUANTISED_ATTENTION`), where every projection is BF16 either
    way (`perf.serve.attention_quant.attention_dtypes`). A server job without an arrival_rate also runs the offline
    form, but a sweep's `arrival_rate` axis may give its points one, so its `prefill` is noted, not refused
    (`perf.workload.serving_estimate`).
    """
    out = [("prefill", OFFLINE_PREFILL)] if scenario == "offline" and prefill == "separate" else []
    if precision == UNQUANTISED_ATTENTION and quantised_attention != "all":
        out.append(("quantised_attention", f"quantised_attention '{quantised_attention}' changes nothing at precision "
                    f"{precision}: it names the attention projections a quantised checkpoint stores in its precision, "
                    f"the others staying {UNQUANTISED_ATTENTION.upper()} (perf/serve/attention_quant.py), and at "
                    f"{precision} every projection is {UNQUANTISED_ATTENTION.upper()} either way: remove "
                    "quantised_attention, or state the checkpoint's precision (fp8, fp4)"))
    return out
