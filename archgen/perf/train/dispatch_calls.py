"""The MoE token dispatcher's per-call host and synchronisation cost, and the part the EP overlap hides.

The per-call figures come from `archgen.perf.comm.dispatcher` (HybridEP's README: API time less kernel time less
its staging copies, and the routing-map all-gather); alltoall and DeepEP publish none (0).

**Without the EP overlap** the dispatch and the combine run on the compute stream. HybridEP's forward dispatch
synchronises the stream it runs on (deepseek-ai/DeepEP at 34152ae, the commit Megatron-LM 2edffad pins:
csrc/hybrid_ep/executor/executor.cu line 86 `at::cuda::getCurrentCUDAStream()`, line 183
`cudaStreamSynchronize(stream)` in `metadata_preprocess_core`), which drains every kernel issued before it, and
the GPU then waits for the host to issue the next: the call's cost is on the critical path whole.

**With `overlap_ep_comm`** (Megatron-core at 3097d81, the commit Megatron-Bridge 26.04-alpha.rc2 pins) each piece
of a layer runs as a `ScheduleNode` inside `torch.cuda.stream(self.stream)` (pipeline_parallel/utils.py lines
287-308, `stream_acquire_context`), the dispatch and the combine on the communication stream
(models/common/model_chunk_schedule_plan.py lines 161-165). So the synchronisation drains the communication stream
only. The host issues a paired layer in `TransformerLayerSchedulePlan.run`'s order (lines 221-245): the other
micro-batch's combine backward, this one's attention forward, the other's MLP backward, then this one's dispatch;
when the host waits there, the compute stream still holds the MLP backward. The call's cost (the synchronisation's
round trip, the host's work in the call and the routing-map all-gather before it, `forward_sync`) then passes on
the communication stream before the dispatch's all-to-all, beside the same window, the MLP backward (2E in
`ep_exposure.expert_comm`). No kernel of the call contends with the compute while it passes (the host's time has
none; the all-gather is NCCL's, which keeps its pace), so the window hides it whole, and what is left of the
window hides `pace` times itself of the all-to-all (`sync_shown`). The forward combine and both backward calls do
not synchronise; their fixed cost stays on the critical path, as without the overlap (not re-examined here). The
profile of the Bridge card's A/B (tests/perf/data/bridge-moe-overlap-profile.yaml) agrees in direction: the
host's time inside HybridEP's metadata preprocessing, which ends in the synchronisation, falls from 1.01 to
0.22 ms a call with the overlap on, while the rest of the dispatch call (its NVTX range encloses the
preprocessing: hybrid_ep_buffer.py line 339) stays at 0.37 / 0.36 ms.

**Whole-iteration CUDA graphs** (`cuda_graphs` full_iteration) replay every call from one graph: no host work per
call and no synchronisation (a capture cannot hold one, `host.synchronised`). A captured HybridEP must run
non-blocking: Megatron-core gives it the permuted-token budget from `moe_expert_rank_capacity_factor`
(token_dispatcher.py at 3097d81 lines 1033-1041, `setup_metadata`), and with `num_permuted_tokens` given
`HybridEPDispatch.forward` runs `non_blocking` (fused_a2a.py lines 410-412: "we do not need to use sync"); the
recipes that capture the whole iteration set that factor (tests/perf/data/bridge-card-qwen3-30b.yaml, 1.5). So there
the fixed costs, which are host and synchronisation time, are 0, and only the routing-map all-gather, GPU work that
the graph keeps, is left.
"""

from __future__ import annotations

from archgen.perf.comm.dispatcher import fixed_costs
from archgen.perf.comm.racks import group_times
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.numeric import maximum
from archgen.perf.train.job import Job


def forward_sync(hw: Hardware, job: Job, tokens, ep, k_ep, etp=1.0):
    """Cost of one forward dispatch call before its all-to-all (s): HybridEP's fixed cost and routing-map gather.

    The routing map is all-gathered over the dispatch group (one byte per token and expert: `ep` ranks, `k_ep` per
    domain, the tp_ep group's map with `etp` columns per expert; executor.cu `allgather_routing_map`); the fixed
    cost is 0 under whole-iteration graphs (module docstring); 0 for the other dispatchers, which publish no figure.
    """
    if job.moe_dispatcher != "hybridep":
        return 0.0
    # the tp_ep group's consecutive ranks (stride 1): the rack hop only where a group crosses racks
    (gather,) = group_times(hw, (("all_gather", ep * tokens * job.arch.experts * etp),), ep, k_ep)
    if job.cuda_graphs == "full_iteration":  # replayed: no host work, no synchronisation (module docstring)
        return gather
    disp, _ = fixed_costs(ep, ep / k_ep)
    return disp + gather


def dispatcher_cost(hw: Hardware, job: Job, tokens, ep, k_ep, passes, etp=1.0, sync=None):
    """The token dispatcher's per-call host and synchronisation cost of one MoE layer per micro-batch: (all, forward).

    `forward` is the part the first forward pass's dispatch and combine take (the rest is the recompute's and the
    backward's).

    With `moe_dispatcher` hybridep each forward dispatch (`passes` of them: the forward and any recompute) pays
    `forward_sync`, and every other call (the forward combines and the two backward calls) HybridEP's fixed combine
    cost (0 under whole-iteration graphs); alltoall and deepep publish no figure (0). Without the EP overlap all of
    it is on the critical path (a stream synchronisation drains the one stream); with it `ep_exposure.expert_comm`
    moves the forward dispatch's part into its window (`sync_shown`), from the same `sync` (`forward_sync`'s value,
    which a caller that has it passes rather than have it worked out twice; computed here without).
    """
    if job.moe_dispatcher != "hybridep":
        return 0.0, 0.0
    _, comb = fixed_costs(ep, ep / k_ep)
    comb = 0.0 if job.cuda_graphs == "full_iteration" else comb  # replayed: no host work (module docstring)
    sync = forward_sync(hw, job, tokens, ep, k_ep, etp) if sync is None else sync
    return passes * sync + (passes + 2.0) * comb, sync + comb


def sync_shown(a2a, window, pace, sync):
    """Exposed time of a forward dispatch beside a compute `window` (s): its `sync`, then its all-to-all `a2a`.

    Both run on the communication stream, the synchronisation first, hidden by the window while it lasts; the
    all-to-all then keeps `pace` of its own beside the rest of the window (module docstring):
    max(sync - window, 0) + max(a2a - pace·max(window - sync, 0), 0). With `sync` 0 this is the all-to-all's own
    exposure, max(a2a - pace·window, 0).
    """
    rest = maximum(window - sync, 0.0)
    return maximum(sync - window, 0.0) + maximum(a2a - pace * rest, 0.0)
