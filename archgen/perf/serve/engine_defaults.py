"""The engine limit a serving job leaves out, from the engine it runs on (`model.engine`).

A job's `max_batch_size` caps the sequences a replica (or an attention-DP rank) runs at once. Left out, it is its
engine's default: TensorRT-LLM's max_batch_size, vLLM's max_num_seqs (by the device memory vLLM reads: none on Google,
Intel and AWS parts, `model.engine.VLLM_NO_DEVICE_MEMORY`); SGLang's must be stated (the job is refused without it).
A job that names no engine runs its part's vendor's (vLLM on AMD, Intel Gaudi, AWS Trainium and Google TPU parts, each
cited in `model.engine.VENDOR_ENGINES`) and TensorRT-LLM on NVIDIA's (`model.engine.serving_engine`); on any other
vendor's part it states its engine or max_batch_size (`model.engine.engine_problem`, refused where the workload is
estimated). Where the limit binds, the estimate's note says whose it is and where from.
"""

from __future__ import annotations

from archgen.errors import InternalError
from archgen.model.engine import VLLM_NO_DEVICE_MEMORY, default_max_batch_size, serving_engine, vendor_engine
from archgen.model.inference import Inference
from archgen.model.kv_memory import FRACTION_KEYS, KV_RULES, UNKNOWN_ENGINE, KvRule, fraction_problems
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.launch import HOST_PER_LAUNCH
from archgen.perf.serve.adp_balance import balance_of
from archgen.perf.serve.batcher import batcher_of
from archgen.perf.serve.inference import BATCH_SIZE_SOURCE, ServeJob
from archgen.perf.serve.routing import serving_arch

__all__ = ["batch_size_of", "job_of", "kv_reserve_of", "kv_rule_of"]

#: vLLM's max_num_seqs default, cited (model/engine.py `VLLM_MAX_NUM_SEQS`).
VLLM_SOURCE = ("vLLM's max_num_seqs, the requests it schedules at once: by default 1,024 on a GPU of at least 70 GiB "
               "other than an A100, 256 on others (vllm-project/vllm vllm/engine/arg_utils.py at 99d7eb5d, "
               "`EngineArgs._set_default_args`)")
#: What each engine calls the limit, where a job states it.
_NAMES = {"vllm": "vLLM's max_num_seqs", "sglang": "SGLang's --max-running-requests"}


def batch_size_of(inf: Inference, hw: Hardware) -> tuple[int, str]:
    """The job's `max_batch_size` on `hw`, and why the sequences in flight are at most it (`engine_cap`'s words)."""
    if inf.max_batch_size is not None:
        named = _NAMES.get(inf.engine or "")
        return inf.max_batch_size, (f"the job's max_batch_size ({named}, the requests a rank schedules at once)"
                                    if named else BATCH_SIZE_SOURCE)
    engine = serving_engine(inf.engine, hw.vendor)  # raises where `engine_problem` refuses the job
    most = default_max_batch_size(engine, hw.hbm_capacity, hw.accelerator, hw.vendor)
    assert most is not None, "an SGLang job states its max_batch_size (the Inference validator)"
    if engine != "vllm":
        return most, BATCH_SIZE_SOURCE
    own = vendor_engine(hw.vendor)
    whose = ("engine: vllm" if inf.engine is not None or own is None else
             f"no engine stated: vLLM, the engine {hw.vendor}'s parts serve with: {own[1]}; state `engine` or "
             "`max_batch_size`")
    unread = VLLM_NO_DEVICE_MEMORY.get(hw.vendor.strip().casefold())
    memory = (f"{hw.hbm_capacity / 2**30:,.0f} GiB here" if unread is None else
              f"{most:,} here, whatever the {hw.hbm_capacity / 2**30:,.0f} GiB: vLLM reads no device memory on "
              f"{hw.vendor}'s parts; this is read from its code, the guides found state no default ({unread})")
    return most, f"{VLLM_SOURCE}, {memory} ({whose})"


#: Why a vLLM job that states no `kv_reserve` holds 'mean': vLLM allocates a sequence's KV blocks as it grows and
#: preempts requests "when KV cache space is insufficient to handle all batched requests" (docs.vllm.ai
#: configuration/optimization, "Preemption"), where TensorRT-LLM's default scheduler reserves the whole request at
#: admission ('full', GUARANTEED_NO_EVICT). The scored vLLM rows state 'mean' for that reason.
VLLM_KV_RESERVE = ("vLLM's, none stated: it allocates a sequence's KV cache as it grows and preempts when the cache "
                   "runs out (docs.vllm.ai configuration/optimization, Preemption), where TensorRT-LLM's default "
                   "scheduler reserves the whole request at admission")


def kv_reserve_of(inf: Inference, vendor: str) -> tuple[str, str]:
    """The KV cache a sequence holds (`Inference.kv_reserve`): the job's, else its engine's, and why ("" if stated).

    Left out, 'mean' under vLLM (stated, or the part's vendor's engine: `VLLM_KV_RESERVE`; newuser93: before, every
    job took TensorRT-LLM's 'full'), 'full' under TensorRT-LLM, and 'full' under SGLang or no known engine, as before
    (SGLang's admission reserves an estimate of the output, which the model does not reproduce).
    """
    if "kv_reserve" in inf.model_fields_set:
        return inf.kv_reserve, ""
    own = vendor_engine(vendor)
    engine = inf.engine or (own[0] if own else None)
    return ("mean", VLLM_KV_RESERVE) if engine == "vllm" else (inf.kv_reserve, "")


def kv_rule_of(inf: Inference, vendor: str) -> tuple[KvRule, float | None, list[tuple[str, str]]]:
    """How the job's engine sizes its KV cache (`model.kv_memory.KV_RULES`), the fraction it takes, and the problems.

    The engine is the job's, else its part's vendor's (`model.engine.serving_engine`). On a part of no cited vendor
    that names none (it stated max_batch_size), the rule of the one fraction key it states, else vLLM's, the smallest
    cache (`kv_memory.UNKNOWN_ENGINE`). The fraction is the job's key for that engine, else the engine's default;
    None where there is neither (SGLang's, unstated: kvtidy38, it was 0.0, an empty cache for a caller that dropped
    the problems; `job_of` refuses None). The problems are `kv_memory.fraction_problems`' (another engine's key,
    SGLang's left out), each (key, why).
    """
    try:
        engine: str | None = serving_engine(inf.engine, vendor)
    except ValueError:   # no engine known: `engine_problem` let the job through on its max_batch_size
        engine = None
    fractions = inf.fractions()
    problems = fraction_problems(engine, fractions)
    named = [FRACTION_KEYS[k] for k, v in fractions.items() if v is not None]
    rule = KV_RULES[engine] if engine is not None else named[0] if len(named) == 1 else UNKNOWN_ENGINE
    stated = getattr(inf, rule.key)
    return rule, stated if stated is not None else rule.default, problems


def job_of(inf: Inference, arch: Arch, limit: int, reserve: str, rule: KvRule, fraction: float | None) -> ServeJob:
    """The serving job `inf` states for `arch` with its engine's values (`batch_size_of`, `kv_reserve_of` ...).

    One reading of an `Inference` (with `kv_rule_of`) for a workload's estimate and a validation case's prediction.
    Raises InternalError on a fraction of None: `kv_rule_of`'s problems, which its callers refuse first, say why.
    """
    if fraction is None:
        raise InternalError(f"no KV cache fraction for {rule.engine_name}: {rule.key} is not stated and has no default "
                         "(engine_defaults.kv_rule_of's problems were not refused)")
    return ServeJob(serving_arch(arch, inf.redundant_experts), inf.input_len, inf.output_len, inf.precision,
                    inf.kv_precision, reserve, inf.ep, inf.attention_dp, inf.scenario, inf.max_num_tokens,
                    batcher_of(inf), inf.prefill, inf.ffn_activation, limit,
                    quantised_attention=inf.quantised_attention, output_len_cv=inf.output_len_cv,
                    redundant_experts=inf.redundant_experts, adp_balance=balance_of(inf),
                    graph_sizes=inf.graph_batch_sizes, launch_host=HOST_PER_LAUNCH[inf.kernel_launch or "graph"],
                    kv_rule=rule, kv_fraction=fraction)
