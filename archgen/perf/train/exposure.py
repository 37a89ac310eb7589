"""Communication that overlap leaves exposed in a training step: CP and DP; EP in `ep_exposure`, TP in `tp_comm`.

Each function takes the collective times of `collectives` and the compute windows they can hide behind, and
returns the time that stays on the critical path; arrays broadcast as in `training.estimate_training`.

Overlap is not free where it succeeds: a communication kernel that runs beside compute holds streaming
multiprocessors (SMs) for its whole run, and the compute beside it runs on the rest (`sm_kept`); DeepEP's and
HybridEP's all-to-alls yield instead, the compute keeping its pace (`ep_exposure.ep_overlap_cost`). Two stacks' figures:

* Transformer Engine's userbuffers (`transformer_engine/pytorch/module/base.py` `initialize_ub`, NVIDIA/
  TransformerEngine at d0067d0, lines 349-390): the `pipeline` and `bulk` methods run their communication on
  `num_sm` 16 SMs with `set_sm_margin`, so their GEMMs are launched on the others; `ring_exchange` copies with the
  copy engines (`use_ce`, `num_sm` 1, no margin) but splits its GEMM into `tp` chunks, and `pipeline` into
  `num_splits` 4 (`tp_comm.tp_overlap_cost`).
* NCCL's collectives run one CTA per channel on an SM each; NVIDIA's MLPerf NeMo configurations pin their
  communicators to `NCCL_MIN_CTAS=16` (mlcommons/training_results_v5.1 NVIDIA/benchmarks/llama31_8b/
  implementations/nemo/config_common.sh), `NCCL_CTAS` here, so DP communication that overlaps the backward or
  forward pass takes 16 SMs from it for as long as it runs (`dp_exposed`).

An accelerator whose catalog entry gives no SM count (`multiprocessors`) keeps every SM (no contention modelled).
"""

from __future__ import annotations

import numpy as np

from archgen.perf.comm.collectives import members_per_domain
from archgen.perf.comm.racks import group_times, in_one_rack
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.memory import WEIGHT_BYTES
from archgen.perf.hw.numeric import ceil, maximum, minimum, where
from archgen.perf.train import contention as C
from archgen.perf.train.buckets import mean_bucket
from archgen.perf.train.fast import NUMBER, plain
from archgen.perf.train.job import Job

#: SMs Transformer Engine's userbuffers give the `pipeline` and `bulk` overlap kernels (`num_sm`, with
#: `set_sm_margin`; base.py `initialize_ub` at d0067d0 line 384).
UB_COMM_SMS = 16.0
#: Chunks of a `pipeline` overlap's GEMM (`num_splits` 4 for every method but `ring_exchange`, which takes `tp`).
PIPELINE_SPLITS = 4.0
#: SMs an NCCL collective holds while it runs beside compute (`NCCL_MIN_CTAS=16` in NVIDIA's MLPerf NeMo configs).
NCCL_CTAS = 16.0
#: Megatron-core's DDP bucket: max(40M, 1M x DP size) parameters, the DP size without context parallelism
#: (megatron/core/distributed/distributed_data_parallel.py at core_v0.14.0, lines 62-65, `bucket_size` default, which
#: reads `parallel_state.get_data_parallel_world_size()`, whose `with_context_parallel` defaults to False; the same
#: at core_v0.12.0, core_v0.13.0 and core_v0.15.0; `bucket_params`). Each bucket is its own collective:
#: `_ParamAndGradBucketGroup.start_grad_sync` reduce-scatters (or all-reduces) each bucket of a group once its
#: gradients are ready, and `start_param_sync` all-gathers it (param_and_grad_buffer.py at core_v0.14.0, lines
#: 214-264 and 323-437), so every bucket pays a collective's latency (`dp_exposure`: the step's reduction and gather
#: are timed as that many collectives of a bucket's size, not one of every parameter).
BUCKET_PARAMS = 40e6
BUCKET_PARAMS_PER_RANK = 1e6


def bucket_params(job: Job, dp, tp=1.0):
    """Parameters per Megatron-core DDP bucket as its buffer forms them, on a rank of `tp`.

    The threshold is the job's `ddp_bucket_size`, or by default max(40M, 1M x dp): `dp` is the data-parallel size
    without context parallelism, as Megatron-core reads it for its default (`BUCKET_PARAMS`), although the buckets
    are reduced over the dp·cp ranks that hold the same weights (`training.dp_groups`). A bucket closes only on a
    whole tensor once it holds the threshold, so it holds more: `buckets.mean_bucket`, the mean bucket of that walk
    over the model's layers (issue 20).
    """
    if job.ddp_bucket_size != "default":
        return mean_bucket(job.arch, float(job.ddp_bucket_size), tp)
    if isinstance(dp, NUMBER):  # one layout: plain numbers (issue 25)
        return mean_bucket(job.arch, max(BUCKET_PARAMS, BUCKET_PARAMS_PER_RANK * dp), tp)
    return mean_bucket(job.arch, maximum(BUCKET_PARAMS, BUCKET_PARAMS_PER_RANK * dp), tp)


def sm_kept(hw: Hardware, sms):
    """Share of the SMs compute keeps while a communication kernel holds `sms` of them (1 where unknown)."""
    n = hw.multiprocessors
    if isinstance(n, NUMBER):  # one hardware: plain numbers (issue 25)
        return (n - sms) / (n if n > 0 else 1.0) if n > sms else 1.0
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return where(n > sms, (n - sms) / where(n > 0, n, 1.0), 1.0)


#: The attention time, in units of its forward pass, that the CP ring's exchange runs beside: the forward (1) and the
#: flash backward's 2.5x its FLOP (5 matmuls against 2, Dao, arXiv 2307.08691 §4.1), as `cp_exposed` has taken it.
CP_WINDOW = 3.5


def cp_ring(hw: Hardware, kv_size, cp, tp):
    """(forward, backward) seconds of Transformer Engine's p2p ring passing `kv_size` bytes of K and V round cp ranks.

    `AttnFuncWithCPAndKVP2P` (transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py at
    d0067d0; the same at v2.9, Megatron-Bridge v0.2.2's pin): rank r sends its K/V chunk (kv_size / cp) to rank r + 1
    and receives r − 1's (`send_dst`, `recv_src`, lines 1418-1419), one isend/irecv pair or `batch_isend_irecv` a
    step (`flash_attn_p2p_communicate`, lines 96-133); the forward sends on its first cp − 1 steps (lines 1698-1716);
    the backward's buffer holds K/V and dK/dV (lines 2397-2401), sent alone on its first step, together in between
    and dK/dV alone on its last (lines 2460-2495): 2 + (cp − 2) x 2 chunks over cp steps. Every rank sends at once,
    so a step lasts as long as its slowest hop, one pair of ranks: over the scale-up link where the whole ring lies
    in one domain (a ring across racks: the second switch hop whole, `racks.group_times`' `whole`, hops2), else
    over one accelerator's own scale-out bandwidth (`collectives`' "p2p", as the pipeline's sends). Not an
    all-gather spread over every NIC of the domain, which NCCL's rail-aligned rings reach (the timing before,
    nu53fix). The 16-bit path; FP8's last backward step is an all-to-all of dK/dV (line 2479), not
    modelled apart.
    """
    pair = where(members_per_domain(hw, cp, tp) < cp, 1.0, 2.0)  # ranks of a hop inside one domain: 1 where it leaves
    chunk = kv_size / maximum(cp, 1.0)
    one, two = group_times(hw, (("p2p", chunk), ("p2p", 2.0 * chunk)), 2.0, pair, inside=in_one_rack(hw, cp, tp),
                           whole=True)
    live = cp > 1
    return where(live, (cp - 1.0) * one, 0.0), where(live, 2.0 * one + maximum(cp - 2.0, 0.0) * two, 0.0)


#: Forward passes the ring runs again under recomputation, by `RECOMPUTE_CODES` (none, selective, full): one under
#: either. Full recomputation re-runs each layer's forward in the backward (Megatron-core `_checkpointed_forward`,
#: transformer_block.py at 3097d81, lines 445-545, `tensor_parallel.checkpoint` or `te_checkpoint`; at d98e8a6 line
#: 662), the attention and its ring with it; selective recomputation checkpoints the core attention, the default
#: module (`recompute_modules` None is ["core_attn"], transformer_config.py at d98e8a6, line 1941; at 3097d81, line
#: 1556), as `_checkpointed_attention_forward` wraps `_run_core_attention`, Transformer Engine's attention and its
#: p2p ring, in `tensor_parallel.checkpoint` (attention.py at d98e8a6, lines 392-395, 495 and 1555; at 3097d81,
#: lines 329, 416 and 1194), whose backward runs that function again (`CheckpointFunction.backward`,
#: tensor_parallel/random.py at d98e8a6, line 659). Each re-run forward ring overlaps the re-run attention forward.
CP_RECOMPUTED = (0.0, 1.0, 1.0)


def cp_exposed(hw: Hardware, kv_size, cp, tp, attention, hbm, rc=0):
    """Exposed context-parallel communication of one layer per micro-batch, `kv_size` bytes of K and V on a rank.

    The p2p ring (`cp_ring`) passes K and V forward and K/V and their gradients backward, and the forward's again
    where recomputation `rc` re-runs the attention (`CP_RECOMPUTED`); it overlaps with the attention core
    (`attention`, its forward; 3.5 times that forward and backward, and one more forward recomputed), so only the
    excess is exposed, and its HBM traffic beside the attention's costs the overlapped part (`contention`, `hbm` the
    attention's share of the HBM rate; the forward ring receives kv_size x (1 − 1/cp) bytes in its time).
    """
    if hw._numbers and plain(kv_size, cp, tp, attention, hbm) and not cp > 1:
        return 0.0  # one layout of numbers without CP: what the `where` below gives, its terms not worked out
    fwd, bwd = cp_ring(hw, kv_size, cp, tp)
    again = recomputed(rc)
    t = (1.0 + again) * fwd + bwd
    window = cp_window(attention, rc)
    x_cp = C.comm_excess(hw, hbm, kv_size * (1.0 - 1.0 / maximum(cp, 1.0)), fwd)  # beside the attention
    return where(cp > 1, maximum(0.0, t - window) + x_cp * minimum(t, window), 0.0)


def recomputed(rc):
    """`CP_RECOMPUTED` of recompute codes `rc` (a number or an array of them)."""
    if isinstance(rc, NUMBER):
        return CP_RECOMPUTED[int(rc)]
    return np.asarray(CP_RECOMPUTED)[np.asarray(rc).astype(int)]


def cp_exchange(hw: Hardware, kv_size, cp, tp, rc=0):
    """The K/V exchange `cp_exposed` hides behind the attention, before any overlap (`rc`: the recompute code).

    The ring's forward, again where recomputation re-runs it (`CP_RECOMPUTED`), and its backward.
    """
    fwd, bwd = cp_ring(hw, kv_size, cp, tp)
    return (1.0 + recomputed(rc)) * fwd + bwd


def cp_window(attention, rc=0):
    """The attention time the ring runs beside: `CP_WINDOW` times the core's forward, one more where recomputed."""
    return attention * (CP_WINDOW + recomputed(rc))


def dp_exposed(hw: Hardware, job: Job, params, dp, k_dp, zero, bwd_window, fwd_window, t_mb, m, expert=None,
               timer=None, hbm=0.0, *, bucket, edge=None, high=0.0, stride=1.0):
    """Exposed data-parallel communication of one rank per step, by sharding stage (see `Layout.zero`).

    Stage 0 all-reduces the gradients; stages 1-2 reduce-scatter them and all-gather the updated weights (in
    `param_gather_dtype`); stage 3 (FSDP) gathers the weights for every micro-batch's forward and backward and
    reduce-scatters its gradients, hidden by that micro-batch's compute where prefetched. The reduction overlaps
    `bwd_window` with `overlap_grad_reduce`, the gather `fwd_window` with `overlap_param_gather`.

    `dp` is the group's size (dp·cp ranks, `stride` apart: tp in Megatron-core's rank order, `dp_groups`), `bucket`
    the parameters per DDP bucket (`bucket_params`, from the DP size without CP). Each bucket is its own collective
    (stages 0-2): the step's reduction and gather are timed as ceil(parameters / bucket) collectives of an equal
    share each, so every bucket pays NCCL's latency over the group (one bucket of every parameter without
    `overlap_grad_reduce`, as Megatron-core sets it).
    Megatron-core reduces a bucket group once its last gradient is final, so the last group (the first layers' and
    the input embedding's) has no backward left to hide behind; with the parameter gather overlapped, a forward
    pre-hook waits for each group and only then starts the next one's gather (param_and_grad_buffer.py at
    25.09-alpha.rc1, `finish_param_sync`, lines 283-301: "If current bucket's param AG has not been dispatched,
    dispatch it now"), so the first group's gather is exposed. That group holds `edge` parameters (default one
    bucket; `buckets.edge_params`), and under the FP8 parameter gather the rank's `high` parameters are gathered in
    16 bits (`buckets.sixteen_bit_params`), in that group. What does overlap
    runs on `NCCL_CTAS` SMs taken from the compute beside it, which loses that share of the overlapped time, and
    shares the HBM with it (`contention`; `hbm` the compute's share of the HBM rate; a collective receives about
    its buffer's bytes).

    `expert` is (parameters, group size, members per domain, stride) of the routed experts, whose buffers
    Megatron-core reduces and gathers over the expert data-parallel group (`memory.expert_data_parallel`); `params`
    is then the rest. The two groups' collectives run one after the other in the same windows.
    `timer(group, requests, n, k, stride)` times the collectives of `group` ("dp" or "expert"; default
    `racks.group_times` on `hw`, which takes the second switch hop off groups inside one rack; a batched search
    passes one that times each distinct group once, through the same function).
    """
    group = None if expert is None else expert[1:]
    return dp_exposure(hw, job, dp, k_dp, zero, m, group, timer, hbm, bucket=bucket, stride=stride)(
        params, 0.0 if expert is None else expert[0], bwd_window, fwd_window, t_mb, edge, high)


def dp_exposure(hw: Hardware, job: Job, dp, k_dp, zero, m, expert_group=None, timer=None, hbm=0.0, *, bucket,
                stride=1.0):
    """`dp_exposed` of a layout's rank classes: what they share worked out once, then a function of one class.

    `expert_group` is (group size, members per domain, stride) of the routed experts' data-parallel group, or None; the
    function takes a class's (parameters but the routed experts, routed experts, backward window, forward window,
    time per micro-batch, edge group, 16-bit parameters) as `dp_exposed` takes them (issue 25: one layout times its
    classes one by one).
    """
    gb, wb = job.grad_bytes, job.weight_bytes  # the gathered weights' bytes: `param_gather_dtype` under FP8
    # one stage given as a number: only its collectives (the others' times enter no result; issue 25)
    need = (zero < 1, zero >= 1, zero >= 1) if isinstance(zero, NUMBER) else (True, True, True)
    lost = 1.0 - sm_kept(hw, NCCL_CTAS)
    grad_on, gather_on = job.overlap_grad_reduce, job.overlap_param_gather
    # `times` of this layout's classes by (group, parameters, 16-bit parameters), where they are numbers timed by
    # `racks.group_times` (a batched search's `timer` keeps its own): the first and the last pipeline stage hold as
    # many (the embedding and the output layer, each vocab x hidden / tp) and time the same collectives (issue 25)
    kept: dict[tuple, list] = {}

    def times(group, p, n, k, apart, high=0.0):
        """All-reduce, reduce-scatter and all-gather of `group`'s `p` parameters over n ranks `apart` (k per domain).

        `high` of them are gathered in 16 bits (the FP8 parameter gather's other parameters).
        """
        key = (group, p, high) if timer is None and isinstance(p, NUMBER) and isinstance(high, NUMBER) else None
        if key is not None and key in kept:
            return kept[key]
        # Megatron-core's buckets, each its own collective (`BUCKET_PARAMS`); FSDP's gathers stay one per step's
        # parameters, as before (its units are not these buckets); without `overlap_grad_reduce` Megatron-core sets
        # the bucket to infinity (distributed_data_parallel.py at core_v0.14.0, lines 66-68): one collective
        if not grad_on:
            count = 1.0
        elif key is not None and isinstance(zero, NUMBER) and isinstance(bucket, NUMBER):  # numbers: branches
            count = 1.0 if zero >= 3 else ceil((p if p > 1.0 else 1.0) / bucket)
        else:
            count = where(zero >= 3, 1.0, ceil(maximum(p, 1.0) / bucket))
        per = p / count
        gathered = (p * wb + high * (WEIGHT_BYTES - wb)) / count
        reduced = per * gb
        asked = []  # the requests `need` keeps, in order (written out: comprehensions over a zip cost more, issue 25)
        if need[0]:
            asked.append(("all_reduce", reduced))
        if need[1]:
            asked.append(("reduce_scatter", reduced))
        if need[2]:
            asked.append(("all_gather", gathered))
        out = iter(group_times(hw, asked, n, k, apart) if timer is None else timer(group, asked, n, k, apart))
        live = (n > 1) & (p > 0)
        if type(live) is bool and key is not None and hw._numbers:  # numbers timed as numbers: `where` a branch
            got = [count * next(out) if live and need[0] else 0.0, count * next(out) if live and need[1] else 0.0,
                   count * next(out) if live and need[2] else 0.0]
        else:
            got = [where(live, count * next(out), 0.0) if need[0] else 0.0,
                   where(live, count * next(out), 0.0) if need[1] else 0.0,
                   where(live, count * next(out), 0.0) if need[2] else 0.0]
        if key is not None:
            kept[key] = got
        return got

    def hidden(t, window, on, received, edge):
        """Exposed time of `t` behind `window` (all of it when not overlapped), with the SMs and HBM it shares."""
        if not on:
            return t
        late, least = t - window, edge * t
        shown = (late if late > least else least) if type(late) is float and type(least) is float else maximum(
            late, least)  # (`maximum` of two numbers, without the call: six an estimate, issue 25)
        return shown + (lost + C.comm_excess(hw, hbm, received, t)) * (t - shown)

    def exposed(params, experts, bwd_window, fwd_window, t_mb, edge=None, high=0.0):
        """The class's exposed data-parallel communication per step."""
        ar, rs, ag = times("dp", params, dp, k_dp, stride, high)
        total = params
        if expert_group is not None:
            moved = np.any(experts) if isinstance(experts, np.ndarray) else experts
            if moved:  # a dense model's expert group moves nothing: its times are zeros (issue 25)
                ar, rs, ag = (a + b for a, b in zip((ar, rs, ag), times("expert", experts, *expert_group),
                                                    strict=True))
            total = params + experts
        # one sharding stage for every layout (a number: one layout, or a batch's slots of a stage): its time alone
        one = isinstance(zero, NUMBER)
        if one and zero >= 3:
            return m * maximum(0.0, 2.0 * ag + rs - t_mb)
        first = bucket if edge is None else edge  # the group gathered first and reduced last (`buckets.edge_params`)
        extra = high * (WEIGHT_BYTES - wb)  # what its 16-bit parameters add to the gathered bytes
        if one and type(total) is float and type(first) is float and type(extra) is float:  # numbers: the `else`'s
            weight = total * wb + extra                               # `minimum`s and `maximum`s as branches
            edge_g, edge_w = first / (total if total > 1.0 else 1.0), (first * wb + extra) / (
                weight if weight > 1.0 else 1.0)
            edge_g, edge_w = 1.0 if 1.0 < edge_g else edge_g, 1.0 if 1.0 < edge_w else edge_w
        else:
            edge_g = minimum(1.0, first / maximum(total, 1.0))
            edge_w = minimum(1.0, (first * wb + extra) / maximum(total * wb + extra, 1.0))
        if one:
            if zero >= 1:
                return hidden(rs, bwd_window, grad_on, total * gb, edge_g) + hidden(
                    ag, fwd_window, gather_on, total * wb + extra, edge_w)
            return hidden(ar, bwd_window, grad_on, 2.0 * total * gb, edge_g)
        plain = hidden(ar, bwd_window, grad_on, 2.0 * total * gb, edge_g)
        sharded = hidden(rs, bwd_window, grad_on, total * gb, edge_g) + hidden(
            ag, fwd_window, gather_on, total * wb + extra, edge_w)
        fsdp = m * maximum(0.0, 2.0 * ag + rs - t_mb)
        return where(zero >= 3, fsdp, where(zero >= 1, sharded, plain))

    return exposed
