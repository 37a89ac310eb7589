"""Where a serving estimate runs a request's prefill and its decodes, said beside every serving estimate.

Every replica the model runs takes both its prompts and its decodes (aggregated serving): a prompt's KV cache is
written where its decodes read it, so no KV cache crosses a link and none is charged. Disaggregated serving splits
them over two pools of accelerators, and "the prefill engine transfers the KV cache to decode engine" (NVIDIA Dynamo
docs, Disaggregated Serving, docs.nvidia.com/dynamo/v1.5.0/knowledge-base/concepts/system-architecture/
disaggregated-serving; SGLang, "Deploying DeepSeek with PD Disaggregation and Large-scale Expert Parallelism on 96
H100 GPUs", lmsys.org/blog/2025-05-05-large-scale-ep; vLLM's disaggregated prefill with a KV connector,
docs.vllm.ai/en/v0.8.3/getting_started/examples/disaggregated_prefill_lmcache.html): that is not modelled
(`inference.disaggregated` is refused, `model.engine.DISAGGREGATED`), and an estimate that does not say so reads as
one for either deployment (newuser52).

What such a deployment would send is a formula of the model's architecture alone, so the convention states it: the
prompt's KV cache, `input_len` tokens x the whole model's KV bytes per token (`hw.memory.kv_cache_bytes_per_token`:
2 x layers x kv_heads x head_dim x bytes, or layers x (kv_lora_rank + qk_rope_head_dim) x bytes under latent
attention), in the estimate's KV-cache data type. The time to send it, and whether it hides behind the decodes,
depend on a transfer path (NIXL over NVLink or RDMA) that no spec states: not given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from archgen.model.inference import Inference
from archgen.model.workload import Model
from archgen.perf.hw import kernels as K
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.memory import kv_cache_bytes_per_token


def prompt_kv_bytes(arch: Arch, precision: str, kv_precision: str | None, input_len: int) -> tuple[float, str]:
    """Bytes of one prompt's KV cache for the whole model, and its data type (what a prefill pool would send)."""
    dtype = K.serving_kv_dtype(precision, kv_precision)
    return input_len * kv_cache_bytes_per_token(arch, K.kv_element_bytes(dtype)), dtype


def colocation_convention(arch: Arch, precision: str, kv_precision: str | None, input_len: int) -> str:
    """The `prefill_decode` convention of a serving estimate: co-located, and the KV bytes disaggregation would move."""
    return colocation_over(arch, [(precision, input_len, kv_precision)])


def colocation_over(arch: Arch, levels: Sequence[tuple[str, int, str | None]]) -> str:
    """`colocation_convention` over (precision, input_len, kv_precision) `levels`: a sweep's, at each level it runs.

    One level reads as an estimate's convention; several (a sweep over `precision`, `input_len` or `kv_precision`)
    give the prompt KV cache of each, since each level sends its own.
    """
    sizes = []
    for precision, input_len, kv_precision in dict.fromkeys(levels):
        total, dtype = prompt_kv_bytes(arch, precision, kv_precision, input_len)
        sizes.append(f"{input_len:,} tokens x {total / input_len / 1e3:,.1f} kB ({dtype.upper()}, all layers) = "
                     f"{total / 1e6:,.1f} MB")
    each = sizes[0] if len(sizes) == 1 else "at the swept levels, " + "; ".join(sizes)
    return (f"prefill and decode share each replica (aggregated serving): a prompt's KV cache stays where it was "
            f"written, so no KV transfer is counted. Disaggregated serving (separate prefill and decode pools, as "
            f"NVIDIA Dynamo, SGLang and vLLM run it) is not modelled; it would send each request's prompt KV cache, "
            f"{each}, from a prefill to a decode instance, over a path and in a time not given here")


def swept_colocation(model: Model | None, inference: Inference | None, axes: Mapping[str, Sequence[Any]]) -> str:
    """A sweep's `prefill_decode` convention: its workload's, at each `precision`, `input_len`, `kv_precision` swept.

    Every point of a serving sweep is a serving estimate (`perf.explore.points.evaluate_point`), co-located as each
    one is; '' where the workload serves nothing or names no model.
    """
    if inference is None or model is None:
        return ""
    levels = [(str(p), int(n), kv) for p in axes.get("precision") or [inference.precision]
              for n in axes.get("input_len") or [inference.input_len]
              for kv in axes.get("kv_precision") or [inference.kv_precision]]
    return colocation_over(Arch.from_model(model), levels)

