"""The loss as each stack computes it (`cross_entropy`, issue 20): bytes per logit counted from the kernels.

The counts and their sources are in `archgen.perf.train.loss` (Megatron-LM v2.6 and core_v0.9.0
tensor_parallel/cross_entropy.py for the unfused loss, 52 B; Megatron-core fusions/fused_cross_entropy.py under
torch.compile, 32 B; Transformer Engine common/triton/cross_entropy.py at f031cf8, 10 B). The stack profiles come
from the frameworks' defaults: Megatron-LM v2.6 gpt_model.py:56 and core_v0.9.0 model_parallel_config.py:201 leave the
loss unfused; Megatron-Bridge's gpt_provider.py turns the fusion on and its performance scripts pick 'te'.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from archgen.perf.hw import kernels as K
from archgen.perf.hw.arch import Arch
from archgen.perf.train.job import Job
from archgen.perf.train.layer import layer_times
from archgen.perf.train.loss import BYTES_PER_LOGIT
from archgen.perf.train.stacks import PROFILES, resolve

LLAMA3_8B = Arch(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256, gated=True, rope=True, qk_norm=False)


def test_bytes_per_logit_as_counted_from_the_kernels():
    """Unfused: cast 6, max 4, subtract 8, exp 8, sum 4, divide 8; backward multiply 8, cast back 6. Native: 6 + 8 + 8
    forward, 10 backward. TE: read, read and write the gradient in place forward, scale it in place backward."""
    assert sum((6, 4, 8, 8, 4, 8, 8, 6)) == BYTES_PER_LOGIT["unfused"] == 52.0
    assert sum((2 + 4, 4 + 4, 4 + 4, 4 + 4 + 2)) == BYTES_PER_LOGIT["native"] == 32.0
    assert sum((2, 2 + 2, 2 + 2)) == BYTES_PER_LOGIT["te"] == 10.0


@pytest.mark.parametrize("tp", [1, 4])
def test_the_output_layer_charges_the_loss_the_job_states(h100, tp):
    """One micro-batch of 8,192 tokens of Llama 3 8B: the output layer's time differs between two losses by exactly
    their bytes over the rank's logits (8,192 x 128,256 / tp)."""
    job = Job(LLAMA3_8B, 8192, 128, "bf16")
    times = {k: float(layer_times(h100, replace(job, cross_entropy=k), tp=tp, mb=1, cp=1, ep=1, rc=0,
                                  sp=tp > 1).logits) for k in BYTES_PER_LOGIT}
    logits = 8192 * 128256 / tp
    for kind in ("native", "te"):
        diff = (BYTES_PER_LOGIT["unfused"] - BYTES_PER_LOGIT[kind]) * logits
        assert times["unfused"] - times[kind] == pytest.approx(float(K.memory_time(h100, diff)), rel=1e-9)
    assert times["unfused"] > times["native"] > times["te"]


def test_the_stack_profiles_and_a_stated_value():
    """Megatron-LM 2021 runs the unfused loss, NeMo 24.x (megatron-core-2024) Megatron-core's fused native one (its
    GPTConfig's cross_entropy_loss_fusion; unfused before stack36, when the profile was plain Megatron-LM),
    NeMo/Megatron-Bridge Transformer Engine's; a stated value wins over the profile; an internal job takes the
    megatron-core-2024 profile's."""
    assert {s: p.cross_entropy for s, p in PROFILES.items()} == {
        "megatron-lm-2021": "unfused", "megatron-core-2024": "native", "nemo-2025": "te", "primus-2025": "te"}
    assert resolve("nemo-2025", {"cross_entropy": "native"}, "fp8").cross_entropy == "native"
    assert resolve("megatron-core-2024", {"cross_entropy": "unfused"}, "fp8").cross_entropy == "unfused"
    assert Job(LLAMA3_8B, 8192, 128, "bf16").cross_entropy == "native"
