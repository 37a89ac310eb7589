"""The serving pass's FFN element-wise traffic, as the engines run it (issue 20, `perf.serve.ffn`).

Read in the engines' code: TensorRT-LLM's PyTorch `GatedMLP` runs `gate_up_proj`, `swiglu`, `down_proj` as three
kernels (tensorrt_llm/_torch/modules/gated_mlp.py at 01503f5535); its TensorRT backend's fused MLP is "one Matmul
followed by a separate SwiGLU kernel", the GEMM + SwiGLU kernel being the opt-in `gemm_swiglu_plugin fp8` (Hopper
FP8; docs/source/performance/perf-overview.md, v0.14-era "Known Issues"); vLLM's Triton fused MoE writes the expert
up/gate output to `intermediate_cache1` (2·f a row), runs `torch.ops._C.silu_and_mul` into `intermediate_cache2`
(f a row), the down GEMM into `intermediate_cache3` (h a row) and `ops.moe_sum` into the token's h
(vllm/model_executor/layers/fused_moe/fused_moe.py `fused_experts_impl` at 13cb3e4437); TensorRT-LLM's MoE runner
on Hopper runs `doActivation` and `finalizeMoeRoutingKernelLauncher` as kernels of their own (moe_kernels.cu at
000dea273b).
"""

from __future__ import annotations

import dataclasses

import pytest
from pydantic import ValidationError

from archgen.model.inference import Inference
from archgen.perf.hw import kernels as K
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.kernels import ELEMENTWISE_H
from archgen.perf.serve import inference as I
from archgen.perf.serve.ffn import ffn_bytes, ffn_kernels_saved
from archgen.perf.serve.pass_costs import kernels_per_pass
from archgen.perf.train.layer import elementwise_bytes
from archgen.perf.workload.roofline import inference_kernels

LLAMA70 = Arch(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256, gated=True, rope=True, qk_norm=False)
#: Mixtral 8x7B (mistralai/Mixtral-8x7B-v0.1 config.json): 8 experts of 14,336, top-2.
MIXTRAL = Arch(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=32000, gated=True,
              experts=8, top_k=2, expert_ffn=14336, rope=True, qk_norm=False)
GPT3 = Arch(layers=96, hidden=12288, heads=96, kv_heads=96, head_dim=128, ffn=4 * 12288, vocab=51200)


@pytest.mark.parametrize("arch", [LLAMA70, GPT3], ids=["swiglu", "gelu"])
@pytest.mark.parametrize("tp", [1, 4])
def test_a_dense_activation_moves_what_training_charges(arch, tp):
    """SwiGLU reads the gate and up halves (2·f) and writes f, GeLU reads f and writes f, 16 bits each: 6·f and 4·f
    bytes a token and layer, split tp ways, the same rule as training's forward (`layer.elementwise_bytes` less
    its norms and residuals)."""
    dense, routed = ffn_bytes(arch, "fp8", tp)
    per_layer = dense / arch.layers
    assert per_layer == (6.0 if arch.gated else 4.0) * arch.ffn / tp
    train = elementwise_bytes(arch, "bf16", 1.0, tp, False, False) - 2.0 * ELEMENTWISE_H * arch.hidden
    assert per_layer == pytest.approx(float(train), rel=1e-12)
    assert routed == 0.0


@pytest.mark.parametrize(("dtype", "written"), [("fp8", 1.0), ("bf16", 2.0)])
def test_an_moe_layer_moves_its_routed_activation_and_its_combine(dtype, written):
    """Mixtral on one GPU: each of the top-2 rows reads 2·f of 16-bit GEMM output and writes f in the down GEMM's
    input type (FP8: `doActivation`'s output; the MoE op quantises inside, `quant.serving_casts`); the combine reads
    the two rows' h and writes the token's h, 16 bits each. FP8: k(5f + 2h) + 2h = 167,936 B a token and layer."""
    a = MIXTRAL
    dense, routed = ffn_bytes(a, dtype, 1)
    per_layer = routed / a.moe_layers
    assert dense == 0.0
    assert per_layer == a.top_k * ((4.0 + written) * a.expert_ffn + 2.0 * a.hidden) + 2.0 * a.hidden
    if dtype == "fp8":
        assert per_layer == 167_936


def test_expert_parallelism_splits_the_rows_not_the_combines_output():
    """With ep 2 of tp 2 a rank holds half the experts whole: half the routed rows, each with the whole f, so the
    activation's bytes halve; the combine still writes every token's h on the rank."""
    a = MIXTRAL
    one, two = ffn_bytes(a, "fp8", 1)[1], ffn_bytes(a, "fp8", 2, ep=2)[1]
    act = a.moe_layers * a.top_k * 5.0 * a.expert_ffn
    assert two == pytest.approx(act / 2 + a.moe_layers * 2.0 * a.hidden * (a.top_k / 2 + 1.0))
    assert one - act == pytest.approx(a.moe_layers * 2.0 * a.hidden * (a.top_k + 1.0))


def test_the_pass_charges_the_bytes_at_the_hbm_rate(h100):
    """A decode step of Llama 3.1 70B on an H100 at batch 256: the separate activation's pass is longer than the fused
    one's by exactly 6·f bytes a token and layer at the HBM rate, and by one kernel launch a layer."""
    sep, fus = I.ServeJob(LLAMA70, 2048, 256, "fp8"), I.ServeJob(LLAMA70, 2048, 256, "fp8", ffn_activation="fused")
    kwargs = {"context": 2176.0, "batch": 256.0, "prefill": False}
    extra = I._forward(h100, sep, 256.0, 1, **kwargs) - I._forward(h100, fus, 256.0, 1, **kwargs)
    assert extra == pytest.approx(K.memory_time(h100, 256.0 * 80 * 6.0 * 28672), rel=1e-9)
    saved = kernels_per_pass(LLAMA70, 1, False, "fp8") - kernels_per_pass(LLAMA70, 1, False, "fp8", "fused")
    assert saved == ffn_kernels_saved(LLAMA70, "fused") == 80.0
    assert ffn_kernels_saved(MIXTRAL, "fused") == 0.0  # routed experts keep their activation kernel
    assert ffn_bytes(MIXTRAL, "fp8", 1, activation="fused") == ffn_bytes(MIXTRAL, "fp8", 1)


@pytest.mark.parametrize("activation", ["separate", "fused"])
def test_the_roofline_lists_the_bytes_the_pass_charges(h100, activation):
    """The roofline's element-wise kernel carries the same bytes, so its kernel times still add up to the pass."""
    one = dataclasses.replace(LLAMA70, layers=1)
    job = I.ServeJob(one, 2048, 256, "fp8", ffn_activation=activation)
    r = inference_kernels(h100, one, input_len=2048, output_len=256, dtype="fp8", kv_dtype=None, tp=1, batch=64,
                          ffn_activation=activation)
    logits = I.output_time(h100, one, 64.0, 1)
    layer = I._forward(h100, job, 64.0, 1, context=2048 + 128.0, batch=64.0, prefill=False) - logits
    assert sum(k.time for k in r.kernels if k.phase == "decode") == pytest.approx(float(layer), rel=1e-12)


def test_the_switch_is_declared_with_the_serving_knobs():
    """`inference.ffn_activation` defaults to the engines' default and takes only the two ways."""
    inf = Inference(input_len=128, output_len=128)
    assert inf.ffn_activation == "separate"
    assert Inference(input_len=128, output_len=128, ffn_activation="fused").ffn_activation == "fused"
    with pytest.raises(ValidationError, match="ffn_activation"):
        Inference(input_len=128, output_len=128, ffn_activation="epilogue")
