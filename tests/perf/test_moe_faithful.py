"""An MoE layer as Megatron-core runs it (issue 20 part 1, left by tpfaith): the flex dispatcher's one all-to-all
over the tp x ep group, and the router on the rank's sequence-parallel tokens. Expectations are worked by hand from
Megatron-core's code (NVIDIA/Megatron-LM at d98e8a6, cited beside each test)."""

from __future__ import annotations

import dataclasses

import pytest

from archgen.perf.comm.collectives import collective_time
from archgen.perf.hw.arch import Arch
from archgen.perf.train.ep_exposure import expert_comm
from archgen.perf.train.job import Job
from archgen.perf.workload.roofline import training_kernels

#: Qwen3-235B-A22B's shape (as tests/perf/test_folding.py states it).
Q235 = Arch(layers=94, hidden=4096, heads=64, kv_heads=4, head_dim=128, ffn=12288, vocab=151936, gated=True,
            experts=128, top_k=8, expert_ffn=1536, rope=True, qk_norm=True)
#: One rank's bytes of one copy of each of its 4096 / 2 sequence-parallel tokens (tp 2), 16-bit.
COPY = 2048 * 4096 * 2.0


def _plain(dispatcher):
    return Job(Q235, 4096, 8192, "bf16", ep_dedup=False, moe_dispatcher=dispatcher, overlap_ep_comm=False)


def test_flex_dispatcher_sends_over_the_tp_ep_group_without_an_expert_tp_gather(h100):
    """TP2 EP16 ETP2 under the flex dispatcher: `MoEFlexTokenDispatcher` hands DeepEP (and HybridEP) the tp_ep group
    with num_experts = tp_size x experts and topk = tp_size x top_k (token_dispatcher.py at d98e8a6, lines
    1836-1850), the routing map repeated for each expert-TP rank (`_initialize_metadata`, lines 1906-1917), and no
    gather follows. So one all-to-all over the 2 x 16 = 32 consecutive ranks (8 per H100 node), each rank sending
    its 2048 tokens' 2 x 8 copies; dispatch and combine, forward and backward: 4 of them."""
    a2a = collective_time(h100, "all_to_all", 2 * 8 * COPY, 32, 8)
    got = float(expert_comm(h100, _plain("deepep"), 4096.0, 2.0, 16.0, 1.0, 0.0, 0.0, 2.0)[0])
    assert got == pytest.approx(4 * float(a2a))
    # the all-to-all dispatcher instead gathers over the expert-TP pair after its all-to-all over the EP group,
    # whose members are 2 ranks apart (lines 741-751, 824-832): not what flex runs
    alltoall = collective_time(h100, "all_to_all", 8 * COPY, 16, 4) + collective_time(
        h100, "all_gather", 2 * 8 * COPY, 2, 2)
    assert float(expert_comm(h100, _plain("alltoall"), 4096.0, 2.0, 16.0, 1.0, 0.0, 0.0, 2.0)[0]) == pytest.approx(
        4 * float(alltoall))
    # etp 1: the tp_ep group is the EP group, and both dispatchers send the same all-to-all
    one = 4 * float(collective_time(h100, "all_to_all", 8 * COPY, 32, 8))
    for d in ("deepep", "alltoall"):
        assert float(expert_comm(h100, _plain(d), 4096.0, 2.0, 32.0, 1.0, 0.0, 0.0, 1.0)[0]) == pytest.approx(one)


def test_flex_deduplication_counts_domains_hit_by_the_ep_ranks(h100):
    """With de-duplication a token crosses once to each other node that holds one of its experts; an EP rank's two
    expert-TP ranks are consecutive, so in one node: 32 ranks over 4 nodes, (4 - 1)(1 - (3/4)^8) nodes hit beyond
    its own, each one copy of the token (the top_k EP ranks alone decide it). The all-to-all's buffer is sized so
    its part that leaves the node, (1 - 8/32) of it, is those copies."""
    job = dataclasses.replace(_plain("deepep"), ep_dedup=True)
    a2a = collective_time(h100, "all_to_all", 3 * (1 - 0.75 ** 8) * COPY / (1 - 8 / 32), 32, 8)
    got = float(expert_comm(h100, job, 4096.0, 2.0, 16.0, 1.0, 0.0, 0.0, 2.0)[0])
    assert got == pytest.approx(4 * float(a2a))


def test_expert_tp_gather_runs_at_ep_1(h100):
    """EP1 ETP2, all-to-all dispatcher: no all-to-all, but `dispatch_postprocess` still gathers over the expert-TP
    group whenever tp_size > 1 (token_dispatcher.py at d98e8a6, line 741), and the combine reduce-scatters."""
    gather = collective_time(h100, "all_gather", 2 * 8 * COPY, 2, 2)
    got = float(expert_comm(h100, _plain("alltoall"), 4096.0, 2.0, 1.0, 1.0, 0.0, 0.0, 2.0)[0])
    assert got == pytest.approx(4 * float(gather))
    assert float(expert_comm(h100, _plain("alltoall"), 4096.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0)[0]) == 0.0


@pytest.mark.parametrize(("tp", "sp", "rows"), [(4, True, 1024), (4, False, 4096), (1, False, 4096)])
def test_router_gemm_runs_on_the_ranks_tokens(h100, tp, sp, rows):
    """`MoELayer.route` passes the layer's input, under sequence parallelism the rank's T/tp tokens, to the router
    (moe_layer.py at d98e8a6, line 451), whose `gating` multiplies it by the whole [experts, hidden] weight
    (router.py line 111): 2 x rows x 128 x 4096 FLOP. (`test_roofline` checks these kernels sum to the step's layer.)"""
    r = training_kernels(h100, Q235, seq_len=4096, dtype="bf16", attention="flash", tp=tp, ep=8,
                         sequence_parallel=sp)
    router = next(k for k in r.kernels if k.name == "router")
    assert router.flop == pytest.approx(2.0 * rows * 128 * 4096)
