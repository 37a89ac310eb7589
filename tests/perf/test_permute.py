"""An MoE layer's token permutation by dispatcher (`training.permute_h`, `permute_in_dispatch`).

Megatron-core's alltoall dispatcher permutes each token's top_k copies at the source (read 1, write k) and
unpermutes them after the combine (read k, write 1), and with several local experts sorts the received copies by
expert and back (token_dispatcher.py at 3097d81, "Permutation 2", `sort_chunks_by_idxs`). DeepEP and HybridEP deliver a token once to each rank that
holds one of its experts, and that rank permutes what it received (Megatron-core token_dispatcher.py at 3097d81,
`_DeepepManager.get_permuted_hidden_states_by_experts`; HybridEP's own permute kernel in
deepseek-ai/DeepEP hybrid-ep 94a9f8f csrc/hybrid_ep/executor/executor.cu `dispatch_postprocess`, its unpermute in
`combine_preprocess`) unless the permutation is fused into HybridEP's kernels, where both are no-ops.
"""

from __future__ import annotations

import pytest

from archgen.errors import SpecError
from archgen.perf.hw import kernels as K
from archgen.perf.train.experts import permute_h
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.stacks import resolve
from archgen.perf.train.training import estimate_training
from tests.data.models import catalog_arch

QWEN3_30B = catalog_arch("qwen3-30b-a3b")
#: Ranks a token reaches at EP 16, top-8, uniform routing: 16 x (1 - (15/16)^8).
RANKS_EP16 = 16 * (1 - (15 / 16) ** 8)


@pytest.mark.parametrize(("ep", "dispatcher", "fused", "h"), [
    # alltoall with 8 local experts: the source permutation (1 + 8 each way) and the sort by local expert of the 8
    # received copies after the all-to-all and back before the combine (2 x 8 each way)
    (16, "alltoall", False, 2 * (1 + 8) + 4 * 8),
    # one local expert: no sort
    (128, "alltoall", False, 2 * (1 + 8)),
    # 6.45 rows received per token, 8 expert copies written; unpermute back
    (16, "deepep", False, 2 * (RANKS_EP16 + 8)),
    (16, "hybridep", False, 2 * (RANKS_EP16 + 8)),
    (16, "hybridep", True, 0.0),
    # without expert parallelism every dispatcher permutes the token on its own rank
    (1, "hybridep", False, 2 * (1 + 8)),
])
def test_permutation_traffic_per_token(ep, dispatcher, fused, h):
    assert float(permute_h(8, float(ep), dispatcher, fused, 128)) == pytest.approx(h, rel=1e-12)
    assert RANKS_EP16 == pytest.approx(6.4525, abs=1e-4)


def test_unfused_hybridep_pays_its_permutation_passes(h100):
    """Qwen3-30B-A3B on 16 H100 (EP 16, micro-batch 1, 64 micro-batches of 48 layers): unfused, HybridEP's permute
    and unpermute move 2 x (6.45 + 8) x 2,048 elements of 2 B per token, 4,096 tokens, once forward and twice
    backward (the model's backward moves twice the forward's element-wise bytes): 3 x 3,072 passes at the H100's
    effective HBM rate, plus their 2 + 2 kernels' fixed 1.3 µs each (`KERNEL_OVERHEAD`, 0.016 s): 1.56 s a step more
    than the fused run (1.54 s before training charged every kernel's fixed cost, 1.57 s at the former unsourced HBM
    efficiency 0.85; 0.59 s more than the alltoall formula charged every dispatcher before)."""
    lay = Layout(tp=1, pp=1, dp=16, ep=16, micro_batch=1, sequence_parallel=False)
    step = {f: float(estimate_training(h100, Job(QWEN3_30B, 4096, 1024, "bf16", moe_dispatcher="hybridep",
                                                 ep_dedup=True, permute_in_dispatch=f, rope_fusion=True), lay).step_time)
            for f in (False, True)}
    per_pass = float(K.memory_time(h100, 4096 * 2 * (RANKS_EP16 + 8) * 2048 * 2.0))
    assert step[False] - step[True] == pytest.approx(64 * 48 * (3 * per_pass + 4 * K.KERNEL_OVERHEAD), rel=1e-9)
    assert step[False] - step[True] == pytest.approx(1.56, abs=0.01)


def test_the_profiles_leave_it_off():
    """Megatron-core's default (transformer_config.py at 3097d81) is False and Megatron-Bridge 26.04's performance
    configs do not set it."""
    for stack in ("megatron-lm-2021", "megatron-core-2024", "nemo-2025"):
        assert resolve(stack, {}, "bf16").permute_in_dispatch is False


def test_fusion_without_hybridep_is_refused():
    """Only HybridEP's kernels permute; stated with another dispatcher (stated, implied or the profile's) it is
    refused rather than ignored."""
    from archgen.model.switches import StackSwitches

    assert StackSwitches(permute_in_dispatch=True).permute_in_dispatch  # nemo-2025
    for stated in ({"moe_dispatcher": "deepep"}, {"ep_dedup": False}, {"stack": "megatron-core-2024"},
                   {"stack": "megatron-core-2024", "ep_dedup": True}):
        with pytest.raises((SpecError, ValueError), match="expected moe_dispatcher hybridep"):
            StackSwitches(permute_in_dispatch=True, **stated)
