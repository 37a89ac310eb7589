"""FP8 training on modern stacks, and an independent check: NeMo 25.11 pre-training throughput on H100, B200,
GB200 and GB300 (tests/perf/data/nemo-25.11.yaml; its header gives the source and our assumptions). Not scored."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from archgen.perf.hw import kernels as K
from archgen.perf.hw.arch import Arch
from archgen.perf.serve.inference import ServeJob, estimate_inference
from archgen.perf.workload.roofline import training_kernels
from archgen.scoring.scores import score_file
from tests.data.models import catalog_arch

DATA = Path(__file__).parent / "data"
LLAMA3_8B = Arch(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256, gated=True, rope=True, qk_norm=False)


@pytest.mark.parametrize(("dtype", "core"), [("fp8", "bf16"), ("fp4", "bf16"), ("bf16", "bf16"), ("fp16", "fp16")])
def test_low_precision_recipes_keep_attention_and_logits_wide(dtype, core):
    assert K.training_core_dtype(dtype) == core


def test_fp8_training_runs_the_attention_core_at_the_bf16_rate(h100):
    kernels = {dt: {k.name: k for k in training_kernels(h100, LLAMA3_8B, seq_len=8192, dtype=dt, attention="flash",
                                                        tp=1).kernels} for dt in ("fp8", "bf16")}
    assert kernels["fp8"]["attention core"].time == pytest.approx(kernels["bf16"]["attention core"].time)
    assert kernels["fp8"]["FFN down"].time < 0.7 * kernels["bf16"]["FFN down"].time  # the GEMMs do run in FP8


def test_nemo_25_11_fp8_pretraining_within_35_percent():
    """Eight rows of NVIDIA's table (Llama 3 8B, 70B and 3.1 405B on 8 to 1,024 GPUs): median 8.0 %, worst -19.6 %
    (Llama 3.1 405B on GB300) with TP overlap's cost and Blackwell GEMMs at training shapes (median 14.5 %, worst
    +26 % before). A drift guard set after the run (docs/perf-model.md, Limitations)."""
    errors = {r.id: r.error for r in score_file(DATA / "nemo-25.11.yaml")}
    assert len(errors) == 8
    assert all(abs(e) <= 0.35 for e in errors.values()), errors
    assert sorted(abs(e) for e in errors.values())[3] <= 0.15, errors


def test_nemo_25_11_moe_bf16_within_20_percent_and_small_experts_over():
    """Large MoE in BF16 (Qwen3-235B on GB200/GB300) is within 16 %. Small fine-grained MoE runs far below the model,
    which lacks per-token fixed costs and counts only some kernels' fixed cost (`host.layer_kernels`); the file's
    header says so, and this test pins both halves."""
    errors = {r.id: r.error for r in score_file(DATA / "nemo-25.11-moe.yaml")}
    assert len(errors) == 7
    big = {k: e for k, e in errors.items() if k.endswith("235b-bf16")}
    assert len(big) == 2 and all(abs(e) <= 0.20 for e in big.values()), big
    # GB300 +24 %, the rest +48 % to +210 % (+26 % and +50 % to +214 % before training charged every kernel's 1.3 µs)
    assert all(e > 0.20 for k, e in errors.items() if "30b" in k), errors


def test_moe_layers_pay_for_token_permutation(h100):
    """Permute writes each token's top-k copies and unpermute sums them back: 2 (1 + k) h elements per token; with
    16 local experts (128 on ep 8) the alltoall dispatcher also sorts the k received copies by expert and back,
    4 k h more (tests/perf/test_permute.py)."""
    from archgen.perf.train.experts import permute_h
    assert permute_h(8) == 18.0
    moe = replace(catalog_arch("qwen3-30b-a3b"), layers=4)
    (ew,) = [k for k in training_kernels(h100, moe, seq_len=4096, dtype="bf16", attention="flash", tp=1,
                                         ep=8).kernels if k.name == "element-wise"]
    # layer norms and residuals (no dropout masks: 10 h), and the experts' activations
    dense_part = 4096 * 2 * (10 * 2048 + 3 * 8 * 768)
    assert ew.bytes_moved == pytest.approx(dense_part + 4096 * 2 * (18 + 32) * 2048)


def test_trtllm_serving_fp8_hopper_within_25_percent_and_fp4_over():
    """TensorRT-LLM's offline throughput table, with the default KV-cache precision (the table states none) and the
    default KV reservation (TensorRT-LLM's scheduler): FP8 on H100/H200 within 25 % (median under 12 %); NVFP4 on
    B200/GB200 within 25 % (-1.2 % to +21.6 %, median under 10 %) with NVFP4's GEMM efficiency at the middle of the
    catalog's stated range and its decode GEMMs streaming at the measured rate (gemm_stream.fp4; the header)."""
    errors = {r.id: r.error for r in score_file(DATA / "trtllm-perf-overview.yaml")}
    assert len(errors) == 40
    fp8 = sorted(abs(e) for k, e in errors.items() if "-fp8-" in k)
    assert len(fp8) == 24 and fp8[-1] <= 0.25 and fp8[len(fp8) // 2] <= 0.12, fp8
    fp4 = sorted(e for k, e in errors.items() if "-fp4-" in k)
    assert len(fp4) == 16 and max(abs(e) for e in fp4) <= 0.25 and sorted(map(abs, fp4))[8] <= 0.10, fp4


@pytest.mark.parametrize(("inp", "out"), [(128, 2048), (1000, 1000), (5000, 500)])
def test_kv_reservation_sets_the_concurrency(h100, inp, out):
    """'full' holds each sequence's whole request (input + output) in the KV cache, as TensorRT-LLM's default
    scheduler reserves it; 'mean' holds the mean context (input + output/2). Usable memory is 90 % of HBM after the
    weights (the blocks' linear layers in FP8, the embedding and output layer of 128,256 x 4,096 in BF16) and, since
    kvpeak37, the rest of TensorRT-LLM's profiling peak (perf/serve/profile_peak.py): the CUDA context 0.4 GB and the
    pass's largest tensor, the FFN's gate+up output of 8,192 tokens x 2 x 14,336 in BF16; Llama 3.1 8B in FP8 keeps
    2 · 32 · 8 · 128 = 65,536 bytes of KV cache per token. kvtidy38: a ServeJob took vLLM's rule beside TensorRT-LLM's
    other defaults, and this test, pinned to vLLM's peak with the CUDA context, failed once review57 took the context
    out of vLLM's budget; a ServeJob's defaults are now all TensorRT-LLM's."""
    embed = 2 * 128256 * 4096
    weights = (LLAMA3_8B.params() - embed) * 1.0 + embed * 2.0
    usable = 0.9 * (h100.hbm_capacity - weights - (0.4e9 + 8192 * 2 * 14336 * 2))
    for reserve, tokens in (("full", inp + out), ("mean", inp + out / 2)):
        est = estimate_inference(h100, ServeJob(LLAMA3_8B, inp, out, "fp8", kv_reserve=reserve), 1)
        assert est.max_batch == math.floor(usable / (65536 * tokens))
        assert est.memory_per_gpu == pytest.approx(weights + est.max_batch * 65536 * tokens)
    full, mean = (estimate_inference(h100, ServeJob(LLAMA3_8B, inp, out, "fp8", kv_reserve=r), 1) for r in
                  ("full", "mean"))
    assert full.tpot < mean.tpot and full.tokens_per_second_replica < mean.tokens_per_second_replica
