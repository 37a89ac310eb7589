"""CUDA graphs (`cuda_graphs`): a layer's captured scopes cost the host one replay per pass (`host.graphed_ops`).

Counts from Megatron-core at 3097d81 (transformer_layer.py `_te_cuda_graph_capture`: attention, then `_forward_mlp`
up to the router with `moe_router`) and Transformer Engine at f031cf87 (pytorch/graph.py: `Graphed.forward` and
`.backward` each replay one graph); scored on Megatron-Bridge's verification card for Qwen3-30B-A3B
(tests/perf/data/bridge-card-qwen3-30b.yaml: examples/model_verification_cards/qwen3-30b-a3b/card.yaml at 067f987df).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.model.switches import SWITCHES, StackSwitches
from archgen.perf.hw import quant as Q
from archgen.perf.hw.arch import Arch
from archgen.perf.train import host as H
from archgen.perf.train.job import Job
from archgen.perf.train.stacks import resolve

DATA = Path(__file__).parent / "data"
QWEN3_30B = Arch(layers=48, hidden=2048, heads=32, kv_heads=4, head_dim=128, ffn=6144, vocab=151936, gated=True,
                 experts=128, top_k=8, expert_ffn=768, rope=True, qk_norm=True)
LLAMA3_8B = Arch(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256, gated=True, rope=True, qk_norm=False)


def _card_job(graphs: str) -> Job:
    """The card's H100 BF16 run: HybridEP with the permutation fused, 8 local experts (EP 16), forced balancing."""
    return Job(QWEN3_30B, 4096, 1024, "bf16", moe_dispatcher="hybridep", ep_dedup=True, permute_in_dispatch=True,
               cuda_graphs=graphs, moe_force_balance=True, rope_fusion=True)


def test_card_layer_operations_with_router_graphs_by_hand():
    """Ungraphed, the card's layer issues forward 9 (attention, with the QK norms' 2, rope40) + 5 (MoE MLP) + 2 x 8
    expert GEMMs + 5 (the router's load-balancing loss) + 2 (its random logits) = 37 and backward 11 + 6 + 4 x 8 + 5
    = 54 (91; 87 before the QK norms; `router.router_kernels`). The moe_router scope captures the pre-MLP norm, the
    router GEMM and its routing (3 forward, 4 backward) with the loss and the random logits (7 and 5) and replays
    them as one graph per pass: 28 and 46 (74; 70 before the QK norms). moe_preprocess adds no counted operation (the dispatcher's preprocessing is HybridEP's per-call
    cost; its synchronisation stays outside)."""
    assert tuple(float(x) for x in H.layer_ops(_card_job("none"), 16.0, (0.0, 0.0))) == (37.0, 54.0)
    for graphs in ("moe_router", "moe_router+moe_preprocess"):
        assert tuple(float(x) for x in H.layer_ops(_card_job(graphs), 16.0, (0.0, 0.0))) == (28.0, 46.0)
    # attention too: its 9 and 11 operations join the same graph (one replay a pass for the layer)
    assert tuple(float(x) for x in H.layer_ops(_card_job("attn+moe_router+moe_preprocess"), 16.0, (0.0, 0.0))) == (
        37.0 - 9.0 - 3.0 - 7.0 + 1.0, 54.0 - 11.0 - 4.0 - 5.0 + 1.0)
    # a whole-iteration graph: no per-layer host work and no synchronisation inside the capture
    full = _card_job("full_iteration")
    assert tuple(float(x) for x in H.layer_ops(full, 16.0, (0.0, 0.0))) == (0.0, 0.0)
    assert H.synchronised(full) is False and H.synchronised(_card_job("moe_router")) is True


def test_router_scopes_leave_a_dense_model_alone():
    """moe_router captures only MoE layers (Megatron asserts it needs experts); attn captures each layer's attention
    block, 7 forward and 9 backward operations, replayed as one each."""
    dense = Job(LLAMA3_8B, 8192, 128, "bf16", cuda_graphs="attn", rope_fusion=True)
    assert tuple(float(x) for x in H.layer_ops(dense, 1.0, (0.0, 0.0))) == (5.0 + 1.0, 7.0 + 1.0)
    assert H.graphed_ops(Job(LLAMA3_8B, 8192, 128, "bf16", cuda_graphs="moe_router", rope_fusion=True)) == (0.0, 0.0)


def test_a_graphed_fp8_attention_block_takes_its_casts_along():
    """FP8 current scaling (quant.KERNELS: 4 kernels a cast, 3 after a norm): the attention block's QKV input (after
    the norm) and projection input forward, 7 kernels, and its two output gradients backward, 8, are in its graph.
    A dense Llama 3 8B layer: forward 12 operations + 14 casts = 26, with `attn` graphed 5 + 1 + 7 = 13; backward
    16 + 16 = 32, graphed 7 + 1 + 8 = 16. Delayed scaling on Hopper: 1 + 1 and 2; on Blackwell the norm writes FP8
    itself (0 + 1)."""
    job = Job(LLAMA3_8B, 8192, 128, "fp8", fp8_recipe="tensorwise", cuda_graphs="attn", rope_fusion=True)
    kernels = Q.layer_kernels(job.arch, job.recipe, 9.0, 1.0)
    attn = Q.attention_kernels(job.recipe, 9.0)
    assert (float(kernels[0]), float(kernels[1])) == (14.0, 16.0) and attn == (7.0, 8.0)
    eager = Job(LLAMA3_8B, 8192, 128, "fp8", fp8_recipe="tensorwise", rope_fusion=True)
    assert tuple(float(x) for x in H.layer_ops(eager, 1.0, kernels, attn)) == (26.0, 32.0)
    assert tuple(float(x) for x in H.layer_ops(job, 1.0, kernels, attn)) == (13.0, 16.0)
    assert tuple(float(x) for x in Q.attention_kernels("delayed", 9.0)) == (2.0, 2.0)
    assert tuple(float(x) for x in Q.attention_kernels("delayed", 10.0)) == (1.0, 2.0)
    assert Q.attention_kernels(None, 9.0) == (0.0, 0.0)


def test_every_profile_defaults_to_no_graphs_and_a_case_may_state_them():
    """Megatron-core's `cuda_graph_impl` defaults to none (3097d81), as core_v0.9.0's `enable_cuda_graph`; Megatron-
    Bridge's recipes opt in per model and GPU (v0.4.0: the H100 BF16 Qwen3-30B-A3B preset graphs moe_router and
    moe_preprocess, its FP8-CS twin nothing)."""
    for stack in ("megatron-lm-2021", "megatron-core-2024", "nemo-2025"):
        assert resolve(stack, {}, "bf16").cuda_graphs == "none"
    assert resolve("nemo-2025", {"cuda_graphs": "full_iteration"}, "fp8").cuda_graphs == "full_iteration"
    assert "moe_router+moe_preprocess" in SWITCHES["cuda_graphs"].values
    with pytest.raises(ValueError):
        StackSwitches(cuda_graphs="moe")  # type: ignore[arg-type]


def test_the_card_row_is_scored_and_its_graphs_move_nothing():
    """The card's H100 BF16 run (13,011.378 tokens/s/GPU, 20.147 s a step) is the EP-overlap skill's overlap-on
    configuration (20.992 s): the model gives both 16.99 s, +18.6 % in throughput on the card's row (16.75 s and
    +20.3 % before its rotary embedding's bytes and its QK norms were charged, rope40; 17.36 s and
    +16.1 % while HybridEP's forward-dispatch synchronisation stayed on the critical path under the EP overlap, not
    beside the MLP backward's window, `dispatch_calls.sync_shown`; 15.55 s and
    +29.5 % while the EP overlap hid HybridEP's whole all-to-all, not `contention.GPU_DRIVEN_PACE` of it; 14.87 s and
    +35.5 % while HybridEP's README dispatch was read as bytes alone, `dispatcher.TOKEN_NODE`; 15.22 s and
    +32.3 % while the loss was charged 36 B a logit, not Transformer Engine's 10 B, `loss`; 14.98 s and
    +34.5 % before HybridEP's README kernel rates on H100, `dispatcher.kernel_times`; 14.93 s and +35.0 % before the first forward's and last backward's unpaired all-to-alls, `ep_exposure.expert_comm`'s edge; 14.49 s and
    +39.0 % while the overlap took DeepEP's 20 SMs, not HybridEP's 32 (`moe_hybridep_num_sms`, charged until session epoverlap); 14.19 s and
    +42.0 % before training charged every kernel's 1.3 µs, `KERNEL_OVERHEAD`; 13.89 s and +45.1 % under the
    one-step K ramp, before `kernels.k_loop_efficiency`). With 74
    operations a layer and micro-batch (1.0 ms) against 4-5 ms of GPU work the host is hidden with or without the
    router's graph, so the graphs move no step: the gap is not host time the graphs remove (docs/perf-model.md,
    Host time)."""
    from archgen.scoring.cases import read_case_file
    from archgen.scoring.scores import score_file

    path = DATA / "bridge-card-qwen3-30b.yaml"
    assert read_case_file(path).refused == []
    rows = {r.id: r for r in score_file(path)}
    row = rows["bridge-card-h100-qwen3-30b-bf16-ep16-graphs"]
    assert row.measured == pytest.approx(13011.378 * 16, rel=1e-5)
    assert row.measured == pytest.approx(1024 * 4096 / 20.14729, rel=1e-5)
    assert row.error == pytest.approx(0.186, abs=0.005)  # 0.203 before rope40
    skill = {r.id: r for r in score_file(DATA / "bridge-26.04.yaml")}["bridge-card-h100-qwen3-30b-bf16-ep16-overlap-on"]
    assert 1024 * 4096 / row.predicted == pytest.approx(skill.predicted, rel=1e-9)


def test_whole_iteration_graphs_on_blackwell_are_scored():
    """The card's GB200 and GB300 MXFP8 rows (40,322.898 and 44,773.361 tokens/s/GPU on 8 GPUs, micro-batch 4 and 8,
    whole-iteration graphs, EP overlap): the model gives +6.7 % and -0.4 % (+9.3 % and +2.0 % before the rotary
    embedding's bytes and the QK norms were charged, rope40; +7.7 % and +1.2 % while a replayed
    graph still paid HybridEP's per-call host and synchronisation cost, `dispatch_calls`; +6.7 % and +0.7 % while
    HybridEP's forward-dispatch synchronisation stayed on the critical path under the overlap,
    `dispatch_calls.sync_shown`; +10.1 % and +3.9 % while the EP overlap
    hid HybridEP's whole all-to-all, not `contention.GPU_DRIVEN_PACE` of it; +7.3 % and +1.2 % while the loss was charged 36 B a
    logit, not Transformer Engine's 10 B; +8.9 % and +4.4 % before the first
    forward's and last backward's unpaired all-to-alls, `ep_exposure.expert_comm`'s edge; +11.7 % and +7.2 % with DeepEP's 20 SMs
    for HybridEP's overlap, +14.7 % and +8.9 % before training charged every kernel's 1.3 µs), within the 25 % bar although the runs
    also use FP8 attention and a fused grouped MLP the model does not describe. At these micro-batches the host binds
    on neither with eager launches either; what stating the graphs moves is HybridEP's per-call cost, which a
    replayed iteration does not pay (no host call, no synchronisation: the recipe's expert-rank capacity factor
    lets HybridEP run non-blocking, `dispatch_calls`): eager, the rows read +5.1 % and -1.2 % (+7.7 % and +1.2 %
    before rope40)."""
    from archgen.model.cases import Case
    from archgen.scoring.cases import predict, read_case_file
    from archgen.scoring.catalog import load_accelerators

    cases = {c.id: c for c in read_case_file(DATA / "bridge-card-qwen3-30b.yaml").cases}
    accelerators = load_accelerators()
    for name, measured, error, eager_error in (("gb200", 40322.898 * 8, 0.067, 0.051), ("gb300", 44773.361 * 8, -0.004, -0.012)):
        case: Case = cases[f"bridge-card-{name}-qwen3-30b-mxfp8-ep8-full-iteration"]
        assert case.measured[0].value == pytest.approx(measured, rel=1e-5)
        graphed = predict(case, accelerators)["tokens_per_second"]
        assert graphed / measured - 1 == pytest.approx(error, abs=0.005)
        eager = case.model_copy(update={"training": case.training.model_copy(update={"cuda_graphs": "none"})})
        assert predict(eager, accelerators)["tokens_per_second"] / measured - 1 == pytest.approx(eager_error, abs=0.005)
