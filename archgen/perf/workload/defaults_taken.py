"""What an estimate took by default rather than from the spec: `Estimate.defaults` (`archgen estimate`).

Before this, plain `archgen estimate` said only "layout searched", while what decided the answer (the recompute the
search picked, the FP8 recipe and the stack a job that names none gets) was listed under `--explain` alone. Each
entry here is one thing the spec leaves out that changes a number, with where its value came from:

* a layout field the spec leaves out: `searched` where the layout search chose it (`fixed` None), else the field's
  own default (cp 1; ep 1 on an MoE model) or, for ZeRO, the stage the distributed optimizer gives; the
  `pipeline_layout` string that places a stated pp which does not divide the layers (lay28fix2);
* the stack, where the job names none: the newest profile (`stacks.explain`'s row for it);
* every switch the stack's profile sets because the spec does not, and the job uses (`perf.train.moot` drops those the
  layout, model or precision make moot: they change no number).

The `--explain` table stays the full account (every switch, stated or not, with its source line).
"""

from __future__ import annotations

from collections.abc import Mapping

from archgen.model.engine import serving_engine
from archgen.model.inference import Inference
from archgen.model.kv_memory import KvRule
from archgen.model.switch_table import as_written
from archgen.model.workload import Training
from archgen.perf.hw.kv_cache_dtype import serving_kv_dtype
from archgen.perf.train.stacks import explain
from archgen.perf.workload.estimate_result import Taken

#: Layout fields in the order the estimate's `layout:` line shows them.
LAYOUT_FIELDS = ("tp", "pp", "dp", "cp", "ep", "micro_batch", "interleave", "recompute", "zero", "offload", "etp",
                 "pipeline_layout")


def defaults_taken(t: Training, layout: Mapping[str, int | str], fixed: Mapping[str, object], searched: bool,
                   moe: bool, vendor: str, rope: bool | None = None) -> tuple[Taken, ...]:
    """Each layout field and switch the estimate of `t` took by default (module docstring), in a stable order.

    `layout` is the layout the estimate ran, `fixed` what the workload fixed of it (None: left to the search),
    `searched` whether the search ran, `moe` whether the model has MoE layers, `vendor` the accelerator's, `rope`
    whether it is charged a rotary embedding (`stacks.explain`).
    """
    given = t.parallelism.model_fields_set
    out: list[Taken] = []
    for name in LAYOUT_FIELDS:
        if name not in layout or name in given or (name == "recompute" and "recompute" in t.model_fields_set) \
                or (name == "interleave" and "pipeline_layout" in given):  # the stated layout string's
            continue
        if searched and fixed.get(name) is None:
            source = "searched"
        elif name == "pipeline_layout":  # a stated pp that does not divide the layers (`placed_note`)
            source = "places the stated pp, as the layout search would"
        elif name == "zero":
            source = "distributed optimizer"
        elif name == "ep" and not moe:
            continue
        else:
            source = "field default"
        out.append(Taken(name, as_written(layout[name]), source))
    for used in explain(t, layout, moe, vendor, rope):
        if used.origin == "stated" or not used.used:
            continue
        if used.name == "stack":
            out.append(Taken("stack", as_written(used.value), "none stated: the newest profile"))
        else:
            out.append(Taken(used.name, as_written(used.value), f"stack {used.profile}"))
    return tuple(out)


#: Where a workload's replicas come from when it states none (a validation case's are its field default, 1).
ALL_DOMAINS = "as many as the scale-up domains hold"


def serving_taken(inf: Inference, vendor: str, limit: int, reserve: str, rule: KvRule, fraction: float | None,
                  tp: int, replicas: int, replicas_from: str = ALL_DOMAINS) -> tuple[Taken, ...]:
    """Each field a serving job leaves out that moves a number, with the value its estimate took (newuser97).

    `limit`, `reserve`, `rule` and `fraction` are what the estimate ran (`engine_defaults.batch_size_of`,
    `kv_reserve_of`, `kv_rule_of`), `tp` and `replicas` its layout, `replicas_from` why that many. Before,
    `defaults_taken` was empty on every serving estimate and `--explain` printed nothing more for one: which engine,
    batch cap and KV fraction a job ran was spread over notes and conventions, or not said (max_num_tokens, prefill,
    ffn_activation, quantised_attention). The one list a workload's estimate and `estimate --cases --explain` print
    (dsr1case39: the cases had a list of their own, which named neither the engine nor its KV fraction).

    Under TensorRT-LLM a simulated run (concurrency, or server with an arrival_rate) also names the attention-DP
    balancer off and CUDA graphs unpadded where the job leaves `adp_balance` or `graph_batch_sizes` out, TensorRT-LLM's
    defaults (`enable_balance` and `enable_padding` False: tensorrt_llm/llmapi/llm_args.py, AttentionDpConfig and
    CudaGraphConfig, at NVIDIA/TensorRT-LLM 00043967). dsr1case39: the MLPerf v5.1 DeepSeek-R1 B200 Server run states
    both, and its case reads TTFT p99 293.7 ms where a workload of the same run without them reads 87.5 ms, the same
    physics on other inputs; nothing said the workload had taken the defaults. An offline job names `output_len_cv`
    left out (every output of one length). Every job names `kernel_launch` graph where it leaves it out (eager40): the
    decode passes replayed from CUDA graphs, as vLLM (`enforce_eager` False), SGLang and TensorRT-LLM's PyTorch backend
    (`cuda_graph_config` on: tensorrt_llm/llmapi/llm_args.py `TorchLlmArgs`, a stored copy of unidentified revision)
    run by default; a TensorRT engine under the executor runs without (its `cudaGraphMode` false): 'tensorrt'.
    """
    given = inf.model_fields_set
    out = [Taken("tp", str(tp), "searched")] if "tp" not in given else []
    out += [Taken("replicas", str(replicas), replicas_from)] if "replicas" not in given else []
    try:
        engine = serving_engine(inf.engine, vendor)
    except ValueError:   # no engine known: the job stated its max_batch_size, and its fraction's key picks the rule
        engine = ""
    if engine and "engine" not in given:
        out.append(Taken("engine", engine, f"none stated: {vendor}'s parts' engine"))
    whose = f"{engine} default" if engine else "engine default"
    out += [Taken("max_batch_size", str(limit), whose)] if "max_batch_size" not in given else []
    if getattr(inf, rule.key) is None and fraction is not None:   # the engine's default (None: SGLang's, refused)
        out.append(Taken(rule.key, f"{fraction:g}", whose))
    if "kv_reserve" not in given:
        out.append(Taken("kv_reserve", reserve, whose if engine == "vllm" else "field default"))
    if inf.kv_precision is None:
        out.append(Taken("kv_precision", serving_kv_dtype(inf.precision), f"with {inf.precision} weights"))
    out += [Taken(name, as_written(getattr(inf, name)), "field default")
            for name in ("precision", "max_num_tokens", "prefill", "ffn_activation", "quantised_attention")
            if name not in given]
    if inf.kernel_launch is None:   # eager40: CUDA graphs, the engines' default (`Inference.kernel_launch`)
        out.append(Taken("kernel_launch", "graph", "tensorrt-llm PyTorch backend default" if engine == "tensorrt-llm"
                         else whose))
    if inf.scenario == "concurrency" or inf.arrival_rate is not None:
        if engine == "tensorrt-llm" and inf.attention_dp and tp > 1 and inf.adp_balance is None:
            out.append(Taken("adp_balance", "off", whose))
        if engine == "tensorrt-llm" and inf.graph_batch_sizes is None:
            out.append(Taken("graph_batch_sizes", "unpadded", whose))
    elif inf.output_len_cv is None:
        out.append(Taken("output_len_cv", "none", "not stated: all outputs of one length"))
    return tuple(out)


def defaults_line(taken: tuple[Taken, ...]) -> str:
    """One line of `taken`, grouped by source in order of first appearance: 'tp 4, recompute none (searched); ...'."""
    groups: dict[str, list[str]] = {}
    for item in taken:
        groups.setdefault(item.source, []).append(f"{item.name} {item.value}")
    return "; ".join(f"{', '.join(names)} ({source})" for source, names in groups.items())
