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
prompt's KV cache, `input_len` tokens x the whole model's KV bytes per token (`kv_cache_dtype.kv_cache_bytes_per_token`:
2 x layers x kv_heads x head_dim x bytes, or layers x (kv_lora_rank + qk_rope_head_dim) x bytes under latent
attention), in the estimate's KV-cache data type. The time to send it, and whether it hides behind the decodes,
depend on a transfer path (NIXL over NVLink or RDMA) that no spec states: not given.

A serving estimate also reads its own replica as the two pools of a first-order disaggregated deployment
(`disaggregated_reading`, newuser79), each pool timed from passes of its own (`pool_times`, pd2): a prefill pool of
the same layout runs prefill-only passes of max_num_tokens a scheduling rank (the offline form's, each reading the
weights once for the pass), input_len / t_prefill / tp input tokens/s per accelerator; a decode pool runs decode-only
steps of the replica's sequences in flight, each reading every weight and those sequences' KV cache (the decode step
the offline form times, `inference.estimate_inference`), b / t_step / tp output tokens/s. Before pd2 a simulated run's
pools split its hybrid iterations' time by their tokens (`run.ServingRun.prompt_share`), which left a decode pool
a token's share of each pass's weight reads: optimistic where decode is memory-bound (review40). The replica itself
need not match the pools: its hybrid iterations carry the decodes on the prompt chunks' compute-bound passes, which
read the weights once for both (Sarathi-Serve's piggybacking, OSDI 2024), where a decode pool reads them each step
(review42 read DeepSeek-R1 at tp 32 as 606.6 output tokens/s a GPU against the pools' 1,144; the gap was the
simulated iteration adding every prompt's attention in series under attention DP, `chunks.busiest_rank`, serve29,
after which the replica reads 1,304, 1.14x the pools; no published source runs both at one layout). t_prefill /
t_decode per request prefill accelerators per decode accelerator keep them balanced (the P:D ratio: DistServe, Zhong
et al., OSDI 2024, section 4, places each phase by its own per-GPU goodput; SGLang pairs N prefill instances with one
decode instance "to satisfy your PD ratio", sgl-project/sglang issue 10903). Each decode
rank receives what it holds of the prompt's KV cache (`kv_cache_bytes_per_token_per_rank` x input_len), in
bytes / link bandwidth over one accelerator's scale-up link (NVLink, one domain) or its scale-out share (RDMA
across domains), at the stated rate: a lower bound, no protocol or efficiency charged. It leaves out every way the
pools differ from the replica (a decode pool's wide EP, a batch other than the replica's, a prefill pool's smaller
layout), the queue between them, and whether the transfer hides behind the prefill's later layers; those stay *not
modelled*.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from archgen.model.inference import Inference
from archgen.model.workload import Model
from archgen.perf.hw import kv_cache_dtype as KV
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.kv_cache_dtype import kv_cache_bytes_per_token, kv_cache_bytes_per_token_per_rank
from archgen.perf.serve import inference as I
from archgen.perf.serve.run import ServingRun
from archgen.units import Q_, Q


def prompt_kv_bytes(arch: Arch, precision: str, kv_precision: str | None, input_len: int) -> tuple[float, str]:
    """Bytes of one prompt's KV cache for the whole model, and its data type (what a prefill pool would send)."""
    dtype = KV.serving_kv_dtype(precision, kv_precision)
    return input_len * kv_cache_bytes_per_token(arch, KV.kv_element_bytes(dtype)), dtype


def colocation_convention(arch: Arch, precision: str, kv_precision: str | None, input_len: int,
                          reading: str = "") -> str:
    """The `prefill_decode` convention of a serving estimate: co-located, and the KV bytes disaggregation would move.

    `reading`: the estimate's `disaggregated_reading`, which times the transfer; without one, no time is given.
    """
    return colocation_over(arch, [(precision, input_len, kv_precision)], reading)


def colocation_over(arch: Arch, levels: Sequence[tuple[str, int, str | None]], reading: str = "") -> str:
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
            f"{each}, from a prefill to a decode instance" + (f". {reading}" if reading else
                                                              ", over a path and in a time not given here"))


def pool_times(hw: Hardware, job: I.ServeJob, tp: int, batch: float) -> tuple[float, float]:
    """Each pool's time per request from passes of its own (module docstring): (prefill, decode) in seconds.

    The prefill pool's is the offline form's prefill-only passes per prompt (`InferenceEstimate.prefill_per_request`),
    which make each request's first token; the decode pool's output_len - 1 decode-only steps (tokens 2 to output_len,
    `lengths.FIRST_TOKEN`) of `batch` sequences at the mean context / `batch`, each step reading every weight and
    their KV cache, so its rate is batch / step / tp whatever the prompts' share of a hybrid iteration.
    """
    e = I.estimate_inference(hw, job, tp, batch)
    return float(e.prefill_per_request), (job.output_len - 1) * float(e.decode_step) / max(float(batch), 1.0)


def pool_batch(e: I.InferenceEstimate, run: ServingRun | None, closed: bool) -> tuple[float, str]:
    """The decode pool's sequences per replica and where they come from, in words: the replica's, no pool's stated.

    Offline, the estimate's batch; a closed loop, its concurrency up to what the replica holds at once (`max_batch`);
    an open loop, the run's mean in flight (Little's law, `run.ServingRun.mean_running`), at least one: a decode step
    carries a sequence (review42: a light load's 0.075 in flight read "decode-only steps of 0 sequences").
    """
    if run is None:
        b, why = float(e.batch), "the replica's batch"
    elif closed:
        b = min(float(e.batch), float(e.max_batch))
        why = "the replica's concurrency" if b == float(e.batch) else "the most the replica holds at once"
    elif run.mean_running < 1:
        b, why = 1.0, f"one: the replica's mean in flight under its arrivals is {run.mean_running:.2g}"
    else:
        b, why = min(run.mean_running, float(e.max_batch)), "the replica's mean in flight under its arrivals"
    n = f"{b:,.0f}"
    return b, f"{n} sequence{'' if n == '1' else 's'} ({why}; a decode pool's own batch is not stated)"


def disaggregated_reading(arch: Arch, dtype_bytes: float, attention_dp: bool, input_len: int, output_len: int,
                          tp: int, times: tuple[float, float], links: tuple[float, float], batch: str = "") -> str:
    """The replica read as a disaggregated deployment's two pools at its own layout (module docstring); '' if untimed.

    `times`: each pool's time per request (s, `pool_times`); `links`: one accelerator's scale-up and scale-out
    bandwidth per direction (B/s; scale-out 0 for a single domain); `batch`: the decode pool's sequences, in words.
    """
    prefill, decode = times
    if prefill <= 0 or decode <= 0:
        return ""
    ratio = (f"{prefill / decode:.3g} prefill accelerators per decode accelerator" if prefill >= decode else
             f"one prefill accelerator per {decode / prefill:.3g} decode accelerators")
    per_rank = received(arch, dtype_bytes, attention_dp, input_len, tp)
    names = ("its scale-up link, one domain", "its scale-out share, across domains")
    paths = [f"{per_rank / bw * 1e3:.3g} ms over {name} ({bw / 1e9:,.4g} GB/s)"
             for name, bw in zip(names, links, strict=True) if bw > 0]
    return (f"Read as a first-order disaggregated deployment with both pools at this layout (tp {tp}), each timed "
            f"from passes of its own: a prefill pool runs {input_len / prefill / tp:,.0f} input tokens/s per "
            f"accelerator (prefill-only passes: input_len / their time per prompt / tp), a decode pool "
            f"{(output_len - 1) / decode / tp:,.0f} output tokens/s per accelerator (decode-only steps of {batch} for "
            f"the tokens after the prefill's first, each reading every weight and their KV cache: sequences / step "
            f"time / tp), so {ratio} balance them (P:D ratio); each decode rank receives {per_rank / 1e6:,.1f} MB "
            "of the prompt's KV cache, "
            f"{' or '.join(paths)} at the stated rate (a lower bound: no protocol, efficiency or contention charged), "
            "which TTFT adds unless the transfer hides behind the prefill. Not modelled: pools laid out unlike this "
            "replica (a decode pool's wider EP or another batch, a smaller prefill pool), the queue between them")


def received(arch: Arch, dtype_bytes: float, attention_dp: bool, input_len: int, tp: int) -> float:
    """Bytes of a prompt's KV cache each decode rank receives: what it holds of it (module docstring)."""
    return float(kv_cache_bytes_per_token_per_rank(arch, dtype_bytes, tp, attention_dp)) * input_len


def pool_metrics(arch: Arch, dtype_bytes: float, attention_dp: bool, input_len: int, output_len: int,
                 tp: int, times: tuple[float, float], links: tuple[float, float]) -> dict[str, Q]:
    """`disaggregated_reading`'s figures as the registry's metrics (`archgen.metrics_pools`); {} where it is ''.

    The same arguments and formulas: each pool's tokens/s per accelerator, the P:D ratio (prefill accelerators per
    decode accelerator), and the received bytes over the scale-up link and, where there is one, the scale-out share.
    """
    prefill, decode = times
    if prefill <= 0 or decode <= 0:
        return {}
    per_rank, (up, out) = received(arch, dtype_bytes, attention_dp, input_len, tp), links
    got = {"prefill_tokens_per_second_per_gpu": Q_(input_len / prefill / tp, "1/s"),
           "decode_tokens_per_second_per_gpu": Q_((output_len - 1) / decode / tp, "1/s"),
           "prefill_decode_ratio": Q_(prefill / decode, "")}
    if up > 0:
        got["kv_transfer_time"] = Q_(per_rank / up, "s")
    if out > 0:
        got["kv_transfer_time_across_domains"] = Q_(per_rank / out, "s")
    return got


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

