"""The TP overlap on a part that is not an NVIDIA GPU is noted, with ROCm's own implementation (newuser36 finding 6).

Before: Llama 3.1 70B under `stack: nemo-2025` on 64 MI355X at tp 8 ran the profile's `overlap_tp_comm` true,
costed as Transformer Engine's userbuffers on NVIDIA GPUs, and said nothing. ROCm's Transformer Engine does overlap
TP collectives with GEMMs, by another algorithm (ROCm/TransformerEngine at 26b3b92f, rocm_comm_gemm_overlap.cpp:
copy-engine rings over xGMI, its all-gather overlap for tp 2, 4 and 8 only; none at ac80527d, October 2024), so the
switch is kept, not refused as HybridEP is, and the estimate now says it is costed as NVIDIA's. No figure moves.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archgen.model.workload import Training
from archgen.perf.workload.nvidia_only import tp_overlap_note
from tests.conftest import SPECS

JOB = """kind: Workload
id: llama70-mi355x
name: Llama 3.1 70B on 64 MI355X
model: llama3-70b
cluster: mi355x-th5
accelerators: 64
training:
  seq_len: 8192
  global_batch: 64
  precision: bf16
{extra}  parallelism: {{tp: 8, pp: 1, dp: 8, micro_batch: 1}}
"""


def _estimate(cli, tmp_path: Path, extra: str) -> dict:
    (tmp_path / "job.yaml").write_text(JOB.format(extra=extra), encoding="utf-8")
    out = cli("estimate", str(SPECS), str(tmp_path), "--workload", "llama70-mi355x", "--format", "json").out
    return json.loads(out)


def _overlap_notes(est: dict) -> list[str]:
    return [n for n in est["notes"] if n.startswith("overlap_tp_comm on")]


def test_the_nemo_profiles_overlap_on_mi355x_is_noted(cli, tmp_path):
    est = _estimate(cli, tmp_path, "  stack: nemo-2025\n")
    (note,) = _overlap_notes(est)
    assert note.startswith("overlap_tp_comm on (the nemo-2025 profile's) at tp 8: costed as Transformer Engine's "
                           "userbuffers overlap on NVIDIA GPUs, and mi355x states no CUDA compute capability")
    assert "ROCm/TransformerEngine at 26b3b92f" in note and "rocm_comm_gemm_overlap.cpp" in note
    assert "not one of" not in note                       # tp 8 is one of ROCm's sizes
    assert est["metrics"]["step_time"]["value"] > 0       # estimated, not refused


def test_a_stated_overlap_says_stated(cli, tmp_path):
    (note,) = _overlap_notes(_estimate(cli, tmp_path, "  stack: nemo-2025\n  overlap_tp_comm: true\n"))
    assert note.startswith("overlap_tp_comm on (stated) at tp 8")


def test_amds_own_profile_leaves_it_off_and_says_nothing(cli, tmp_path):
    """No stack stated: primus-2025, whose tp_comm_overlap is false (language_model.yaml:180)."""
    assert _overlap_notes(_estimate(cli, tmp_path, "")) == []


def test_an_nvidia_part_says_nothing(shipped):
    for r in shipped.workloads.values():
        if r.estimate is not None and r.vendor == "NVIDIA":
            assert not any(n.startswith("overlap_tp_comm on") for n in r.estimate.notes), r.path


@pytest.mark.parametrize(("tp", "named"), [(1, None), (4, False), (6, True)])
def test_the_note_names_a_tp_rocm_does_not_take(accelerators, tp, named):
    from archgen.perf.hw.from_spec import hardware_for
    from archgen.units import Q_
    hw = hardware_for(accelerators["mi355x"], scale_up_size=8, scale_out_bandwidth=Q_(50, "GB/s"),
                      scale_out_latency=Q_(0, "s"))
    notes = tp_overlap_note(hw, Training(seq_len=4096, global_batch=8, precision="bf16", stack="nemo-2025"), True, tp)
    if named is None:
        assert notes == []                                 # no TP group, nothing to overlap
    else:
        assert (f"tp {tp} is not one of ROCm's 2, 4 and 8" in notes[0]) is named


def test_a_tpu_is_not_told_of_rocm(accelerators):
    """The shipped TPU v4 pod's job (nemo-2025, tp 2) is told only that its own stack's equivalent is not modelled."""
    from archgen.perf.hw.from_spec import hardware_for
    from archgen.units import Q_
    hw = hardware_for(accelerators["tpu-v4"], scale_up_size=64, scale_out_bandwidth=Q_(50, "GB/s"),
                      scale_out_latency=Q_(0, "s"))
    (note,) = tp_overlap_note(hw, Training(seq_len=4096, global_batch=8, precision="bf16"), True, 2)
    assert note.endswith("tpu-v4 states no CUDA compute capability; its own stack's equivalent is not modelled")
    assert "ROCm" not in note


def test_an_nvidia_part_without_a_compute_capability_is_left_to_the_generation_note():
    """It runs NVIDIA's stack: "its own stack's equivalent is not modelled" was false there (review of the merges:
    generation_note already names the overlap's single stream, as the other stack notes leave it to that note)."""
    from archgen.model.accelerator import Accelerator
    from archgen.perf.hw.from_spec import hardware_for
    from archgen.perf.workload.defaults_note import generation_note
    part = Accelerator.model_validate({
        "kind": "Accelerator", "id": "rubin-draft", "vendor": "NVIDIA", "source": "announced", "memory": "288 GB",
        "memory_bandwidth": "22 TB/s", "peak": {"bf16": "8300 TFLOPS"}, "tdp": "1800 W",
        "scale_up": {"technology": "NVLink 6", "bandwidth": "1800 GB/s", "links": 18}})
    hw = hardware_for(part, scale_up_size=72)
    assert tp_overlap_note(hw, Training(seq_len=4096, global_batch=8, precision="bf16"), True, 8) == []
    (note,) = generation_note(hw, training=True)
    assert "TP-overlap GEMM chunks on one stream" in note
