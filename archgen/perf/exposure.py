"""Communication that overlap leaves exposed in a training step: TP (userbuffers), EP (all-to-all) and DP.

Each function takes the collective times of `collectives` and the compute windows they can hide behind, and
returns the time that stays on the critical path; arrays broadcast as in `training.estimate_training`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from archgen.perf import kernels as K
from archgen.perf.collectives import collective_time, collective_times, members_per_domain
from archgen.perf.hardware import Hardware

if TYPE_CHECKING:
    from archgen.perf.training import Job


def tp_exposed(ar, gemm_window, passes):
    """TP communication left exposed by Transformer Engine's userbuffers overlap, per layer.

    TE's defaults (transformer_engine/pytorch/module/base.py `initialize_ub`): the all-gathers before QKV and FC1
    and in the row-parallel dgrads use `ring_exchange` with tp chunks, each step hidden by a chunk's GEMM; the
    backward's column-parallel collectives are `bulk`, hidden by the paired dgrad/wgrad GEMM; the reduce-scatters
    after the projection and FC2 use `pipeline` with 4 splits, whose last chunk's reduce-scatter has no GEMM left
    to hide behind. So each forward pass (and recomputed forward) exposes a quarter of two reduce-scatters (each
    half of an all-reduce `ar`), ar / 4; beyond that only communication that outlasts the GEMMs shows. The GEMMs'
    slowdown from the SMs the `pipeline` and `bulk` kernels take (16 each) is not modelled.
    """
    return np.maximum(2.0 * (1.0 + 1.0) * ar * passes - gemm_window, 0.25 * ar * passes)


def expert_comm(hw: Hardware, job: Job, T, tp, cp, ep, passes, expert_window):
    """Exposed dispatch and combine all-to-all time of one MoE layer per micro-batch (forward, backward, recompute).

    Each of the T tokens sends `top_k` copies of h (16-bit) to the ranks of its experts. With per-node
    deduplication (`ep_dedup`: DeepEP and HybridEP send a token once to each node that holds one of its experts and
    forward it over NVLink) the traffic that leaves a domain falls from top_k·(1 - k/n) copies to the expected
    number of other domains hit, (D - 1)·(1 - (1 - 1/D)^top_k) for D domains in the group and uniform routing.
    With `overlap_ep_comm` the all-to-all of one micro-batch hides behind another's expert compute
    (`expert_window`, one forward's worth per pass and two for the backward).
    """
    a = job.arch
    k_ep = members_per_domain(hw, ep, tp * cp)
    size = T * a.top_k * a.hidden * 2.0 / tp
    if job.ep_dedup:
        domains = np.maximum(ep / k_ep, 1.0)
        copies_out = a.top_k * (1.0 - k_ep / ep)
        deduped = (domains - 1.0) * (1.0 - (1.0 - 1.0 / domains) ** a.top_k)
        size = size * np.where(copies_out > 0, deduped / np.maximum(copies_out, 1e-30), 1.0)
    a2a = collective_time(hw, "all_to_all", size, ep, k_ep)
    t = 2.0 * (passes + 1.0) * a2a
    if job.overlap_ep_comm:
        t = np.maximum(0.0, t - expert_window * (passes + 2.0))
    return np.where(ep > 1, t, 0.0)


def dp_exposed(hw: Hardware, job: Job, params, dp, k_dp, zero, bwd_window, fwd_window, t_mb, m):
    """Exposed data-parallel communication of one rank per step, by sharding stage (see `Layout.zero`).

    Stage 0 all-reduces the gradients; stages 1-2 reduce-scatter them and all-gather the updated weights (in
    `param_gather_dtype`); stage 3 (FSDP) gathers the weights for every micro-batch's forward and backward and
    reduce-scatters its gradients, hidden by that micro-batch's compute where prefetched. The reduction overlaps
    `bwd_window` with `overlap_grad_reduce`, the gather `fwd_window` with `overlap_param_gather`.
    """
    gb, wb = job.grad_bytes, K.DTYPE_BYTES[job.param_gather_dtype] if job.precision == "fp8" else 2.0
    grads = params * gb
    ar, rs, ag = collective_times(hw, (("all_reduce", grads), ("reduce_scatter", grads), ("all_gather", params * wb)),
                                  dp, k_dp)
    wb_ = bwd_window if job.overlap_grad_reduce else 0.0
    wf_ = fwd_window if job.overlap_param_gather else 0.0
    plain = np.maximum(0.0, ar - wb_)
    sharded = np.maximum(0.0, rs - wb_) + np.maximum(0.0, ag - wf_)
    fsdp = m * np.maximum(0.0, 2.0 * ag + rs - t_mb)
    out = np.where(zero >= 3, fsdp, np.where(zero >= 1, sharded, plain))
    return np.where(dp > 1, out, 0.0)
