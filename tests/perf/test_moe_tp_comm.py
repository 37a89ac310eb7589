"""A MoE layer's TP collectives go through the same exposure rules as a dense layer's (`tp_comm.tp_gemms`).

Megatron-core at d98e8a6: the MoE layer routes its T/tp sequence-parallel tokens (megatron/core/transformer/moe/
moe_layer.py line 636 refuses tp > 1 without SP in training); its shared experts are an `MLP` on the attention's TP
group (shared_experts.py, `SharedExpertMLP.__init__`, `tp_group=pg_collection.tp`) whose FC1 and FC2 gather their
input and reduce-scatter their output with the `fc1`/`fc2` userbuffers (mlp.py lines 228 and 251), as a dense FFN
does; the routed experts' only TP collectives are the dispatcher's expert-TP all-gather and reduce-scatter
(token_dispatcher.py lines 741-751 and 824-832), timed with the all-to-alls (`ep_exposure.expert_comm`). So a MoE layer
at tp > 1 with SP exposes what a dense layer whose FFN is the shared experts' exposes, with userbuffers or without,
and one without shared experts what the attention alone exposes. Before, each MoE layer added an all-reduce of
T x h per forward pass and one backward: exposed without userbuffers, hidden for nothing with them.
"""

from __future__ import annotations

import dataclasses

import pytest

from archgen.perf.hw.arch import Arch
from archgen.perf.train.exposure import NCCL_CTAS
from archgen.perf.train.job import Job
from archgen.perf.train.tp_comm import tp_exposed, tp_gemms, tp_layer, tp_overlap_cost, tp_sequence_parallel, tp_times

DENSE = Arch(layers=4, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=2 * 1408, vocab=32768, gated=True, rope=True, qk_norm=False)
MOE = dataclasses.replace(DENSE, ffn=14336, experts=64, top_k=8, expert_ffn=1408, shared_experts=2)


@pytest.mark.parametrize("overlap", [False, True])
@pytest.mark.parametrize("passes", [1.0, 2.0])
def test_a_moe_layer_exposes_what_a_dense_layer_of_its_shared_experts_does(h100, overlap, passes):
    T, tp = 8192.0, 8.0
    moe, dense = (float(tp_layer(h100, Job(a, 4096, 64, overlap_tp_comm=overlap), T, tp, True, passes,
                                 a.moe_layers / a.layers, 0.0)) for a in (MOE, DENSE))
    assert MOE.moe_layers == 4 and DENSE.moe_layers == 0
    assert moe == pytest.approx(dense, rel=1e-12)


@pytest.mark.parametrize("overlap", [False, True])
def test_without_shared_experts_only_the_attention_pair_is_exposed(h100, overlap):
    """QKV and the projection alone, by the dense rules: without userbuffers what blocks plus NCCL's 16 of the 132
    SMs over what hides (`tp_sequence_parallel`), with them what shows plus the chunks and the margin
    (`tp_exposed`, `tp_overlap_cost`); no HBM contention (`hbm` 0). Nothing of the experts' width enters."""
    T, tp = 8192.0, 8.0
    routed = dataclasses.replace(MOE, shared_experts=0)
    ar, rs, one, both = (float(x) for x in tp_times(h100, None, T, MOE.hidden, tp))
    attn = tp_gemms(DENSE, tp, 0.0)[:2]
    assert [m for *_, m, _ in attn] == ["ring_exchange", "pipeline"] and tp_gemms(routed, tp, 1.0) == attn
    if overlap:
        want = float(tp_exposed(h100, "bf16", T, tp, attn, 1.0, rs, one)) + float(
            tp_overlap_cost(h100, "bf16", T, tp, attn, 1.0))
    else:
        shown, hidden = (float(x) for x in tp_sequence_parallel(h100, "bf16", T, attn, 1.0, one, rs, both))
        want = shown + NCCL_CTAS / 132 * hidden
    for a in (routed, dataclasses.replace(routed, expert_ffn=4 * 1408)):
        got = float(tp_layer(h100, Job(a, 4096, 64, overlap_tp_comm=overlap), T, tp, True, 1.0, 1.0, 0.0))
        assert got == pytest.approx(want, rel=1e-12)
