"""One Qwen3-30B-A3B layer on an H200, as one rank of EP 16 runs it, against the model's layer (issue 20).

Data: tests/perf/data/h200-qwen3-moe-layer.json, written by `bench/gpu/moe_layer.py` on 2026-12-04 (PyTorch
2.11.0+cu130, cuBLAS 13.1, cuDNN 9.19): the modern file's worst row's layer (nemo2604-h100-qwen3-30b-a3b-fp8-ep16,
predicted 38 % fast, 2.63 ms missing per layer and micro-batch) in plain PyTorch BF16 on one GPU, forward and
backward, every kernel's GPU time summed from the profiler (host launch time not counted). It is not NeMo's stack:
no Transformer Engine, no fused permutation, RMSNorm, rotary embedding or SwiGLU; an unfused implementation of the
same work, beside the same layer through torch.compile (h200-qwen3-moe-layer-compiled.json, `--compile`), which fuses
the elementwise work. So they bound, they do not calibrate: nothing is fitted to them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archgen.perf.hw import kernels as K
from archgen.perf.hw.arch import Arch
from archgen.perf.train.job import Job
from archgen.perf.train.layer import layer_times
from archgen.perf.train.stacks import resolve, stated_knobs
from archgen.scoring.cases import case_hardware, read_cases

HERE = Path(__file__).parent / "data"
DATA = json.loads((HERE / "h200-qwen3-moe-layer.json").read_text(encoding="utf-8"))
#: The same layer through torch.compile: Inductor fuses the elementwise work (norms, rotary, SwiGLU, scaling).
COMPILED = json.loads((HERE / "h200-qwen3-moe-layer-compiled.json").read_text(encoding="utf-8"))
MODERN = Path(__file__).resolve().parents[1] / "data" / "validation-modern.yaml"
ROW = "nemo2604-h100-qwen3-30b-a3b-fp8-ep16"


def _kinds(data: dict = DATA) -> dict[str, float]:
    """Measured GPU seconds per step by kind: cuDNN attention (with its helper kernels), GEMMs (CUTLASS grouped with
    their set-up kernels, cuBLAS, and the router's FP32 GEMMs), the rest."""
    out = {"attention": 0.0, "gemm": 0.0, "rest": 0.0}
    for name, k in data["kernels"].items():
        kind = ("attention" if "sdpa" in name or "cudnn::" in name else
                "gemm" if "gemm" in name.lower() or "nvjet" in name else "rest")
        out[kind] += k["us_per_step"] / 1e6
    return out


@pytest.fixture(scope="module")
def model(accelerators):
    """The model's layer of the row in BF16 on an H200 (the measurement's precision and part): its forward plus
    backward, its GEMMs and its attention core, in seconds."""
    cases, _ = read_cases(MODERN)
    row = next(c for c in cases if c.id == ROW)
    case = row.model_copy(update={"training": row.training.model_copy(update={"precision": "bf16"}),
                                  "system": row.system.model_copy(update={"accelerator": "h200-sxm-141gb"})})
    hw, t = case_hardware(case, accelerators), case.training
    job = Job.from_knobs(Arch.from_model(case.model), t.seq_len, t.global_batch, t.precision,
                         resolve(t.stack, stated_knobs(t), t.precision))
    times = layer_times(hw, job, tp=1, mb=1, cp=1, ep=16, rc=0, sp=False)

    def gemm(m, n, k, groups=1):
        return K.gemm_time(hw, "bf16", m, n, k, groups) + K.gemm_backward_time(hw, "bf16", m, n, k, groups)
    tokens, routed = 4096, 4096 * 8 // 8     # a rank's tokens; routed copies per local expert (8 of 128, top-8)
    gemms = (gemm(tokens, 5120, 2048) + gemm(tokens, 2048, 4096) + gemm(tokens, 128, 2048)
             + gemm(routed, 1536, 2048, 8) + gemm(routed, 2048, 768, 8))
    fwd, bwd = K.attention_times(hw, "bf16", batch=1, q_len=4096, kv_len=4096, heads=32, head_dim=128, causal=True)
    return {"layer": times.forward + times.backward, "gemm": gemms, "attention": fwd + bwd}


def test_the_layers_gemms_and_attention_within_ten_percent(model):
    """The layer's GEMMs (QKV, output, router, the 8 local experts' two grouped GEMMs; forward and both backward
    GEMMs): 2.08 ms measured (22 kernels; the router's ran in FP32 here, 0.17 ms, where the model takes BF16),
    2.19 ms modelled (+5 %). Its attention core (cuDNN, 4,096 causal tokens,
    32 heads of 128, forward and backward with its helper kernels): 1.01 ms measured, 0.88 ms modelled (-12 %; the
    backward at 63/73 of the forward rate is the fast part: tests/perf/test_h200_kernels.py)."""
    kinds = _kinds()
    assert model["gemm"] / kinds["gemm"] - 1 == pytest.approx(0.052, abs=0.01)
    assert model["attention"] / kinds["attention"] - 1 == pytest.approx(-0.121, abs=0.01)


def test_the_rest_of_the_layer_is_where_the_time_is_missing(model):
    """Everything else in the layer (norms, rotary embedding, router softmax and top-k, sort, permutation gathers,
    SwiGLU, probability scaling, the scatter-add that unpermutes, residual adds, copies, and their backward): 188
    kernels, 3.33 ms in plain PyTorch; 96 kernels, 1.68 ms through torch.compile, which fuses the elementwise work
    (0.54 ms of it the scatter-add, an atomic kernel that a gather-sum unpermutation, as Transformer Engine's, avoids:
    `permute_gather` in h200-kernels.json sums 8 rows a token in 0.12 ms). The model charges 0.72 ms (its layer,
    3.79 ms forward and backward, less its GEMMs and attention) as memory traffic at the HBM rate. A fused stack's
    excess over the model is about 0.5-1 ms of the row's missing 2.63 ms a layer and micro-batch; the rest of the
    miss is not in the layer's GPU work on one device (docs/perf-model.md, "The layer itself, measured")."""
    eager, fused = _kinds(), _kinds(COMPILED)
    rest = model["layer"] - model["gemm"] - model["attention"]
    assert model["layer"] == pytest.approx(3.79e-3, rel=0.01)
    # 0.72 ms before the dropout mask was charged only under dropout; 0.70 ms before the router's loss (`router`)
    assert rest == pytest.approx(0.726e-3, rel=0.02)
    assert eager["rest"] == pytest.approx(3.33e-3, rel=0.01)
    assert fused["rest"] == pytest.approx(1.68e-3, rel=0.01)
    assert (DATA["kernels_per_step"], COMPILED["kernels_per_step"]) == (214, 122)
    assert rest < fused["rest"] < eager["rest"]     # the model never charges more than a fused implementation takes
    # the compiled layer's GEMMs and attention are the eager one's (the same library kernels)
    assert fused["gemm"] == pytest.approx(eager["gemm"], rel=0.02)
    assert fused["attention"] == pytest.approx(eager["attention"], rel=0.02)
