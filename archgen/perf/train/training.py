"""Training step time for Megatron-style 3D/4D/5D parallelism (TP, PP, DP, CP, EP), vectorised over layouts.

Per optimizer step, per accelerator of the busiest pipeline rank: m micro-batches of its layers (GEMM and attention
rooflines from `kernels`, element-wise traffic, and the TP/CP/EP collectives on the critical path), the bubble, the
exposed p2p, DP communication and optimizer step (see `estimate_training`; bubble (p-1)/(v·m), Narayanan et al.
SC21). Recomputation adds a forward (full) or the attention core (selective) to the backward. Under FP8/FP4 the
linear GEMMs run at the low precision while the attention core and the logits stay in BF16
(`kernels.training_core_dtype`); MoE layers also move their tokens through permute and unpermute (`permute_h`).
Offloaded activations and optimizer state cost what their copies do not hide (`offload`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from archgen.perf.comm.collectives import members_per_domain
from archgen.perf.comm.placement import domain_share
from archgen.perf.comm.racks import group_times, in_one_rack
from archgen.perf.hw import kernels as K
from archgen.perf.hw import quant as Q
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.kernels import ACT_BYTES
from archgen.perf.hw.memory import (
    WEIGHT_BYTES,
    WEIGHT_OFFLOAD,
    TrainingMemory,
    expert_data_parallel,
    layer_activation_bytes,
    layer_params,
)
from archgen.perf.hw.numeric import maximum, minimum, where
from archgen.perf.hw.record import quick_init
from archgen.perf.train import buckets as B
from archgen.perf.train import exposure as X
from archgen.perf.train import fast
from archgen.perf.train import offload as off
from archgen.perf.train.ep_exposure import unpaired_chunks
from archgen.perf.train.exposure import dp_exposure
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.layer import LayerTimes, layer_times
from archgen.perf.train.pipeline_split import split
from archgen.perf.train.ranks import at_worst, busiest_memory, layout_arrays, per_class, rank_times

RECOMPUTE_CODES = {"none": 0, "selective": 1, "full": 2}

#: Bytes per optimizer step and parameter for Adam: fp32 master (r+w 8), moments (r+w 16), fp32 grad read 4,
#: 16-bit weight write 2.
ADAM_BYTES = 30.0
#: Per step beside the update (Megatron-core at d98e8a6): the whole gradient buffer is zeroed
#: (DistributedDataParallel.zero_grad_buffer -> param_and_grad_buffer.py `grad_data.zero_()`, grad_bytes per
#: parameter), and gradient clipping (`clip_grad` 1.0 by default) reads the rank's shard of fp32 main gradients for
#: the norm (optimizer/clip_grads.py `get_grad_norm_fp32`, multi_tensor_l2norm, 4 B) and scales it in place
#: (`clip_grad_by_total_norm_fp32`, multi_tensor_scale, 8 B), all-reducing the norm over the data- and
#: model-parallel groups.
CLIP_BYTES = 12.0


@quick_init
@dataclass(frozen=True)
class TrainingEstimate:
    """Step-time breakdown (s), throughput and memory; arrays when evaluated for many layouts."""

    step_time: np.ndarray | float
    compute: np.ndarray | float
    tp_comm: np.ndarray | float
    cp_comm: np.ndarray | float
    ep_comm: np.ndarray | float
    pp_comm: np.ndarray | float
    dp_comm: np.ndarray | float
    bubble: np.ndarray | float
    optimizer: np.ndarray | float
    tokens_per_second: np.ndarray | float
    model_flops: float
    hardware_flops: np.ndarray | float
    model_flops_per_gpu: np.ndarray | float
    mfu: np.ndarray | float
    peak: float
    memory: TrainingMemory
    capacity: float
    gpus: np.ndarray | float
    notes: tuple[str, ...] = field(default=())
    host_capacity: np.ndarray | float = 0.0
    fit_waste: float = 0.0   # the hardware's (`Hardware.fit_waste`): 0, fits at the model's figure

    @property
    def fits(self):
        """Whether the busiest accelerator's memory fits its HBM, and what it offloads its host memory share."""
        return self.memory.fits(self.capacity, self.host_capacity, self.fit_waste)


def pipeline_comm(hw: Hardware, job: Job, T, tp, cp, dp, pp, v, m, fwd):
    """The pipeline's exposed sends per step: each virtual stage's activations forward and gradients backward.

    The slowest hop sets the pace; it stays inside a scale-up domain only when every pipeline (pp ranks tp·cp·dp
    apart) lies in one domain, i.e. the job's share of a domain (`placement.domain_share`: a job smaller than one
    domain holds that many of it) is a multiple of a pipeline's span. Otherwise some hop crosses domains. `T` tokens
    per micro-batch per rank, `fwd` the busiest stage's forward time of one micro-batch. A pipeline spans the job, so
    where its share of a domain crosses racks the boundary between two stages in different racks does too (stage s
    holds ranks s·tp·cp·dp to (s+1)·tp·cp·dp - 1 in Megatron's rank order), and every send waits on the slowest: the
    sends take the second hop whole (`racks.group_times`, `whole`), not its average over a ring's steps (hops2).
    """
    span = tp * cp * dp
    if isinstance(span, fast.NUMBER) and isinstance(pp, fast.NUMBER):  # one layout (tp too): the `where`s as branches
        k_pp, split_by = 2.0 if domain_share(hw) % (span * pp) == 0 else 1.0, tp if tp > 1 else 1
    else:
        k_pp, split_by = where(domain_share(hw) % (span * pp) == 0, 2.0, 1.0), where(tp > 1, tp, 1)  # %: np.mod
    (p2p,) = group_times(hw, (("p2p", T * job.arch.hidden * ACT_BYTES / split_by),), 2, k_pp,
                         inside=in_one_rack(hw, pp, span) if hw.rack_size else None, whole=True)  # (no rack: unread)
    hops = 2.0 * v * m * p2p  # each chunk's activations out and gradients back, blocking
    if job.overlap_p2p_comm:  # interleaved 1F1B: steady-state sends overlap the next chunk; warmup and flush block
        steady = maximum(0.0, p2p - fwd / v)
        overlapped = 2.0 * (pp - 1) * p2p + 2.0 * maximum(v * m - (pp - 1), 0.0) * steady
        hops = where(v > 1, minimum(hops, overlapped), hops)
    return (hops if pp > 1 else 0.0) if isinstance(pp, fast.NUMBER) and isinstance(hops, fast.NUMBER) else where(
        pp > 1, hops, 0.0)


def dp_groups(hw: Hardware, tp, cp, dp, pp, ep, etp, v, m, experts: bool = True):
    """(sched, dp·cp, its ranks per domain, the expert data-parallel group, its ranks per domain).

    `experts`: whether the model has routed experts (without, their group's ranks per domain are not worked out:
    1.0, which its collectives of no parameters never read).

    `sched`: micro-batches of a rank's last (first) chunk that the reduction (gather) overlaps, the last one and,
    with v chunks, the cooldown's (warmup's) (v-1)·p/v more. Context-parallel ranks hold the same weights, so
    gradients are reduced (and the optimizer sharded) over dp·cp ranks tp apart (Megatron-core's data-parallel group
    "with context parallel"); the routed experts' over the expert data-parallel group, edp ranks etp·ep apart
    (`memory.expert_data_parallel`).
    """
    dpcp = dp * cp
    edp = expert_data_parallel(dpcp, tp, ep, etp)
    if isinstance(v, fast.NUMBER) and isinstance(pp, fast.NUMBER) and isinstance(m, fast.NUMBER):  # one layout
        sched = 1.0 + (v - 1) * pp / v if v > 1 else 1.0  # the `else`'s `where` and `minimum` as branches (issue 25)
        sched = sched if sched < m else m
    else:
        sched = minimum(where(v > 1, 1.0 + (v - 1) * pp / v, 1.0), m)
    return (sched, dpcp, members_per_domain(hw, dpcp, tp), edp,
            members_per_domain(hw, edp, etp * ep) if experts else 1.0)


def model_parallel_in_rack(hw: Hardware, tp, cp, dp, pp):
    """Whether the model-parallel group (a TP block of each of the pp stages, tp·cp·dp ranks apart) lies in one rack.

    With pp 1 it is the TP group (`racks.in_one_rack` of tp consecutive ranks); with more stages its span is the
    whole job, tp·cp·dp·pp ranks, which never lies in one rack where the share crosses racks (a first stage's ranks
    in the first rack, a last stage's in the last): its all-reduce keeps the average; the pipeline's sends
    take the hop whole (`pipeline_comm`).
    """
    if not hw.rack_size:   # no second hop added: nothing to take off (`racks.group_times` reads none)
        return False
    return where(pp > 1, in_one_rack(hw, pp, tp * cp * dp), in_one_rack(hw, tp))


def estimate_training(hw: Hardware, job: Job, layout: Layout, lt: LayerTimes | None = None,
                      timer=None) -> TrainingEstimate:
    """Step time, throughput, MFU and memory of `job` under `layout` (vectorised over array fields).

    The caller has checked the layout (`layout_rules.layout_problems`). Each pipeline rank class
    (`pipeline_split.split`) is timed on its own layers, embedding and output layer; the busiest sets the pace:
    step = m · t_max + (sum of every rank's t - t_max) / v + exposed p2p + the busiest rank's exposed DP communication
    and optimizer step. For equal ranks this is (m + (p-1)/v) · t. Hardware fields may be arrays too (one per layout,
    or shaped to broadcast against the layouts, as `perf.explore.vectorised` gives them with their `layer_times`,
    `lt`, and a DP `timer`).
    """
    a = job.arch
    arrays = layout_arrays(job, layout)
    tp, pp, dp, cp, ep, v, mb, rc, sp, zero, etp = arrays
    T = mb * (job.seq_len / cp)
    m = job.global_batch / (dp * mb)
    gpus = tp * pp * dp * cp
    hx = hw.with_axis()  # the hardware against the class axis

    lt = layer_times(hw, job, tp=tp, mb=mb, cp=cp, ep=ep, rc=rc, sp=sp, etp=etp) if lt is None else lt
    layer_f, layer_b, layer_r = lt.forward, lt.backward, lt.recompute
    # Activation offload: each layer's saved tensors out during its forward, back during its backward (`offload`).
    code = int(layout.offload) if isinstance(layout.offload, fast.NUMBER) else np.asarray(layout.offload).astype(int)
    saved = layer_activation_bytes(a, seq_len=job.seq_len, micro_batch=mb, tp=tp, cp=cp, recompute=rc, sp=sp,
                                   flash=job.attention == "flash", precision=job.precision, dropout=job.dropout,
                                   etp=etp)
    if isinstance(code, int):  # one layout's code: its bit as a branch (issue 25)
        act_off = off.activation_exposed(hw, saved, layer_f, layer_b + layer_r) if code & 1 else 0.0
    else:
        act_off = where(code & 1, off.activation_exposed(hw, saved, layer_f, layer_b + layer_r), 0.0)
    # Weight offload (a model-only option): each layer's weights (ZeRO-3: its shard) in per micro-batch and pass.
    weights_out = not isinstance(code, int) or code & WEIGHT_OFFLOAD  # a layout of numbers without it: no such term
    w_layer = job.weight_bytes * layer_params(a, tp, ep, etp) / where(zero >= 3, dp * cp, 1.0) if weights_out else 0.0
    if weights_out:  # (`where` would keep act_off, and the tail's write-back is 0)
        act_off = where(code & WEIGHT_OFFLOAD, off.layer_exposed(hw, where(code & 1, saved, 0.0), w_layer, layer_f,
                                                                  layer_b + layer_r), act_off)
    sl = split(a.layers, pp, v, layout.pipeline)
    edge = lt.ep_edge * unpaired_chunks(pp, v, m) / (v * m) if a.moe_layers or not fast.plain(lt.ep_edge, pp, v, m) \
        else 0.0  # `expert_comm`'s edge over the micro-batches: 0.0 (its own 0.0 times a count) for a dense model
    rk = rank_times(hx, job, lt.total + act_off + edge, lt.logits, lt.embed, tp=tp, pp=pp, ep=ep, v=v, sl=sl, etp=etp)
    params, t_rank, real, t_max, busiest, bubble = rk.params, rk.t_rank, rk.real, rk.t_max, rk.busiest, rk.bubble
    x = per_class

    # Pipeline: activations forward and gradients backward between stages, once per virtual stage.
    pp_comm = pipeline_comm(hw, job, T, tp, cp, dp, pp, v, m, busiest * layer_f)

    # Data parallelism, per rank class: the reduction overlaps the backward passes after a rank's last chunk of
    # weights is final, the weight gather the forward passes before the first is needed (`dp_groups`).
    sched, dpcp, k_dp, edp, k_edp = dp_groups(hw, tp, cp, dp, pp, ep, etp, v, m, experts=bool(a.experts))
    # the layout's figures against the class axis, once for every class (`tail`; numbers are `per_class` themselves)
    shared = (sched, dpcp, k_dp, tp * pp, minimum(tp, hw.scale_up_size), zero, m, edp, k_edp, layer_b + layer_r,
              layer_f, w_layer, lt.hbm, X.bucket_params(job, dp, tp), tp, etp * ep,  # the bucket: Megatron-core's
              model_parallel_in_rack(hw, tp, cp, dp, pp))                        # default, dp without CP
    sched, dpcp_x, k_dp_x, tpp_x, ktp_x, zero_x, m_x, edp_x, k_edp_x, bwd_x, fwd_x, w_layer_x, hbm_x, bucket_x, tp_x, \
        eep_x, mp_in = shared if fast.plain(*shared) else [
            q if isinstance(q, fast.NUMBER) else x(q) for q in shared]  # (numbers: as they are, no comprehension)
    code_x = code if isinstance(code, int) else x(code)
    # the norm's all-reduces: over dp·cp ranks tp apart, and the model-parallel group (`model_parallel_in_rack`)
    norm = group_times(hx, (("all_reduce", 4.0),), dpcp_x, k_dp_x, tp_x)[0] + group_times(
        hx, (("all_reduce", 4.0),), tpp_x, ktp_x, inside=mp_in)[0]
    on = zero_x >= 1
    over_dp, over_edp = ((dpcp_x, edp_x) if on else (1.0, 1.0)) if fast.plain(on, dpcp_x, edp_x) else (
        where(on, dpcp_x, 1.0), where(on, edp_x, 1.0))
    cpu_step, writeback = code_x & 2, (code_x & 6) == WEIGHT_OFFLOAD

    exposed = dp_exposure(hx, job, dpcp_x, k_dp_x, zero_x, m_x, (edp_x, k_edp_x, eep_x), timer, hbm_x,
                          bucket=bucket_x, stride=tp_x)  # `dp_exposed`, its groups tp and etp·ep ranks apart
    fp8_gather = job.weight_bytes < WEIGHT_BYTES  # FP8 weights gathered, the other parameters in 16 bits
    hbm_rate = hx.hbm_bandwidth * hx.hbm_efficiency  # `kernels.memory_time`'s rate (no working set), once

    def tail(params, experts, t_rank, layers, embedding, loss):
        """Exposed DP communication and optimizer step of rank classes (the class axis, or one class's numbers)."""
        high = B.sixteen_bit_params(a, tp_x, layers, embedding, loss) if fp8_gather else 0.0
        edge = B.edge_params(a, bucket_x, tp_x, embedding, high, fp8_gather)  # gathered first, reduced last
        dp_c = exposed(params - experts, experts, layers * bwd_x * sched, layers * fwd_x * sched, t_rank, edge, high)
        shard = (params - experts) / over_dp + experts / over_edp
        if isinstance(cpu_step, int):  # one layout: only the step it takes (`where` would work out both)
            opt_c = off.optimizer_step(hx, shard, job.grad_bytes, job.weight_bytes) if cpu_step else (
                ADAM_BYTES * shard / hbm_rate)
        else:
            opt_c = where(cpu_step, off.optimizer_step(hx, shard, job.grad_bytes, job.weight_bytes),
                          K.memory_time(hx, ADAM_BYTES * shard))
        back = 0.0 if writeback is False else where(writeback, off.weight_writeback(hx, layers * w_layer_x), 0.0)
        clip = (params * job.grad_bytes + CLIP_BYTES * shard) / hbm_rate  # `CLIP_BYTES`, at `memory_time`'s rate
        return dp_c, opt_c + back + clip + norm

    # Weights are quantised once per step, at the first micro-batch (`quant.weight_bytes`), on every rank class.
    quantise = lambda n: K.memory_time(hx, Q.step_weight_bytes(  # noqa: E731 (the classes' layers n)
        a, job.recipe or "", hx.compute_capability, x(tp), x(ep), n, job.param_gather_dtype == "fp8", x(etp)))
    if isinstance(real, list):  # one layout of plain numbers, class by class (`ranks.rank_times`, `fast`)
        n = sl.layers.tolist()
        assert isinstance(rk.experts, list)  # the classes' experts, as `rank_times` gives them with a list `real`
        emb, loss, pairs = sl.embedding.tolist(), sl.loss.tolist(), []
        for i in range(len(n)):  # every list is one per class of the split (a loop, not a comprehension over a zip)
            pairs.append(tail(params[i], rk.experts[i], t_rank[i], n[i], emb[i], loss[i]))
        dp_comm, optimizer = fast.at_worst(pairs, real)
        wq = fast.most([quantise(k + lo * a.mtp_layers) if r else 0.0 for k, lo, r in zip(n, loss, real, strict=True)]
                       ) if job.recipe else 0.0  # the loss rank's MTP layers quantised as layers
    else:
        dp_c, opt_c = tail(params, rk.experts, t_rank, sl.layers, sl.embedding, sl.loss)
        dp_comm, optimizer = at_worst(where(real, dp_c + opt_c, 0.0), dp_c, opt_c)
        wq = np.max(where(real, quantise(sl.layers + sl.loss * a.mtp_layers), 0.0), axis=-1) if job.recipe else 0.0

    compute = m * t_max + wq
    step = compute + bubble + pp_comm + dp_comm + optimizer

    tokens = job.global_batch * job.seq_len
    model_flops = job.model_flops  # `a.model_flops` of the step's tokens
    # recomputed: the forward but the logits (the MTP layers' too), or the attention cores (the MTP blocks' too)
    full, selective = ((1.0 if rc == 2 else 0.0), (1.0 if rc == 1 else 0.0)) if isinstance(rc, int) else (
        where(rc == 2, 1.0, 0.0), where(rc == 1, 1.0, 0.0))  # (one layout's code: branches, issue 25)
    rec_flops = full * (model_flops / 3.0 - 2.0 * (1 + a.mtp_layers) * tokens * a.hidden
                        * a.vocab) + selective * (
        4.0 * tokens * job.seq_len * a.heads * a.core_head_dim * (a.layers + a.mtp_layers))
    peak = hw.peak_for(job.precision)
    mem = busiest_memory(job, layout, sl, saved, arrays)
    tp_total, cp_total, ep_total = m * busiest * lt.tp, m * busiest * lt.cp, m * busiest * (lt.ep + edge)
    return TrainingEstimate(
        step_time=step, compute=compute - tp_total - cp_total - ep_total, tp_comm=tp_total, cp_comm=cp_total,
        ep_comm=ep_total, pp_comm=pp_comm, dp_comm=dp_comm, bubble=bubble, optimizer=optimizer,
        tokens_per_second=tokens / step, model_flops=model_flops, hardware_flops=model_flops + rec_flops,
        model_flops_per_gpu=model_flops / (step * gpus), mfu=model_flops / (step * gpus * peak), peak=peak,
        memory=mem, capacity=hw.hbm_capacity, gpus=gpus, host_capacity=hw.host_capacity, fit_waste=hw.fit_waste)
