"""The shared experts beside the MoE dispatcher (`moe_shared_expert_overlap`), as Megatron-core runs them.

Megatron-core (NVIDIA/Megatron-LM at d98e8a6) defaults the switch off (megatron/core/transformer/transformer_config.py
line 717); on, its dispatcher launches the shared experts' FC1 on their own stream right after the dispatch's token
all-to-all and FC2 after the combine's (megatron/core/transformer/moe/token_dispatcher.py lines 657-717 and 860-873
for alltoall, 1972-1979 for flex), and orders their backward beside the all-to-alls' gradients (shared_experts.py
lines 310-320). It is exclusive with overlap_moe_expert_parallel_comm (transformer_config.py lines 3040-3041).
DeepSeek-V3's MoE shape (one shared expert of 2,048, 256 routed experts, top 8, hidden 7,168: DeepSeek-AI, arXiv
2412.19437, section 4.2) is the model with shared experts; Qwen3-235B-A22B (none) the one without.
"""

from __future__ import annotations

import dataclasses

import pytest
from pydantic import ValidationError

from archgen.errors import AnalyseError
from archgen.model.cases import CaseTraining
from archgen.model.stack_profiles import STACKS
from archgen.model.switches import SWITCHES
from archgen.perf.comm.collectives import collective_time
from archgen.perf.hw import kernels as K
from archgen.perf.hw.arch import Arch
from archgen.perf.train.contention import GPU_DRIVEN_PACE
from archgen.perf.train.ep_exposure import EP_COMM_SMS, expert_comm
from archgen.perf.train.job import Job
from archgen.scoring.case_checks import training_problems
from archgen.scoring.cases import predict, read_case_file
from archgen.scoring.catalog import load_accelerators
from tests.conftest import REPO as ROOT
from tests.conftest import SPECS
from tests.data.workloads import qwen3_training

DSV3 = Arch(layers=61, hidden=7168, heads=128, kv_heads=128, head_dim=128, ffn=18432, vocab=129280, gated=True,
            experts=256, top_k=8, expert_ffn=2048, shared_experts=1, rope=True, qk_norm=False)
Q235 = Arch(layers=94, hidden=4096, heads=64, kv_heads=4, head_dim=128, ffn=12288, vocab=151936, gated=True,
            experts=128, top_k=8, expert_ffn=1536, rope=True, qk_norm=True)
T = 4096.0


def _job(arch, shared):
    return Job(arch, 4096, 8192, "bf16", ep_dedup=False, moe_dispatcher="deepep", overlap_ep_comm=False,
               moe_shared_expert_overlap=shared)


def test_every_profile_leaves_it_off_with_its_source():
    row = SWITCHES["moe_shared_expert_overlap"]
    assert [row.default(s) for s in STACKS] == [False] * 4
    assert "lacks the shared-expert overlap (core_v0.10.0, 1fa9464)" in row.source("megatron-core-2024")  # not in its code
    assert "flex_dispatcher_backend.py:72" in row.source("nemo-2025")  # Bridge's flex dispatcher turns it off
    assert "language_model.yaml:108" in row.source("primus-2025")


@pytest.mark.parametrize("passes", [1.0, 2.0])
def test_each_all_to_all_hides_behind_its_shared_gemm(h100, passes):
    """EP 64 over 8 H100 nodes, tp 1, DeepEP without de-duplication: each dispatch and combine is one all-to-all of
    the rank's 4,096 tokens' 8 copies. With the overlap, each shows only beyond its shared GEMM (FC1 forward beside
    the dispatch, FC2 beside the combine; their backward beside the gradients' all-to-alls, once per micro-batch;
    the forward's once per forward pass). DeepEP's kernels move the bytes from their SMs: beside a GEMM they keep
    `contention.GPU_DRIVEN_PACE` of their pace and the GEMM keeps its own (`ep_exposure.ep_overlap_cost`), so a GEMM
    of time g hides pace x g of the all-to-all. (Before session epoverlap the hidden part cost the GEMM DeepEP's 20
    of the H100's 132 SMs instead; NCCL's all-to-all still does, below.)"""
    a2a = float(collective_time(h100, "all_to_all", 8 * T * 7168 * 2.0, 64, 8))
    fc1, fc2 = K.gemm_time(h100, "bf16", T, 2 * 2048, 7168), K.gemm_time(h100, "bf16", T, 7168, 2048)
    b1, b2 = K.gemm_backward_time(h100, "bf16", T, 2 * 2048, 7168), K.gemm_backward_time(h100, "bf16", T, 7168, 2048)
    pace = GPU_DRIVEN_PACE
    off = [float(x) for x in expert_comm(h100, _job(DSV3, False), T, 1.0, 64.0, passes, 0.0, 0.0)]
    on = [float(x) for x in expert_comm(h100, _job(DSV3, True), T, 1.0, 64.0, passes, 0.0, 0.0)]
    hidden_f = min(a2a, pace * fc1) + min(a2a, pace * fc2)
    assert off[0] - on[0] == pytest.approx(passes * hidden_f + min(a2a, pace * b1) + min(a2a, pace * b2))
    assert off[1] - on[1] == pytest.approx(hidden_f)
    assert a2a > max(b1, b2)  # this shape's all-to-all outlasts the GEMMs: only their paced time is saved
    kept = (132 - EP_COMM_SMS) / 132  # NCCL's all-to-all keeps its pace and costs the GEMMs its SMs
    nccl = dataclasses.replace(_job(DSV3, True), moe_dispatcher="alltoall")
    on = [float(x) for x in expert_comm(h100, nccl, T, 1.0, 64.0, passes, 0.0, 0.0)]
    off = [float(x) for x in expert_comm(h100, dataclasses.replace(nccl, moe_shared_expert_overlap=False), T, 1.0,
                                         64.0, passes, 0.0, 0.0)]
    hidden_f = min(a2a, fc1) + min(a2a, fc2)
    assert off[0] - on[0] == pytest.approx(kept * (passes * hidden_f + min(a2a, b1) + min(a2a, b2)))


def test_no_shared_experts_no_effect(h100):
    off = expert_comm(h100, _job(Q235, False), T, 1.0, 64.0, 1.0, 0.0, 0.0)
    assert expert_comm(h100, _job(Q235, True), T, 1.0, 64.0, 1.0, 0.0, 0.0) == off


def test_exclusive_with_the_ep_overlap_in_workloads_cases_and_flips():
    with pytest.raises(ValidationError, match="moe_shared_expert_overlap true cannot run with overlap_ep_comm true"):
        CaseTraining(seq_len=4096, global_batch=64, precision="bf16", tp=1, pp=1, dp=8, ep=8, overlap_ep_comm=True,
                     moe_shared_expert_overlap=True)
    CaseTraining(seq_len=4096, global_batch=64, precision="bf16", tp=1, pp=1, dp=8, ep=8, moe_dispatcher="alltoall",
                 moe_shared_expert_overlap=True)  # alltoall and flex both run it (transformer_config.py 1820-1826)
    case = next(c for c in read_case_file(ROOT / "tests" / "perf" / "data" / "bridge-26.04.yaml").cases
                if c.training.overlap_ep_comm)
    flipped = case.model_copy(update={"training": case.training.model_copy(
        update={"moe_shared_expert_overlap": True})})  # around the validator, as a switch flip is made
    assert [k for k, _ in training_problems(flipped)] == ["moe_shared_expert_overlap"]
    with pytest.raises(AnalyseError, match="lines 3040-3041"):
        predict(flipped, load_accelerators())


WORKLOAD = qwen3_training("q30-shared", name="Qwen3-30B-A3B on 64 GB200", overlap_ep_comm=True,
                          moe_shared_expert_overlap=True)


def test_a_workload_is_refused_at_the_key(cli, tmp_path):
    (tmp_path / "w.yaml").write_text(WORKLOAD, encoding="utf-8")
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "q30-shared")
    assert r.code == 1
    assert "w.yaml:12:" in r.out + r.err  # file:line of moe_shared_expert_overlap
    assert "training.moe_shared_expert_overlap: moe_shared_expert_overlap true cannot run with overlap_ep_comm" \
        in r.out + r.err


#: DeepSeek-V2-Lite's shape, 8 of its 27 layers (two shared experts of 1,408, 64 routed, top 6: deepseek-ai/
#: DeepSeek-V2-Lite config.json, n_shared_experts 2, moe_intermediate_size 1408).
LITE = Arch(layers=8, hidden=2048, heads=16, kv_heads=16, head_dim=128, ffn=10944, vocab=102400, gated=True,
            experts=64, top_k=6, expert_ffn=1408, shared_experts=2)


def test_the_plan_search_does_not_try_the_ep_overlap_beside_it(h100):
    from archgen.perf.explore.plan import search_plan
    from archgen.perf.train.stacks import resolve

    def plan(stated):
        job = Job.from_knobs(LITE, 4096, 128, "bf16", resolve("nemo-2025", stated, "bf16"))
        return search_plan(h100, job, 16, "nemo-2025", stated, {"ep": 8})

    assert plan({}).searched["overlap_ep_comm"] == (False, True)  # nemo-2025 allows it
    shared = plan({"moe_shared_expert_overlap": True})
    assert "overlap_ep_comm" not in shared.searched and shared.switches["overlap_ep_comm"] is False


def test_a_workload_states_the_step_over_the_gpu_driven_pace_range(h100):
    """The pace a DeepEP or HybridEP all-to-all keeps beside compute comes from one profile whose overlap-off share
    is rounded (`contention.GPU_DRIVEN_PACE_RANGE`, 0.26-0.45 around 0.349): a workload with the EP overlap on
    states the step time at both ends (`training_estimate.ep_pace_note`); NCCL's all-to-all, which keeps its pace,
    and a run without the overlap state nothing."""
    from archgen.perf.train import contention as C
    from archgen.perf.train.job import Layout
    from archgen.perf.train.training import estimate_training
    from archgen.perf.workload.training_estimate import ep_pace_note

    arch = Arch(layers=4, hidden=2048, heads=32, kv_heads=4, head_dim=128, ffn=6144, vocab=151936, gated=True,
                experts=128, top_k=8, expert_ffn=768, rope=True, qk_norm=True)
    job = Job(arch, 4096, 64, ep_dedup=True, moe_dispatcher="hybridep", overlap_ep_comm=True)
    lay = Layout(1, 1, 16, 1, 1, 16, 1, 0, False, 1)
    assert C.GPU_DRIVEN_PACE_RANGE[0] < C.GPU_DRIVEN_PACE < C.GPU_DRIVEN_PACE_RANGE[1]
    assert [round(x, 2) for x in C.GPU_DRIVEN_PACE_RANGE] == [0.26, 0.45] and round(C.GPU_DRIVEN_PACE, 3) == 0.349
    ends = sorted(float(estimate_training(h100, dataclasses.replace(job, ep_overlap_pace=p), lay).step_time)
                  for p in C.GPU_DRIVEN_PACE_RANGE)
    point = float(estimate_training(h100, job, lay).step_time)
    assert ends[0] < point < ends[1]
    (note,) = ep_pace_note(arch, h100, job, lay)
    assert "0.35 of its pace" in note and f"{ends[0]:.4g} s to {ends[1]:.4g} s" in note
    assert ep_pace_note(arch, h100, dataclasses.replace(job, moe_dispatcher="alltoall", ep_dedup=False), lay) == []
    assert ep_pace_note(arch, h100, dataclasses.replace(job, overlap_ep_comm=False), lay) == []
