"""Host time between synchronisations (`perf.train.host`, When the host binds).

Every MoE layer's forward dispatch waits on the host for the token counts, under each dispatcher, and the backward
never does (tests/perf/data/moe-dispatch-syncs.yaml: the code sites at Megatron-core 3097d81 and DeepEP 94a9f8f).
So the host cannot carry the backward's slack into the forward: each pass takes the larger of its host and GPU time.
Dense layers do not synchronise and keep max(host, GPU) of the whole layer.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from archgen.model.switches import SWITCHES
from archgen.perf.comm.collectives import members_per_domain
from archgen.perf.comm.dispatcher import fixed_costs, kernel_times
from archgen.perf.hw import kernels as K
from archgen.perf.hw import launch as L
from archgen.perf.hw import quant as Q
from archgen.perf.hw.arch import Arch
from archgen.perf.train import host as H
from archgen.perf.train.ep_exposure import expert_comm
from archgen.perf.train.experts import expert_forward
from archgen.perf.train.job import Job
from archgen.perf.train.layer import layer_times
from archgen.scoring.cases import case_hardware, read_cases, training_estimate
from tests.data.models import catalog_arch

DATA = Path(__file__).parent / "data"
MODERN = Path(__file__).resolve().parents[1] / "data" / "validation-modern.yaml"
QWEN3_30B = catalog_arch("qwen3-30b-a3b")
LLAMA3_70B = Arch(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256, gated=True, rope=True, qk_norm=False)
H100_FP8 = dict(fp8_recipe="tensorwise", moe_dispatcher="hybridep", ep_dedup=True, param_gather_dtype="fp8",
                moe_force_balance=True, rope_fusion=True)  # the recipe's forced balancing: the router's random logits (`router`)


def _case(path: Path, case_id: str, accelerators):
    cases, _ = read_cases(path)
    case = next(c for c in cases if c.id == case_id)
    return case, case_hardware(case, accelerators)


def test_synchronisations_per_dispatcher_are_the_codes():
    """One synchronisation per MoE layer's forward and none in its backward, for every dispatcher the switch
    allows, as the code sites recorded in moe-dispatch-syncs.yaml show."""
    table = yaml.safe_load((DATA / "moe-dispatch-syncs.yaml").read_text(encoding="utf-8"))["dispatchers"]
    assert set(table) == set(SWITCHES["moe_dispatcher"].values) == set(H.SYNCS)
    for name, row in table.items():
        assert H.SYNCS[name] == (row["forward"], row["backward"]), name
    assert H.synchronised(Job(QWEN3_30B, 4096, 1024, "bf16", moe_dispatcher="alltoall", rope_fusion=True))
    assert not H.synchronised(Job(LLAMA3_70B, 8192, 128, "bf16", rope_fusion=True))


def test_each_pass_binds_on_its_own_between_synchronisations():
    """Host 1 ms forward and 1 ms backward, GPU 0.5 ms forward and 2 ms backward: with a synchronisation in every
    forward layer the forward takes max(1, 0.5) and the backward max(1, 2): 0.5 ms beyond the GPU's 2.5 ms.
    Without one (dense) the host runs ahead through the backward's slack: max(2, 2.5), nothing charged."""
    host, gpu = (1e-3, 1e-3), (0.5e-3, 2e-3)
    assert H.host_excess(host, gpu, True) == pytest.approx(0.5e-3, rel=1e-12)
    assert H.host_excess(host, gpu, False) == 0.0
    assert H.host_excess((3e-3, 1e-3), gpu, False) == pytest.approx(1.5e-3, rel=1e-12)  # the sum binds


def test_forward_share_of_hybrideps_calls(h100):
    """The forward pass's part of a MoE layer's expert communication: its dispatch and combine all-to-alls, and
    HybridEP's forward dispatch without a handle (fixed dispatch cost and the routing-map all-gather) and forward
    combine (fixed combine cost); the backward's two calls reuse the handle (two combine costs). Qwen3-30B-A3B on
    2 H100 nodes, EP 16, BF16: forward - backward = dispatch + gather - combine."""
    job = Job(QWEN3_30B, 4096, 1024, "bf16", moe_dispatcher="hybridep", ep_dedup=True, rope_fusion=True)
    total, fwd = (float(x) for x in expert_comm(h100, job, 4096.0, 1.0, 16.0, 1.0, 0.0, 0.0))
    disp, comb = (float(x) for x in fixed_costs(16.0, 2.0))
    a2a = sum(float(x) for x in kernel_times(4096.0, 2048, 128, 8, 16.0, 8.0)) / 2  # README's H100 kernel rates
    gather = total - 4 * a2a - disp - 3 * comb
    assert gather > 0
    assert fwd == pytest.approx(2 * a2a + disp + gather + comb, rel=1e-12)
    assert total - fwd == pytest.approx(2 * a2a + 2 * comb, rel=1e-12)
    assert members_per_domain(h100, 16.0, 1.0) == 8.0


def test_the_b200_row_binds_in_its_forward(accelerators):
    """NeMo 25.11's 8-B200 Qwen3-30B-A3B MXFP8 row: forward 89 operations (1.20 ms) over 1.08 ms of GPU work,
    backward 122 (1.64 ms) over 1.62 ms, with the QK norms (2 and 2 operations and their traffic, rope40; 87, 1.17
    over 1.05 ms and 120, 1.62 over 1.59 ms before them) and the router's load-balancing loss and random logits (7 and 5, `router`;
    80 and 115 before them, when only the forward was host-bound). The forward synchronises, so each pass binds on
    its own. In the stream's order (`host.forward_stretch`) the host issues the 16 local experts' 65
    operations (32 GEMMs, 32 MXFP8 casts, the activation: 0.88 ms) after the dispatch synchronisation, while the GPU
    has only the dispatch's half of the forward all-to-all (0.23 ms) to run; what follows the last of them (its
    share of the experts' 0.27 ms of GEMMs and casts, the combine and the next attention block and router:
    0.56 ms) cannot start earlier: 0.39 ms beyond the GPU's forward, and the backward's 0.02 ms: 0.41 ms. max(host, GPU) charged 0.03 ms; before training charged every kernel's 1.3 µs
    (`KERNEL_OVERHEAD`) the GPU took 0.99 and 1.48 ms, both passes bound and 0.17 ms charged."""
    case, hw = _case(DATA / "nemo-25.11-moe.yaml", "nemo-b200-qwen3-30b-fp8", accelerators)
    job = Job(QWEN3_30B, 4096, 512, "fp8", fp8_recipe="mxfp8", moe_dispatcher="hybridep", ep_dedup=True,
              param_gather_dtype="fp8", moe_force_balance=True, rope_fusion=True)
    kernels = Q.layer_kernels(job.arch, job.recipe, hw.compute_capability, 8.0)
    h_f, h_b = (float(x) for x in H.host_time(job, H.layer_kernels(job, 8.0, kernels), 0))
    assert (h_f, h_b) == (pytest.approx(89 * L.HOST_OP_TIME), pytest.approx(122 * L.HOST_OP_TIME))
    lt = layer_times(hw, job, tp=1, mb=1, cp=1, ep=8, rc=0, sp=False)
    ep_total, ep_f = (float(x) for x in expert_comm(hw, job, 4096.0, 1.0, 8.0, 1.0, 0.0, 0.0))
    assert ep_total == pytest.approx(float(lt.ep), rel=1e-9)  # every layer is MoE
    g_f, g_b = float(lt.forward) + ep_f, float(lt.backward) + ep_total - ep_f
    assert (g_f, g_b) == (pytest.approx(1.08e-3, abs=0.01e-3), pytest.approx(1.62e-3, abs=0.01e-3))
    e_ops = 16 * 2 + 32 + 1  # FC1 and FC2 per local expert, their MXFP8 input casts, the activation
    assert Q.expert_kernels(job.recipe, hw.compute_capability, 16.0) == 32.0
    casts = K.memory_time(hw, 4096.0 * Q.expert_forward_bytes(job.arch, job.recipe, hw.compute_capability, 1.0))
    g_e = float(expert_forward(hw, job, 4096.0, 1.0, 8.0)) + float(casts) + e_ops * K.KERNEL_OVERHEAD
    after_last = g_e / e_ops + ep_f / 2 + (g_f - ep_f - g_e)  # its last GEMM's share, the combine, the rest
    # the backward binds too now, by its 120 operations' 1.62 ms over 1.59 ms (before the router's, `router`: not)
    assert float(lt.host) == pytest.approx(e_ops * L.HOST_OP_TIME + after_last - g_f + h_b - g_b, rel=1e-9)
    assert float(lt.host) == pytest.approx(0.41e-3, abs=0.01e-3)  # 0.39 ms before the router's; 0.409 with QK norms


def test_the_h100_fp8_row_stays_gpu_bound_in_each_pass(accelerators):
    """The issue's row (nemo2604-h100-qwen3-30b-a3b-fp8-ep16, measured 9.52 ms a layer and micro-batch, model
    6.92 ms): the forward issues 110 operations (1.48 ms with the QK norms' 2, rope40; 108 and 1.46 ms before them;
    101 and 1.36 ms before the router's load-balancing loss and random logits, `router`) against 3.02 ms of GPU work
    (the job runs the catalog's Qwen3, with its rotary embedding's and QK norms' traffic: 2.97 ms without), the
    backward 128 (1.73 ms; 126, 1.70 ms; 121, 1.63 ms) against 4.00 ms (3.94 ms without; 2.96 and
    3.93 ms before the router's; 2.68 and 3.66 ms with the README's dispatch read as bytes alone, `dispatcher.TOKEN_NODE`; 2.53 and
    3.50 ms before those rates, `dispatcher.kernel_times`; 2.49 and 3.44 ms before training charged every kernel's 1.3 µs, `KERNEL_OVERHEAD`; 2.39 and 3.33 ms under the one-step K ramp,
    before `kernels.k_loop_efficiency`, and the former unsourced HBM efficiency 0.85).
    Split at the synchronisations, neither pass is host-bound; the forward would need 3.02 ms / 110 = 27.5 µs per
    operation, above the whole 5-20 µs launch range. The mechanism moves this row by nothing (22.23 s a step;
    22.53 s while the nemo-2025 profile reduced its gradients in fp32, before session gradreduce)."""
    case, hw = _case(MODERN, "nemo2604-h100-qwen3-30b-a3b-fp8-ep16", accelerators)
    job = Job(QWEN3_30B, 4096, 1024, "fp8", **H100_FP8)
    lt = layer_times(hw, job, tp=1, mb=1, cp=1, ep=16, rc=0, sp=False)
    kernels = Q.layer_kernels(job.arch, job.recipe, hw.compute_capability, 16.0)
    h_f, h_b = (float(x) for x in H.host_time(job, H.layer_kernels(job, 16.0, kernels), 0))
    ep_total, ep_f = (float(x) for x in expert_comm(hw, job, 4096.0, 1.0, 16.0, 1.0, 0.0, 0.0))
    assert ep_total == pytest.approx(float(lt.ep), rel=1e-9)  # every layer is MoE
    g_f = float(lt.forward) + ep_f
    g_b = float(lt.backward) + ep_total - ep_f
    assert (h_f, g_f) == (pytest.approx(1.48e-3, abs=0.01e-3), pytest.approx(3.02e-3, abs=0.01e-3))
    assert (h_b, g_b) == (pytest.approx(1.73e-3, abs=0.01e-3), pytest.approx(4.00e-3, abs=0.01e-3))
    assert float(lt.host) == pytest.approx(0.0, abs=1e-15)
    assert g_f / 110 > L.LAUNCH_RANGE[1] and g_b / 128 > L.LAUNCH_RANGE[1]
    assert float(training_estimate(case, hw).step_time) == pytest.approx(22.23, abs=0.02)


def test_the_card_profile_leaves_room_for_the_forwards_host_time(accelerators):
    """Published profile (tests/perf/data/bridge-moe-overlap-profile.yaml, the BF16 card run of the same model on
    16 H100, EP overlap off): the GPU idled 1.89 s of the 24.71 s step. A synchronisation leaves the GPU idle at
    most while the host issues its stretch, so with one per forward layer the idle it can cause is at most the
    forwards' host time: 37 operations (attention 9 with the QK norms' 2, MoE MLP 5, fused permutation 0, 2 x 8
    expert GEMMs, the router's load-balancing loss 5 and random logits 2, `router`) x 13.48 µs x 64 micro-batches x
    48 layers = 1.53 s (1.45 s before the QK norms, 1.16 s before the router's), inside the measured 1.89 s (with the moe_router graphs the run took, fewer); the model charges 0 (each pass is
    GPU-bound), so the profile bounds it from above, not below."""
    profile = yaml.safe_load((DATA / "bridge-moe-overlap-profile.yaml").read_text(encoding="utf-8"))["runs"]["overlap-off"]
    gaps = (profile["step_ms"] - profile["gpu_active_ms"]) / 1e3
    case, hw = _case(DATA / "bridge-26.04.yaml", "bridge-card-h100-qwen3-30b-bf16-ep16-overlap-off", accelerators)
    job = Job(QWEN3_30B, 4096, 1024, "bf16", moe_dispatcher="hybridep", ep_dedup=True, permute_in_dispatch=True,
              moe_force_balance=True, rope_fusion=True)
    counts = H.layer_kernels(job, 16.0, Q.layer_kernels(job.arch, job.recipe, 9.0, 16.0))
    h_f, _ = (float(x) for x in H.host_time(job, counts, 0))
    assert h_f == pytest.approx(37 * L.HOST_OP_TIME, rel=1e-12)
    assert h_f * 64 * 48 == pytest.approx(1.53, abs=0.01)
    assert h_f * 64 * 48 < gaps
    assert float(layer_times(hw, job, tp=1, mb=1, cp=1, ep=16, rc=0, sp=False).host) == 0.0
