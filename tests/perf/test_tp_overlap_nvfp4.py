"""No userbuffers TP overlap under NVFP4 (`perf.train.tp_comm`, `model.training_rules.tp_overlap_problem`).

Transformer Engine's userbuffers take no NVFP4 tensor: `fill_userbuffers_buffer_for_all_gather` handles unquantised,
FP8 and MXFP8 data and otherwise raises "Unsupported quantizer for Userbuffers" (NVIDIA/TransformerEngine at d0067d0,
transformer_engine/pytorch/module/base.py line 754), and Megatron-Bridge's NVFP4 recipes turn the overlap off
(NVIDIA-NeMo/Megatron-Bridge at 0fbfe7d3e, scripts/performance/configs/llama/llama3_llm_pretrain.py line 80:
`tp_comm_overlap = False if precision == "nvfp4"`). So under FP4 the profile's overlap is off, a stated one is
refused (tests/errors/workload_tp_overlap_fp4.yaml), and a job built with it (the plan search's) runs the collectives
as without userbuffers, the column-parallel backward's async pairs included.
"""

from __future__ import annotations

import pytest

from archgen.model.cases import CaseTraining
from archgen.model.workload import Training
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.train.job import Job
from archgen.perf.train.layer import layer_times
from archgen.perf.train.stacks import explain, resolve
from archgen.units import Q_

ARCH = Arch(layers=1, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=32768, gated=True, rope=True, qk_norm=False)


def test_the_profile_turns_the_overlap_off_under_fp4():
    assert resolve("nemo-2025", {}, "fp4").overlap_tp_comm is False
    assert resolve("nemo-2025", {}, "fp8").overlap_tp_comm is True
    (row,) = [u for u in explain(Training(seq_len=8192, global_batch=512, precision="fp4"), {"tp": 8})
              if u.name == "overlap_tp_comm"]
    assert row.value is False and "Unsupported quantizer for Userbuffers" in row.source and "base.py line 754" in \
        row.source


@pytest.mark.parametrize("model", [
    lambda: Training(seq_len=8192, global_batch=512, precision="fp4", overlap_tp_comm=True),
    lambda: CaseTraining(seq_len=8192, global_batch=512, precision="fp4", overlap_tp_comm=True, tp=2, pp=1, dp=1),
])
def test_a_stated_overlap_under_fp4_is_refused(model):
    with pytest.raises(ValueError, match="overlap_tp_comm true cannot run with fp4"):
        model()


def test_a_job_with_the_overlap_under_nvfp4_runs_without_userbuffers(accelerators):
    """The same layer at TP 8 with SP: under NVFP4 the switch changes nothing (no userbuffers run); under MXFP8,
    which userbuffers take, it does."""
    b200 = hardware_for(accelerators["b200-sxm-180gb"], scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"))

    def tp(precision, recipe, overlap):
        job = Job(ARCH, 4096, 1, precision=precision, fp8_recipe=recipe, overlap_tp_comm=overlap)
        return float(layer_times(b200, job, tp=8.0, mb=1.0, cp=1.0, ep=1.0, rc=0.0, sp=True).tp)

    assert tp("fp4", "delayed", True) == tp("fp4", "delayed", False)
    assert tp("fp8", "mxfp8", True) != tp("fp8", "mxfp8", False)


def test_the_plan_search_does_not_try_it_under_fp4(accelerators):
    """The plan search keeps to what the stack can run: under FP4 the TP overlap is held off, not searched."""
    from archgen.perf.explore.plan import search_plan

    b200 = hardware_for(accelerators["b200-sxm-180gb"], scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"))
    arch = Arch(layers=8, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=32768, gated=True, rope=True, qk_norm=False)
    job = Job.from_knobs(arch, 4096, 64, "fp4", resolve("nemo-2025", {}, "fp4"))
    plan = search_plan(b200, job, 16, "nemo-2025", {})
    assert plan.searched["overlap_tp_comm"] == (False,) and plan.switches["overlap_tp_comm"] is False


def test_one_list_of_recipes_userbuffers_refuse(monkeypatch):
    # small26: the rule lived twice (tp_comm's tuple and training_rules' if-chain); one mapping now, recipe -> why,
    # and what the estimate, the plan search and the refusal read is that one object.
    from archgen.model import training_rules
    from archgen.perf.explore import plan
    from archgen.perf.train import tp_comm
    assert tp_comm.NO_USERBUFFERS is training_rules.NO_USERBUFFERS is plan.NO_USERBUFFERS
    assert set(training_rules.NO_USERBUFFERS) == {"nvfp4", "blockwise"}
    assert training_rules.no_tp_overlap_reason("fp8", "mxfp8") is None
    monkeypatch.setitem(training_rules.NO_USERBUFFERS, "mxfp8", "a recipe added in one place")
    assert training_rules.no_tp_overlap_reason("fp8", "mxfp8") == "a recipe added in one place"
    assert "mxfp8" in tp_comm.NO_USERBUFFERS
