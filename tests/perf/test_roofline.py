"""The roofline of one layer's kernels: FLOP against published closed forms, intensities, and times that are the
step-time model's own.

Sources:
* Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", SC21, §5.1:
  a GPT layer's forward pass is 24·B·s·h² + 4·B·s²·h FLOP = 24·B·s·h²·(1 + s/(6h)) (ffn = 4h, MHA, full s²
  attention).
* NVIDIA, "Matrix Multiplication Background User's Guide" (Deep Learning Performance documentation), arithmetic
  intensity of an M×N×K GEMM = 2·M·N·K / (bytes·(M·K + N·K + M·N)); for a square n×n GEMM in 16-bit data this
  is 2n³ / (2·3n²) = n/3 FLOP/B.
* Williams, Waterman and Patterson, "Roofline", CACM 52(4), 2009: attainable = min(peak, intensity × bandwidth).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from archgen.perf.hw.arch import Arch
from archgen.perf.hw.kernels import gemm_time
from archgen.perf.serve.inference import ServeJob, _forward, output_time
from archgen.perf.train.job import Job
from archgen.perf.train.layer import _layer_forward
from archgen.perf.workload.roofline import _gemm, inference_kernels, training_kernels

SPECS = Path(__file__).resolve().parents[2] / "specs"

#: GPT-3 175B shape (Brown et al. 2020, Table 2.1): h = 12288, 96 heads, ffn = 4h, ungated MHA.
GPT3 = Arch(layers=96, hidden=12288, heads=96, kv_heads=96, head_dim=128, ffn=4 * 12288, vocab=51200)
#: A small MoE with a shared expert and GQA, SwiGLU.
MOE = Arch(layers=4, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=32000, gated=True,
           experts=8, top_k=2, expert_ffn=14336, shared_experts=1, rope=True, qk_norm=False)
#: The same with multi-head latent attention (DeepSeek-V3's: latent 512 + RoPE key 64, query rank 1536, heads of
#: 128 + 64 query/key and 128 value dimensions).
MLA = dataclasses.replace(MOE, kv_heads=32, kv_lora_rank=512, kv_rope_dim=64, q_lora_rank=1536, qk_nope_dim=128,
                          v_head_dim=128)



@pytest.mark.parametrize(("b", "s", "tp"), [(1, 2048, 1), (4, 2048, 8), (1, 8192, 4)])
def test_layer_flop_is_megatrons_24bsh2(h100, b, s, tp):
    """GEMMs + the full-square attention core of one forward layer = 24·b·s·h²·(1 + s/(6h)), over the tp ranks."""
    r = training_kernels(h100, GPT3, seq_len=s, dtype="bf16", attention="flash", tp=tp, micro_batch=b)
    h = GPT3.hidden
    gemms = sum(k.flop for k in r.kernels if k.name != "attention core" and k.gemm)
    attn = next(k for k in r.kernels if k.name == "attention core")
    assert attn.flop == pytest.approx(0.5 * 4 * b * s * s * h / tp)  # the causal mask halves flash's work
    assert tp * (gemms + 2 * attn.flop) == pytest.approx(24 * b * s * h * h * (1 + s / (6 * h)), rel=1e-12)


def test_materialized_attention_counts_the_full_square(h100):
    """Materialised scores are computed in full: 4·b·s²·h, no causal discount."""
    r = training_kernels(h100, GPT3, seq_len=2048, dtype="bf16", attention="materialized", tp=1)
    attn = next(k for k in r.kernels if k.name == "attention core")
    assert attn.flop == pytest.approx(4 * 2048 * 2048 * GPT3.hidden)


@pytest.mark.parametrize(("n", "dtype", "intensity"), [(4096, "bf16", 4096 / 3), (1024, "fp16", 1024 / 3),
                                                       (4096, "fp8", 2 * 4096 / 3)])
def test_square_gemm_intensity_is_n_over_3_for_16_bit(h100, n, dtype, intensity):
    """2n³ FLOP over 3n² elements: n/3 FLOP/B at 2 bytes per element, 2n/3 at 1 byte."""
    k = _gemm(h100, dtype, "square", "forward", n, n, n)
    assert k.intensity == pytest.approx(intensity)
    assert k.time == gemm_time(h100, dtype, n, n, n)


def test_ceilings_and_ridge(h100):
    """Compute roof = bf16 peak × measured GEMM efficiency; memory roof = HBM × efficiency; ridge = their ratio."""
    r = training_kernels(h100, GPT3, seq_len=2048, dtype="bf16", attention="flash", tp=8)
    assert r.compute_ceiling == pytest.approx(989e12 * 0.803)
    assert r.memory_ceiling == pytest.approx(3.35e12 * 0.866)  # BabelStream Copy 2.90 of 3.35 TB/s
    assert r.ridge == pytest.approx(r.compute_ceiling / r.memory_ceiling)
    assert r.ceiling(r.ridge / 2) == pytest.approx(r.compute_ceiling / 2)


def _all_rooflines(h100, shipped):
    yield from (w.roofline for w in shipped.workloads.values() if w.roofline is not None)
    for arch in (GPT3, MOE):
        for tp in (1, 8):
            yield training_kernels(h100, arch, seq_len=4096, dtype="bf16", attention="flash", tp=tp, ep=2)
            yield training_kernels(h100, arch, seq_len=2048, dtype="bf16", attention="materialized", tp=tp)
            yield inference_kernels(h100, arch, input_len=2048, output_len=256, dtype="fp8", kv_dtype=None, tp=tp,
                                    batch=1)
            yield inference_kernels(h100, arch, input_len=4096, output_len=1024, dtype="fp8", kv_dtype="fp8", tp=tp,
                                    batch=256)


def test_achieved_never_exceeds_the_roof(h100, shipped):
    """Every kernel's FLOP / model time ≤ min(compute roof, intensity × memory roof)."""
    count = 0
    for r in _all_rooflines(h100, shipped):
        for k in r.kernels:
            assert k.achieved <= r.ceiling(k.intensity) * (1 + 1e-9), (k.phase, k.name)
            count += 1
    assert count > 100


@pytest.mark.parametrize("arch", [GPT3, MOE, MLA], ids=["dense", "moe", "mla"])
@pytest.mark.parametrize(("tp", "sp", "attention"), [(1, False, "flash"), (8, True, "flash"),
                                                     (4, False, "materialized")])
@pytest.mark.parametrize(("dtype", "recipe"), [("bf16", "delayed"), ("fp8", "tensorwise")])
def test_training_kernel_times_sum_to_the_step_models_layer(h100, arch, tp, sp, attention, dtype, recipe):
    """The kernels are exactly what `layer._layer_forward` charges for one layer and micro-batch."""
    mb, s, ep = 2, 4096, 2
    r = training_kernels(h100, arch, seq_len=s, dtype=dtype, attention=attention, tp=tp, ep=ep, micro_batch=mb,
                         sequence_parallel=sp, fp8_recipe=recipe, dropout=True)
    job = Job(arch, s, 64, dtype, attention, fp8_recipe=recipe, dropout=True)
    total, *_ = _layer_forward(h100, job, mb * s, mb, s, tp, sp and tp > 1, ep, moe=bool(arch.experts))
    assert sum(k.time for k in r.kernels) == pytest.approx(float(total), rel=1e-12)


@pytest.mark.parametrize("arch", [GPT3, MOE, MLA], ids=["dense", "moe", "mla"])
def test_inference_kernel_times_sum_to_the_serving_models_layer(h100, arch):
    """Prefill and decode kernels of one layer = `inference._forward` of a one-layer model minus its logits and
    sampling (`inference.output_time`); shared experts are listed beside the routed ones."""
    one = dataclasses.replace(arch, layers=1, dense_layers=0)
    job = ServeJob(one, 2048, 256, "fp8")
    r = inference_kernels(h100, one, input_len=2048, output_len=256, dtype="fp8", kv_dtype=None, tp=1, batch=64)
    for phase, tokens, context, batch, prefill in (("prefill", 2048.0, 2048.0, 1.0, True),
                                                   ("decode", 64.0, 2048 + 128.0, 64.0, False)):
        logits = output_time(h100, one, tokens if not prefill else tokens / context, 1)
        layer = _forward(h100, job, tokens, 1, context=context, batch=batch, prefill=prefill) - logits
        assert sum(k.time for k in r.kernels if k.phase == phase) == pytest.approx(float(layer), rel=1e-12)


def test_shipped_workloads_carry_their_roofline(shipped):
    """The pipeline attaches a roofline to each estimate, at the estimate's own layout."""
    train = shipped.workloads["workload/llama3-70b-pretrain-b200"]
    serve = shipped.workloads["workload/llama3-70b-serve-b200"]
    assert train.roofline.tp == train.estimate.layout["tp"] and train.roofline.dtype == "bf16"
    assert train.roofline.tokens == {"forward": train.estimate.layout["micro_batch"] * 8192}
    assert {k.phase for k in serve.roofline.kernels} == {"prefill", "decode"}
    assert serve.roofline.tokens["decode"] == serve.estimate.layout["batch"]
    decode_attn = next(k for k in serve.roofline.kernels if k.phase == "decode" and k.name == "attention core")
    assert decode_attn.intensity < serve.roofline.ridge  # reading the KV cache is bandwidth-bound


def test_server_roofline_decodes_the_sequences_in_flight_not_the_kv_capacity(spec_tree):
    """Under an arrival rate the decode step is drawn at the simulated concurrency, as the estimate reports it.

    From a user's MI355X deployment: Llama 3.1 70B at 5 requests/s per replica held about 17 sequences in flight,
    and the document's roofline drew a decode step of 5,705 (the KV cache's capacity, `layout["max_batch"]`).
    """
    from archgen.pipeline import run

    root = spec_tree({"serve.yaml": (
        "kind: Workload\nid: l70-server\nname: server\nmodel: llama3-70b\ncluster: mi355x-th5\naccelerators: 64\n"
        "inference: {precision: fp8, tp: 8, input_len: 2048, output_len: 256, scenario: server, "
        "arrival_rate: 40 1/s}\n")})
    result = run([root, SPECS / "clusters" / "mi355x-th5.yaml"]).workloads["workload/l70-server"]
    running = result.estimate.metrics["concurrency"].m
    assert running < result.estimate.layout["max_batch"] / 10
    assert result.roofline.tokens["decode"] == max(round(running), 1)


#: AWS Trainium2 as a vendor writes it without an `efficiency:` block (AWS Neuron documentation, Trainium2
#: Architecture: 667 BF16 and 1,299 FP8 TFLOPS dense, 96 GiB at 2.9 TB/s; NeuronLink-v3 1.28 TB/s per chip, taken
#: as 640 GB/s per direction; tdp a placeholder, unconfirmed).
TRAINIUM2 = {"kind": "Accelerator", "id": "trainium2", "source": "AWS Neuron documentation, Trainium2 Architecture",
             "memory": "96 GiB", "memory_bandwidth": "2.9 TB/s", "peak": {"bf16": "667 TFLOPS", "fp8": "1299 TFLOPS"},
             "tdp": "500 W", "scale_up": {"technology": "NeuronLink-v3", "bandwidth": "640 GB/s", "links": 4},
             "unconfirmed": ["tdp", "scale_up.bandwidth"]}


def test_roofline_names_each_efficiency_by_its_basis(h100, accelerators):
    """A roof on efficiencies the part does not state is never called measured (caption and legend).

    Before, every roofline caption read 'peak × measured GEMM efficiency', also for a vendor's part without an
    `efficiency:` block (the assumed 0.7 point) and for GB200's BF16 point inside its stated `gemm_range`.
    """
    from archgen.model.accelerator import Accelerator
    from archgen.perf.hw.from_spec import hardware_for
    from archgen.render.roofline import _attainable_label, roofline_blocks
    trn2 = hardware_for(Accelerator.model_validate(TRAINIUM2), scale_up_size=16)
    gb200 = hardware_for(accelerators["gb200"], scale_up_size=72)
    cases = {"h100": (h100, ("measured", "measured")), "gb200": (gb200, ("range", "range")),
             "trainium2": (trn2, ("assumed", "assumed"))}
    for name, (hw, bases) in cases.items():
        r = training_kernels(hw, GPT3, seq_len=2048, dtype="bf16", attention="flash", tp=8)
        assert (r.gemm_basis, r.hbm_basis) == bases, name
        caption = roofline_blocks(r, f"w-{name}")[0].caption
        assert ("measured GEMM" in caption) == (bases[0] == "measured"), caption
        assert (_attainable_label(r) == "attainable (measured efficiencies)") == (bases == ("measured", "measured"))
    r = training_kernels(trn2, GPT3, seq_len=2048, dtype="bf16", attention="flash", tp=8)
    caption = roofline_blocks(r, "w")[0].caption
    assert "bf16 peak × assumed GEMM efficiency, not measured" in caption
    assert "HBM bandwidth × assumed HBM efficiency, not measured" in caption
    assert _attainable_label(r) == "attainable (assumed efficiencies, not measured)"
