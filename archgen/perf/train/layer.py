"""One layer's times in training: its forward, backward and recomputation per micro-batch, vectorised over layouts.

`layer_times` gives what `training.estimate_training` adds up per rank class (`ranks.rank_times`): the GEMM and
attention rooflines (`kernels`), the element-wise traffic (`elementwise_bytes`), the TP, CP and EP communication
each pass exposes, the logits, the embedding and the host's issue time. Split from `training` (the step time) for
its size.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from archgen.perf.hw import gemm_floor as F
from archgen.perf.hw import kernels as K
from archgen.perf.hw import quant as Q
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.kernels import ACT_BYTES
from archgen.perf.hw.numeric import NUMBER, where
from archgen.perf.hw.record import quick_init
from archgen.perf.train import contention as C
from archgen.perf.train import cp_comm as CPC
from archgen.perf.train import host as H
from archgen.perf.train import router as R
from archgen.perf.train import tp_comm as TPC
from archgen.perf.train.ep_exposure import expert_comm, shared_shapes
from archgen.perf.train.experts import expert_backward, expert_bytes, expert_forward, permute_h
from archgen.perf.train.job import Job
from archgen.perf.train.loss import loss_time


def _layer_forward(hw: Hardware, job: Job, T, mb, s_q, tp, sp, ep, moe: bool, etp=None, attn=None, grads=None):
    """GEMM + attention + element-wise forward time of one layer for one micro-batch (`attn`: the core's, if known).

    An MoE layer's router GEMM runs on the tokens the rank holds: under sequence parallelism T/tp (Megatron-core
    at d98e8a6: `MoELayer.route` passes the layer's sequence-parallel input to the router, moe_layer.py line 451,
    whose `gating` multiplies it by the whole [experts, hidden] weight, router.py line 111), without it all T.

    Returns (total, attention core, quantisation, GEMM backward minus twice the GEMM forward, HBM bytes): the second
    and third are shares of the total; the fourth corrects the backward's "twice the forward" for its GEMMs' own
    shapes; the last is what the pass moves once (GEMM operands and outputs, attention's Q, K, V and O, element-wise).
    `grads` (a dict, or None) receives each GEMM (T, n, k)'s input- and weight-gradient times by (n, k), without the
    floor: what `tp_comm.tp_sequence_parallel` measures the TP collectives beside them against (issue 25).
    """
    a, dt = job.arch, job.precision
    shapes = []  # (M, N, K, dtype) of each GEMM (a loop: cheaper than a comprehension on two, issue 25)
    for _, n, k in a.attn_gemms(tp):
        shapes.append((T, n, k, dt))
    if moe:  # the router's GEMM: the rank's T/tp sequence-parallel tokens (the router weight is not split), in
        # 16 bit under FP8/FP4 (`router`'s docstring: Megatron-core never quantises it)
        shapes.append((T / where(sp, tp, 1.0), a.experts, a.hidden, K.training_core_dtype(dt)))
        shapes += [(m, n, k, dt) for m, n, k in shared_shapes(a, T, tp)]  # the shared experts' FC1 and FC2
    else:
        shapes += [(T, (a.ffn_mats - 1) * a.ffn / tp, a.hidden, dt), (T, a.hidden, a.ffn / tp, dt)]
    fp4 = hw.fp4  # the FP4 operands' block-scale format
    t = bwd = moved = 0  # summed in order, as `sum` adds (one pass over the shapes: fewer calls, issue 25)
    for m, n, k, gemm_dt in shapes:
        f, b, nbytes, raw = F.gemm_kernel_pass(hw, gemm_dt, m, n, k)
        if grads is not None and m is T:  # (T, n, k)'s backward GEMMs, for the TP collectives beside them
            grads[(n, k)] = raw
        t, bwd = t + f, bwd + b
        moved = moved + nbytes
    moved = moved + T * (a.heads + a.kv_heads) * (a.qk_head_dim + a.v_dim) * 2 / tp  # Q and O, K and V
    if moe:
        t, bwd = t + expert_forward(hw, job, T, tp, ep, etp), bwd + expert_backward(hw, job, T, tp, ep, etp)
        moved = moved + expert_bytes(job, T, tp, ep, etp, fp4)
    if attn is None:
        attn = K.attention_forward(hw, K.training_core_dtype(dt), batch=mb, q_len=s_q, kv_len=job.seq_len,
                                   heads=a.heads / tp, head_dim=a.qk_head_dim, kernel=job.attention, causal=True,
                                   dropout=job.dropout, v_dim=a.v_dim)
    cc = hw.compute_capability
    pad = Q.padding_per_token(a, job.recipe, job.moe_dispatcher, tp, etp) if moe else 0.0  # routed rows' padding
    quant = K.memory_time(hw, T * (Q.forward_per_token(a, job.recipe, cc, tp, sp, moe, etp) + pad)) \
        if job.recipe else 0.0
    ew = elementwise_bytes(a, dt, T, tp, sp, moe, fp8_recipe=job.fp8_recipe, cc=cc, etp=etp, ep=ep,
                           dispatcher=job.moe_dispatcher, fused=job.permute_in_dispatch, dropout=job.dropout) \
        + (T / where(sp, tp, 1.0) * R.router_bytes(a, job.moe_force_balance)[0] if moe else 0.0) \
        + T * position_bytes(a, tp, job.rope_fusion)[0]  # `router`'s; the rotary embedding's and the QK norms'
    return t + attn + K.memory_time(hw, ew), attn, quant, bwd - 2.0 * t, moved + ew


def elementwise_bytes(a: Arch, dtype: str, T, tp, sp, moe: bool, *, fp8_recipe: str = "delayed", cc=0.0, etp=None,
                      ep=1.0, dispatcher: str = "alltoall", fused: bool = False, dropout: bool = False):
    """Memory-bound bytes of one layer's forward pass for `T` tokens on one TP rank.

    Norms and residual adds (`kernels.ELEMENTWISE_H`), with `dropout` their masks (`kernels.DROPOUT_MASK_H`), the
    FFN activation, an MoE layer's token permutation (`permute_h` of the EP size `ep`, the job's `moe_dispatcher` and
    `permute_in_dispatch`) and, under FP8/FP4, the quantisation of every linear GEMM's input as Transformer
    Engine's recipe does it (`quant.forward_bytes`; `fp8_recipe` for FP8, NVFP4 for FP4, `cc` the compute
    capability): QKV, the projection, and FC1/FC2 or each routed token's expert up/down (and the shared experts').
    """
    h = a.hidden / ((tp if sp else 1) if type(sp) is bool and isinstance(tp, NUMBER) else where(sp, tp, 1))  # SP
    # splits the h-sized traffic (one layout's numbers: `where` as a branch, issue 25)
    if moe:
        f_elem, permute = a.top_k * a.expert_ffn, permute_h(
            a.top_k, ep, dispatcher, fused, a.experts, (a.router_groups, a.router_group_topk))
    else:
        f_elem, permute = a.ffn, 0.0
    per_h = K.ELEMENTWISE_H + (K.DROPOUT_MASK_H if dropout else 0.0) + permute
    ew = T * 2.0 * (per_h * h + (a.ffn_mats * f_elem) / tp)  # 16-bit activations
    rec = Q.recipe(dtype, fp8_recipe)
    if rec:
        pad = Q.padding_per_token(a, rec, dispatcher, tp, etp) if moe else 0.0  # routed rows' padding
        ew = ew + T * (Q.forward_per_token(a, rec, cc, tp, sp, moe, etp) + pad)
    return ew


def position_bytes(a: Arch, tp, fused: bool = True) -> tuple:
    """HBM bytes per token of one rank's rotary embedding and QK norms, (forward, backward); (0, 0) for neither.

    Charged where the model states them (`Arch.rope`, `Arch.qk_norm`): the fused rotary embedding reads and writes
    each rotated query and key value once each way (`kernels.ROPE_BYTES`), the unfused one (`fused` False, the job's
    `rope_fusion`) 12 and 17 values' worth (`kernels.ROPE_UNFUSED_BYTES`); a QK norm reads and writes each value
    forward and reads two, writes one backward, plus its 1/rms per head vector (`kernels.QK_NORM_BYTES`). The
    backward is not twice the forward, so `layer_times` corrects the layer's "twice the forward" for it.
    """
    rope = a.rope_values(tp) if a.rope else 0.0
    norm, rows = (a.qk_values(tp), a.qk_values(tp) / a.qk_head_dim) if a.qk_norm else (0.0, 0.0)
    per = K.ROPE_BYTES if fused else K.ROPE_UNFUSED_BYTES
    return tuple(rope * per[i] + norm * K.QK_NORM_BYTES[i] + rows * K.QK_NORM_ROW_BYTES for i in (0, 1))


@quick_init
@dataclass(frozen=True)
class LayerTimes:
    """One average layer of one micro-batch on one rank, and the output layer and embedding (s).

    They depend on the hardware and on tp, micro-batch, cp, ep and recompute alone (not on pp, dp, interleave or
    the sharding stage), so a search over many layouts may compute them once per such combination
    (`perf.explore.vectorised`). Arrays broadcast over layouts.
    """

    forward: np.ndarray | float
    attention: np.ndarray | float  # the attention core's share of `forward`
    backward: np.ndarray | float
    recompute: np.ndarray | float
    tp: np.ndarray | float         # exposed tensor-parallel communication
    cp: np.ndarray | float
    ep: np.ndarray | float
    logits: np.ndarray | float     # output layer and loss, forward and backward
    embed: np.ndarray | float
    host: np.ndarray | float = 0.0  # what issuing the layer's operations takes beyond its GPU time (`host`)
    ep_edge: np.ndarray | float = 0.0  # once a step: EP all-to-alls the overlap cannot pair (`ep_exposure.expert_comm`)
    hbm: np.ndarray | float = 0.0  # share of the HBM rate the compute takes (`contention.hbm_share`)

    @property
    def total(self):
        """Everything one layer costs per micro-batch."""
        return self.forward + self.backward + self.recompute + self.tp + self.cp + self.ep + self.host


def layer_times(hw: Hardware, job: Job, *, tp, mb, cp, ep, rc, sp, etp=None) -> LayerTimes:
    """`LayerTimes` of `job` on `hw` for tp, micro-batch, cp, ep, recompute, SP and etp (None: tp; see `experts`)."""
    a = job.arch
    s_q = job.seq_len / cp
    T = mb * s_q
    moe_share = a.moe_layers / a.layers
    core = K.training_core_dtype(job.precision)  # attention core and logits (BF16 under FP8/FP4 recipes)
    attn_f, attn_b = K.attention_times(hw, core, batch=mb, q_len=s_q, kv_len=job.seq_len, heads=a.heads / tp,
                                       head_dim=a.qk_head_dim, kernel=job.attention, causal=True, dropout=job.dropout,
                                       v_dim=a.v_dim)
    grads: dict | None = {} if isinstance(tp, NUMBER) else None  # one tp: the GEMMs' gradients by (n, k), for TP
    dense_f, dense_attn, dense_q, dense_gb, dense_m = _layer_forward(hw, job, T, mb, s_q, tp, sp, ep, False,
                                                                     attn=attn_f, grads=grads)
    moe_f, moe_attn, moe_q, moe_gb, moe_m = _layer_forward(hw, job, T, mb, s_q, tp, sp, ep, True, etp, attn_f,
                                                           grads) if a.moe_layers else (0.0, 0.0, 0.0, 0.0, 0.0)
    layer_f = (1 - moe_share) * dense_f + moe_share * moe_f
    hbm = C.hbm_share(hw, (1 - moe_share) * dense_m + moe_share * moe_m, layer_f)  # the compute beside overlaps
    layer_attn = (1 - moe_share) * dense_attn + moe_share * moe_attn
    # The backward pass is twice the forward's element-wise traffic plus its GEMMs' own input and weight gradients
    # (`layer_gb`), but quantises the linear outputs' gradients (`quant.backward_bytes`) instead of the inputs,
    # whose quantised copies it reuses.
    quant_b = K.memory_time(hw, T * (Q.backward_per_token(a, job.recipe, hw.compute_capability, tp, sp, etp) + moe_share
                                     * Q.padding_per_token(a, job.recipe, job.moe_dispatcher, tp, etp))) \
        if job.recipe else 0.0
    layer_q = (1 - moe_share) * dense_q + moe_share * moe_q
    layer_gb = (1 - moe_share) * dense_gb + moe_share * moe_gb
    rb = R.router_bytes(a, job.moe_force_balance)  # its backward moves rb[1], not twice rb[0]
    pb = position_bytes(a, tp, job.rope_fusion)  # likewise the rotary embedding's and the QK norms'
    layer_b = 2.0 * (layer_f - layer_attn - layer_q) + layer_gb + quant_b + attn_b \
        + (moe_share * K.memory_time(hw, T / where(sp, tp, 1.0) * (rb[1] - 2.0 * rb[0])) if a.moe_layers else 0.0)
    if a.rope or a.qk_norm:  # (neither: nothing added, issue 25)
        layer_b = layer_b + K.memory_time(hw, T * (pb[1] - 2.0 * pb[0]))
    # (a dense model's router term is 0.0 x 0.0 s: added as the 0.0 it is, issue 25)
    pad_k = Q.padding_kernels(a, job.recipe, job.moe_dispatcher)  # the routed rows' padding, per pass
    q_f, q_b = Q.layer_kernels(a, job.recipe, hw.compute_capability, ep)  # none in 16-bit
    kernels = q_f + pad_k, q_b + pad_k
    n_f, n_b = H.layer_kernels(job, ep, kernels)  # every kernel's fixed cost, as serving charges it (`host`)
    layer_f, layer_b = layer_f + n_f * K.KERNEL_OVERHEAD, layer_b + n_b * K.KERNEL_OVERHEAD
    if isinstance(rc, int) and isinstance(layer_f, NUMBER) and isinstance(layer_attn, NUMBER):  # one layout's code
        layer_r = layer_f if rc == 2 else layer_attn if rc == 1 else 0.0  # the `where`s below, as branches (issue 25)
    else:
        layer_r = where(rc == 2, layer_f, where(rc == 1, layer_attn, 0.0))

    # Tensor-parallel collectives: what each carries and what stays exposed (`tp_comm.tp_layer`).
    passes = 1.0 + (rc == 2)  # forward passes per micro-batch: the forward and a full recompute
    tp_layer = TPC.tp_layer(hw, job, T, tp, sp, passes, moe_share, hbm, grads)

    # Context parallelism: the job's cp_comm_type, its ring beside the attention, the rest exposed (`cp_comm`).
    cp_layer = CPC.cp_exposed(hw, job, cp, tp, mb, layer_attn, hbm, rc)

    # Expert parallelism: dispatch and combine all-to-all per MoE layer, forward and backward (+ recompute).
    e_fwd = expert_forward(hw, job, T, tp, ep, etp) if a.moe_layers else 0.0
    ep_layer, ep_f, edge = (moe_share * x for x in expert_comm(hw, job, T, tp, ep, passes, moe_f, e_fwd, etp, hbm,
                                                               edge=True)) \
        if a.moe_layers else (0.0, 0.0, 0.0)  # edge: 0 without the overlap

    out_f, out_b, _, _ = F.gemm_kernel_pass(hw, core, T, a.vocab / tp, a.hidden)
    logits = out_f + out_b + loss_time(hw, job.cross_entropy, T * a.vocab / tp)  # the job's stack's cross entropy
    embed = K.memory_time(hw, 3.0 * T * a.hidden * ACT_BYTES)  # gather forward, scatter-add backward
    # The host issues every operation of the layer; where that takes longer than the GPU's work, it sets the pace,
    # in each stretch between two synchronisations (`host`). The forward pass takes 2 of the 2 (passes + 1) TP
    # collectives and 1 of CP's 3 (the K/V gather; the backward gathers again and reduce-scatters).
    gpu = layer_f + layer_b + layer_r + tp_layer + cp_layer + ep_layer
    gpu_f = layer_f + tp_layer / (passes + 1.0) + cp_layer / 3.0 + ep_f
    attn_k = Q.attention_kernels(job.recipe, hw.compute_capability)  # captured with a graphed `attn` scope
    h_fb, synced = H.host_time(job, H.with_calls(job, ep, (n_f, n_b)), rc, attn_k), H.synchronised(job)
    queue = None
    if synced:  # the experts' input casts and padding calls enter the synchronised stretch alone (issue 25)
        e_cast = K.memory_time(hw, T * (Q.expert_forward_bytes(a, job.recipe, hw.compute_capability, tp, etp)
                                        + Q.padding_per_token(a, job.recipe, job.moe_dispatcher, tp, etp)))
        e_pad = Q.PAD_CALLS if Q.pads_experts(job.recipe, job.moe_dispatcher) else 0.0
        queue = H.forward_stretch(job, ep, h_fb[0], gpu_f, e_fwd + e_cast, ep_f, Q.expert_kernels(
            job.recipe, hw.compute_capability, a.experts / ep) + e_pad, K.KERNEL_OVERHEAD)
    host = H.host_excess(h_fb, (gpu_f, gpu - gpu_f), synced, queue)
    if a.mtp_layers:  # the loss rank's MTP layers, beside its output layer (`mtp_time`)
        logits = logits + mtp_time(hw, job, logits, embed, tp=tp, mb=mb, cp=cp, ep=ep, rc=rc, sp=sp, etp=etp)
    return LayerTimes(layer_f, layer_attn, layer_b, layer_r, tp_layer, cp_layer, ep_layer, logits, embed, host, edge,
                      hbm)


#: 16-bit h-sized reads and writes per token of an MTP layer's forward beyond its block and projection: `enorm` and
#: `hnorm` (h in, h out each), the concatenation of their outputs (2h in, 2h out) and `final_layernorm` (h in, h out)
#: (megatron/core/transformer/multi_token_prediction.py at d98e8a6, `MultiTokenPredictionLayer`).
MTP_ELEMENTWISE_H = 10.0


def mtp_time(hw: Hardware, job: Job, logits, embed, *, tp, mb, cp, ep, rc, sp, etp=None):
    """What the job's MTP layers add per micro-batch to the rank that holds the loss (Megatron-core: the last stage).

    Each MTP layer (`MultiTokenPredictionLayer` and `process_mtp_loss`, multi_token_prediction.py at d98e8a6; arXiv
    2412.19437, section 2.2) looks the next tokens up in the shared embedding (`embed`), norms them and the hidden
    state and concatenates the two (`MTP_ELEMENTWISE_H`, the backward twice the forward's traffic as a layer's),
    projects 2h to h (`eh_proj`, column-parallel: N = h / tp), runs one transformer block of the decoder's last
    layer's kind (`Arch.mtp_moe`: that layer's `layer_times`, its TP, CP and EP communication and recomputation
    included), norms its output and runs the shared output layer and the cross entropy again (`logits`). Under full
    recomputation the projection's forward runs again (Megatron-core checkpoints the whole MTP layer). Not counted:
    the projection's input quantisation under FP8/FP4, its sequence-parallel all-gather, and a layout string's
    placement elsewhere (refused with MTP layers, `layout_rules.layout_problems`).
    """
    a = job.arch
    block = layer_times(hw, replace(job, arch=replace(a, layers=1, dense_layers=0, mtp_layers=0)), tp=tp, mb=mb, cp=cp,
                        ep=ep, rc=rc, sp=sp, etp=etp)  # one layer: an MoE one wherever the model has experts
    T = mb * job.seq_len / cp
    proj_f, proj_b, _, _ = F.gemm_kernel_pass(hw, job.precision, T, a.hidden / tp, 2.0 * a.hidden)
    norms = K.memory_time(hw, 3.0 * T * MTP_ELEMENTWISE_H * ACT_BYTES * a.hidden / where(sp, tp, 1.0))
    one = block.total + proj_f + proj_b + where(rc == 2, proj_f, 0.0) + norms + embed + logits
    return a.mtp_layers * one
