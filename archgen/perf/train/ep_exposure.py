"""The MoE all-to-alls of a training step: what the overlaps leave exposed of each layer's dispatch and combine.

`expert_comm` times one MoE layer's dispatch and combine per micro-batch over its group (`dispatch_group`) and
takes off what hides: behind the other micro-batch's compute under `overlap_ep_comm` (`ep_overlap_cost`: the SMs an
NCCL all-to-all holds, or the pace a GPU-driven dispatcher keeps; the schedule's `unpaired_chunks` get none), or
behind the shared experts' GEMMs (`shared_overlap`). Split from `exposure` (CP and DP, and the SMs an overlap
holds, `sm_kept`) for its size.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from archgen.perf.comm.collectives import members_per_domain
from archgen.perf.comm.dispatcher import kernel_platform, kernel_times
from archgen.perf.comm.group_routing import remote_domains
from archgen.perf.comm.racks import group_times
from archgen.perf.hw import gemm_floor as F
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.numeric import maximum, minimum, where
from archgen.perf.train import contention as C
from archgen.perf.train import ep_schedule as ES
from archgen.perf.train.dispatch_calls import dispatcher_cost, forward_sync, sync_shown
from archgen.perf.train.exposure import sm_kept
from archgen.perf.train.job import Job

#: SMs an overlapped NCCL all-to-all takes from the compute beside it (DeepEP's default, "historical default 20":
#: Megatron-core megatron/core/transformer/transformer_config.py at d98e8a6, `moe_deepep_num_sms`); the flex
#: dispatchers' kernels yield instead (`ep_overlap_cost`).
EP_COMM_SMS = 20.0


def expert_comm(hw: Hardware, job: Job, T, tp, ep, passes, layer_forward, expert_forward, etp=None, hbm=0.0,
                edge=False):
    """Exposed dispatch and combine all-to-all time of one MoE layer and micro-batch, and its forward pass's part.

    (total, forward), seconds: the total over the forward, the backward and any recompute; with `edge` also what
    the overlap saves one micro-batch (0 without it), which a step's unpaired chunks do not get (below).

    Each of the T tokens sends `top_k` copies of h (16-bit) to the ranks of its experts. With per-node
    deduplication (`ep_dedup`: DeepEP and HybridEP send a token once to each node that holds one of its experts and
    forward it over NVLink) the traffic that leaves a domain falls from top_k·(1 - k/n) copies to the expected
    number of other domains hit, (D - 1)·(1 - (1 - 1/D)^top_k) for D domains in the group and uniform routing, fewer
    under the model's group-limited routing (`group_routing.remote_domains`: at most router_group_topk with a group
    a domain).

    With `overlap_ep_comm` Megatron-core runs one micro-batch's forward of a layer beside another's backward, and
    its streams' event order makes each phase a barrier (`ep_schedule`, read at 3097d81): combine_bwd beside the
    forward's pre-dispatch compute (attention, norm, router: A), dispatch_fwd beside the expert MLP's backward
    (2E), dispatch_bwd beside its forward (E), combine_fwd beside the pre-dispatch backward (2A). Each all-to-all
    shows only beyond what its window hides (`ep_overlap_cost`): NCCL's keeps its pace and takes `EP_COMM_SMS` from
    the compute and shares the HBM with it (`contention`: `hbm` is the compute's share of the HBM rate, the layer's
    forward as a whole; the all-to-all stores the routed copies it receives and reads them back); DeepEP's and
    HybridEP's yield, a window w hiding `contention.GPU_DRIVEN_PACE` x w of them. A recompute's extra forward
    all-to-alls are not overlapped (Megatron refuses recomputation with this overlap). The first forward and the
    last backward of a step have no partner:
    Megatron-core's combined 1F1B runs one micro-batch's forward beside another's backward, and without pipelining
    "the forward step for the first microbatch is executed alone, no a2a overlapping" and so is the last one's
    backward (megatron/core/pipeline_parallel/combined_1f1b.py at 00caa53,
    `combined_1f1b_schedule_for_no_pipelining`): their four all-to-alls run alone, the `edge` saving lost once per
    such chunk (how many a step leaves: `unpaired_chunks`).
    HybridEP's forward dispatch synchronises the communication stream only, while the compute stream holds the MLP
    backward: its per-call cost (`dispatch_calls.forward_sync`) passes beside that window before its all-to-all
    (`dispatch_calls.sync_shown`) instead of on the critical path; the other calls' fixed costs stay exposed.

    Under MoE parallel folding (`experts`) etp defaults to tp. The two dispatchers move the expert-TP copies
    differently (Megatron-core megatron/core/transformer/moe/token_dispatcher.py at d98e8a6):

    * alltoall (`MoEAlltoAllTokenDispatcher`): the all-to-all runs over the EP group, whose members are etp ranks
      apart, and with etp > 1 the dispatch all-gathers the received tokens over the expert-TP group (lines 741-751;
      the combine reduce-scatters them, lines 824-832): the gathered buffer is etp times a rank's T/tp tokens'
      top_k copies, inside a scale-up domain.
    * deepep and hybridep (`MoEFlexTokenDispatcher`): one all-to-all over the tp_ep group of etp·ep consecutive
      ranks (lines 1836-1850: `group=self.tp_ep_group`, `num_experts=self.tp_size * num_moe_experts`), the routing
      map repeated for each of a target's etp ranks (`_initialize_metadata`, lines 1906-1917), so each token goes
      to every expert-TP rank of its experts' EP ranks and nothing is gathered afterwards: a rank sends etp·top_k
      copies of its T/tp tokens. With de-duplication a token still crosses to each other domain once: an EP
      rank's etp ranks are consecutive, so in one domain where etp divides the domain's share of the group (the
      formula assumes so), and the domains hit follow from the top_k EP ranks alone.

    HybridEP across nodes on the platform of its README's table (`dispatcher.kernel_platform`: Hopper, 8 ranks a
    node on H100's NVLink 4, as measured) takes the README's
    kernel-only times at its default 8 SMs instead (`dispatcher.kernel_times`: dispatch and combine averaged; the
    dispatch a fixed time per token-node plus its bytes, from the README's FP8 and BF16 columns).
    """
    a = job.arch
    etp = tp if etp is None else etp
    flex = job.moe_dispatcher != "alltoall"
    group, k_ep = dispatch_group(hw, job, ep, etp)
    copies = a.top_k * (etp if flex else 1.0)  # of each of the rank's T/tp tokens
    size = T * copies * a.hidden * 2.0 / tp
    if job.ep_dedup:
        domains = maximum(group / k_ep, 1.0)
        copies_out = copies * (1.0 - k_ep / group)
        deduped = remote_domains(a.top_k, domains, a.router_groups, a.router_group_topk)
        size = size * where(copies_out > 0, deduped / maximum(copies_out, 1e-30), 1.0)
    # the EP group's members etp ranks apart (alltoall), the tp_ep group's consecutive (flex): the rack hop only
    # where a group crosses racks (`racks.group_times`)
    (a2a,) = group_times(hw, (("all_to_all", size),), group, k_ep, 1.0 if flex else etp)
    if job.moe_dispatcher == "hybridep" and np.any(platform := kernel_platform(hw)):  # its measured kernel rates
        # nodes hit follow from the EP ranks: ep of them, group/k_ep nodes (an EP rank's etp ranks in one node)
        measured = sum(kernel_times(T / tp, a.hidden, a.experts, a.top_k, ep, ep * k_ep / group,
                                    (a.router_groups, a.router_group_topk))) / 2.0
        a2a = where(platform & (np.asarray(k_ep) == 8) & (np.asarray(group) > k_ep), measured, a2a)
    if not flex:  # the all-to-all dispatcher's expert-TP gather (reduce-scatter in the combine)
        a2a = a2a + where(np.asarray(etp) > 1, group_times(
            hw, (("all_gather", etp * T * a.top_k * a.hidden * 2.0 / tp),), etp, members_per_domain(hw, etp, 1))[0],
            0.0)
    sync = forward_sync(hw, job, T / tp, group, k_ep, etp if flex else 1.0)  # one forward dispatch's, before its a2a
    cost, cost_f = dispatcher_cost(hw, job, T / tp, group, k_ep, passes, etp if flex else 1.0, sync)
    t, t_f = 2.0 * (passes + 1.0) * a2a + cost, 2.0 * a2a + cost_f
    received = T * copies * a.hidden * 2.0 / tp * (1.0 - 1.0 / maximum(group, 1.0))
    if job.moe_shared_expert_overlap and a.shared_experts and not job.overlap_ep_comm:  # exclusive (`Training`)
        t, t_f = shared_overlap(hw, job, T, tp, passes, a2a, ep_overlap_cost(hw, job, received, a2a, hbm), cost,
                                cost_f)
    alone = t  # without the EP overlap (`edge`); the shared experts' overlap pairs nothing, every chunk keeps it
    if job.overlap_ep_comm:
        pre = maximum(layer_forward - expert_forward, 0.0)
        windows = ES.windows(pre, expert_forward)  # the first two are the forward's
        pace, lost = ep_overlap_cost(hw, job, received, a2a, hbm)
        # the forward dispatch's `sync` runs on the comm stream, beside 2E
        shown = [sync_shown(a2a, w, pace, sync if i == 1 else 0.0) for i, w in enumerate(windows)]
        t = sum(shown) + lost * (4.0 * a2a - sum(shown)) + 2.0 * (passes - 1.0) * a2a + cost - sync
        t_f = shown[0] + shown[1] + lost * (2.0 * a2a - shown[0] - shown[1]) + cost_f - sync
    live = ep * etp > 1  # either dispatcher runs with etp > 1 at ep 1 (the expert-TP gather; flex: DeepEP's tp x ep)
    if edge:  # and what the overlap saves one micro-batch, which an unpaired forward and backward do not get
        return where(live, t, 0.0), where(live, t_f, 0.0), where(live, alone - t, 0.0)
    return where(live, t, 0.0), where(live, t_f, 0.0)


def ep_overlap_cost(hw: Hardware, job: Job, received, a2a, hbm):
    """(pace, lost) of an MoE all-to-all beside compute: the share of its pace it keeps, and of the compute's it costs.

    NCCL's all-to-all (`alltoall`) keeps its pace; its kernels hold `EP_COMM_SMS` SMs, and the `received` bytes it
    stores share the HBM with the compute (`contention`, `hbm` the compute's share of the HBM rate). DeepEP's and
    HybridEP's kernels, which move the bytes from their SMs, yield: they progress at `contention.GPU_DRIVEN_PACE`
    of their pace and the compute keeps its own (the A/B profile: compute unchanged, communication stretched), so a
    window w hides only pace x w of the all-to-all. Before session epoverlap they too held their SMs (`EP_COMM_SMS`;
    HybridEP the 32 Megatron-Bridge's performance recipes give it, `moe_hybridep_num_sms`, scripts/performance/utils/
    overrides.py:89 at 067f987) and kept their pace: the A/B's saving came out 5.26 s against 3.72 s measured.
    """
    if job.moe_dispatcher != "alltoall":
        return C.GPU_DRIVEN_PACE if job.ep_overlap_pace is None else job.ep_overlap_pace, 0.0
    return 1.0, 1.0 - sm_kept(hw, EP_COMM_SMS) + C.comm_excess(hw, hbm, received, a2a)


def shared_shapes(arch, T, tp) -> list[tuple[Any, float, float]]:
    """(m, n, k) of the shared experts' FC1 and FC2 GEMMs of one MoE layer on T tokens (none without them).

    FC1 (gate and up projections, `ffn_mats` - 1 of them) and FC2 over the T tokens, split over tp as the
    attention's TP group splits them (`tp_comm`), as `layer._layer_forward` times them.
    """
    f = arch.shared_experts * arch.expert_ffn
    if not arch.shared_experts:
        return []
    return [(T, (arch.ffn_mats - 1) * f / tp, arch.hidden), (T, arch.hidden, f / tp)]


def shared_overlap(hw: Hardware, job: Job, T, tp, passes, a2a, pace_lost, cost, cost_f):
    """(total, forward) exposed MoE all-to-all time of a layer and micro-batch beside the shared experts' GEMMs.

    `moe_shared_expert_overlap`.
    Megatron-core (megatron/core/transformer/moe/token_dispatcher.py at d98e8a6) launches the shared experts' FC1 on
    their own stream right after the dispatch's token all-to-all and their FC2 after the combine's (alltoall: lines
    657-717 and 860-873; flex, DeepEP and HybridEP: lines 1972-1979), and orders their backward so that the
    all-to-all's gradient is launched first beside their GEMMs' backward (shared_experts.py lines 310-320,
    `_BackwardStreamWait`). Each all-to-all of a forward pass (the forward and a full recompute's, `passes`) shows
    only beyond its GEMM's forward, and each of the backward beyond that GEMM's backward; what hides costs the GEMM
    `lost` of its pace, and the all-to-all keeps `pace` of its own (`pace_lost`: `ep_overlap_cost`, as under
    `overlap_ep_comm`). Assumed, as the code's comments say, that
    the device runs the two streams at once (CUDA_DEVICE_MAX_CONNECTIONS > 1 for FC1; Megatron states no measured
    overlap). The shared experts' sequence-parallel gather and scatter around them are not re-timed.
    """
    fc1, fc2 = (F.gemm_kernel_time(hw, job.precision, m, n, k) for m, n, k in shared_shapes(job.arch, T, tp))
    b1, b2 = (F.gemm_kernel_backward_time(hw, job.precision, m, n, k) for m, n, k in shared_shapes(job.arch, T, tp))
    pace, lost = pace_lost
    fwd = [maximum(0.0, a2a - pace * w) for w in (fc1, fc2)]  # dispatch beside FC1, combine beside FC2
    bwd = [maximum(0.0, a2a - pace * w) for w in (b2, b1)]  # combine's gradient beside FC2's, dispatch's beside FC1's
    shown_f = fwd[0] + fwd[1]
    t = passes * (shown_f + lost * (2.0 * a2a - shown_f)) + bwd[0] + bwd[1] + lost * (2.0 * a2a - bwd[0] - bwd[1])
    return t + cost, shown_f + lost * (2.0 * a2a - shown_f) + cost_f


def dispatch_group(hw: Hardware, job: Job, ep, etp):
    """(ranks, ranks per scale-up domain) of the group an MoE layer's dispatch all-to-all runs over.

    The EP group (members etp ranks apart) for the all-to-all dispatcher; the tp_ep group of etp·ep consecutive
    ranks for the flex dispatchers, deepep and hybridep (`expert_comm`).
    """
    if job.moe_dispatcher == "alltoall":
        return ep, members_per_domain(hw, ep, etp)
    return etp * ep, members_per_domain(hw, etp * ep, 1)


def unpaired_chunks(pp, v, m):
    """Forward chunks (and as many backward) of the busiest rank's step that the EP overlap leaves unpaired.

    One without pipelining (the first forward, the last backward). With pp stages the combined 1F1B pairs only
    the steady state: the interleaved schedule's warmup, (pp - 1)·2 + (v - 1)·pp chunks on the first stage, "add
    one more warmup microbatches for 1f1b overlaping" (megatron/core/pipeline_parallel/schedules.py at 00611e6,
    `get_pp_rank_microbatches`), at most all m·v chunks; its cooldown leaves as many backward chunks. Megatron-core
    refuses the overlap with pp > 1 and no interleaving (transformer_config.py at d98e8a6: "virtual_pipeline_model_
    parallel_size must be specified"); the same formula is applied there (v = 1).
    """
    return where(pp > 1, minimum(m * v, 2.0 * (pp - 1.0) + (v - 1.0) * pp + 1.0), 1.0)
