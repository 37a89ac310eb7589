"""Tests by behaviour: one small case per modelled effect, each with the step time its switch must move, by hand.

Each case is a tiny workload on one HGX H100 node (the `h100` fixture: 8 GPUs on NVLink, 132 SMs) with round
sizes, one switch flipped and everything else held. The collective times are inputs here (NCCL's model,
`perf.collectives`, tested against nccl-tests in test_collectives.py); what each test derives by hand is how much
of them the switch moves off the critical path, from the mechanism the stack runs:

* TP overlap: Transformer Engine's userbuffers (transformer_engine/pytorch/module/base.py `initialize_ub`,
  NVIDIA/TransformerEngine at d0067d0): `pipeline` reduce-scatters in 4 splits (the last one has no GEMM left),
  `ring_exchange` in tp steps and `bulk` whole, each collective behind its own GEMM; see `perf.train.tp_comm`.
* EP de-duplication: DeepEP/HybridEP send a token once per destination node (deepseek-ai/DeepEP README, "Normal
  kernels with NVLink and RDMA forwarding"); see `perf.ep_exposure.expert_comm`.
* DP parameter gather and gradient reduce-scatter: Megatron-core's bucketed overlap (megatron/core/distributed/
  distributed_data_parallel.py at d98e8a6: bucket max(40M, 1M x dp) parameters; the last gradient bucket and the
  first gather bucket have nothing to hide behind), on 16 of the SMs (NCCL_MIN_CTAS=16 in NVIDIA's MLPerf NeMo
  configurations); see `perf.exposure.dp_exposed`.
* PP send overlap: Megatron-core's interleaved 1F1B with `overlap_p2p_comm` (megatron/core/pipeline_parallel/
  schedules.py, `forward_backward_pipelining_with_interleaving`): steady-state sends overlap the next chunk, the
  warmup's and the flush's block.
* CP overlap: the ring attention of Transformer Engine's `context_parallel` (K/V chunks passed around the ring while
  the attention core runs on the previous one): only the excess of the ring over the attention core shows.

The breakdowns these mechanisms are checked against (published profiling or ablations) are in test_overlap_cost.py
and test_tp_overlap.py; this file pins the mechanisms themselves.
"""

from __future__ import annotations

import math

import pytest

from archgen.perf.comm.collectives import collective_time
from archgen.perf.hw import kernels as K
from archgen.perf.hw.arch import Arch
from archgen.perf.train.buckets import mean_bucket
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.layer import layer_times
from archgen.perf.train.tp_comm import tp_gemms, tp_overlap_cost
from archgen.perf.train.training import estimate_training

#: 64 MiB: 4,096 tokens x 8,192 hidden x 2 B (one micro-batch's activations, the TP all-reduce buffer).
MIB = 2.0 ** 20


def _step(hw, job, layout):
    return estimate_training(hw, job, layout)


def test_tp_overlap_hides_each_collective_behind_its_own_gemm(h100):
    """4 layers, h = 8192, TP 8 with SP, 4 micro-batches of 4,096 tokens, no PP, no DP, BF16.

    Each TP pair of linear layers (QKV/projection, FC1/FC2) runs per micro-batch five collectives of
    T x h x 2 B = 64 MiB over 8 NVLink ranks (`tp_comm`): forward the column-parallel input's all-gather (ag) and
    the row-parallel output's reduce-scatter (rs); backward the output gradient's all-gather, the input's all-gather
    again for the column-parallel wgrad and that layer's dgrad reduce-scatter.

    Without overlap (TE's `Linear` at d0067d0, linear.py lines 992-999 and 1123-1133; Megatron-core layers.py at
    d98e8a6, lines 666-712) the forward's two and the output gradient's gather block: 2 (ag + rs) + 2 ag; the
    column-parallel backward's gather runs async beside its dgrad GEMM and its reduce-scatter beside its wgrad GEMM,
    all four longer than their collective here (checked below): they hide, and take NCCL's 16 of the 132 SMs from
    the GEMM for their time: 16/132 x 2 (ag + rs). With TE's userbuffers (`tp_comm.tp_exposed`) each collective
    hides only behind its own GEMM:

    * the projection's and FC2's forward reduce-scatters run `pipeline` in 4 splits, the last split with no GEMM
      left: rs/4 each shows; and each of the 3 others shows where it outlasts the next quarter's GEMM on the 116
      SMs left: for the projection (T/4 x h x h/8) it does here, 3 (rs/4 - g(T/4, h, h/8)/keep);
    * the projection's dgrad gathers the output gradient `ring_exchange` in 8 steps of ag/7, each beside one
      512-row chunk of a GEMM only h/8 = 1,024 deep: 7 (ag/7 - g(T/8, h/8, h)) shows;
    * QKV's and FC1's ring all-gathers, FC2's dgrad ring and the `bulk` collectives beside the column-parallel
      dgrad/wgrad have GEMMs longer than their communication here (checked below) and hide.

    The HBM the compute and the hidden collectives take together stays under its rate here (no contention). The
    overlap costs the GEMMs their chunking and 16 SMs (`tp_overlap_cost`, derived by hand in test_overlap_cost.py);
    the step moves by m x layers = 16 times the per-layer change.
    """
    from archgen.perf.train import contention as C
    arch = Arch(layers=4, hidden=8192, heads=64, kv_heads=64, head_dim=128, ffn=32768, vocab=32768, rope=True, qk_norm=False)
    layout = Layout(tp=8, pp=1, dp=1, micro_batch=1, sequence_parallel=True)
    plain, hidden = (_step(h100, Job(arch, 4096, 4, overlap_tp_comm=on), layout) for on in (False, True))
    assert 4096 * 8192 * 2.0 == 64 * MIB
    ag, rs, ar = (float(collective_time(h100, op, 64 * MIB, 8, 8)) for op in ("all_gather", "reduce_scatter",
                                                                             "all_reduce"))
    keep, T, h, f = 116 / 132, 4096.0, 8192.0, 32768.0
    lt = layer_times(h100, Job(arch, 4096, 4), tp=8.0, mb=1.0, cp=1.0, ep=1.0, rc=0.0, sp=True)
    assert float(lt.hbm + C.comm_share(h100, 2 * 64 * MIB * 7 / 8, ar)) < 1.0  # no HBM contention
    g = lambda m, n, k: float(K.gemm_time(h100, "bf16", m, n, k))  # noqa: E731
    assert max(ag, rs) < min(g(T, h, 3 * h / 8), g(h, 3 * h / 8, T), g(T, h, 2 * f / 8), g(h, 2 * f / 8, T)) * keep
    proj_f, proj_d = rs / 4 - g(T / 4, h, h / 8) / keep, ag / 7 - g(T / 8, h / 8, h)
    assert proj_f > 0 and proj_d > 0  # the short projection GEMMs do not cover their pieces
    assert rs / 4 < g(T / 4, h, f / 8) / keep and ag / 7 < g(T / 8, f / 8, h)  # FC2's do
    assert ag / 7 < g(T / 8, 3 * h / 8, h) and ag / 7 < g(T / 8, 2 * f / 8, h)  # QKV's and FC1's ring chunks do
    blocking = 2 * (ag + rs) + 2 * ag + 16 / 132 * 2 * (ag + rs)
    shown = rs / 2 + 3 * proj_f + 7 * proj_d
    cost = float(tp_overlap_cost(h100, "bf16", 4096.0, 8.0, tp_gemms(arch, 8, 0.0), 1.0))
    assert float(plain.tp_comm) == pytest.approx(16 * blocking, rel=1e-12)
    assert float(hidden.tp_comm) == pytest.approx(16 * (shown + cost), rel=1e-12)
    assert float(plain.step_time - hidden.step_time) == pytest.approx(16 * (blocking - shown - cost), rel=1e-9)
    for part in ("compute", "dp_comm", "pp_comm", "optimizer", "bubble"):
        assert float(getattr(plain, part)) == pytest.approx(float(getattr(hidden, part)), rel=1e-12), part


def test_tp_overlap_moves_nothing_without_tp(h100):
    """TP 1 has no TP collectives: the switch has nothing to hide."""
    arch = Arch(layers=4, hidden=8192, heads=64, kv_heads=64, head_dim=128, ffn=32768, vocab=32768, rope=True, qk_norm=False)
    plain, hidden = (_step(h100, Job(arch, 4096, 32, overlap_tp_comm=on), Layout(1, 1, 8, 1)) for on in (False, True))
    assert float(plain.step_time) == float(hidden.step_time)


def test_ep_dedup_sends_three_quarters_of_the_dispatch_bytes(h100):
    """2 MoE layers, h = 4096, 64 experts, top-2, EP 16 over two 8-GPU nodes (folded over DP 16), TP 1.

    Each of a rank's T = 4,096 tokens sends top_k = 2 copies of h x 2 B: 64 MiB. Without de-duplication every copy
    is sent; with routing uniform over 16 ranks, a copy leaves the node with probability 1/2, so 2 x 1/2 = 1 copy
    per token crosses. DeepEP/HybridEP send a token once to each other node holding one of its experts: with D = 2
    nodes, 1 - (1 - 1/2)^2 = 3/4 of tokens cross, once. The dispatch and combine buffers shrink to 3/4 (the model
    scales the whole buffer by the crossing ratio). Per MoE layer and micro-batch 4 all-to-alls run (dispatch and
    combine, forward and backward); with m = 2 micro-batches and 2 layers the step moves by
    16 x (a2a(64 MiB) - a2a(48 MiB)).
    """
    arch = Arch(layers=2, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=32768, gated=True,
                experts=64, top_k=2, expert_ffn=2048, rope=True, qk_norm=False)
    layout = Layout(tp=1, pp=1, dp=16, micro_batch=1, ep=16)
    every, dedup = (_step(h100, Job(arch, 4096, 32, ep_dedup=on), layout) for on in (False, True))
    full = 4096 * 2 * 4096 * 2.0
    assert full == 64 * MIB
    a2a_full, a2a_dedup = (float(collective_time(h100, "all_to_all", s, 16, 8)) for s in (full, 0.75 * full))
    assert float(every.ep_comm) == pytest.approx(16 * a2a_full, rel=1e-12)
    assert float(dedup.ep_comm) == pytest.approx(16 * a2a_dedup, rel=1e-12)
    assert float(every.step_time - dedup.step_time) == pytest.approx(16 * (a2a_full - a2a_dedup), rel=1e-9)
    assert a2a_dedup / a2a_full == pytest.approx(0.75, abs=0.01)  # bandwidth-bound at 48 MiB: 3/4 of the time


def test_ep_dedup_moves_nothing_inside_one_node(h100):
    """EP 8 on one NVLink node: no token leaves the node, so there is nothing to de-duplicate."""
    arch = Arch(layers=2, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=32768, gated=True,
                experts=64, top_k=2, expert_ffn=2048, rope=True, qk_norm=False)
    layout = Layout(tp=1, pp=1, dp=8, micro_batch=1, ep=8)
    every, dedup = (_step(h100, Job(arch, 4096, 16, ep_dedup=on), layout) for on in (False, True))
    assert float(every.step_time) == float(dedup.step_time)


#: A dense model whose parameters count by hand: 8 layers x (4h^2 attention + 2 h x 4h MLP + 2h norms) + embedding
#: and output layer 2 x 32,768 x 4,096 = 8 x 201,334,784 + 268,435,456 = 1,879,113,728.
DENSE = Arch(layers=8, hidden=4096, heads=32, kv_heads=32, head_dim=128, ffn=16384, vocab=32768, rope=True, qk_norm=False)
DENSE_PARAMS = 8 * (4 * 4096 ** 2 + 2 * 4096 * 16384 + 2 * 4096) + 2 * 32768 * 4096


def _dp_saving(t):
    """What Megatron-core's bucketed overlap hides of a DP collective of `t` seconds when the window outlasts it.

    The edge bucket group (a 40M threshold, max(40M, 1M x 8), closed on whole tensors: `buckets.mean_bucket`, issue
    20, with the input embedding, the last tensor of Megatron-core's reverse walk, in it: `buckets.edge_params`, of
    the 1,879,113,728 parameters) stays exposed; the rest overlaps on the SMs NCCL leaves, losing 16 of H100's 132
    SMs from the compute beside it: saved (1 - e) x (1 - 16/132) x t.
    """
    assert DENSE_PARAMS == 1_879_113_728
    edge = (mean_bucket(DENSE, 40e6) + 32768 * 4096) / DENSE_PARAMS
    return (1.0 - edge) * (116.0 / 132.0) * t


def test_param_gather_overlap_hides_all_but_the_first_bucket(h100):
    """DP 8 on one node, distributed optimizer (ZeRO-1), BF16: the updated weights are all-gathered, P x 2 B over 8
    ranks. Overlapped, the gather hides behind the first micro-batch's forward (tens of ms here against a gather of
    under 10 ms) but for its first bucket; the step moves by `_dp_saving(ag)`, and by the same at m = 1 and m = 4:
    only the first micro-batch's forward is a window (the later ones need the weights already)."""
    ag = float(collective_time(h100, "all_gather", DENSE_PARAMS * 2.0, 8, 8))
    for m in (1, 4):
        plain, hidden = (_step(h100, Job(DENSE, 4096, 8 * m, overlap_param_gather=on, overlap_grad_reduce=False),
                               Layout(1, 1, 8, 1, zero=1)) for on in (False, True))
        assert float(plain.step_time - hidden.step_time) == pytest.approx(_dp_saving(ag), rel=1e-9), m
        assert float(plain.compute) == pytest.approx(float(hidden.compute), rel=1e-12)


def test_grad_reduce_overlap_hides_all_but_the_last_bucket(h100):
    """As above for the gradients: fp32 main gradients (Megatron-core's bf16 default) reduce-scattered, P x 4 B over
    8 ranks, behind the backward but for the last bucket (the first layers', final only at the end); the step
    moves by `_dp_saving(rs)`. Without the distributed optimizer the gradients are all-reduced instead, and the
    switch moves `_dp_saving(ar)`.

    With `overlap_grad_reduce` each of Megatron-core's ceil(P / mean bucket) buckets is its own collective of P / n
    parameters (param_and_grad_buffer.py at core_v0.14.0, lines 214-264 and 323-437), the unoverlapped ZeRO-1
    gather included; without it the bucket is infinite, one collective (distributed_data_parallel.py lines 66-68).
    So the switch saves `_dp_saving` of the n buckets' time, less what n collectives cost over one."""
    n = math.ceil(DENSE_PARAMS / mean_bucket(DENSE, 40e6))  # buckets closed on whole tensors (issue 20)

    def one(kind, width, count=1):
        return count * float(collective_time(h100, kind, DENSE_PARAMS * width / count, 8, 8))

    rs, ar, ag = one("reduce_scatter", 4.0), one("all_reduce", 4.0), one("all_gather", 2.0)
    rs_n, ar_n, ag_n = one("reduce_scatter", 4.0, n), one("all_reduce", 4.0, n), one("all_gather", 2.0, n)
    for zero, t, t_n, extra in ((1, rs, rs_n, ag - ag_n), (0, ar, ar_n, 0.0)):
        plain, hidden = (_step(h100, Job(DENSE, 4096, 32, overlap_grad_reduce=on, overlap_param_gather=False),
                               Layout(1, 1, 8, 1, zero=zero)) for on in (False, True))
        want = _dp_saving(t_n) - (t_n - t) + extra
        assert float(plain.step_time - hidden.step_time) == pytest.approx(want, rel=1e-9), zero


def test_p2p_overlap_leaves_the_warmup_and_flush_sends(h100):
    """8 layers on PP 2 x 2 virtual stages (2 layers a chunk), 8 micro-batches, TP 1: each chunk of each micro-batch
    sends its activations on and its gradients back, 2 v m = 32 sends of T x h x 2 B = 32 MiB (both stages in one
    NVLink node). With the interleaved schedule's overlap only the 2 (p - 1) = 2 sends of the warmup and the flush
    block (a chunk's forward, two layers of 4,096 tokens, outlasts one 32 MiB NVLink send): the step moves by
    30 sends."""
    layout = Layout(tp=1, pp=2, dp=1, micro_batch=1, interleave=2)
    plain, hidden = (_step(h100, Job(DENSE, 4096, 8, overlap_p2p_comm=on), layout) for on in (False, True))
    p2p = float(collective_time(h100, "p2p", 4096 * 4096 * 2.0, 2, 2))
    lt = layer_times(h100, Job(DENSE, 4096, 8), tp=1, mb=1, cp=1, ep=1, rc=0, sp=False)
    assert 2 * float(lt.forward) > p2p
    assert float(plain.pp_comm) == pytest.approx(32 * p2p, rel=1e-12)
    assert float(plain.step_time - hidden.step_time) == pytest.approx(30 * p2p, rel=1e-9)


def test_cp_ring_shows_only_its_excess_over_the_attention_core(h100):
    """CP 2 with TP 1: per layer and micro-batch K and V (2 x T_seq x kv_heads x head_dim x 2 B) pass round
    Transformer Engine's p2p ring (`exposure.cp_ring`): each rank sends its half once forward (cp - 1 = 1 step) and
    K/V then dK/dV backward (2 steps at cp 2), 3 point-to-point sends `cp_t` of half the bytes inside the NVLink
    node, behind the attention core's forward and backward (1 + 2.5 = 3.5 forwards of it). At 32k tokens (attention
    quadratic in them) the ring hides: no CP time on the step. At 1k tokens the ring outlasts the core and exactly
    3 cp_t - 3.5 attn shows per layer."""
    for seq, hides in ((32768, True), (1024, False)):
        job = Job(DENSE, seq, 4)
        est = _step(h100, job, Layout(tp=1, pp=1, dp=1, micro_batch=1, cp=2))
        cp_t = float(collective_time(h100, "p2p", 2.0 * seq * 32 * 128 * 2.0 / 2, 2, 2))
        attn = float(layer_times(h100, job, tp=1, mb=1, cp=2, ep=1, rc=0, sp=False).attention)
        assert (3 * cp_t <= 3.5 * attn) is hides, seq
        assert float(est.cp_comm) == pytest.approx(4 * 8 * max(0.0, 3 * cp_t - 3.5 * attn), rel=1e-12, abs=0.0)


def test_fp8_param_gather_halves_the_gather_and_bf16_gradients_halve_the_reduction(h100):
    """The dtypes on the DP wire, with the overlaps off so that all of it shows. NeMo's communication-overlap guide
    (docs.nvidia.com/nemo-framework/user-guide/25.09, "Data-parallel Communication Overlap"): `fp8_param_gather`
    "conducts the parameter all-gather in fp8, reducing the all-gather overhead by half", and
    `grad_reduce_in_fp32=False` reduces gradients in bf16 instead of fp32. Only Transformer Engine's FP8 weights
    travel in one byte: the embedding, the output layer and the norms (H = 2 x 32,768 x 4,096 + 17 x 4,096) stay
    16-bit parameters in a buffer of their own (Megatron-core 25.09-alpha.rc1, distributed_data_parallel.py lines
    163-176: an FP8 parameter's buffer is uint8, the others keep their dtype). So DP time moves by exactly
    ag(2 B x P) - ag(1 B x (P - H) + 2 B x H) and rs(4 B x P) - rs(2 B x P), P = 1,879,113,728 over 8 ranks."""
    layout = Layout(1, 1, 8, 1, zero=1)

    def dp(**switches):
        job = Job(DENSE, 4096, 8, precision="fp8", overlap_param_gather=False, overlap_grad_reduce=False, **switches)
        return float(_step(h100, job, layout).dp_comm)

    high = 2 * 32768 * 4096 + (8 * 2 + 1) * 4096
    ag = {b: float(collective_time(h100, "all_gather", (DENSE_PARAMS - high) * b + 2.0 * high, 8, 8))
          for b in (1.0, 2.0)}
    rs = {b: float(collective_time(h100, "reduce_scatter", DENSE_PARAMS * b, 8, 8)) for b in (2.0, 4.0)}
    assert dp(param_gather_dtype="bf16") - dp(param_gather_dtype="fp8") == pytest.approx(ag[2.0] - ag[1.0], rel=1e-9)
    assert dp(grad_reduce_dtype="fp32") - dp(grad_reduce_dtype="bf16") == pytest.approx(rs[4.0] - rs[2.0], rel=1e-9)
    assert dp(grad_reduce_dtype="fp32", param_gather_dtype="bf16") == pytest.approx(rs[4.0] + ag[2.0], rel=1e-12)
