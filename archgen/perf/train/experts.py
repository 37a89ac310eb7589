"""The routed experts of an MoE layer on one rank, under Megatron-core's MoE parallel folding.

Megatron-core lays the MoE layers' ranks out apart from the attention's (MoE parallel folding, megatron/core/
transformer/moe/README.md "MoE Parallel Folding"; parallel_state.py `initialize_model_parallel` at d98e8a6): a
pipeline stage's tp·cp·dp ranks are, for the experts, etp·ep·edp ranks in the order tp-ep-dp (the expert rank
generator has no cp), with `expert_tensor_parallel_size` etp defaulting to tp. So `ep` need not divide dp: the EP
group may span TP, CP and DP ranks, and only etp·ep must divide tp·cp·dp (world_size % (etp·ep·pp), the
RuntimeError in `initialize_model_parallel`) besides ep dividing the experts (training/arguments.py
"Number of experts should be a multiple of expert model parallel_size").

The all-to-all dispatcher (transformer/moe/token_dispatcher.py `MoEAlltoAllTokenDispatcher`) sends each rank's T/tp
tokens (sequence-parallel) as top_k copies over the EP group, then all-gathers them over the expert-TP group; each
rank then runs its experts / ep experts on T·top_k·etp/tp routed tokens with the expert FFN split etp ways.
"""

from __future__ import annotations

from archgen.perf.comm.group_routing import domains_hit
from archgen.perf.hw import gemm_floor as F
from archgen.perf.hw import kernels as K
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.numeric import where
from archgen.perf.train.job import Job


def expert_forward(hw: Hardware, job: Job, T, tp, ep, etp=None):
    """Forward time of an MoE layer's grouped up and down GEMMs on one rank, for the rank's T attention tokens.

    The tokens arrive balanced from the EP group (NVIDIA's MoE benchmarks force-balance the routing). Each local
    expert's GEMM is its own cuBLAS kernel over Transformer Engine's compute streams, at least the part's GEMM floor
    (`gemm_floor`).
    """
    return _expert_gemms(hw, job, T, tp, ep, etp, _forward)


def expert_backward(hw: Hardware, job: Job, T, tp, ep, etp=None):
    """Backward time of the same GEMMs: each one's input and weight gradients (`kernels.gemm_backward_time`)."""
    return _expert_gemms(hw, job, T, tp, ep, etp, _backward)


def _forward(hw: Hardware, dtype: str, m, n, k, batch):
    """`batch` experts' GEMMs of one shape, as Transformer Engine's grouped GEMM issues them (`gemm_floor`)."""
    return F.gemm_kernel_time(hw, dtype, m, n, k, batch, F.TE_GEMM_STREAMS)


def _backward(hw: Hardware, dtype: str, m, n, k, batch):
    """The input and weight gradients of `_forward`'s GEMMs."""
    return F.gemm_kernel_backward_time(hw, dtype, m, n, k, batch, F.TE_GEMM_STREAMS)


def expert_bytes(job: Job, T, tp, ep, etp=None, fp4: str = "nvfp4"):
    """HBM bytes the same forward GEMMs move once (`kernels.gemm_bytes`: operands and outputs, FP4 in `fp4`)."""
    return _expert_gemms(None, job, T, tp, ep, etp, lambda hw, dt, m, n, k, b: K.gemm_bytes(dt, m, n, k, b, fp4))


def _expert_gemms(hw: Hardware | None, job: Job, T, tp, ep, etp, gemm):
    """`gemm` (a `kernels` GEMM timing) summed over the rank's up and down GEMMs of its local experts."""
    a, dt = job.arch, job.precision
    etp = tp if etp is None else etp
    local = a.experts / ep
    m_e = T * a.top_k * etp / (tp * local)
    return gemm(hw, dt, m_e, (a.ffn_mats - 1) * a.expert_ffn / etp, a.hidden, local) + gemm(
        hw, dt, m_e, a.hidden, a.expert_ffn / etp, local)


def permute_h(top_k, ep=1.0, dispatcher: str = "alltoall", fused: bool = False, experts: int = 0,
              groups: tuple[int, int] = (0, 0)):
    """Forward bytes per token of an MoE layer's token permutation, in units of h (activation dtype).

    The all-to-all dispatcher's permute reads each token and writes its `top_k` copies in expert order (1 + k);
    unpermute reads the k expert outputs and writes their weighted sum (k + 1). With more than one local expert
    (`experts` / ep) it also sorts the k received copies by local expert after the all-to-all and back before the
    combine (Megatron-core token_dispatcher.py at 3097d81, `MoEAlltoAllTokenDispatcher.dispatch_postprocess`
    "Permutation 2" and `combine_preprocess` "Unpermutation 2", `sort_chunks_by_idxs`): 2k more each way. DeepEP and
    HybridEP deliver a token once to each rank that holds one of its experts, ep·(1 - (1 - 1/ep)^top_k) ranks under
    uniform routing (as `ep_exposure.expert_comm` counts nodes; fewer under group-limited routing, `groups`:
    (router_num_groups, router_group_topk), `group_routing.domains_hit` over the ep ranks), and the rank permutes
    what it received: it reads those rows and writes the k copies in expert order, and unpermute reads the k expert
    outputs and writes one row per source rank (Megatron-core token_dispatcher.py at 3097d81:
    `_DeepepManager.get_permuted_hidden_states_by_experts` calls `permute` on the dispatched tokens; HybridEP
    without `moe_permute_fusion_into_hybridep` runs its own permute kernel on the received rows, deepseek-ai/DeepEP
    hybrid-ep 94a9f8f csrc/hybrid_ep/executor/executor.cu `dispatch_postprocess` and `combine_preprocess`). With the
    fusion HybridEP's dispatch and combine kernels write and read the expert-ordered buffer themselves ("Fused
    permute: data already written ... No-op"): nothing.
    """
    if dispatcher == "alltoall":
        return 2.0 * (1.0 + top_k) + where(experts / ep > 1.0, 4.0 * top_k, 0.0)
    if dispatcher == "hybridep" and fused:
        return 0.0
    return 2.0 * (domains_hit(top_k, ep, *groups) + top_k)
