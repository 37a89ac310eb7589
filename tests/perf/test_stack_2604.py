"""Where the Qwen3-30B-A3B miss of the 26.04.01 container lies (issue 20; the modern file's one row outside 25 %).

The modern file's nemo2604-h100-qwen3-30b-a3b-fp8-ep16 (16 H100, EP16 over two nodes) is predicted +38 % fast while
the verification card's GB200 and GB300 EP8 rows (tests/perf/data/bridge-card-qwen3-30b.yaml) come within 1-8 %,
which read as a miss of the H100 two-node EP shape. Three published sources say otherwise:

* The same 26.04.01 performance table's Blackwell rows of the same model (tests/perf/data/bridge-26.04-qwen3-30b.yaml:
  8 GPUs, EP8 inside one NVLink domain, MXFP8, micro-batch 4 and 8) are predicted 16-36 % fast. The card's rows ran a
  later recipe (whole-iteration CUDA graphs, EP overlap, the fused grouped MLP, FP8 attention).
* Missing time per layer and micro-batch (measured step less the model's, over micro-batches x 48 layers) is
  2.6-3.4 ms on all five 26.04.01 rows: 1 to 8 sequences a micro-batch, InfiniBand or NVLink, Hopper or Blackwell.
  It does not grow with the work (8 sequences are 8 times 1 sequence's GPU work) nor shrink on a faster GPU: a fixed
  cost per layer and micro-batch. The card's whole-iteration-graph rows, which issue no per-layer host work, leave
  0.2-0.6 ms.
* Megatron-core's NCCL all-to-all dispatcher on the H100 shape (tests/perf/data/bridge-skills-qwen3-30b-alltoall.yaml)
  misses by about the same fraction as HybridEP does (-19 % against -21 % of step time): the miss is not in
  HybridEP's kernel rates or per-call cost; and the model's EP overlap saves what that A/B saved, within 1.4 %.
* The one profiled run (BF16, HybridEP, overlap off) spends its missing time on the GPU, not waiting for the host.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from archgen.perf.hw import quant as Q
from archgen.perf.hw.arch import Arch
from archgen.perf.train import host as H
from archgen.perf.train.job import Job
from archgen.perf.train.stacks import resolve, stated_knobs
from archgen.scoring.cases import case_hardware, read_cases, training_estimate

DATA = Path(__file__).parent / "data"
MODERN = Path(__file__).resolve().parents[1] / "data" / "validation-modern.yaml"
H100_ROW = "nemo2604-h100-qwen3-30b-a3b-fp8-ep16"
BLACKWELL = DATA / "bridge-26.04-qwen3-30b.yaml"


def _case(path: Path, case_id: str):
    cases, _ = read_cases(path)
    return next(c for c in cases if c.id == case_id)


def _miss(case, accelerators) -> tuple[float, float, float]:
    """(throughput error, missing seconds per layer and micro-batch, host seconds the model counts per layer and
    micro-batch) of a pp = 1 case (tokens/s or step time): the host time is `host.host_time` of the layer's issued
    operations."""
    hw, t = case_hardware(case, accelerators), case.training
    assert t.pp == 1
    est = training_estimate(case, hw)
    value = float(case.measured[0].value)
    tokens = case.measured[0].metric == "tokens_per_second"
    measured_step = t.global_batch * t.seq_len / value if tokens else value
    per_layer_mb = t.global_batch / (t.dp * t.micro_batch) * case.model.layers
    job = Job.from_knobs(Arch.from_model(case.model), t.seq_len, t.global_batch, t.precision,
                         resolve(t.stack, stated_knobs(t), t.precision))
    counts = H.layer_kernels(job, t.ep, Q.layer_kernels(job.arch, job.recipe, hw.compute_capability, t.ep))
    host = sum(float(x) for x in H.host_time(job, counts, 0, Q.attention_kernels(job.recipe, hw.compute_capability)))
    return ((float(est.tokens_per_second) / value if tokens else value / float(est.step_time)) - 1.0,
            (measured_step - float(est.step_time)) / per_layer_mb, host)


def test_the_same_container_misses_inside_one_nvlink_domain(accelerators):
    """26.04.01's Blackwell rows of Qwen3-30B-A3B (no token crosses InfiniBand) are predicted 14-35 % fast (17-38 %
    before their file stated Qwen3's QK norms and rotary embedding, which rope40 charges), the H100 row 32 % (30 % while the nemo-2025 profile reduced its gradients in fp32, where its recipe and, since session
    gradreduce, the profile reduce in BF16 as the Blackwell rows state; 41 % while HybridEP's README dispatch was read as bytes alone, `dispatcher.TOKEN_NODE`; 16-36 % and
    38 % while the loss was charged 36 B a logit, not Transformer Engine's 10 B, `loss`): the
    miss belongs to the container's MoE stack, not to the two-node EP shape. The card's GB200/GB300 rows of the same
    layouts in 26.06 (whole-iteration graphs, EP overlap, fused grouped MLP) come within 10 % (8 % while the replayed
    graph paid HybridEP's per-call cost, 7 % while its forward-dispatch synchronisation stayed on the critical path
    under the overlap; 11 % before the EP
    overlap's GPU-driven all-to-all kept only its pace beside compute, `contention.GPU_DRIVEN_PACE`; 8 % before
    that); the 26.04.01 GB200 row (MBS 4) runs 35 % below the card's (26,112 against 40,323 tokens/s/GPU), where the
    model's switches (graphs, overlap) account for 22 % (36,048 against 43,987 predicted; 36,112 and 44,078 before
    the router's GEMM ran in 16 bit, `router`; 20 % and 43,411 while the
    replayed graph paid HybridEP's per-call cost; 19 % and 43,042 with the forward-dispatch synchronisation exposed
    under the overlap; 23 % and 44,387 before the paced overlap)."""
    cases, _ = read_cases(BLACKWELL)
    errors = {c.id.split("-")[1]: _miss(c, accelerators)[0] for c in cases}
    # 0.199, 0.381, 0.170, 0.300 before their file stated Qwen3's QK norms and rotary embedding, which rope40
    # charges; 0.204, 0.387, 0.175, 0.307 before the router's GEMM ran in 16 bit (`router`)
    assert errors == pytest.approx({"gb300": 0.173, "gb200": 0.351, "b300": 0.144, "b200": 0.273}, abs=0.005)
    assert _miss(_case(MODERN, H100_ROW), accelerators)[0] == pytest.approx(0.316, abs=0.005)
    card = DATA / "bridge-card-qwen3-30b.yaml"
    for platform, limit in (("gb200", 0.10), ("gb300", 0.025)):
        assert abs(_miss(_case(card, f"bridge-card-{platform}-qwen3-30b-mxfp8-ep8-full-iteration"),
                         accelerators)[0]) < limit
    older, newer = (_case(BLACKWELL, "nemo2604-gb200-qwen3-30b-mxfp8-ep8"),
                    _case(card, "bridge-card-gb200-qwen3-30b-mxfp8-ep8-full-iteration"))
    measured = float(newer.measured[0].value) / float(older.measured[0].value)
    modelled = (float(training_estimate(newer, case_hardware(newer, accelerators)).tokens_per_second)
                / float(training_estimate(older, case_hardware(older, accelerators)).tokens_per_second))
    assert measured == pytest.approx(1.544, abs=0.005) and modelled == pytest.approx(1.221, abs=0.005)


def test_the_missing_time_is_a_fixed_cost_per_layer_and_micro_batch(accelerators):
    """Measured step less the model's, per layer and micro-batch: H100 MBS 1 2.28 ms (2.19 with fp32 gradient
    reduction, before session gradreduce), B200 MBS 4 2.90, GB200 MBS 4
    3.60, B300 MBS 8 3.23 (3.41 while B300 had the GB300's 8 TB/s HBM), GB300 MBS 8 3.57 (each 0.01-0.03 ms less
    since the router's GEMM runs in 16 bit, `router`: 2.29, 2.92, 3.62, 3.26, 3.60 before; each 0.02-0.04 ms less
    since the router's load-balancing loss and random logits are counted, `router`; H100 2.75 ms while HybridEP's README dispatch was read as bytes alone,
    `dispatcher.TOKEN_NODE`; 2.63-3.42 ms while the loss was charged 36 B a logit, not Transformer Engine's 10 B);
    the GPU work per micro-batch grows 8-fold from MBS 1 to 8 and differs ~2.5-fold between H100 and Blackwell, the
    missing time by at most 1.66x (1.58x now; 1.32x among the Blackwell rows, which cross no InfiniBand). The card's
    whole-iteration-graph rows: GB200 0.71, GB300 0.29 ms (0.72 and 0.32 before the router's GEMM ran in 16 bit;
    0.75 and 0.35 before the router's loss; 0.72 and 0.30 while every job paid a dropout mask, nu38model; 0.60 and 0.18 while a replayed graph still paid HybridEP's
    per-call host and synchronisation cost, `dispatch_calls`; 0.53 and 0.10 while HybridEP's forward-dispatch
    synchronisation stayed on the critical path under the EP overlap, `dispatch_calls.sync_shown`; 0.77 and 0.57
    while the overlap hid the whole all-to-all, `contention.GPU_DRIVEN_PACE`); the H100 BF16 rows with the router
    graphed and the permutation fused: 1.1-1.3 ms (0.9-1.3 ms with the sync exposed, 1.3-1.5 ms before the paced
    overlap, 1.7-1.8 ms before the README's token-node times).

    It tracks the host time the model counts for the same layer (`host.host_time`: operations from the code x
    13.48 µs, TE#2053): 3.15 ms (H100 FP8, nothing graphed; 2.99 ms before the router's), 2.29-2.56 ms (Blackwell, router graphed), 0.94 ms
    (H100 BF16 card rows, router graphed as the skill card states; 1.01 ms for the overlap-off row before it did), 0 (whole iteration graphed), which the model hides behind the GPU's work (`host_excess`
    charges only what exceeds it, nothing here). A host cost on the critical path in full would close the five
    26.04.01 rows to within 1.1 ms a layer; no source shows why it would not overlap the GPU (the code has one
    synchronisation per MoE layer's forward, tests/perf/test_host_sync.py), and the one profiled run puts its
    fixed cost on the GPU (next test but one), so the model does not charge it."""
    rows = {H100_ROW: _case(MODERN, H100_ROW)}
    cases, _ = read_cases(BLACKWELL)
    rows |= {c.id: c for c in cases}
    card = DATA / "bridge-card-qwen3-30b.yaml"
    for platform in ("gb200", "gb300"):
        rows[platform] = _case(card, f"bridge-card-{platform}-qwen3-30b-mxfp8-ep8-full-iteration")
    rows["h100-bf16-graphs"] = _case(card, "bridge-card-h100-qwen3-30b-bf16-ep16-graphs")
    rows["h100-bf16-off"] = _case(DATA / "bridge-26.04.yaml", "bridge-card-h100-qwen3-30b-bf16-ep16-overlap-off")
    got = {k: _miss(c, accelerators)[1:] for k, c in rows.items()}
    ms = {k: (round(m * 1e3, 2), round(h * 1e3, 2)) for k, (m, h) in got.items()}
    # each 0.01-0.06 ms more since the dropout masks are conditional, then 0.02-0.04 ms less (host: H100 FP8 +0.16 ms)
    # with the router's load-balancing loss and random logits (`router`; graphed with the router on the other rows)
    # then 0.01-0.03 ms less since the router's GEMM runs in 16 bit (`router`; 2.29, 3.60, 3.62, 3.26, 2.92, 0.72,
    # 0.32 before)
    # rope40: the Qwen3 rows of the project's files state its QK norms and rotary embedding, now charged (misses
    # 0.07-0.41 ms less, host +0.06 ms for the QK norms' 4 operations; 3.57, 3.60, 3.23, 2.90, 0.71, 0.29, 1.10,
    # 1.26 before); the shared H100 row states neither (its rotary kernels no longer counted: 2.28 and 3.15 before)
    assert ms == {H100_ROW: (2.29, 3.10),
                  "nemo2604-gb300-qwen3-30b-mxfp8-ep8": (3.16, 2.62),
                  "nemo2604-gb200-qwen3-30b-mxfp8-ep8": (3.40, 2.62),
                  "nemo2604-b300-qwen3-30b-mxfp8-ep8": (2.80, 2.62),  # 3.47 at 8 TB/s (HBM 7.7 TB/s since 2026-12-05)
                  "nemo2604-b200-qwen3-30b-mxfp8-ep8": (2.70, 2.29),
                  "gb200": (0.53, 0.0), "gb300": (-0.06, 0.0),
                  "h100-bf16-graphs": (1.03, 1.0), "h100-bf16-off": (1.14, 1.0)}
    fixed = [m for k, (m, _) in got.items() if k.startswith("nemo2604-")]
    assert max(fixed) / min(fixed) < 1.66  # micro-batch 1 to 8, H100 to GB300
    assert max(fixed[1:]) / min(fixed[1:]) < 1.32  # the Blackwell rows
    assert all(abs(m - h) < 1.1e-3 for k, (m, h) in got.items() if k.startswith("nemo2604-"))


def test_the_fixed_cost_does_not_follow_the_host_cpu(accelerators):
    """Issue 20 (session moe30b): the 26.04.01 Blackwell rows pair the same recipe on an x86 host and on a Grace
    host at the same micro-batch: DGX B200 (2 Intel Xeon 8570, docs.nvidia.com/dgx/dgxb200-user-guide, "DGX B200
    Component Descriptions") against GB200 (Grace) at MBS 4; B300 (its x86 host taken, not cited) against GB300 at
    MBS 8. TE#2053 (tests/perf/data/te-host-overhead.yaml) times the same eager operation at 2.75 times the CPU time
    on GB200's Grace as on an H100 DGX's Xeon (37.08 against 13.48 µs; TE's Linear 2.69-2.73 times torch's on both
    Grace hosts). If the missing time per layer and micro-batch were host work on the critical path (the reading the
    test above leaves open: it tracks the host time the model counts), each Grace row would miss 2.75 times its x86
    twin, scaled by the counted operations (2.62 against 2.29 ms at MBS 4: B200 also graphs the attention block):
    8.5 and 7.7 ms (8.9 ms each before their file stated Qwen3's QK norms and rotary embedding, rope40; 9.0 and 9.4
    before the router's GEMM ran in 16 bit, `router`). It misses 3.40 and 3.16 ms, 1.26 and 1.13 times its twin
    (3.60 and 3.57 ms, 1.24 and 1.11, before rope40; 8.4 and 8.3, 3.42 and 3.19 ms, 1.26 and 1.06 while the loss was charged 36 B a logit). So the fixed cost does not scale with
    the host CPU's speed: it is GPU time or waiting (the BF16 profile's reading, below), and a host-time term, at
    either CPU's figure, would move the Grace rows two to three times too far. Nothing is charged."""
    cpu = yaml.safe_load((DATA / "te-host-overhead.yaml").read_text(encoding="utf-8"))["measurements"]["te2053_torch_linear_cpu_us"]
    grace_over_x86 = cpu["gb200"] / cpu["h100_dgx"]
    assert grace_over_x86 == pytest.approx(2.75, abs=0.01)
    cases, _ = read_cases(BLACKWELL)
    got = {c.id.split("-")[1]: _miss(c, accelerators)[1:] for c in cases}
    for grace, x86 in (("gb200", "b200"), ("gb300", "b300")):
        (miss_g, host_g), (miss_x, host_x) = got[grace], got[x86]
        if_host = miss_x * grace_over_x86 * host_g / host_x  # the x86 twin's miss at Grace's CPU time per op
        # 8.47 and 7.71 ms (8.93 and 8.87 before rope40; 9.0 and 9.4 before the router's GEMM in 16 bit)
        assert 7.6e-3 < if_host < 8.6e-3
        assert miss_g / miss_x < 1.3 and miss_g < 0.5 * if_host


def test_the_nccl_all_to_all_dispatcher_misses_as_hybridep_does(accelerators):
    """The H100 BF16 A/B's layout with Megatron-core's all-to-all dispatcher (no deduplication, the permutation as
    memory passes): 41.36 s eager measured, 33.55 s modelled (-18.9 %; 33.18 s and -19.8 % before the file stated
    Qwen3's QK norms and rotary embedding, which rope40 charges; 33.10 s before the router's load-balancing
    loss and random logits, `router`; 33.00 s before the dispatcher's own
    operations, `host.dispatcher_kernels`, whose 16 kernels a layer add their fixed cost), against HybridEP's overlap-off run -14.2 %
    (24.71 s measured, 21.21 s modelled; -15.8 % and 20.82 s before rope40; -22.7 % and 19.12 s while HybridEP's README dispatch was read as bytes
    alone, `dispatcher.TOKEN_NODE`; 33.41 s, -19.2 % and 19.47 s, -21.2 % while the loss was charged 36 B a
    logit). Attention and router graphs: measured 42.00 s (+1.5 %: neutral), and the model's host time is hidden
    there, so the switch moves nothing (33.55 s). The five-step smoke run (router graphs,
    permutation unfused) took 45.65 s at 132.9 model TFLOP/s/GPU, the card's work per step (6,067 against 6,031
    TFLOP per GPU)."""
    runs = yaml.safe_load((DATA / "bridge-skills-qwen3-30b-alltoall.yaml").read_text(encoding="utf-8"))["runs"]
    off = _case(DATA / "bridge-26.04.yaml", "bridge-card-h100-qwen3-30b-bf16-ep16-overlap-off")
    assert runs["smoke"]["step_s"] * runs["smoke"]["model_tflops_per_gpu"] == pytest.approx(6067, abs=1)

    def step(**switches) -> float:
        case = off.model_copy(update={"training": off.training.model_copy(update=switches)})
        return float(training_estimate(case, case_hardware(case, accelerators)).step_time)

    hybridep = step()
    alltoall = step(moe_dispatcher="alltoall", ep_dedup=False, permute_in_dispatch=False)
    graphed = step(moe_dispatcher="alltoall", ep_dedup=False, permute_in_dispatch=False,
                   cuda_graphs=runs["te_graphs"]["cuda_graphs"])
    # -15.8 %, 33.18 s and -19.8 % before the card's file stated Qwen3's QK norms and rotary embedding (rope40)
    assert hybridep / 24.7138 - 1.0 == pytest.approx(-0.142, abs=0.005)
    assert alltoall == pytest.approx(33.55, abs=0.02) and graphed == alltoall  # 33.10 before the router's (`router`)
    assert alltoall / runs["eager"]["step_s"] - 1.0 == pytest.approx(-0.189, abs=0.005)
    assert runs["te_graphs"]["step_s"] / runs["eager"]["step_s"] - 1.0 == pytest.approx(0.015, abs=0.001)


def test_ep_overlap_saves_with_the_nccl_all_to_all_what_the_smoke_run_saved(accelerators):
    """Megatron-Bridge's all-to-all smoke A/B of EP overlap on the same H100 shape (no graphs, permutation unfused):
    41.25 s without, 31.31 s with the overlap, 9.94 s saved a step. The model's overlap windows
    (`ep_exposure.expert_comm`, the all-to-all's hidden part taking DeepEP's 20 SMs, `EP_COMM_SMS`, and sharing the HBM)
    save 10.21 s (+2.7 %), from 33.55 s to 23.34 s (10.08 s, +1.4 %, 33.18 s and 23.10 s before the file stated
    Qwen3's QK norms and rotary embedding, rope40; 33.10 and 23.04 s before the router's kernels, `router`): a second ablation, beside HybridEP's (tests/perf/test_folding.py,
    4.25 s against 3.72 s), that the overlap is credited as the runs realise it. Both steps are predicted 20-27 %
    fast, the overlap-on one by as many seconds (7.7 s and 8.0 s; 8.1 and 8.2 s before rope40; 8.1 and 8.3 s before the router's; 33.00 and 22.93 s, 8.3 and 8.4 s before the
    dispatcher's own operations, `host.dispatcher_kernels`): what the model misses is outside the overlap."""
    runs = yaml.safe_load((DATA / "bridge-skills-qwen3-30b-alltoall.yaml").read_text(encoding="utf-8"))["runs"]
    off = _case(DATA / "bridge-26.04.yaml", "bridge-card-h100-qwen3-30b-bf16-ep16-overlap-off")
    steps = []
    for on in (False, True):
        switches = {"moe_dispatcher": "alltoall", "ep_dedup": False, "permute_in_dispatch": False,
                    "overlap_ep_comm": on}
        case = off.model_copy(update={"training": off.training.model_copy(update=switches)})
        steps.append(float(training_estimate(case, case_hardware(case, accelerators)).step_time))
    measured = (runs["overlap_off"]["step_s"], runs["overlap_on"]["step_s"])
    # 33.18 and 23.10 s, +1.3 %, 8.1 and 8.2 s before rope40; 33.10 and 23.04 before the router's (`router`)
    assert steps == pytest.approx([33.55, 23.34], abs=0.02)
    assert (steps[0] - steps[1]) / (measured[0] - measured[1]) - 1.0 == pytest.approx(0.027, abs=0.003)
    assert [round(m - s, 1) for m, s in zip(measured, steps, strict=True)] == [7.7, 8.0]


def test_the_bf16_profile_puts_its_fixed_cost_on_the_gpu(accelerators):
    """The card's BF16 overlap-off run (1.14 ms a layer and micro-batch missing; 1.26 ms before rope40) has a rank-0 profile: its host spent
    4.253 s a step inside HybridEP's dispatch call and 3.109 s inside its metadata preprocessing, which ends in a
    stream synchronisation (SKILL.md NVTX rows; 1.767 s and 0.670 s with the overlap on). The dispatch's range
    encloses the preprocessing's (deep_ep/hybrid_ep_buffer.py line 339 at 34152ae opens it before
    `metadata_preprocessing`), so that is 1.38 ms a layer and micro-batch in the call, 1.01 ms of it the host waiting
    at the synchronisation for the GPU (2.40 ms while the two ranges were added, before session hepsync): the host
    ran ahead, it did not set the pace. The GPU was busy
    22.82 s against the model's 19.64 s of kernels (19.27 s before its file stated Qwen3's QK norms and rotary
    embedding, which rope40 charges) (compute with every counted kernel's 1.3 µs, the router's
    load-balancing loss and random logits, `router`, and the loss as Transformer Engine's fused kernels move it,
    12.25 s, 11.87 s before rope40, 11.80 s before the router's, and HybridEP's README kernel-only calls, 2.408 ms a layer
    and micro-batch, a fixed time per token-node plus bytes, `dispatcher.TOKEN_NODE`): 1.03 ms a layer and
    micro-batch more GPU time (1.16 ms before rope40; (17.55 s, 1.855 ms and 1.72 ms with the README's dispatch read as bytes alone; 17.91 s,
    12.21 s and 1.60 ms while the loss was also charged 36 B a logit), and 0.32 s a step more host gaps (1.89 s
    against the model's 1.57 s of per-call cost). So for this run the fixed
    cost per layer is GPU time, 6.9 µs (1.03 ms; 7.7 µs before rope40) for each of the 150.8 kernels a layer and micro-batch the profile captured,
    beyond what the model charges; host work on the critical path is not its cause here, whatever its
    coincidence with the counted host time in the test above."""
    from archgen.perf.comm.dispatcher import kernel_times

    runs = yaml.safe_load((DATA / "bridge-moe-overlap-profile.yaml").read_text(encoding="utf-8"))
    off = runs["runs"]["overlap-off"]
    layer_mbs = 64 * 48
    in_call, waited = off["nvtx_dispatch_ms"] / 1e3 / layer_mbs, off["nvtx_metadata_ms"] / 1e3 / layer_mbs
    assert (in_call, waited) == pytest.approx((1.38e-3, 1.01e-3), abs=0.01e-3)
    case = _case(DATA / "bridge-26.04.yaml", "bridge-card-h100-qwen3-30b-bf16-ep16-overlap-off")
    est = training_estimate(case, case_hardware(case, accelerators))
    compute = float(est.compute) + float(est.optimizer) + float(est.dp_comm)
    a2a = 2.0 * sum(float(x) for x in kernel_times(4096.0, 2048, 128, 8, 16.0, 8.0))
    # 11.80, 19.20 s and 1.18 ms before the router's load-balancing loss and random logits (`router`)
    assert compute == pytest.approx(12.25, abs=0.02) and a2a == pytest.approx(2.408e-3, rel=0.005)
    gpu_model = compute + a2a * layer_mbs
    assert gpu_model == pytest.approx(19.64, abs=0.03)  # 19.27 s before rope40
    extra = (off["gpu_active_ms"] / 1e3 - gpu_model) / layer_mbs
    assert extra == pytest.approx(1.03e-3, abs=0.01e-3)  # 1.16 ms before rope40
    per_call = float(est.ep_comm) - a2a * layer_mbs
    host_gaps = (off["step_ms"] - off["gpu_active_ms"]) / 1e3
    assert per_call == pytest.approx(1.57, abs=0.02) and host_gaps - per_call == pytest.approx(0.32, abs=0.02)
    kernels = runs["captured_kernels"] / layer_mbs
    assert extra / kernels == pytest.approx(6.9e-6, abs=0.1e-6)  # 7.7 µs before rope40, 7.8 before the router's


def test_hybridep_rows_at_the_recipes_sm_count_would_break_the_overlap_ablation(accelerators, monkeypatch):
    """Lead 1, the recipe: Megatron-Bridge's performance scripts give HybridEP 32 SMs (scripts/performance/utils/
    overrides.py:73 at 26.04-alpha.rc2), where the README's H100 table stops at 16 and the model reads its 8-SM rows
    (`dispatcher.KERNEL_SMS`; at 16 ranks the 16-SM row is the slower in BF16: 71.71 / 62.95 against 76.80 /
    68.00 GB/s, but its dispatch splits into a smaller fixed time per token-node, `dispatcher.TOKEN_NODE`). Read at
    16 SMs (tests/perf/data/hybridep-h100.yaml, FP8 and BF16), the modern row would come to +36.9 % (from +31.6 %;
    +35.1 % from +29.9 % while the nemo-2025 profile reduced gradients in fp32, before session gradreduce; +37.4 %
    against +40.6 % while the README's dispatch was read as bytes alone) and the model's EP-overlap saving
    on the Bridge A/B to 4.82 s against the measured 3.72 s (+30 %; 5.26 s, +41 %, at the 8-SM rows) while the
    windows hid the whole all-to-all. Since the GPU-driven all-to-all keeps only `contention.GPU_DRIVEN_PACE` of
    its pace beside compute, every call outlasts its paced window and the saving was the pace times the windows at
    either SM row: 3.46 s (-7.0 %). With the forward dispatch's synchronisation beside the MLP backward's window
    (`dispatch_calls.sync_shown`, session hepsync) it adds (1 - pace) times that call's fixed cost, which differs by
    row: 4.25 s (+14.3 %) at 16 SMs (4.09 s, +10.0 %, before rope40 charged the QK norms and rotary embedding the
    card's file states), 4.07 s (+9.3 %) at 8 before rope40. Not taken: no row is published at the recipe's 32."""
    from archgen.perf.comm import dispatcher as D
    from archgen.scoring.scores import score_file

    rows = {r["ranks"]: r for r in yaml.safe_load((DATA / "hybridep-h100.yaml").read_text(encoding="utf-8"))["rows"] if r["sms"] == 16}
    at16 = tuple((n, rows[n]["torch_dispatch"], rows[n]["torch_combine"], rows[n]["kernel_dispatch"],
                  rows[n]["kernel_combine"]) for n in (16, 32, 64))
    monkeypatch.setattr(D, "SCALE_OUT", at16)
    monkeypatch.setattr(D, "HYBRIDEP_SCALE_OUT", D._fixed(at16, 8, D.HBM["h100"]))
    monkeypatch.setattr(D, "SCALE_OUT_FP8", tuple((n, rows[n]["kernel_dispatch_fp8"]) for n in (16, 32, 64)))
    monkeypatch.setattr(D, "TOKEN_NODE", D._token_node_times())
    assert _miss(_case(MODERN, H100_ROW), accelerators)[0] == pytest.approx(0.369, abs=0.005)
    scored = {r.id: r for r in score_file(DATA / "bridge-26.04.yaml")}
    saved = (scored["bridge-card-h100-qwen3-30b-bf16-ep16-overlap-off"].predicted
             - scored["bridge-card-h100-qwen3-30b-bf16-ep16-overlap-on"].predicted)
    # +10.0 % (4.09 s) before the card's file stated Qwen3's QK norms and rotary embedding (rope40)
    assert saved / (24.7138 - 20.992) - 1.0 == pytest.approx(0.143, abs=0.005)


def _waves(blocks: int, sms: int) -> int:
    """Waves of a kernel of `blocks` equal thread blocks, one resident per SM, on `sms` SMs."""
    return -(-blocks // sms)


def test_wave_quantisation_beside_a_held_sm_share_changes_little_at_this_layer():
    """Lead 2: a GEMM of B output tiles on S SMs runs ceil(B / S) waves, and ceil(B / (S - k)) while a communication
    kernel holds k SMs. On NVIDIA's forum case the SM share the model charges (`exposure.sm_kept`, 1.22x) and whole
    waves (2x) bracket the measured 1.70x (tests/perf/test_contention.py). At this layer's GEMMs (4,096 tokens a
    micro-batch; the experts' GEMMs run side by side on Transformer Engine's streams, so their tiles count together),
    with HybridEP's 32 SMs held, Hopper tiles of 128 x 128 or 128 x 256 (CUTLASS's Hopper warp-specialised GEMMs use
    both; which one cuBLAS picks is not published) give 1.28-1.40x where the SM share gives 1.32x, the output
    projection excepted (256-512 tiles: 1.50x). So waves would change the overlap's cost by a few per cent of the
    hidden time, and nothing in the modern row, which runs no EP overlap."""
    sms = 132  # H100 SXM (the catalog's `multiprocessors`)
    shapes = {"qkv": (4096, 5120), "proj": (4096, 2048), "fc1": (8 * 4096, 1536), "fc2": (8 * 4096, 2048)}
    for tm, tn in ((128, 128), (128, 256)):
        tiles = {k: -(-m // tm) * -(-n // tn) for k, (m, n) in shapes.items()}
        ratio = {k: _waves(b, sms - 32) / _waves(b, sms) for k, b in tiles.items()}
        assert ratio["proj"] == 1.5
        assert all(1.28 <= r <= 1.40 for k, r in ratio.items() if k != "proj")
    assert sms / (sms - 32) == pytest.approx(1.32, abs=0.005)
