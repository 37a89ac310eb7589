"""The flop_counting convention gives the rate the causal mask leaves (newuser53).

The model FLOPs count the full s² attention (Megatron-LM's and NeMo's formulas: NeMo's llama3 has a 12·s/h term,
nemo/utils/flops_formulas.py), while the step time runs the causal half. At 131,072 tokens that half is 41 % of
Llama 3.1 8B's model FLOPs, so `mfu` reads 1.7 times the rate the kernels run; before, the convention said only
"full s^2 attention". Shape: Llama 3.1 8B, arXiv 2407.21783 Table 3 (32 layers, model dimension 4,096, FFN 14,336,
32 heads, 8 KV heads), vocabulary 128,256 (config.json).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import SPECS
from tests.data.workloads import training_workload

L, H, FFN, HEADS, KV, V, S = 32, 4096, 14336, 32, 8, 128256, 131072


def test_the_convention_gives_the_causal_share_and_rate(cli, tmp_path):
    (tmp_path / "w.yaml").write_text(training_workload(
        "w", "llama3-8b", 64, "{tp: 1, pp: 1, dp: 8, cp: 8, micro_batch: 1}", seq_len=S, global_batch=16,
        precision="bf16", stack="nemo-2025", recompute="full"), encoding="utf-8")
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--format", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    text = doc["conventions"]["flop_counting"]
    assert text.startswith("model FLOPs = 3 x forward (2 FLOP per MAC, full s^2 attention")
    d = H // HEADS
    gemm = L * (H * (HEADS + 2 * KV) * d + HEADS * d * H + 3 * H * FFN)  # QKV, output projection, SwiGLU FFN
    forward = 2 * gemm + 4 * L * S * HEADS * d + 2 * H * V                # per token: GEMMs, QK^T and AV, logits
    share = 2 * L * S * HEADS * d / forward                               # the half of QK^T and AV a mask skips
    assert share == pytest.approx(0.410, abs=0.001)
    shown = float(re.search(r"the attention scores, ([0-9.]+) % of these FLOPs", text).group(1))
    assert shown == pytest.approx(100 * share, abs=0.05)
    rate = float(re.search(r"counted so, ([0-9.,]+) TFLOP/s per GPU", text).group(1).replace(",", ""))
    full = doc["metrics"]["model_flops_per_gpu"]["value"] / 1e12
    assert rate == pytest.approx(full * (1 - share), rel=1e-3)
    of_peak = float(re.search(r"TFLOP/s per GPU, ([0-9.]+) % of peak", text).group(1))
    # shown to 3 significant figures: half a unit of the last digit (33.05 % reads 33.1 since rope40's rotary bytes)
    assert of_peak == pytest.approx(100 * doc["metrics"]["mfu"]["value"] * (1 - share), abs=0.05)
