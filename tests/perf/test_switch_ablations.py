"""Single switches against published ablations that switched them alone (issue 20: a switch that moves a case by
more than 5 points has a test from a source; docs/switches.md lists each switch, how far it moves the scored cases
and the test that covers it).

Each test compares the model's ratio (switch on / switch off, everything else equal) with the published ratio. Where
the model disagrees beyond the stated tolerance the test is `xfail(strict=True)` with both numbers, so that a change
of the model that closes the gap is seen (the model itself is not changed here).

* `attention` (flash against materialised scores): Dao, FlashAttention-2, arXiv 2307.08691, Table 1
  (tests/perf/data/fa2-gpt3-table1.yaml, with the layouts of the paper's own training configs).
* `sequence_parallel` alone: Korthikanti et al., arXiv 2205.05198 (MLSys 2023), Table 4, the time of one
  transformer layer of the 22B model (TP 8 on 8 A100) forward and backward. The model's layer time is the step time
  less the optimizer step, differenced between 48 and 24 layers (so the embedding, the loss and the step cancel).
* `fp8_recipe` delayed against current scaling: Transformer Engine's GEMM profiling guide on B300 (the same FP8 GEMM
  kernels, each call quantising its operands under the recipe).
* `cuda_graphs` (Transformer Engine graphs of attn, moe_router and moe_preprocess against none): Megatron-Bridge's
  CUDA-graphs skill card, Qwen3-30B-A3B on 16 H100 in blockwise FP8.
* `cross_entropy` te against unfused: AMD-AGI/Primus PR #182, DeepSeek-V2-Lite on 8 AMD GPUs (which ones is not
  stated, so each the catalog has of that date is run).
* `dropout` on a materialised attention: the FlashAttention paper's full benchmark, Megatron's attention on one A100
  40GB with dropout 0.1 and without (tests/perf/data/fa1-a100-attention-dropout.yaml).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.model.cases import Case
from archgen.scoring.case_memory import fits
from archgen.scoring.cases import case_hardware, footprint, read_case_file, training_estimate
from archgen.scoring.scores import score_file

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def fa2():
    """The FlashAttention-2 Table 1 rows (measured and predicted TFLOP/s per GPU), by id."""
    return {r.id: r for r in score_file(DATA / "fa2-gpt3-table1.yaml")}


def _ratio(rows, row: str) -> tuple[float, float]:
    """(model, published) throughput ratio flash / materialised of one Table 1 row."""
    on, off = rows[f"fa2-t1-{row}-flash"], rows[f"fa2-t1-{row}-materialized"]
    return on.predicted / off.predicted, on.measured / off.measured


def _fa2_case(case_id: str, **update) -> Case:
    (case,) = [c for c in read_case_file(DATA / "fa2-gpt3-table1.yaml").cases if c.id == case_id]
    return case.model_copy(update={"training": case.training.model_copy(update=update)})


@pytest.mark.parametrize("row, micro_batch", [("gpt3-1.3b-2k", 4), ("gpt3-2.7b-2k", 2)])
def test_flash_attention_speeds_2k_training_as_fa2_table1(fa2, accelerators, row, micro_batch):
    """At 2k context FlashAttention-2 trains GPT3-1.3B 1.380x (196 / 142 TFLOP/s) and GPT3-2.7B 1.376x (205 / 149)
    faster than the same model without FlashAttention on 8 A100 80 GB.

    The paper does not state the baseline's micro-batch, and at the flash run's (8 and 4 sequences per GPU) the
    model's materialised scores do not fit in 80 GB, so the baseline cannot have run it: it is taken as the largest
    micro-batch that fits without recompute (the training configs pick the micro-batch by GPU memory), 4 and 2. The
    model then gives 1.394 and 1.359 (+1.0 %, -1.2 %). Tolerance 4 %: the published TFLOP/s are rounded to whole
    numbers (0.5 % on the ratio), and one micro-batch step of the unstated baseline moves the model's ratio by 2.7 %
    (1.3B: 1.430 at 2, 1.394 at 4, 1.376 at 8; 2.7B: 1.434 at 1, 1.359 at 2, 1.322 at 4); a model without the
    switch (ratio 1) fails by 28 %."""
    flash = _fa2_case(f"fa2-t1-{row}-flash")
    base = _fa2_case(f"fa2-t1-{row}-materialized", micro_batch=micro_batch)
    assert fits(base, footprint(base, case_hardware(base, accelerators)))
    double = base.model_copy(update={"training": base.training.model_copy(update={"micro_batch": 2 * micro_batch})})
    assert not fits(double, footprint(double, case_hardware(double, accelerators)))
    hw = case_hardware(flash, accelerators)
    model = float(training_estimate(base, hw).step_time) / float(training_estimate(flash, hw).step_time)
    _, published = _ratio(fa2, row)
    assert model == pytest.approx(published, rel=0.04), (model, published)


def test_fa2_table1_flash_rows_within_15_percent(fa2):
    """The FlashAttention-2 side alone: +13.2 %, +12.1 % and +9.9 % when this test was written (a drift guard; the
    flash rate is FA3's measured H100 rate scaled to A100, docs/perf-model.md)."""
    flash = {k: r.error for k, r in fa2.items() if k.endswith("-flash")}
    assert len(flash) == 3 and all(abs(e) <= 0.15 for e in flash.values()), flash


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="the model's materialised attention at 8k costs less than FA2's baseline")
def test_flash_attention_speeds_8k_training_as_fa2_table1(fa2):
    """GPT3-1.3B at 8k context: 220 / 72 = 3.06x published. The model gives 2.14x at the stated layout (4 sequences
    per GPU, no recompute; materialised 115 TFLOP/s against 72 measured, +60 %), where its own memory says the
    baseline cannot fit; with recompute, which the paper does not state, it gives 2.70x (selective, 4 per GPU) to
    2.90x (full, 8 per GPU). Tolerance as at 2k (4 %): -30 % at the stated layout."""
    model, published = _ratio(fa2, "gpt3-1.3b-8k")
    assert model == pytest.approx(published, rel=0.04), (model, published)


#: Korthikanti et al. Table 4: (forward, backward) ms of one layer of the 22B model, by (recompute, sequence_parallel).
TABLE4 = {("none", False): (7.7, 11.9), ("none", True): (7.2, 11.8), ("full", False): (7.7, 19.5),
          ("selective", False): (7.7, 13.2), ("selective", True): (7.2, 13.1)}


def _layer_ms(accelerators, recompute: str, sp: bool) -> float:
    """The model's forward + backward time of one layer of the Table 5 22B case, in ms."""
    (case,) = [c for c in read_case_file(DATA / "korthikanti-table5.yaml").cases if c.id == "korthikanti-t5-22b-full"]
    times = []
    for layers in (48, 24):
        c = case.model_copy(update={"model": case.model.model_copy(update={"layers": layers}),
                                    "training": case.training.model_copy(update={"recompute": recompute,
                                                                                 "sequence_parallel": sp})})
        e = training_estimate(c, case_hardware(c, accelerators))
        times.append(float(e.step_time) - float(e.optimizer))
    return (times[0] - times[1]) / 24 * 1e3


def _table4_ratio(accelerators, on: tuple[str, bool], off: tuple[str, bool]) -> tuple[float, float]:
    model = _layer_ms(accelerators, *on) / _layer_ms(accelerators, *off)
    return model, sum(TABLE4[on]) / sum(TABLE4[off])


@pytest.mark.parametrize("recompute, published", [("full", 27.2 / 19.6), ("selective", 20.9 / 19.6)])
def test_recompute_layer_time_as_korthikanti_table4(accelerators, recompute, published):
    """The measure the sequence-parallel tests below use, checked on the rows it gets right: full recompute costs
    +39 % (27.2 / 19.6 ms) and selective +7 % (20.9 / 19.6); the model gives +37.2 % and +5.8 %. Tolerance 2 %:
    the times are printed to 0.1 ms (0.5 % on a ratio), and 2 % is below the smaller effect (7 %)."""
    model, _ = _table4_ratio(accelerators, (recompute, False), ("none", False))
    assert model == pytest.approx(published, rel=0.02), (model, published)


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="the model credits sequence parallelism with 8 % of the layer, Table 4 with 3 %")
@pytest.mark.parametrize("recompute", ["none", "selective"])
def test_sequence_parallel_alone_as_korthikanti_table4(accelerators, recompute):
    """Sequence parallelism alone shortens the 22B layer by 3.1 % (19.6 -> 19.0 ms) without recompute and by 2.9 %
    (20.9 -> 20.3 ms) with selective recompute; the model shortens it by 8.1 % (20.79 -> 19.12 ms) and 7.6 % (22.00
    -> 20.32 ms). Tolerance 1.5 %: the times are printed to 0.1 ms (0.5 % on the ratio) and the effect under test is
    3 %, so a tolerance of half of it still fails a model without the switch. The 22B pair of Table 5 (SP together
    with selective recompute, tests/perf/test_ablations.py) is 4.7 points too fast for the same reason."""
    model, published = _table4_ratio(accelerators, (recompute, True), (recompute, False))
    assert model == pytest.approx(published, rel=0.015), (model, published)


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="the model's delayed scaling saves 0.73 ms of casts where the guide saves 1.35")
def test_delayed_scaling_against_current_scaling_as_the_te_gemm_guide(accelerators):
    """`fp8_recipe` delayed against tensorwise (current scaling) on the same FP8 GEMM kernels: Transformer Engine's
    GEMM profiling guide (tests/perf/data/te-gemm-profiling-b300.yaml, B300, the 12 GEMMs of one layer, each
    te.Linear call quantising its input and its weight) measures 7.802 ms under delayed scaling and 9.147 ms under
    current scaling (0.853x); the kernels alone take 6.812 ms. The model's casts (`quant.tensor_bytes` at the HBM
    rate: 3 B per element delayed, 5 B tensor-wise, the amax pass) on that kernel time give 7.907 and 8.638 ms,
    0.915x: it saves 0.73 ms where the guide saves 1.35 ms (its delayed cast, 1.10 ms, is above the measured 0.99 ms
    of autocast over the kernels; its tensor-wise cast, 1.83 ms, below the measured 2.34 ms). Tolerance 3 %: the
    figures are means of 100 timed iterations, and the effect under test is 14.7 %."""
    from archgen.perf.hw import kernels as K
    from archgen.perf.hw import quant as Q
    from archgen.perf.hw.from_spec import hardware_for
    from tests.perf.test_quant import GUIDE, _guide_shapes
    hw = hardware_for(accelerators["b300-sxm-288gb"], scale_up_size=8)
    elements = sum(m * k + k * n for m, k, n in _guide_shapes())
    ms = GUIDE["per_layer_ms"]
    kernels = ms["pre_quantized"]["tensorwise"]
    cast = {rec: float(K.memory_time(hw, float(Q.tensor_bytes(rec, hw.compute_capability)) * elements)) * 1e3
            for rec in ("delayed", "tensorwise")}
    model = (kernels + cast["delayed"]) / (kernels + cast["tensorwise"])
    published = ms["autocast"]["delayed"] / ms["autocast"]["tensorwise"]
    assert model == pytest.approx(published, rel=0.03), (model, published)


#: (case prefix, published DeepEP / all-to-all step-time ratio, the model's when this test was written).
DISPATCH_AB = [("b300-qwen3-235b-ep32-mb4", 21.12 / 15.76, 0.739), ("b300-qwen3-235b-ep32-mb1", 44.81 / 33.36, 0.796),
               ("b300-qwen3-235b-ep16-mb4", 11.57 / 12.21, 0.709), ("h100-qwen3-30b-ep16-mb4", 9.16 / 8.60, 0.689),
               ("h100-qwen3-30b-ep16-mb1", 28.69 / 27.89, 0.773), ("h100-qwen3-30b-ep32-mb4", 17.21 / 9.24, 0.727),
               ("h100-qwen3-30b-ep32-mb1", 34.66 / 27.14, 0.813)]


@pytest.fixture(scope="module")
def dispatch_ab():
    """The AWS dispatcher A/B rows (tests/perf/data/aws-dispatcher-efa.yaml), by id."""
    return {r.id: r for r in score_file(DATA / "aws-dispatcher-efa.yaml")}


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="over EFA, DeepEP measured 5 % faster to 86 % slower than NCCL; the model: 19-31 % faster")
@pytest.mark.parametrize("row, published, _model", DISPATCH_AB, ids=[r[0] for r in DISPATCH_AB])
def test_ep_dedup_against_the_aws_dispatcher_ab(dispatch_ab, row, published, _model):
    """`ep_dedup` / `moe_dispatcher` alone: NCCL all-to-all against DeepEP (over NVSHMEM-libfabric on EFA), the same
    Qwen3-235B on 64 B300 and Qwen3-30B on 64 H100 runs otherwise (awslabs/awsome-distributed-ai RESULTS.md; see the
    case file). Published DeepEP / all-to-all step time: 1.340, 1.343 and 0.948 on B300 (EP32 mb 4, EP32 mb 1, EP16
    mb 4), 1.065, 1.029, 1.863 and 1.277 on H100 (EP16 mb 4 and 1, EP32 mb 4 and 1). The model's de-duplicated
    dispatch makes every run 19-31 % faster (0.69-0.81). Its all-to-all arms are themselves 36-76 % fast (the mb 1
    runs take 2.1-3.2x the mb 4 ones, the model 1.3-1.5x, `test_micro_batch_1_against_4_at_the_same_work`): what
    the runs spend per MoE layer and micro-batch is not modelled, and the
    DeepEP arm's host-proxy transport over libfabric is not the InfiniBand path the model's DeepEP stands for.
    Tolerance 5 %: one run per cell, and the publisher's re-measure landed within 1-4 % of its first pass."""
    off, on = dispatch_ab[f"aws-{row}-alltoall"], dispatch_ab[f"aws-{row}-deepep"]
    assert on.measured / off.measured == pytest.approx(published, rel=1e-9)
    model = on.predicted / off.predicted
    assert model == pytest.approx(published, rel=0.05), (model, published)


#: Megatron-Bridge's CUDA-graphs skill card (NVIDIA-NeMo/Megatron-Bridge skills/nemo-mbridge-perf-cuda-graphs/card.yaml
#: at 228e9a3e7206ee17a2db665458ba6b2684f48c04, validated_on 2026-07-26), `measured_results`, the row "Qwen3-30B-A3B,
#: pretrain, hybrid_fp8_blockwise, 16xH100_recipe, 2 nodes, scope attn+moe_router+moe_preprocess, impl
#: transformer_engine": `baseline_iter_ms_approx` 29180 (eager) and `graph_iter_ms` 19997.28 (replay, iterations
#: 5-10), 301.60 TFLOP/s/GPU graphed.
GRAPHS_CARD = {"eager_s": 29.18, "graphed_s": 19.99728, "graphed_tflops": 301.60}


def _graphs_card_case() -> Case:
    """The 16-H100 FP8 Qwen3-30B-A3B row the card's batch matches (validation-modern.yaml), in blockwise FP8."""
    (case,) = [c for c in read_case_file(Path(__file__).parents[1] / "data" / "validation-modern.yaml").cases
               if c.id == "nemo2604-h100-qwen3-30b-a3b-fp8-ep16"]
    return case.model_copy(update={"training": case.training.model_copy(update={"fp8_recipe": "blockwise"})})


def test_the_graphs_card_row_is_one_global_batch_of_the_16_h100_recipe():
    """The card states no batch: its graphed 301.60 TFLOP/s/GPU x 16 GPUs x 19.997 s is one global batch of the
    16-H100 recipe's 1,024 x 4,096 tokens at Megatron's 2.30063e10 FLOP per token of Qwen3-30B-A3B (the header of
    tests/perf/data/mlm-moe-recipes-qwen3-30b.yaml), to 0.01 %."""
    case = _graphs_card_case()
    flops = GRAPHS_CARD["graphed_tflops"] * 1e12 * case.system.count * GRAPHS_CARD["graphed_s"]
    assert case.system.count == 16 and case.system.accelerator == "h100-sxm5-80gb"
    assert flops / (case.training.global_batch * case.training.seq_len * 2.30063e10) == pytest.approx(1.0, rel=1e-4)


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="Bridge's card: TE graphs take a Qwen3-30B H100 FP8 step from 29.18 s to 20.00 s (0.685x); "
                          "the model: 1.000x")
def test_te_scoped_graphs_against_the_bridge_cuda_graphs_card(accelerators):
    """`cuda_graphs` attn+moe_router+moe_preprocess against none on the card's 16-H100 blockwise-FP8 Qwen3-30B-A3B
    run (NeMo 26.08.rc2): published 19.997 / 29.18 = 0.685x. The card states neither batch nor layout; its FLOP rate
    makes the step one global batch of the 16-H100 recipe (the test above) that validation-modern.yaml's
    nemo2604-h100-qwen3-30b-a3b-fp8-ep16 ran (GBS 1024, MBS 1, seq 4096, TP1 PP1 EP16, HybridEP, no EP overlap).
    ASSUMED: that row's layout and switches, with the card's blockwise recipe.
    The model gives 1.000x (21.30 s both ways): its graphed step is within 7 % of the measured 20.00 s, its eager step
    27 % faster than the measured 29.18 s, so what the eager run loses to the host is not in the model. The card also
    reports a BF16 all-to-all A/B on H100 at 1.015x (41.36 s eager, 42.00 s replay; scope and layout unstated) and
    0.777x at TP2 PP2 EP4 on 2 nodes (623 -> 484 ms; batch unstated): neither can be stated, so neither is tested.
    Tolerance 5 %: the card gives one eager figure ('about') and no spread; 5 % is this file's tolerance for single
    runs and a sixth of the 31.5 % effect under test, so a model in which the graphs change nothing fails."""
    from archgen.scoring.cases import predict
    case = _graphs_card_case()

    def step(graphs: str) -> float:
        t = case.training.model_copy(update={"cuda_graphs": graphs})
        return predict(case.model_copy(update={"training": t}), accelerators)["step_time"]

    model = step("attn+moe_router+moe_preprocess") / step("none")
    published = GRAPHS_CARD["graphed_s"] / GRAPHS_CARD["eager_s"]
    assert model == pytest.approx(published, rel=0.05), (model, published)


#: AMD-AGI/Primus PR #182 ('add te fused cross entropy argument', merged 2025-09-10 as 653ad380): "Simple test with
#: DeepSeekV2 Lite (GBS=32, 8 GPUs)": fusion enabled 215.3 TFLOPS (121.64 GB), disabled 210.7 TFLOPS (127.66 GB).
PRIMUS_CE = {"te_tflops": 215.3, "unfused_tflops": 210.7}
#: The PR names no accelerator. Primus's README at 653ad380 asks for "ROCm-compatible AMD GPUs (e.g., Instinct MI300
#: series)" and its test scripts name MI300X (tests/scripts/*_mi300x_1n8g.sh); MI325X and MI355X, AMD's other Instinct
#: parts of that date, are run too (ASSUMED as the range). Each with its catalog scale-up (an 8-GPU xGMI node).
PRIMUS_GPUS = {"mi300x": "448 GB/s", "mi325x": "448 GB/s", "mi355x": "537.6 GB/s"}


def _primus_ce_case(gpu: str, micro_batch: int, cross_entropy: str) -> Case:
    """The PR's run as Primus's examples/megatron/configs/deepseek_v2_lite-pretrain.yaml at 653ad380 states it, with
    the PR's global batch: DeepSeek-V2-Lite (primus/configs/models/megatron/deepseek_v2_lite.yaml: 27 layers, the
    first dense of 10,944, then 64 experts of 1,408, top 6 (deepseek_v2_base.yaml), two shared experts (2,816),
    16 heads of 128, vocab 102,400 (deepseek-ai/DeepSeek-V2-Lite config.json)) with the example's
    multi_latent_attention false; BF16, TP1 PP1 EP8, sequence 4,096 (PRIMUS_SEQ_LENGTH's default), force-balanced
    routing, no gradient-accumulation fusion; deepseek_v2_base.yaml's all-to-all dispatcher, shared-expert overlap
    and apply_rope_fusion false; llama_base.yaml's zero dropout. `cross_entropy`: 'te' (the PR's
    cross_entropy_fusion_impl te) or 'unfused' (language_model.yaml's cross_entropy_loss_fusion False, Megatron-core's
    tensor_parallel.vocab_parallel_cross_entropy, which casts the logits to FP32: Megatron-LM d98e8a6
    megatron/core/tensor_parallel/cross_entropy.py:25, language_module.py:173-200)."""
    return Case.model_validate({
        "id": f"primus-pr182-dsv2-lite-{gpu}-mb{micro_batch}-{cross_entropy}", "source": "AMD-AGI/Primus PR #182",
        "status": "confirmed",
        "system": {"accelerator": gpu, "count": 8, "scale_up": {"domain": 8, "bandwidth": PRIMUS_GPUS[gpu]}},
        "model": {"layers": 27, "hidden": 2048, "heads": 16, "kv_heads": 16, "head_dim": 128, "ffn": 10944,
                  "vocab": 102400, "gated_ffn": True, "position_embedding": "rope", "qk_norm": False,
                  "moe": {"experts": 64, "top_k": 6, "expert_ffn": 1408, "shared_experts": 2, "dense_layers": 1}},
        "training": {"seq_len": 4096, "global_batch": 32, "micro_batch": micro_batch, "precision": "bf16", "tp": 1,
                     "pp": 1, "dp": 8, "ep": 8, "recompute": "none", "attention": "flash", "stack": "primus-2025",
                     "moe_dispatcher": "alltoall", "ep_dedup": False, "moe_shared_expert_overlap": True,
                     "moe_force_balance": True, "grad_accum_fusion": False, "rope_fusion": False, "dropout": False,
                     "cross_entropy": cross_entropy},
        "measured": [{"metric": "step_time", "value": 1.0, "unit": "s"}]})


def _primus_ce_ratios(accelerators) -> dict[tuple[str, int], float]:
    """The model's fused / unfused step-time ratio at each unstated accelerator and micro-batch (1, 2 or 4: the
    example's 4 leaves one micro-batch of the 32 per step; the PR states none)."""
    from archgen.scoring.cases import predict

    def step(gpu: str, mb: int, ce: str) -> float:
        return predict(_primus_ce_case(gpu, mb, ce), accelerators)["step_time"]

    return {(gpu, mb): step(gpu, mb, "te") / step(gpu, mb, "unfused") for gpu in PRIMUS_GPUS for mb in (1, 2, 4)}


def test_te_cross_entropy_against_unfused_as_primus_pr182(accelerators):
    """`cross_entropy` te against unfused on Primus's DeepSeek-V2-Lite run: published step-time ratio 210.7 / 215.3 =
    0.9786 (the same work, so the inverse of the TFLOP/s ratio). The PR states neither the accelerator nor the
    micro-batch, so the model is run at each (MI300X, MI325X, MI355X; 1, 2, 4): 0.972-0.978 when this test was
    written (the published ratio just above the top, MI325X at micro-batch 1). ASSUMED: the example config's other
    settings, the sequence length among them. Tolerance 1 %: one run per arm and no spread stated; the TFLOP/s are
    printed to 0.1 (0.05 % on the ratio); 1 % is under half the 2.2 % effect, so a model in which the fusion changes
    nothing (1.000) fails, and every unstated point must be within it. The step itself is not checked: the PR gives
    no step time, and how Primus counts its TFLOP/s was not read. If it counts the model's 2.348e15 FLOP a step, the
    runs took 1.393 and 1.363 s (30 ms saved), where the model gives 0.36-0.74 s and saves 10-17 ms: the ratios
    agree while the model's step and its saving are both about half the measured ones."""
    published = PRIMUS_CE["unfused_tflops"] / PRIMUS_CE["te_tflops"]
    ratios = _primus_ce_ratios(accelerators)
    assert all(r < 1 for r in ratios.values()), ratios
    off = {k: round(r, 4) for k, r in ratios.items() if r != pytest.approx(published, rel=0.01)}
    assert not off, (published, off)


#: FlashAttention's full benchmark on one A100 40GB (arXiv 2205.14135v2, Appendix E.6; the file states what is
#: stated, unstated and assumed): forward + backward ms of Megatron's materialised attention with and without dropout.
FA1_DROPOUT = DATA / "fa1-a100-attention-dropout.yaml"


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="FlashAttention's A100 benchmark: dropout makes Megatron's attention 1.22-1.33x slower; the "
                          "model: 1.36-1.44x (its mask traffic near the measured increment, its attention without "
                          "dropout 19-36 % fast)")
def test_attention_dropout_against_the_flashattention_a100_benchmark():
    """`dropout` on a materialised attention, Megatron's fused scale-mask-softmax with PyTorch's dropout after it: the
    FlashAttention paper times its forward + backward on one A100 40GB at 12.39 / 16.50 ms without and with dropout
    0.1 at 2048 tokens (Tables 14 and 11), 3.36 / 4.21 at 1024 and 1.09 / 1.33 at 512: 1.332x, 1.253x and 1.220x.
    The A100 40GB's sustained HBM fraction is not measured, so the model (`scoring.dropout_check`: the catalog's
    A100 80GB at the 40GB part's 1,555 GB/s) runs the catalog's measured range (0.783-0.866) and gives 1.433-1.440x,
    1.406-1.426x and 1.356-1.379x when this test was written: 8-14 % above at every length.
    Dropout's own cost is near the measurement: the model adds 3.99-4.41 ms at 2048 (measured 4.11), 1.00-1.10 at 1024
    (0.85) and 0.25-0.28 at 512 (0.24), 10 bytes per score element (`kernels.SCORE_DROPOUT_BYTES_FWD` and `_BWD`).
    What it misses is the attention without dropout: 9.20-10.03 ms at 2048 against 12.39 measured, 2.46-2.59 against
    3.36 at 1024, 0.70-0.73 against 1.09 at 512 (19-36 % fast), as its materialised FA2 baseline at 8k runs fast
    (`test_flash_attention_speeds_8k_training_as_fa2_table1`). The padding mask the fused kernel reads (1 byte a
    query-key pair, an eighth of a byte a score) is in both arms and not modelled. Only the attention's dropout is
    tested: the bias-dropout-add masks of the hidden states (`test_dropout_timed.py`) have no on/off timing.
    Tolerance 3 %: the times are means of 100 calls printed to 0.01 ms (up to 1.7 % on the ratio at 512), and the
    effect under test is 22-33 %, so a model in which dropout costs nothing (1.000x) fails."""
    from archgen.scoring.dropout_check import attention_dropout_check
    rows = attention_dropout_check(FA1_DROPOUT)
    assert [r.seq_len for r in rows] == [512, 1024, 2048]
    off = {}
    for r in rows:
        published = r.measured[1] / r.measured[0]
        model = [on / without for without, on in r.model]
        assert min(model) > 1.0, model
        if not min(model) * 0.97 <= published <= max(model) * 1.03:
            off[r.seq_len] = (round(published, 3), round(min(model), 3), round(max(model), 3))
    assert not off, off
