"""Host time: the CPU work of issuing a layer's GPU operations, and when it, not the GPU, sets the pace.

PyTorch runs eagerly: for every operation the host runs Python, PyTorch's dispatcher and the CUDA launch, and only
then can the GPU start it. The host runs ahead of the GPU asynchronously, so its time is hidden while each
operation takes the GPU longer than the host takes to issue it, and sets the pace where it does not (small kernels
of small experts at micro-batch 1). The model counts the operations one rank issues per layer and micro-batch
(`layer_ops`), charges each `Job.host_op` (`launch.HOST_OP_TIME` unless a range asks for another), and takes the
larger of that host time and the layer's GPU time (`host_excess`): the host-bound part is what the host time
exceeds the GPU's by.

**Cost per operation** (`HOST_OP_TIME`): 13.48 µs, the CPU time of one `torch.nn.Linear` forward (one eager
PyTorch operation that launches one cuBLAS GEMM; BF16, hidden 2,048, 8,192 tokens) on an H100 DGX, whose host is
an Intel Xeon Platinum 8480C (NVIDIA/TransformerEngine issue #2053, "[PyTorch] High CPU overhead on Grace
systems", 2025-08-11, table: CPU runtime per Linear forward). The same table measures 37.08 µs on GB200 and 33.17
µs on GH200 (Grace hosts); the catalog does not say which CPU hosts an accelerator, so every accelerator takes the
x86 figure, the low end for Grace systems. Operations launched from C++ inside an extension (Transformer Engine's
per-expert quantisation and GEMM loops) skip Python and the dispatcher; the CPU side of a launch alone is "usually
... between 5-20 microseconds" (facebookresearch/HolisticTraceAnalysis docs/source/features/
cuda_kernel_launch_stats.rst, "Short GPU kernels"; `LAUNCH_RANGE`), so 13.48 µs lies inside what one launch
costs, and the whole range is tested (tests/perf/test_host.py). Python work that launches nothing (quantizer
set-up, autograd bookkeeping) and the kernels not counted below come on top.

**Operations counted** (per layer and micro-batch, one rank; Megatron-core at 3097d81, the commit Megatron-Bridge
26.04-alpha.rc2 pins, with Transformer Engine's layer spec):

* Attention block, forward: the input norm and the QKV GEMM (`TELayerNormColumnParallelLinear`: 2), the attention
  core (1), the output projection (1), the residual add (1): 5. Backward: each GEMM's data and weight gradient (4),
  the norm's (1), the attention core's (1), the residual gradient's sum (1): 7. A model with rotary position
  embeddings (`Arch.rope`) adds the rotary embedding of the query and of the key (attention.py
  `apply_rotary_pos_emb`, once each: 2 forward, 2 backward; unfused `ROPE_UNFUSED_OPS`); one with QK norms
  (`Arch.qk_norm`) its TE RMSNorm on the query and on the key (2 and 2). A model that states neither gets neither.
* Dense MLP, forward: the norm and FC1 (`TELayerNormColumnParallelLinear`: 2), the fused SwiGLU/GeLU (1), FC2 (1),
  the residual add (1): 5; backward: 4 GEMMs, the norm, the activation and the residual sum: 7.
* MoE MLP, forward: the pre-MLP norm (`TENorm`: 1), the router's GEMM and its fused top-k/softmax (2), the
  permutation and the unpermutation (2; none with `permute_in_dispatch`, HybridEP permutes in its kernels), the
  activation (1), the residual add (1), and per local expert (experts / ep) its FC1 and FC2 GEMMs: TE's
  `GroupedLinear` launches one cuBLAS GEMM per expert (transformer_engine/common/gemm/cublaslt_gemm.cu at f031cf87,
  `multi_stream_cublas_gemm`: `for (int i = 0; i < num_gemms; i++)` ... `nvte_cublas_gemm_v2`), so 2 per local
  expert; shared experts add their FC1, activation and FC2 (3). Backward: the norm (1), the router's two GEMM
  gradients and the routing's (3), the permutations' (2 or 0), the activation (1), the residual sum (1), 4 GEMMs per
  local expert, and 5 for shared experts.
* Quantisation kernels of FP8/FP4 training, as `quant.layer_kernels` counts them (one set per local expert slice).
* The all-to-all dispatcher's own calls (`A2A_*`, `dispatcher_kernels`, `dispatcher_calls`; Megatron-core
  token_dispatcher.py at 2edffad, the commit Megatron-Bridge 26.04.01 (2b82f6f17, r0.4.0) pins, whose
  `MoEAlltoAllTokenDispatcher` is 3097d81's line for line; `moe_permute_fusion` on, as Megatron-Bridge's Qwen3 MoE
  recipes set it, src/megatron/bridge/recipes/qwen/qwen3_moe.py line 77 at 2b82f6f17; dropless, ep > 1). Forward,
  before the synchronisation (`preprocess`, lines 513-566): `routing_map.sum(dim=0)`, `.long()`, the input splits'
  `.sum(axis=1)`, the local experts' slice `.contiguous()` and the three sums of the output splits, the splits
  per TP rank and the tokens per local expert: 7 kernels; the all-gather of the token counts over the tp-ep group
  (`gather_from_sequence_parallel_region`: 1 call); `_maybe_dtoh_and_synchronize` at "before_permutation_1" copies
  `tokens_per_expert`, `input_splits`, `output_splits` and `output_splits_tp` to the host (4 copies; the fifth,
  `num_global_tokens_per_local_expert`, only without the fusion). After it: the all-to-alls of the tokens and of
  the probabilities (`token_dispatch`: 2), with more than one local expert `sort_chunks_by_idxs` of both
  (Permutation 2), and before the combine its inverse (Unpermutation 2) and the combine's all-to-all (1).
  Transformer Engine's fused functions (transformer_engine/pytorch/permutation.py and triton/permutation.py at
  366798ef, the commit Megatron-Bridge 26.04.01 pins in pyproject.toml) launch one Triton kernel each, from
  Python, but for two: the permutation's `make_row_id_map` runs three passes before its permute kernel (3 more
  than `PERMUTE_OPS` counts, forward; the backward reuses the map), and each chunk sort `make_chunk_sort_map`
  before `sort_chunks_by_map` (2 each forward, 1 backward). Backward: each all-to-all's (3) and each sort's (2).
  The kernels count for the GPU's fixed cost too (`layer_kernels`); the collectives' and copies' GPU time is in
  the communication's measured rates. HybridEP's host and synchronisation cost per call is
  `dispatch_calls.dispatcher_cost`, from its README; DeepEP publishes none (0), and its permutation's row map
  (the same fused `permute`) is not counted there.
* The router's load-balancing loss and, with `moe_force_balance`, its random logits (`router.router_kernels`:
  5 forward and 5 backward, and 2 forward; each an eager call, captured by a `moe_router` graph).
* Not counted: copies and casts outside these calls, allocations, stream events
  and `record_stream`. So the count is a lower bound of the operations.
* A full recompute issues the forward again; a selective one the attention core.

**When the host binds.** The host runs ahead of the GPU only up to the next device-to-host synchronisation: a
synchronisation returns when the GPU has finished everything issued before it, and the GPU then idles until the
host issues the next kernel. So time the host banks before one is lost, and each stretch between two
synchronisations takes at least the larger of its host and its GPU time. The model counts the synchronisations per
layer and pass from the code (Megatron-core 3097d81, DeepEP 94a9f8f; `SYNCS`): every MoE layer's forward
dispatch synchronises once, whatever the dispatcher, and the backward never does:

* alltoall (`MoEAlltoAllTokenDispatcher`, token_dispatcher.py): `preprocess` sets `cuda_sync_point` to
  "before_ep_alltoall" when ep or tp > 1 ("before_finish" otherwise, "before_permutation_1" with a capacity
  factor or router padding; none with drop-and-pad); `_maybe_dtoh_and_synchronize` copies the split sizes and
  token counts to the host on a side stream and waits for them there (`self.d2h_event.synchronize()`). The
  backward's all-to-alls reuse the host-side split sizes.
* hybridep (`_HybridEPManager.dispatch`): dropless training without `moe_expert_rank_capacity_factor` leaves
  `num_permuted_tokens` None, so fused_a2a.py `HybridEPDispatch.forward` runs with `non_blocking` False and
  HybridEP's metadata preprocessing ends in `cudaStreamSynchronize(stream)` (csrc/hybrid_ep/executor/executor.cu,
  `metadata_preprocess_core`) to read the per-expert counts from pinned memory. The forward combine and both
  backward calls pass the handle and the count: no synchronisation.
* deepep (fused_a2a.py `FusedDispatch.forward`: "the CPU will wait for GPU's signal to arrive", for
  `num_recv_tokens_per_expert_list`); the backward reuses the handle's layout.
* The experts then read the counts as a list (experts.py `tokens_per_expert.tolist()`) of a host tensor: no
  further synchronisation. Dense layers have none.

So a model with MoE layers takes, per layer and micro-batch, the forward's stretch (below) plus max(host, GPU) of
the backward with its recompute (`host_excess`): the forward has one stretch per MoE layer (its layers alike, per
average layer the forward's own queue); the backward has no synchronisation and is one stretch (per layer its
maximum), and with a full recompute each layer's re-run dispatch synchronises again, so each layer's recompute and
backward form one stretch (the same expression). A dense model never synchronises inside the step, so its host
banks the backward's slack for the forward: max(host, GPU) of the whole layer. The GPU time of each pass includes
the communication it waits for (`layer.layer_times` splits TP, CP and EP communication by pass). The
synchronisation's own round trip (the host waking, the next launch reaching the idle GPU) is in HybridEP's measured
per-call cost (`dispatch_calls.dispatcher_cost`); alltoall and DeepEP publish none: 0.

**The order inside a stretch** (`queue_time`, `forward_stretch`). A CUDA stream is a queue: after a
synchronisation the GPU starts when the first launch lands, and a stretch ends at max_k (H_k + G_k..n), H_k the host
time until operation k is issued and G_k..n the GPU time from k on (at least max(host, GPU), at most their sum). The
forward's stretch runs, in Megatron-core 3097d81's order, the dispatch all-to-all (with the all-to-all dispatcher,
its calls after the synchronisation, `dispatcher_parts`), the experts (each local expert's FC1 and FC2 GEMMs, their
quantisation kernels, the activation), the combine all-to-all (its calls before it), then the unpermutation, the
residual, the next layer's attention block, norm, router and permutation up to its dispatch's synchronisation. Each
part's operations are taken as alike (the order inside is not known), so the maximum falls on a part's first or last
operation; the dispatch and the combine take half of the forward's all-to-all time each (no source splits it). The
host-heavy experts come right after the synchronisation, while the GPU has only the dispatch to run, so a small-
expert layer waits for its own launches even where the forward's host time is below its GPU time. The backward
holds no synchronisation and keeps max(host, GPU) per layer. Not modelled: with `overlap_ep_comm` Megatron-core's
schedule plan (model_chunk_schedule_plan.py) issues another micro-batch's backward pieces between these parts, so
the stretch holds a layer's forward and a layer's backward in an interleaved order; the forward's own order is kept.
Nor that the dispatch then runs on the communication stream, so its synchronisation drains that stream only while
the compute stream holds the other micro-batch's MLP backward (`dispatch_calls`): where the host binds under the
overlap (DeepEP's in-node H100 row, tests/perf/test_ep_inside_node.py), the stretch's wait is an upper end.

**CUDA graphs** (`cuda_graphs`, Megatron-core at 3097d81). With `cuda_graph_impl` transformer_engine a layer's
graphed scopes form one graph (transformer_layer.py `_te_cuda_graph_capture`: the attention block with `attn`, then
`_forward_mlp` up to the router's output with `moe_router`, or to the dispatcher's preprocessing with
`moe_preprocess`), which Transformer Engine's `make_graphed_callables` replays from one autograd function: one
replay forward, one backward (transformer_engine/pytorch/graph.py, `Graphed.forward` and `Graphed.backward`:
`fwd_graph.replay()`, `bwd_graph.replay()`). So the host issues the captured operations (`attn`: the attention
block's, `attention_ops`; `moe_router`: the pre-MLP norm, the router's GEMM and routing, `ROUTER_OPS`, in MoE layers)
as `GRAPH_LAUNCHES` per pass, each charged `HOST_OP_TIME` (one eager call that launches once; the CPU side of a
launch is inside `LAUNCH_RANGE`). `moe_preprocess` captures `MoELayer.preprocess` (moe_layer.py at 2edffad,
`router_and_preprocess`): for the all-to-all dispatcher its `preprocess` kernels, the counts' all-gather and the
first permutation's forward and backward (`A2A_PREPROCESS`, `A2A_GATHER`, `A2A_ROW_MAP`, 1 of `PERMUTE_OPS` each
way); the device-to-host copies move to "before_ep_alltoall", after the graph, and the synchronisation stays
outside it (token_dispatcher.py `cuda_dtoh_point`). HybridEP's preprocessing launches no counted operation (it is
in its per-call cost), so there `moe_preprocess` changes no count. A graphed attention block's quantisation
kernels (`quant.attention_kernels`) join its graph. `full_iteration` (`cuda_graph_impl` local at 3097d81;
Megatron-Bridge's later recipes set `cuda_graph_impl` full_iteration) captures the forward and backward of the
whole iteration: no per-layer host work, and no synchronisation inside (a capture cannot hold one).
"""

from __future__ import annotations

from typing import Any

from archgen.perf.hw.arch import Arch
from archgen.perf.hw.numeric import NUMBER, maximum, where
from archgen.perf.train.job import Job
from archgen.perf.train.router import router_kernels

#: Operations of one layer and micro-batch outside the experts (see the module docstring): (forward, backward).
ATTENTION_OPS = (5.0, 7.0)
#: The rotary embedding of the query and of the key, and the QK norms: (forward, backward) each, where the model has
#: them (`attention_ops`).
ROPE_OPS = (2.0, 2.0)
#: Unfused (`rope_fusion` false), per query or key (rope_utils.py lines 73-137 at 3097d81): cos, sin and their mscale
#: products, t·cos, -x2, cat, ·sin, the sum and the last cat forward (10; the two casts not counted); backward both
#: products', the negation's, the chunk's cat, two sums, the slices' two zero-fills and one copy (9).
ROPE_UNFUSED_OPS = (20.0, 18.0)
QK_NORM_OPS = (2.0, 2.0)
DENSE_MLP_OPS = (5.0, 7.0)
#: MoE MLP without the experts' GEMMs and the permutation: norm, router GEMM and routing, activation, residual.
MOE_MLP_OPS = (5.0, 6.0)
#: Permutation and unpermutation around the experts (none when HybridEP permutes in its kernels).
PERMUTE_OPS = (2.0, 2.0)
#: GEMMs of one expert: FC1 and FC2 forward; their data and weight gradients backward.
EXPERT_GEMMS = (2.0, 4.0)
#: Shared experts: FC1, activation, FC2 forward; 4 GEMM gradients and the activation's backward.
SHARED_OPS = (3.0, 5.0)
#: The all-to-all dispatcher's own operations per MoE layer and micro-batch (module docstring, Operations counted):
#: `preprocess`'s kernels, the token counts' all-gather and the device-to-host copies before the synchronisation
#: (forward only), its all-to-alls (tokens and probabilities, combine; each one's backward) and, with more than one
#: local expert, the fused chunk sorts (Permutation 2 and Unpermutation 2; each one's backward).
A2A_PREPROCESS = 7.0
A2A_GATHER = 1.0
A2A_COPIES = 4.0
A2A_CALLS = (3.0, 3.0)
A2A_SORTS = (4.0, 2.0)
#: Transformer Engine's fused permutation builds its row map in three kernel passes before the permute kernel
#: (`make_row_id_map`), forward only: 3 more than the 1 `PERMUTE_OPS` counts.
A2A_ROW_MAP = 3.0
#: Device-to-host synchronisations of one MoE layer's (forward, backward) by `moe_dispatcher`, dropless: the forward
#: dispatch waits for the token counts under each (module docstring, When the host binds); the backward reuses them.
SYNCS = {"alltoall": (1.0, 0.0), "deepep": (1.0, 0.0), "hybridep": (1.0, 0.0)}


#: Operations of Megatron-core's `moe_router` CUDA-graph scope in an MoE layer: the pre-MLP norm, the router's GEMM
#: and its routing forward (3); the norm's gradient and the router's three backward (4).
ROUTER_OPS = (3.0, 4.0)
#: Host calls that replay a layer's captured scopes, per pass: TE's `Graphed` autograd function replays one forward
#: and one backward graph (transformer_engine/pytorch/graph.py).
GRAPH_LAUNCHES = 1.0


def dispatcher_kernels(job: Job, ep) -> tuple[Any, Any]:
    """Kernels of the all-to-all dispatcher's own per MoE layer and micro-batch: (forward, backward).

    `preprocess`'s (`A2A_PREPROCESS`), the permutation's row map (`A2A_ROW_MAP`) and, with more than one local
    expert (experts / `ep`), the chunk sorts (`A2A_SORTS`); with ep 1 `preprocess` issues 2 (no splits to
    compute: `routing_map.sum` and `.long()`); none for the other dispatchers (module docstring, Operations
    counted).
    """
    if job.moe_dispatcher != "alltoall":
        return 0.0, 0.0
    sorts = where(job.arch.experts / ep > 1.0, 1.0, 0.0)
    return where(ep > 1.0, A2A_PREPROCESS, 2.0) + A2A_ROW_MAP + sorts * A2A_SORTS[0], sorts * A2A_SORTS[1]


def dispatcher_calls(job: Job, ep) -> tuple[Any, Any]:
    """Host calls of the all-to-all dispatcher that launch no counted kernel, per MoE layer and micro-batch.

    (forward, backward): the token counts' all-gather, the device-to-host copies and the all-to-alls (`A2A_GATHER`,
    `A2A_COPIES`, `A2A_CALLS`); with ep 1 only the copy of the tokens per expert. Their GPU time is in the
    communication's rates; the host issues them like any operation (`HOST_OP_TIME`).
    """
    if job.moe_dispatcher != "alltoall":
        return 0.0, 0.0
    multi = where(ep > 1.0, 1.0, 0.0)
    return multi * (A2A_GATHER + A2A_COPIES + A2A_CALLS[0]) + (1.0 - multi), multi * A2A_CALLS[1]


def dispatcher_parts(job: Job, ep) -> tuple[Any, Any]:
    """Of the dispatcher's operations, those issued after the forward's synchronisation: (dispatch, combine).

    Per MoE layer: the tokens' and probabilities' all-to-alls and Permutation 2; Unpermutation 2 and the combine's
    all-to-all (module docstring, Operations counted). 0 for the other dispatchers; with ep 1 the sorts alone.
    """
    if job.moe_dispatcher != "alltoall":
        return 0.0, 0.0
    multi, sort = where(ep > 1.0, 1.0, 0.0), where(job.arch.experts / ep > 1.0, A2A_SORTS[0] / 2.0, 0.0)
    return multi * (A2A_CALLS[0] - 1.0) + sort, multi * 1.0 + sort


def graphed_ops(job: Job, attn_kernels=(0.0, 0.0)) -> tuple[Any, Any]:
    """Counted operations a layer's CUDA graphs take off the host, net of the replays: (forward, backward).

    Per average layer and micro-batch, for the job's `cuda_graphs` scopes (module docstring, CUDA graphs);
    `attn_kernels` are the attention block's quantisation kernels (`quant.attention_kernels`), captured with it.
    """
    scopes = job.graph_scopes
    a = job.arch
    share = a.moe_layers / a.layers
    pre = (A2A_PREPROCESS + A2A_GATHER + A2A_ROW_MAP + PERMUTE_OPS[0] / 2.0, PERMUTE_OPS[1] / 2.0) \
        if "moe_preprocess" in scopes and job.moe_dispatcher == "alltoall" else (0.0, 0.0)  # `MoELayer.preprocess`
    rk = router_kernels(a, job.moe_force_balance)  # run inside `TopKRouter.forward`: captured with it
    attn, router = "attn" in scopes, "moe_router" in scopes  # (the two passes written out: no generator, issue 25)
    att = attention_ops(a, job.rope_fusion)
    fwd = (att[0] + attn_kernels[0] if attn else 0.0) \
        + (share * (ROUTER_OPS[0] + rk[0] + pre[0]) if router else 0.0)
    bwd = (att[1] + attn_kernels[1] if attn else 0.0) \
        + (share * (ROUTER_OPS[1] + rk[1] + pre[1]) if router else 0.0)
    if fwd == 0.0:
        return 0.0, 0.0
    launches = (1.0 if "attn" in scopes else share) * GRAPH_LAUNCHES  # only MoE layers are graphed by moe_router
    return fwd - launches, bwd - launches


def attention_ops(a: Arch, fused: bool = True) -> tuple[float, float]:
    """Attention block operations (forward, backward): `ATTENTION_OPS`, rotary embedding (`fused`), QK norms."""
    rope, norm = (1.0 if a.rope else 0.0), (1.0 if a.qk_norm else 0.0)
    ro = ROPE_OPS if fused else ROPE_UNFUSED_OPS
    return (ATTENTION_OPS[0] + rope * ro[0] + norm * QK_NORM_OPS[0],
            ATTENTION_OPS[1] + rope * ro[1] + norm * QK_NORM_OPS[1])


def layer_kernels(job: Job, ep, kernels) -> tuple[Any, Any]:
    """Kernels one rank's GPU runs per layer and micro-batch (average layer): (forward, backward).

    The operations the module docstring counts, one kernel each, with the quantisation kernels `kernels`
    (`quant.layer_kernels`), whatever the CUDA graphs: a replayed graph launches its kernels too. `layer.layer_times`
    charges each `kernels.KERNEL_OVERHEAD`. Where this differs from a profile's kernel count: the dispatcher's and the
    TP/CP collectives' kernels are not counted here (their measured rates hold their fixed costs), nor the casts (as
    for the host), so it is a lower bound.
    """
    a = job.arch
    dense = 1.0 - a.moe_layers / a.layers  # (the two passes written out: no generator, issue 25)
    att = attention_ops(a, job.rope_fusion)
    fwd, bwd = att[0] + dense * DENSE_MLP_OPS[0], att[1] + dense * DENSE_MLP_OPS[1]
    if a.moe_layers:
        share, local = a.moe_layers / a.layers, a.experts / ep
        shared = 1.0 if a.shared_experts else 0.0
        permute = 0.0 if job.permute_in_dispatch else 1.0
        own, rk = dispatcher_kernels(job, ep), router_kernels(a, job.moe_force_balance)
        fwd, bwd = (x + share * (MOE_MLP_OPS[i] + permute * PERMUTE_OPS[i] + local * EXPERT_GEMMS[i]
                                 + shared * SHARED_OPS[i] + own[i] + rk[i]) for i, x in enumerate((fwd, bwd)))
    return fwd + kernels[0], bwd + kernels[1]


def layer_ops(job: Job, ep, kernels, attn_kernels=(0.0, 0.0)) -> tuple[Any, Any]:
    """Operations one rank issues per layer and micro-batch (average layer): (forward, backward).

    `ep` is the expert-parallel size (the local experts are experts / ep), `kernels` the quantisation kernels
    (forward, backward) `quant.layer_kernels` counts for the job, and `attn_kernels` the attention block's share of
    them (`quant.attention_kernels`). Eagerly, one per kernel `layer_kernels` counts and per dispatcher call
    (`dispatcher_calls`); CUDA graphs (`cuda_graphs`) replace their scopes' operations by one replay per pass;
    `full_iteration` leaves none.
    """
    return issued(job, with_calls(job, ep, layer_kernels(job, ep, kernels)), attn_kernels)


def with_calls(job: Job, ep, counts) -> tuple[Any, Any]:
    """The layer's kernels `counts` (forward, backward) with the dispatcher's host calls of its MoE layers."""
    a, calls = job.arch, dispatcher_calls(job, ep)
    share = a.moe_layers / a.layers
    return counts[0] + share * calls[0], counts[1] + share * calls[1]


def issued(job: Job, counts, attn_kernels=(0.0, 0.0)) -> tuple[Any, Any]:
    """`layer_ops` from the layer's kernels `counts` (forward, backward), as `layer_kernels` counts them."""
    if job.cuda_graphs == "full_iteration":
        return 0.0, 0.0
    saved = graphed_ops(job, attn_kernels)
    return counts[0] - saved[0], counts[1] - saved[1]


def host_time(job: Job, counts, rc, attn_kernels=(0.0, 0.0)):
    """Host time of one layer and micro-batch (s): (forward, backward with the recompute code `rc`'s re-run).

    `counts` are the layer's operations (`layer_kernels`, which `layer.layer_times` has already counted for
    their GPU cost, `with_calls` the dispatcher's calls), `attn_kernels` as `layer_ops` takes them.
    """
    fwd, bwd = issued(job, counts, attn_kernels)
    # full: the forward again; selective: the core (one layout's code and counts: branches, issue 25)
    again = (fwd if rc == 2 else 1.0 if rc == 1 else 0.0) if isinstance(rc, int) and isinstance(fwd, NUMBER) else \
        where(rc == 2, fwd, where(rc == 1, 1.0, 0.0))
    return job.host_op * fwd, job.host_op * (bwd + again)


def synchronised(job: Job) -> bool:
    """Whether the layers' forward synchronises with the host (`SYNCS`: every MoE layer's dispatch)."""
    if job.cuda_graphs == "full_iteration":  # a captured iteration holds no synchronisation
        return False
    return job.arch.moe_layers > 0 and SYNCS[job.moe_dispatcher][0] > 0


def queue_time(segments):
    """Time from a synchronisation until the GPU has run `segments`, issued in order by one host thread (s).

    `segments` are (operations, host time, GPU time) in launch order; within a segment every operation takes the
    same host and GPU time (the order inside is not known). A CUDA stream is a queue: after a synchronisation the
    GPU starts when the first launch lands, and the stretch ends at max_k (H_k + G_k..n), H_k the host time until
    operation k is issued and G_k..n the GPU time from k on. Inside a uniform segment that expression is linear in
    k, so its maximum is at the segment's first or last operation. A segment of no counted operation (a collective
    the dispatcher launches, whose host cost is its per-call cost elsewhere) starts when the host reaches it.
    """
    gpu_after = [0.0] * len(segments)
    rest = 0.0
    for j in range(len(segments) - 1, -1, -1):
        gpu_after[j] = rest
        rest = rest + segments[j][2]
    t, before = rest, 0.0  # the first segment launched at once: the whole GPU time
    for (n, h, g), after in zip(segments, gpu_after, strict=True):
        some = n > 0
        each_h, each_g = where(some, h / maximum(n, 1.0), 0.0), where(some, g / maximum(n, 1.0), g)
        t = maximum(t, before + each_h + g + after)          # its first operation
        t = maximum(t, before + h + each_g + after)          # its last
        before = before + h
    return t


def forward_stretch(job: Job, ep, host_f, gpu_f, experts, ep_f, quant=0.0, overhead=0.0):
    """GPU-side time of a layer's forward between two synchronisations, as the queue `queue_time` runs it (s).

    The stretch starts at a MoE layer's dispatch synchronisation and ends at the next layer's: the dispatch
    all-to-all, the experts (each local expert's GEMMs and quantisation kernels `quant`, the activation), the
    combine all-to-all, then the unpermutation, the residual, the next layer's attention block, norm, router and
    permutation (Megatron-core 3097d81 `MoELayer.forward`; token_dispatcher.py: the synchronisation
    "before_ep_alltoall" follows the first permutation; average layer, MoE share of it). `host_f` and
    `gpu_f` are the pass's host and GPU times, `experts` the experts' GEMM and input-cast time (`experts.
    expert_forward`, `quant.expert_forward_bytes`; per MoE layer), `ep_f` the forward's exposed all-to-all time,
    `overhead` each kernel's fixed GPU cost. The all-to-all dispatcher issues its calls after the synchronisation
    (`dispatcher_parts`) with the dispatch and the combine. Stated assumptions (no source splits them): the dispatch
    and the combine take half of `ep_f` each; the activation's memory time is counted with the rest, after the
    experts (so the wait is at most that much too long).
    """
    a = job.arch
    share = a.moe_layers / a.layers
    n_e = share * (a.experts / ep * EXPERT_GEMMS[0] + 1.0 + quant)  # GEMMs, activation, their quantisation
    op = job.host_op
    h_e, g_e = op * n_e, share * experts + n_e * overhead
    n_d, n_c = (share * x for x in dispatcher_parts(job, ep))  # the dispatcher's calls around the experts
    sorts = share * where(a.experts / ep > 1.0, A2A_SORTS[0] / 2.0 * overhead, 0.0) \
        if job.moe_dispatcher == "alltoall" else 0.0  # each chunk sort's kernels' fixed cost
    n_r = host_f / op - n_e - n_d - n_c
    return queue_time(((n_d, op * n_d, ep_f / 2.0 + sorts), (n_e, h_e, g_e), (n_c, op * n_c, ep_f / 2.0 + sorts),
                       (n_r, host_f - h_e - op * (n_d + n_c), gpu_f - ep_f - g_e - 2.0 * sorts)))


def host_excess(host, gpu, synced: bool, queue=None):
    """What issuing a layer and micro-batch takes beyond its GPU time (0 where the GPU is slower).

    `host` and `gpu` are (forward, backward with recompute) times. `synced`: the forward synchronises in every MoE
    layer, so each pass is bound on its own; otherwise the host's slack in one pass hides its excess in the other.
    `queue`: the synchronised forward's stretch as the stream's queue runs it (`forward_stretch`; at least the
    larger of its host and GPU time), where the order is known; without it the larger of the two.
    """
    (h_f, h_b), (g_f, g_b) = host, gpu
    if synced:
        fwd = maximum(h_f, g_f) if queue is None else queue
        return fwd - g_f + maximum(h_b - g_b, 0.0)
    return maximum(h_f + h_b - g_f - g_b, 0.0)
