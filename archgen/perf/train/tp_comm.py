"""Tensor-parallel communication of a training layer: what each collective carries and what of it stays exposed.

Each TP-split pair of linear layers (QKV and the projection; FC1 and FC2) with sequence parallelism runs five
collectives of the T x h activation per micro-batch, as Transformer Engine's `Linear`/`LayerNormLinear` run them
(NVIDIA/TransformerEngine at d0067d0, transformer_engine/pytorch/module/linear.py) and Megatron-core's own
column-parallel layer (NVIDIA/Megatron-LM at d98e8a6, megatron/core/tensor_parallel/layers.py, lines 666-712):

* forward: the column-parallel layer all-gathers its input, the row-parallel one reduce-scatters its output;
* backward: the row-parallel layer all-gathers its output gradient before its dgrad; the column-parallel layer
  all-gathers its input again for its wgrad ("async_op=True" before the dgrad GEMM, waited on before the wgrad:
  linear.py lines 992-999 and 1173) and reduce-scatters its dgrad beside its wgrad (lines 1123-1133, waited on at
  1351; Megatron-core: "we rely on CUDA_DEVICE_MAX_CONNECTIONS=1 to ensure that the gather is scheduled before the
  input gradient computation", "the reduce scatter is scheduled before the weight gradient computation").

Bytes (`gather_bytes`): reduce-scatters carry 16-bit values. Under an FP8 or FP4 recipe every all-gather carries
the quantised tensor: TE quantises before it gathers (`gather_along_first_dim(..., quantizer=...)`, linear.py
lines 378-411; `grad_output_preprocess`, module/base.py lines 1719-1751). Per-tensor FP8 (`delayed`, `tensorwise`)
gathers the row-wise data only and builds the transpose after (transformer_engine/pytorch/distributed.py
`_all_gather_fp8`, lines 989-1080: "we cannot directly gather the transposed fp8 tensor"). MXFP8, NVFP4 and FP8
block scaling gather each usage the quantizer asks for, data and block scales (`_all_gather_mxfp8`, lines 1527-1665;
`_all_gather_nvfp4`; at f031cf87 `_start_all_gather_fp8_blockwise`, lines 1071-1218, one all-gather per usage):
one usage for the forward input (row-wise, linear.py line 406) and the wgrad's input (column-wise,
module/_common.py `set_quantizer_usage_for_wgrad_all_gather`), both for the output gradient without userbuffers
(linear.py line 905: `set_usage(rowwise=True, columnwise=True)`). With userbuffers every all-gather buffer is FP8
(`fp8_buf` for the layers of `layers_all_gather_overlap`, base.py lines 336-344 and 391) and holds one usage
(`fill_userbuffers_buffer_for_all_gather`: "Userbuffers can only communicate one MXFP8 buffer at a time"); under
MXFP8 the row-parallel wgrad needs the column-scaled output gradient, which cannot be made from the row-scaled one
it gathered, so a second, column-wise all-gather runs (linear.py lines 1185-1215, layernorm_mlp.py lines 1316-1346).
TE's userbuffers take no NVFP4 or FP8 block-scaled tensor (`fill_userbuffers_buffer_for_all_gather` raises
"Unsupported quantizer for Userbuffers", base.py line 754), so under NVFP4 and `blockwise` no userbuffers overlap
runs whatever `overlap_tp_comm` says (`tp_layer`; a stated true is refused,
`archgen.model.training_rules.tp_overlap_problem`): the collectives run as without it, the column-parallel
backward's async pairs included.
"""

from __future__ import annotations

import numpy as np

from archgen.model.training_rules import NO_USERBUFFERS
from archgen.perf.comm.collectives import members_per_domain
from archgen.perf.comm.racks import group_times
from archgen.perf.hw import kernels as K
from archgen.perf.hw import quant as Q
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.kernels import ACT_BYTES
from archgen.perf.hw.numeric import NUMBER, maximum, minimum, where
from archgen.perf.train import contention as C
from archgen.perf.train.exposure import NCCL_CTAS, PIPELINE_SPLITS, UB_COMM_SMS, sm_kept
from archgen.perf.train.job import Job

#: Compute streams a userbuffers overlap launches its GEMM's chunks on, round-robin: min(3, splits)
#: (`NVTE_COMM_OVERLAP_MAX_STREAMS` 3, NVIDIA/TransformerEngine at d0067d0, transformer_engine/common/include/
#: transformer_engine/comm_gemm_overlap.h line 20; `CommOverlapCore::initialize`, comm_gemm_overlap.cpp lines 130-134;
#: passed as `_NUM_MAX_UB_STREAMS`, transformer_engine/pytorch/cpp_extensions/gemm.py line 37).
UB_STREAMS = 3.0


def chunk_gemm(hw: Hardware, dtype: str, T, splits, n, k):
    """Time one of `splits` row chunks of a T-row GEMM (T x k by k x n) takes as TE's userbuffers run them.

    TE launches chunk i on compute stream i mod `UB_STREAMS`, and a chunk waits only for its own input: `pipeline`'s
    chunks for nothing but the layer's input (comm_gemm_overlap.cpp at d0067d0, `split_overlap_rs`, lines 718-731),
    `ring_exchange`'s for the ring step that brings its rows (`split_overlap_ag`, lines 1175-1198). Whether the
    streams run at once is the launch's `CUDA_DEVICE_MAX_CONNECTIONS`:

    * before Blackwell (compute capability below 10) the stacks run one hardware queue with TP: Megatron-LM asserts
      CUDA_DEVICE_MAX_CONNECTIONS=1 with tp > 1 there (megatron/training/arguments.py at d98e8a6, lines 1453-1479:
      "requirement no longer exists since the Blackwell architecture"), and Megatron-Bridge sets 1 "to enforce kernel
      queuing order from host to execution order on GPU" (scripts/performance/perf_plugins.py at 0fbfe7d3e, lines
      228-248). In that one queue a `pipeline` chunk's launch sits behind the previous chunk's reduce-scatter, which
      waits for that chunk's GEMM, and a `ring_exchange` chunk's behind the receive of its rows, whose one-block
      kernel finds an SM as the previous GEMM drains: the chunks run one after the other, each on the tile and wave
      ramp of its own T / splits rows (`kernels.gemm_time`);
    * from Blackwell on, Megatron-Bridge sets 32 connections "to avoid serialization of streams" (the same lines):
      up to s = min(3, splits) chunks run at once, and the ramp applies to the rows in flight together,
      g(s T / splits) / s. The chunks were timed one after the other here too before (tp 8, 2,048 tokens: 256-row
      chunks at 0.67 of the rate, where the streams' 768 rows run at 0.86, on the default 128-row ramp).
    """
    s = where(np.asarray(hw.compute_capability) >= 10.0, minimum(UB_STREAMS, splits), 1.0)
    return K.gemm_time(hw, dtype, s * T / splits, n, k) / s


def gather_bytes(rec: str | None, usages: float = 1.0) -> float:
    """Bytes per element of a TP all-gather under recipe `rec` (None: 16-bit) carrying `usages` copies.

    Per-tensor FP8 gathers one row-wise copy whatever the usages; MXFP8 and NVFP4 gather each copy with its block
    scales (`quant.FORMAT_BYTES`).
    """
    if rec is None:
        return ACT_BYTES
    if rec in ("delayed", "tensorwise"):
        return Q.FORMAT_BYTES[rec]
    return usages * Q.FORMAT_BYTES[rec]


def two_usages(rec: str | None) -> bool:
    """Whether the recipe's wgrad needs a copy of its own of a gathered tensor (block-scaled recipes)."""
    return rec is not None and rec not in ("delayed", "tensorwise")


def tp_times(hw: Hardware, rec: str | None, tokens, hidden, tp):
    """(16-bit all-reduce, 16-bit reduce-scatter, one-usage gather, two-usage gather) of T x h over `tp` ranks.

    The two-usage gather is what the output gradient's all-gather carries without userbuffers (one usage under
    per-tensor FP8 and in 16 bits). Each collective is timed as its own operation on its own bytes.
    """
    size = tokens * hidden
    usages = 2.0 if two_usages(rec) else 1.0
    one, both = gather_bytes(rec), gather_bytes(rec, usages)
    requests = (("all_reduce", size * ACT_BYTES), ("reduce_scatter", size * ACT_BYTES), ("all_gather", size * one))
    if both == one:  # one usage's bytes (16 bits, per-tensor FP8): the same gather, timed once
        ar, rs, ag = group_times(hw, requests, tp, members_per_domain(hw, tp, 1))
        return ar, rs, ag, ag
    return tuple(group_times(hw, (*requests, ("all_gather", size * both)), tp, members_per_domain(hw, tp, 1)))



def tp_layer(hw: Hardware, job: Job, T, tp, sp, passes, moe_share, hbm, grads=None):
    """Exposed TP communication of one layer and micro-batch (every forward pass and the backward), seconds.

    Without sequence parallelism: 2 all-reduces of T x h per forward pass and 2 backward, all exposed (as
    before this module). With it, the collectives of `tp_gemms`' GEMMs (module docstring), a MoE layer's shared
    experts among them (its routed experts' expert-TP collectives are the dispatcher's: `ep_exposure.expert_comm`).
    Without userbuffers (`tp_sequence_parallel`; always under
    NVFP4, which TE's userbuffers refuse) what hides runs on the SMs NCCL leaves (nothing hides where
    `job.tp_async_backward` is off: Calculon's `none`); with them
    (`tp_exposed`) the GEMMs pay their chunks and margin (`tp_overlap_cost`). Either way what hides shares the HBM
    with the compute (`contention`; `hbm` the compute's share of its rate). At tp above the KV heads, the QKV
    sub-sharding's all-gather and its backward reduce-scatter add to them, exposed (`subshard_qkv`).
    """
    a, rec, dtype = job.arch, job.recipe, job.precision
    ar, rs, one, both = tp_times(hw, rec, T, a.hidden, tp)
    gemms = tp_gemms(a, tp, moe_share)
    x_tp = C.comm_excess(hw, hbm, 2.0 * T * a.hidden * ACT_BYTES * (1.0 - 1.0 / tp), ar)
    if job.overlap_tp_comm and rec not in NO_USERBUFFERS:  # userbuffers (module docstring; TE refuses some recipes'
        # tensors: `model.training_rules.NO_USERBUFFERS`, a stated true refused there); one-usage FP8
        # buffers, MXFP8's second gather of the output gradient
        second = one if two_usages(rec) else 0.0
        shown = tp_exposed(hw, dtype, T, tp, gemms, passes, rs, one, second)
        total = tp_carried(gemms, passes, one, rs, one, one, second)
        seq = shown + x_tp * (total - shown) + tp_overlap_cost(hw, dtype, T, tp, gemms, passes)
    else:
        shown, hidden = tp_sequence_parallel(hw, dtype, T, gemms, passes, one, rs, both, grads)
        if not job.tp_async_backward:  # Calculon's `none`: every collective blocks (`Job.tp_async_backward`)
            shown, hidden = shown + hidden, 0.0
        seq = shown + (1.0 - sm_kept(hw, NCCL_CTAS) + x_tp) * hidden
    if isinstance(tp, NUMBER) and type(sp) is bool and isinstance(seq, NUMBER) and isinstance(ar, NUMBER):
        shown = (seq if sp else 2.0 * (passes + 1.0) * ar) if tp > 1 else 0.0  # the `where`s below, as branches
    else:
        shown = where(tp > 1, where(sp, seq, 2.0 * (passes + 1.0) * ar), 0.0)
    return shown + subshard_qkv(hw, a, T, tp, passes)


def subshard_qkv(hw: Hardware, a: Arch, T, tp, passes):
    """What Megatron-core's QKV sub-sharding adds at tp above the KV heads, per layer and micro-batch (s).

    Each rank's slice of the QKV projection's output, T x (q + 2 kv) / tp in 16 bits (the linear layer's output dtype
    under every recipe), is all-gathered over TP in every forward pass and its gradient reduce-scattered once
    (`job.QKV_SUBSHARDING`: attention.py at 3097d81, lines 1455-1475; mappings.py `_AllGatherFromTensorParallelRegion`,
    lines 380-397). Both sit between the QKV GEMM and the attention core on the compute stream, so nothing hides
    them. Zero where tp is at most the KV heads, as for every layout of most models: then no collective is timed.
    """
    if isinstance(tp, NUMBER) and not tp > a.kv_heads:  # one layout's number (numpy's `any` on it costs more)
        return 0.0
    over = np.asarray(tp) > a.kv_heads
    if not over.any():
        return 0.0
    size = T * (a.heads + 2.0 * a.kv_heads) * a.head_dim
    ag, rs = group_times(hw, (("all_gather", size * ACT_BYTES), ("reduce_scatter", size * ACT_BYTES)), tp,
                         members_per_domain(hw, tp, 1))
    return where(over, passes * ag + rs, 0.0)


def tp_gemms(a: Arch, tp, moe_share):
    """The TP-split linear layers of an average layer: (n, k, userbuffers method, share of the layers), M = tokens.

    See `tp_overlap_cost`: QKV and the projection, the dense FFN's FC1 and FC2 on the dense share of the layers, and
    a MoE layer's shared experts' FC1 and FC2 on the MoE share. Megatron-core's shared experts are an `MLP` on the
    attention's TP group (megatron/core/transformer/moe/shared_experts.py at d98e8a6, `SharedExpertMLP.__init__`,
    `tp_group=pg_collection.tp`), whose linear layers gather their input and reduce-scatter their output under
    sequence parallelism with the `fc1`/`fc2` userbuffers (mlp.py lines 228 and 251), as the dense FFN's do. The
    routed experts run no TP collective of their own: the MoE layer routes its T/tp sequence-parallel tokens
    (moe_layer.py line 636 refuses tp > 1 without SP in training), and the dispatcher all-gathers the received
    tokens over the expert-TP group after the all-to-all and reduce-scatters them before the combine
    (token_dispatcher.py lines 741-751 and 824-832), which `ep_exposure.expert_comm` times with the all-to-alls.
    Before, each MoE layer charged an all-reduce of T x h per forward pass and one backward beside these, exposed
    without userbuffers and hidden for nothing with them.
    """
    q = a.heads * a.head_dim
    out = [((q + 2 * a.kv_heads * a.head_dim) / tp, a.hidden, "ring_exchange", 1.0),
           (a.hidden, q / tp, "pipeline", 1.0)]
    if moe_share < 1.0:
        dense = 1.0 - moe_share
        out += [((a.ffn_mats - 1) * a.ffn / tp, a.hidden, "ring_exchange", dense), (a.hidden, a.ffn / tp, "pipeline",
                                                                                    dense)]
    if moe_share > 0.0 and a.shared_experts:
        f = a.shared_experts * a.expert_ffn  # as `layer._layer_forward` times the shared experts' GEMMs
        out += [((a.ffn_mats - 1) * f / tp, a.hidden, "ring_exchange", moe_share), (a.hidden, f / tp, "pipeline",
                                                                                    moe_share)]
    return tuple(out)


def tp_carried(gemms, passes, ag_in, rs, ag_grad, ag_w, second=0.0):
    """Every TP collective's time of one layer (each forward pass and the backward), exposed or not.

    Per column-parallel GEMM: its input's gather every forward pass (`ag_in`), the wgrad's gather (`ag_w`) and the
    dgrad's reduce-scatter (`rs`) backward; per row-parallel GEMM: its output's reduce-scatter every forward pass
    and its output gradient's gather (`ag_grad`, and `second`, MXFP8's column-wise one under userbuffers).
    """
    total = 0.0
    for _n, _k, method, share in gemms:
        if method == "ring_exchange":
            total = total + share * (passes * ag_in + ag_w + rs)
        else:
            total = total + share * (passes * rs + ag_grad + second)
    return total


def tp_sequence_parallel(hw: Hardware, dtype: str, T, gemms, passes, ag_in, rs, ag_grad, grads=None):
    """TP communication exposed without userbuffers, with sequence parallelism: (exposed, overlapped) per layer.

    The forward's gathers and reduce-scatters and the row-parallel output gradient's gather block (`gemms` and the
    times as `tp_carried` takes them; the wgrad's gather carries `ag_in`'s bytes). The column-parallel backward's
    two run async (module docstring): the input's gather beside the dgrad GEMM, the dgrad's reduce-scatter beside
    the wgrad GEMM, each showing only beyond its own GEMM. What hides is returned apart: it runs beside the GEMM on
    the SMs NCCL takes (`NCCL_CTAS`; `tp_layer`). `grads` holds the (dgrad, wgrad) times of GEMMs (T, n, k) by
    (n, k) where the caller has timed them (`layer.layer_times`, `gemm_floor.gemm_kernel_pass`): the same floats.
    """
    g = K.gemm_time
    shown = hidden = 0.0
    for n, k, method, share in gemms:
        if method == "ring_exchange":  # column-parallel: QKV, FC1
            known = grads.get((n, k)) if grads else None  # its dgrad and wgrad as `layer_times` timed them
            dgrad, wgrad = known if known is not None else (g(hw, dtype, T, k, n), g(hw, dtype, k, n, T))
            gather, scatter = ag_in - dgrad, rs - wgrad
            if type(gather) is float and type(scatter) is float:  # numbers: `maximum` as branches (issue 25)
                gather, scatter = gather if gather > 0.0 else 0.0, scatter if scatter > 0.0 else 0.0
            else:
                gather, scatter = maximum(gather, 0.0), maximum(scatter, 0.0)
            shown = shown + share * (passes * ag_in + gather + scatter)
            hidden = hidden + share * (ag_in - gather + rs - scatter)
        else:  # row-parallel: projection, FC2
            shown = shown + share * (passes * rs + ag_grad)
    return shown, hidden


def tp_overlap_cost(hw: Hardware, dtype: str, T, tp, gemms, passes):
    """Extra GEMM time of one layer (every forward pass and the backward) under TE's default userbuffers overlap.

    `gemms` holds (n, k, forward method, share of the layers) of each TP-split linear layer as `_layer_forward`
    times it, with M = T:
    QKV and FC1 gather their input with `ring_exchange` (tp chunks of T/tp rows), the projection and FC2
    reduce-scatter their output with `pipeline` (4 chunks of T/4 rows, on the SMs `pipeline` leaves). In the
    backward the row-parallel layers' dgrads gather the output gradient with `ring_exchange`; the column-parallel
    layers' dgrad and wgrad run beside a `bulk` all-gather and reduce-scatter on the SMs `bulk` leaves; the
    row-parallel wgrads overlap nothing. Each chunk takes the GEMM size ramp of its own rows (`kernels.gemm_time`).
    """
    keep = sm_kept(hw, UB_COMM_SMS)
    g, c = K.gemm_time, chunk_gemm
    fwd = bwd = 0.0
    for n, k, method, share in gemms:
        whole_f, dgrad, wgrad = g(hw, dtype, T, n, k), g(hw, dtype, T, k, n), g(hw, dtype, k, n, T)
        if method == "ring_exchange":  # column-parallel: QKV, FC1
            fwd = fwd + share * (tp * c(hw, dtype, T, tp, n, k) - whole_f)
            bwd = bwd + share * (dgrad + wgrad) * (1.0 / keep - 1.0)
        else:  # row-parallel: projection, FC2
            fwd = fwd + share * (PIPELINE_SPLITS * c(hw, dtype, T, PIPELINE_SPLITS, n, k) / keep - whole_f)
            bwd = bwd + share * (tp * c(hw, dtype, T, tp, k, n) - dgrad)
    return passes * fwd + bwd


def tp_exposed(hw: Hardware, dtype: str, T, tp, gemms, passes, ag, gather=None, second=0.0):
    """TP communication left exposed by Transformer Engine's userbuffers overlap, per layer, each collective's own GEMM.

    Each collective hides behind the GEMM it is paired with, not behind the layer's GEMMs in aggregate (issue 20
    part 1). `gemms` as `tp_gemms` gives them; `ag` the time of one 16-bit reduce-scatter of the T x h activation
    over the tp ranks, `gather` that of one all-gather of it in the FP8 buffers (one usage: `tp_times`; default
    `ag`), `second` MXFP8's column-wise gather of the output gradient (0 otherwise). TE's default methods
    (transformer_engine/pytorch/module/base.py `initialize_ub` at d0067d0, lines 350-360; `num_splits` tp for
    `ring_exchange` and 4 otherwise, line 387) and what each leaves exposed (transformer_engine/common/
    comm_gemm_overlap/comm_gemm_overlap.cpp at d0067d0):

    * `ring_exchange` all-gather (QKV and FC1 forward, the projection's and FC2's dgrad): tp chunks of T/tp rows;
      chunk i's GEMM runs while chunk i is sent to the next rank, and GEMM i+1 waits for it (`split_overlap_ag`,
      lines 1161-1192). So tp - 1 sends of gather/(tp - 1) each, and each shows only beyond its chunk's GEMM:
      (tp - 1) max(0, gather/(tp - 1) - gemm(T/tp)).
    * `pipeline` reduce-scatter (the projection's and FC2's forward): 4 chunks of T/4 rows on the SMs the kernel
      leaves (`set_sm_margin`); chunk i's reduce-scatter runs beside GEMM i+1, and the last chunk's has no GEMM left
      ("Last communication chunk with max SM", `split_overlap_rs`, lines 611-715): ag/4 + 3 max(0, ag/4 - gemm(T/4)).
    * `bulk` (QKV's and FC1's backward): the input's all-gather (for wgrad) beside the dgrad GEMM and the dgrad
      output's reduce-scatter beside the wgrad GEMM, each whole (`bulk_overlap`, lines 444-498):
      max(0, gather - dgrad) and max(0, ag - wgrad), the GEMMs on the SMs the kernel leaves.
    * The projection's and FC2's wgrad (`external`) reuse the output gradient their dgrad gathered: no collective,
      except under MXFP8, whose wgrad needs the column-scaled gradient: TE gathers it in bulk on the dgrad's own
      send and receive streams (linear.py lines 1185-1215, `bulk_overlap_ag_with_external_gemm`), queued behind
      the ring's sends, and the wgrad waits for it. So it has the dgrad GEMM less the ring's sends as its window:
      max(0, second - max(0, dgrad - gather)).

    Every forward pass (`passes`: the forward and a full recompute) pays the forward terms. The chunking and the SM
    margin's own cost to the GEMMs is `tp_overlap_cost`.
    """
    keep = sm_kept(hw, UB_COMM_SMS)
    g, c = K.gemm_time, chunk_gemm
    gather = ag if gather is None else gather
    step = gather / maximum(tp - 1.0, 1.0)  # one ring step: a T/tp chunk to the next rank
    piece = ag / PIPELINE_SPLITS
    fwd = bwd = 0.0
    for n, k, method, share in gemms:
        if method == "ring_exchange":  # column-parallel: QKV, FC1
            fwd = fwd + share * (tp - 1.0) * maximum(step - c(hw, dtype, T, tp, n, k), 0.0)
            bwd = bwd + share * (maximum(gather - g(hw, dtype, T, k, n) / keep, 0.0)
                                 + maximum(ag - g(hw, dtype, k, n, T) / keep, 0.0))
        else:  # row-parallel: projection, FC2
            fwd = fwd + share * (piece + (PIPELINE_SPLITS - 1.0) * maximum(
                piece - c(hw, dtype, T, PIPELINE_SPLITS, n, k) / keep, 0.0))
            bwd = bwd + share * ((tp - 1.0) * maximum(step - c(hw, dtype, T, tp, k, n), 0.0) + maximum(
                second - maximum(g(hw, dtype, T, k, n) - gather, 0.0), 0.0))
    return passes * fwd + bwd


