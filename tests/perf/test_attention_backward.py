"""Attention backward on H100 at the Qwen3-30B-A3B row's shape against a published figure (issue 20, angle 3).

The model times the flash backward at `kernels.FLASH_BWD_RATIO` (FlashAttention-2 on A100: 63 % against 73 % of peak)
of its forward rate, which the H100's FlashAttention-3 forward sets (tests/perf/data/fa3-h100-forward.yaml). The
FlashAttention-3 paper's H100 backward chart (tests/perf/data/fa3-h100-backward.yaml) times cuDNN, the backend
Transformer Engine uses on Hopper, and FlashAttention-3 at head dimension 128. At the row's 4,096 tokens the model's
backward runs at 523 TFLOP/s: 4.8 % above cuDNN's 499, 3.5 % under FlashAttention-3's 542. So the attention
backward has a source at this shape and is not where nemo2604-h100-qwen3-30b-a3b-fp8-ep16 loses its 2.75 ms a layer
pass: 4.8 % of the row's 0.66 ms attention-core backward is 0.03 ms. What the chart does not give is the causal
mask's cost (the model halves the FLOP at the same rate; an H200 measurement of cuDNN's causal backward at 4k ran
15 % slower than the model, about 0.1 ms a pass: docs/perf-model.md, Kernels, "Checked on an H200"). The model's
size ramp is the forward's, and the backward's falls faster at short sequences: +9 % at 2k, +18 % at 1k, +41 % at
512 tokens against cuDNN (no scored training case runs under 2k tokens a sequence with flash attention on H100).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from archgen.perf.hw import kernels as K

DATA = Path(__file__).parent / "data" / "fa3-h100-backward.yaml"


def _model_rates(h100) -> dict[int, float]:
    """The model's non-causal backward rate (TFLOP/s, 2.5 x the forward FLOP) at each of the chart's shapes."""
    spec = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    heads, d, tokens = spec["heads"], spec["head_dim"], spec["tokens"]
    out = {}
    for row in spec["rows"]:
        s = row["seq_len"]
        _, backward = K.attention_times(h100, "bf16", batch=tokens // s, q_len=s, kv_len=s, heads=heads,
                                        head_dim=d, kernel="flash", causal=False)
        out[s] = 2.5 * 4.0 * (tokens // s) * heads * s * s * d / float(backward) / 1e12
    return out


def test_the_backward_at_4k_is_within_5_percent_of_cudnn(h100):
    """523 TFLOP/s modelled at 4,096 tokens, head dimension 128: cuDNN 499 (+4.8 %), FlashAttention-3 542 (-3.5 %);
    from 2k tokens up within 10 % of cuDNN, and from 4k up under FlashAttention-3."""
    rows = {r["seq_len"]: r for r in yaml.safe_load(DATA.read_text(encoding="utf-8"))["rows"]}
    model = _model_rates(h100)
    assert model[4096] == pytest.approx(523.0, abs=0.5)
    assert model[4096] / rows[4096]["cudnn"] - 1.0 == pytest.approx(0.048, abs=0.002)
    assert model[4096] / rows[4096]["fa3"] - 1.0 == pytest.approx(-0.035, abs=0.002)
    for s in (2048, 4096, 8192, 16384):
        assert rows[s]["cudnn"] < model[s] < rows[s]["cudnn"] * 1.10, s
        assert model[s] < rows[s]["fa3"] or s == 2048, s  # 508 against 501 at 2k


def test_the_backward_size_ramp_is_too_fast_at_short_sequences(h100):
    """The forward's ramp s / (s + 128) applied to the backward reads +41 % at 512 tokens and +18 % at 1k against
    cuDNN's chart: the backward's fixed cost per tile is larger than the forward's. A finding for short sequences,
    not a factor; no scored H100 training case runs there."""
    rows = {r["seq_len"]: r for r in yaml.safe_load(DATA.read_text(encoding="utf-8"))["rows"]}
    model = _model_rates(h100)
    assert model[512] / rows[512]["cudnn"] - 1.0 == pytest.approx(0.415, abs=0.005)
    assert model[1024] / rows[1024]["cudnn"] - 1.0 == pytest.approx(0.175, abs=0.005)
