"""Which attention projections an FP4 checkpoint quantises (`quantised_attention`, inference.ATTENTION_SOURCE).

MLPerf Inference v5.1's NVIDIA DeepSeek-R1 runs nvidia/DeepSeek-R1-FP4-v2 with an hf_quant_config.json whose
exclude_modules list every layer's self_attn.fused_a, q_proj, q_b_proj and kv_b_proj and no o_proj
(mlcommons/inference_results_v5.1 at 965182b033, closed/NVIDIA/code/deepseek-r1/tensorrt/hf_quant_config.json), and
ModelOpt's converter writes the left-out weights as BF16 (examples/deepseek/quantize_to_nvfp4.py at 1ef1d72a1b).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.perf.hw import kernels as K
from archgen.perf.hw import quant as Q
from archgen.perf.hw.arch import Arch
from archgen.perf.serve.inference import ServeJob, attention_dtypes, weights_per_gpu
from archgen.perf.serve.inference import _forward as forward
from archgen.perf.workload.roofline import inference_kernels
from archgen.scoring.cases import _model, case_hardware, read_case_file, serve_job

DEEPSEEK = Path(__file__).resolve().parent / "data" / "mlperf-inference-v5-deepseek.yaml"
#: DeepSeek-V3's shape (its config.json), as the MLPerf rows state it.
DSV3 = Arch(layers=61, hidden=7168, heads=128, kv_heads=128, head_dim=128, ffn=18432, vocab=129280, gated=True, experts=256,
            top_k=8, expert_ffn=2048, shared_experts=1, dense_layers=3, q_lora_rank=1536, kv_lora_rank=512,
            kv_rope_dim=64, qk_nope_dim=128, v_head_dim=128, rope=True, qk_norm=False)
NVFP4 = 0.5 + 1.0 / 16.0  # E2M1 plus one FP8 scale per 16 values (kernels.BLOCK_SCALE_BYTES)


def test_the_mlperf_rows_state_the_output_projection_only():
    """Every DeepSeek-R1 row states what its hf_quant_config.json leaves out, and the scored job carries it."""
    for c in read_case_file(DEEPSEEK).cases:
        assert c.inference.quantised_attention == "output", c.id
        assert serve_job(c).quantised_attention == "output", c.id


def test_left_out_projections_are_bf16():
    names = [name for name, _, _ in DSV3.attn_gemms(1)]
    assert attention_dtypes(DSV3, "fp4", "all") == ["fp4"] * len(names)
    assert attention_dtypes(DSV3, "fp4", "none") == ["bf16"] * len(names)
    out = attention_dtypes(DSV3, "fp4", "output")
    assert [n for n, d in zip(names, out, strict=True) if d == "fp4"] == ["attention output projection"]


def test_weights_carry_the_bf16_projections_at_two_bytes():
    """The left-out MLA weights (fused_a, q_b and kv_b: 61 layers of 7168 x 2112 + 1536 x 24576 + 512 x 32768, from
    DeepSeek-V3's config.json) take 2 B instead of NVFP4's 0.5625 B, whole on each rank under attention DP."""
    kept = 61 * (7168 * (1536 + 512 + 64) + 1536 * 128 * 192 + 512 * 128 * 256)
    extra = weights_per_gpu(DSV3, "fp4", 8, True, "output") - weights_per_gpu(DSV3, "fp4", 8, True, "all")
    assert extra == pytest.approx(kept * (2.0 - NVFP4), rel=1e-12)
    o_proj = 61 * 7168 * 128 * 128
    extra_none = weights_per_gpu(DSV3, "fp4", 8, True, "none") - weights_per_gpu(DSV3, "fp4", 8, True, "all")
    assert extra_none == pytest.approx((kept + o_proj) * (2.0 - NVFP4), rel=1e-12)


def test_bf16_input_projections_need_no_cast():
    """The norm writes BF16 and the left-out projections read it as it is (quant.serving_casts), on one GPU, where no
    all-reduce fusion quantises it (at TP > 1 it charges no QKV cast either way)."""
    b, k = Q.serving_casts(DSV3, "fp4", 1)
    b_out, k_out = Q.serving_casts(DSV3, "fp4", 1, qkv_quantised=False)
    assert k - k_out == DSV3.layers
    assert b - b_out == pytest.approx(DSV3.layers * DSV3.hidden * (K.ACT_BYTES + Q.SERVING_BYTES["fp4"]))


def test_the_decode_step_times_the_left_out_gemms_in_bf16(accelerators):
    """A decode step of the B200 row: the step grows by exactly the left-out GEMMs' BF16 minus FP4 time, less the
    casts of their input, at the rank's tokens (attention DP)."""
    c = next(c for c in read_case_file(DEEPSEEK).cases if c.inference.scenario == "offline")
    hw = case_hardware(c, accelerators)
    a = Arch.from_model(_model(c))
    job = serve_job(c)
    base = ServeJob(a, job.input_len, job.output_len, "fp4", "fp8", ep=8, attention_dp=True)
    out = ServeJob(a, job.input_len, job.output_len, "fp4", "fp8", ep=8, attention_dp=True,
                   quantised_attention="output")
    tokens, tp = 4096.0, 8.0
    mine = tokens / tp
    gemms = sum(K.gemm_time(hw, "bf16", mine, n, k) - K.gemm_time(hw, "fp4", mine, n, k)
                for (_, n, k), d in zip(a.attn_gemms(1), attention_dtypes(a, "fp4", "output"), strict=True) if d == "bf16")
    casts = K.memory_time(hw, mine * (Q.serving_casts(a, "fp4", tp, True)[0]
                                      - Q.serving_casts(a, "fp4", tp, True, qkv_quantised=False)[0]))
    step = {j.quantised_attention: float(forward(hw, j, tokens, tp, context=1206.0, batch=tokens, prefill=False))
            for j in (base, out)}
    assert step["output"] - step["all"] == pytest.approx(a.layers * gemms - casts, rel=1e-9)
    assert step["output"] > step["all"]


def test_the_roofline_view_times_the_same_projections_in_bf16(accelerators):
    """`roofline`'s decode projections are the same GEMMs at the same data types as the step's (one layer, TP 8)."""
    c = next(c for c in read_case_file(DEEPSEEK).cases if c.inference.scenario == "offline")
    hw, a = case_hardware(c, accelerators), Arch.from_model(_model(c))
    names = {name for name, _, _ in a.attn_gemms(1)}

    def projections(q: str) -> float:
        r = inference_kernels(hw, a, input_len=804, output_len=3736, dtype="fp4", kv_dtype="fp8", tp=8, batch=512,
                              quantised_attention=q)
        return sum(k.time for k in r.kernels if k.phase == "decode" and k.name in names)

    want = sum(K.gemm_time(hw, d, 512.0, n, k)
               for (_, n, k), d in zip(a.attn_gemms(8), attention_dtypes(a, "fp4", "output"), strict=True))
    assert projections("output") == pytest.approx(want, rel=1e-9)
    assert projections("output") > projections("all")
