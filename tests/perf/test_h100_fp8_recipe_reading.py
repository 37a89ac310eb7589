"""Issue 20's worst modern row read against the recipe it ran (docs/perf-model.md, Limitations).

The row: nemo2604-h100-qwen3-30b-a3b-fp8-ep16 (Megatron-Bridge docs/performance-summary-archive.md, 26.04.01,
Qwen3-30B-A3B on 16 DGX H100, FP8, EP 16, MBS 1: 8,960 tokens/s/GPU), measured 1,024 x 4,096 / 143,360 = 29.26 s a
step, 9.52 ms per layer and micro-batch (64 micro-batches x 48 layers). The 26.04.01 table is Megatron-Bridge v0.4.2;
what its H100 FP8 recipe sets, read at that tag (scripts/performance/configs/qwen/qwen3_llm_pretrain.py
`qwen3_30b_a3b_pretrain_config_h100` and `set_qwen3_common_configs`, qwen3_workload_base_configs.py
`QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1`, utils/precision.py `fp8_cs`, utils/overrides.py,
src/megatron/bridge/recipes/qwen/qwen3_moe.py `qwen3_30b_a3b_pretrain_config`,
src/megatron/bridge/training/mixed_precision.py `bf16_with_fp8_current_scaling_mixed`), agrees with the nemo-2025
profile in every switch (the gradient reduction since the profile took the performance configs' BF16). Each test
holds one bound the reading gives.
"""

from __future__ import annotations

from math import comb
from pathlib import Path

import pytest
import yaml

from archgen.perf.comm.dispatcher import kernel_times
from archgen.perf.hw import kernels as K
from archgen.perf.hw import quant as Q
from archgen.scoring.cases import case_hardware, read_cases, training_estimate
from tests.data.models import catalog_arch

MODERN = Path(__file__).resolve().parents[1] / "data" / "validation-modern.yaml"
ROW = "nemo2604-h100-qwen3-30b-a3b-fp8-ep16"
MEASURED = 143360.0  # tokens/s, the row's measured value (8,960 tokens/s/GPU x 16)
PASSES = 64 * 48  # micro-batches a step (1,024 / DP 16) x layers


def _row(accelerators, **stated):
    cases, _ = read_cases(MODERN)
    case = next(c for c in cases if c.id == ROW)
    if stated:
        case = case.model_copy(update={"training": case.training.model_copy(update=stated)})
    return case, case_hardware(case, accelerators)


def _per_pass(case, hw) -> float:
    return float(training_estimate(case, hw).step_time) / PASSES


def test_the_recipes_bf16_gradient_reduction_moves_the_row_away_from_measured(accelerators):
    """v0.4.2 qwen3_llm_pretrain.py:41-42 (`set_qwen3_common_configs`) sets mixed_precision.grad_reduce_in_fp32 and
    ddp.grad_reduce_in_fp32 False: the run reduced its gradients in BF16, as the nemo-2025 profile now says (every
    LLM performance config does; `archgen.model.switches`, grad_reduce_dtype). The shared row does not state it, so
    it takes the profile's BF16. Megatron-Bridge's library `bf16_mixed` (fp32), which the profile said before and
    this run did not use, is slower (more DP traffic): stated, the row's miss is 2.19 ms a layer pass (+29.8 %)
    where the faithful BF16 leaves 2.29 ms (+31.6 %): the fp32 default was hiding part of the miss."""
    as_scored, hw = _row(accelerators)
    as_run, _ = _row(accelerators, grad_reduce_dtype="bf16")
    library, _ = _row(accelerators, grad_reduce_dtype="fp32")
    measured = 1024 * 4096 / MEASURED / PASSES
    scored, run, fp32 = _per_pass(as_scored, hw), _per_pass(as_run, hw), _per_pass(library, hw)
    assert scored == run < fp32
    assert measured - fp32 == pytest.approx(2.19e-3, abs=0.01e-3)
    assert measured - run == pytest.approx(2.29e-3, abs=0.01e-3)
    assert (measured / run - 1.0) * 100 == pytest.approx(31.6, abs=0.1)  # tokens/s error, predicted over measured


def test_the_slowest_published_two_node_dispatch_rate_leaves_most_of_the_miss():
    """The inter-node all-to-all, bounded from the dispatchers' own published rates. The model times the row's
    HybridEP calls at the README's H100 kernel rates (`dispatcher.kernel_times`, 8 SMs; the recipe gives 32, for
    which no row is published): dispatch 0.712 ms and combine 0.492 ms at hidden 2,048, 2.41 ms for the four calls
    of a layer pass. The slowest two-node figure any dispatcher publishes is DeepEP's EP 16 on H800 with one CX7
    400 Gb/s per GPU (deepseek-ai/DeepEP docs/legacy.md at dd758ca: 43 GB/s "RDMA" dispatch and combine), counted
    over every node a token goes to, its own included (tests/perf/test_overlap_cost.py). The row's calls are BF16
    (Megatron-core 2edffad fused_a2a.py:319 and 391: HybridEP takes no FP8 dispatch), so each counts 4,096 x 1.9935 x 2,048 x 2 B = 33.5 MB, 0.778 ms at that rate:
    3.11 ms a pass, 0.70 ms above the model,
    under a third of the 2.29 ms miss (the row at the profile's BF16 reduction). The mechanism that explains
    DeepEP's H800 figure (the NVLink forwarding leg on 200 GB/s NVLink, docs/perf-model.md, Limitations (c)) does
    not bind on the H100's 450 GB/s, so even this third is an upper bound, not a term: nothing is added."""
    hit = 2 * (1.0 - comb(64, 8) / comb(128, 8))  # nodes a token reaches, its own included (64 experts a node)
    counted = 4096 * hit * 2048 * 2.0
    assert counted / 1e6 == pytest.approx(33.45, abs=0.01)
    deepep = 4 * counted / 43e9
    dispatch, combine = (float(x) for x in kernel_times(4096.0, 2048, 128, 8, 16.0, 8.0))
    model = 2 * (dispatch + combine)
    assert (round(deepep * 1e3, 2), round(model * 1e3, 2)) == (3.11, 2.41)
    assert deepep - model == pytest.approx(0.70e-3, abs=0.01e-3)
    assert (deepep - model) / 2.29e-3 < 0.33


def test_the_fp8_casts_charged_leave_little_room_at_the_guides_ratio(accelerators):
    """FP8 current scaling on Hopper, read at the Transformer Engine commit Megatron-Bridge v0.4.2 pins (uv.lock:
    366798ef): every GEMM input and output gradient is quantised per tensor, and `GroupedLinear` quantises each of
    the 8 local experts' slices on its own (amax zero + reduce, scale, cast-transpose: 4 launches). The model
    charges them (`quant`): 6 B an element on Hopper (the amax read, the cast's read, two FP8 copies), 167,936 B a
    token forward and 215,040 B backward, 0.541 ms of HBM time a pass at 4,096 tokens, plus 143 kernels at 1.3 us,
    0.727 ms in all. The slices are not small (4,096 rows of 2,048 or 768 a local expert), so their amax kernels are
    bandwidth-bound, not launch-bound. Against Transformer Engine's GEMM profiling guide (B300, the only published
    timing of these casts; tests/perf/test_quant.py) the model's bytes and kernels give 0.866 of the measured
    current-scaling quantisation; were the H100 casts short by the same share, they would add 0.11 ms a pass, 5 %
    of the row's 2.29 ms miss, and even twice the charged time would add a third of it."""
    _, hw = _row(accelerators)
    a, cc, T = catalog_arch("qwen3-30b-a3b"), hw.compute_capability, 4096
    assert float(Q.tensor_bytes("tensorwise", cc)) == 6.0
    fwd, bwd = float(Q.forward_per_token(a, "tensorwise", cc, 1, False, True)), float(
        Q.backward_per_token(a, "tensorwise", cc, 1, False))
    assert (fwd, bwd) == (167936.0, 215040.0)
    kernels = sum(float(x) for x in Q.layer_kernels(a, "tensorwise", cc, 16.0))
    assert kernels == 143.0
    charged = float(K.memory_time(hw, (fwd + bwd) * T)) + kernels * K.KERNEL_OVERHEAD
    assert charged == pytest.approx(0.727e-3, abs=0.002e-3)
    short = charged * (1 / 0.866 - 1)  # test_quant: (bytes + kernels) / measured, FP8 current scaling
    assert short == pytest.approx(0.11e-3, abs=0.01e-3)
    assert short / 2.29e-3 < 0.06 and charged / 2.29e-3 < 0.34


def test_hybridep_at_the_recipes_32_sms_is_unpublished_and_the_nearest_row_is_slower_by_little():
    """The recipe gives HybridEP 32 SMs (v0.4.2 scripts/performance/utils/overrides.py:70-73,
    `moe_hybridep_num_sms`); the README's H100 table (tests/perf/data/hybridep-h100.yaml) measures 4, 8 and 16, and
    the model reads the 8-SM row (`dispatcher.KERNEL_SMS`). At 16 ranks the 16-SM row is slower than the 8-SM one
    (dispatch 71.71 against 76.80 GB/s, combine 62.95 against 68.00): read at those rates the row's four calls take
    2.59 ms instead of 2.41 ms, 0.18 ms a pass. No 32-SM row exists, so this is a range of the unstated, not a term."""
    rows = yaml.safe_load((Path(__file__).parent / "data" / "hybridep-h100.yaml").read_text(encoding="utf-8"))["rows"]
    at = {r["sms"]: r for r in rows if r["ranks"] == 16}
    dispatch, combine = (float(x) for x in kernel_times(4096.0, 2048, 128, 8, 16.0, 8.0))
    slow_d = at[8]["kernel_dispatch"] / at[16]["kernel_dispatch"]
    slow_c = at[8]["kernel_combine"] / at[16]["kernel_combine"]
    assert (round(slow_d, 3), round(slow_c, 3)) == (1.071, 1.080)
    eight, sixteen = 2 * (dispatch + combine), 2 * (dispatch * slow_d + combine * slow_c)
    assert (round(eight * 1e3, 2), round(sixteen * 1e3, 2)) == (2.41, 2.59)
    assert sixteen - eight == pytest.approx(0.18e-3, abs=0.01e-3)
