"""The note of an MoE training estimate at ep > 1: it takes the routing as balanced over the EP ranks (moebalance34).

The training model times each MoE layer pass with the routed tokens spread evenly over the EP ranks
(docs/perf-model.md, Limitations: "MoE training routes balanced"); `moe_force_balance` only charges the router's
random logits' kernels (`perf.train.router`). That is what NVIDIA's and AMD's MoE benchmarks run (`moe_force_balance`
true in the nemo and primus profiles, Megatron-core's `moe_router_force_load_balancing`: random router logits,
near-uniform routing). A job whose router is not forced to balance waits on its busiest EP rank, slower by the
routing's imbalance; the one published imbalance the project holds (TensorRT-LLM blog4, Table 1: DeepSeek-R1 serving
on EP 32, docs/perf-model.md, Inference, Layout) is a serving measurement, and no training measurement with its
conditions was found, so the estimate does not bound it. Serving says its routing in `routing_note`; this note is the
training side's stated assumption. No number depends on it.
"""

from __future__ import annotations

from archgen.perf.hw.arch import Arch
from archgen.perf.train.job import Job, Layout


def balance_note(arch: Arch, job: Job, lay: Layout) -> list[str]:
    """The balanced-routing note of an MoE training estimate whose experts spread over EP ranks; nothing otherwise."""
    ep = int(lay.ep)
    if not arch.moe_layers or ep <= 1:
        return []
    head = f"MoE routing assumed balanced: each pass's routed tokens are timed as spread evenly over the {ep} EP ranks"
    if job.moe_force_balance:
        return [f"{head}, which the forced balancing this stack runs (random router scores, as NVIDIA's and AMD's "
                "MoE benchmark settings do) comes close to"]
    return [f"{head}, while this run's router is not forced to balance: a real router's skew makes the busiest rank "
            "slower by its imbalance, which the estimate does not bound (no published measurement of training "
            "routing imbalance with its conditions was found)"]
