"""What an MoE serving estimate with expert parallelism takes the routing to be, in its notes (issue 20).

The serving model times a pass's experts on the busiest EP rank under uniform random routing
(`perf.serve.routing`), the optimistic end of what is known: the one published measurement is far more skewed.
`routing_note` says the busiest rank's load over the mean at the estimate's decode step, the tokens/s per
accelerator with the routing perfectly balanced, and, for a model with the routing shape a published imbalance was
measured on (DeepSeek-V3/R1's), the tokens/s at that measured imbalance with its conditions: the band from balanced
to the measured ratio, the point estimate inside it. A model's group-limited routing (`router_num_groups`), which the
training model's dispatch counts (`perf.comm.group_routing`), is not in the serving point, and the note says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from archgen.perf.serve import routing as R
from archgen.perf.serve.inference import InferenceEstimate, ServeJob
from archgen.perf.workload.band_span import Span

#: The metric the routing span is taken of (`Band.routing` carries it to each metric stating its quantity).
METRIC = "tokens_per_second_per_gpu"


def routing_note(job: ServeJob, e: InferenceEstimate, per_gpu: float,
                 per_gpu_at: Callable[[ServeJob], float]) -> tuple[str, Span]:
    """The note of an MoE estimate at ep > 1, and its routing span (`band_span.Span`, `Band.routing`).

    The span is the tokens/s per accelerator at the measured imbalance (0 where none was published for the model's
    routing shape: not bounded), the point (uniform random routing) and balanced routing.

    Args:
        job: The estimated job (uniform random routing, `job.imbalance` None).
        e: Its estimate (`e.batch`: the sequences decoding at once per replica).
        per_gpu: Its tokens/s per accelerator.
        per_gpu_at: The tokens/s per accelerator of the same job with another `imbalance`.
    """
    a = job.arch
    factor = float(R.load_factor(max(float(e.batch), 1.0), a.top_k, a.experts, job.ep))
    balanced = per_gpu_at(dataclasses.replace(job, imbalance=0.0))
    own = a.experts - job.redundant_experts   # the model's experts; `a.experts` counts the redundant copies' slots
    slots = (f" over {a.experts} slots ({own} experts and {job.redundant_experts} redundant copies, spread like them: "
             "EPLB's placement by measured load is not modelled)" if job.redundant_experts else "")
    text = (f"MoE routing: each pass's experts are timed on the busiest of the {job.ep} EP ranks under uniform random "
            f"routing{slots} ({factor:.3f} x the mean rank's routed tokens at the decode step of {float(e.batch):,.0f} "
            "sequences; the expected maximum of the ranks' counts, perf.serve.routing); measured routing is more "
            f"skewed. Perfectly balanced routing gives {balanced:,.0f} tokens/s per accelerator ({per_gpu:,.0f} here)")
    if a.router_groups and a.router_group_topk < a.router_groups:   # stated on the model, read by training only
        text += (f"; the model's group-limited routing ({a.router_group_topk} of {a.router_groups} expert groups a "
                 "token) is not in that point, which takes every expert as a candidate: copies held to fewer groups "
                 "skew the ranks more")
    if not R.has_measured_ratio(own, a.top_k):
        return text + (f"; no published imbalance was found for a model routing to {a.top_k} of {own} "
                       "experts, so the slower end is not bounded"), (METRIC, per_gpu, 0.0, balanced)
    skewed = per_gpu_at(dataclasses.replace(job, imbalance=R.TRTLLM_R1_IMBALANCE))
    change = (skewed / per_gpu - 1.0) if per_gpu > 0 else 0.0
    return text + (f"; {R.TRTLLM_R1_CONDITIONS}: at that imbalance, {skewed:,.0f} tokens/s per accelerator "
                   f"({change:+.0%}), not a measurement of this run's ep, dataset or EPLB"), (METRIC, per_gpu, skewed,
                                                                                              balanced)
