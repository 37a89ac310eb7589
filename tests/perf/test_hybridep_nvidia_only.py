"""HybridEP is NVIDIA's alone: a MoE training job whose dispatcher resolves to it on an AMD part is refused.

newuser36's trial (an AMD MI355X neocloud): Qwen3-30B-A3B on 64 MI355X with `moe_dispatcher: hybridep` was estimated
(step 1.236 s, HybridEP's dispatch costed as on an H100) with no word that HybridEP does not run there: it is
"specifically designed to leverage NVIDIA GPU hardware capabilities", TMA instructions over NVLink, built for CUDA
architectures 9.0 and 10.0 (deepseek-ai/DeepEP at 5fbafce, docs/README_Hybrid-EP.md). The same happened where the
dispatcher was not stated: under a stated `nemo-2025` (its performance configs' HybridEP) or following a stated
`permute_in_dispatch`. CUDA graphs and the FP8 recipe, which AMD's stack has its own of, keep their note
(`defaults_note.cuda_switches_note`); HybridEP has no ROCm build, so the job is refused with what to state instead.
"""

from __future__ import annotations

import pytest

from tests.conftest import SPECS
from tests.data.workloads import qwen3_training


def _job(cluster: str = "mi355x-th5", **switches: object) -> str:
    return qwen3_training("moe-amd", "{tp: 1, pp: 1, ep: 8}", cluster=cluster, name="Qwen3-30B-A3B on 64 MI355X",
                          global_batch=512, **switches)


def _estimate(cli, tmp_path, cluster: str = "mi355x-th5", **switches: object):
    (tmp_path / "job.yaml").write_text(_job(cluster, **switches), encoding="utf-8")
    return cli("estimate", str(SPECS), str(tmp_path), "--workload", "moe-amd")


@pytest.mark.parametrize(("switches", "origin"), [
    ({"moe_dispatcher": "hybridep"}, "(stated)"),
    ({"stack": "nemo-2025"}, "(the nemo-2025 profile's)"),
    ({"permute_in_dispatch": True}, "(following the stated permute_in_dispatch, HybridEP's alone)"),
])
def test_hybridep_on_an_amd_part_is_refused_at_the_job(cli, tmp_path, switches, origin):
    r = _estimate(cli, tmp_path, **switches)
    assert r.code == 2 and "Traceback" not in r.err
    assert "job.yaml:7:1: error: workload 'moe-amd': moe_dispatcher hybridep " + origin + " cannot run on mi355x" \
        in r.err
    assert "deepseek-ai/DeepEP at 5fbafce, docs/README_Hybrid-EP.md" in r.err
    assert "expected moe_dispatcher deepep (Primus-Turbo's DeepEP, the primus-2025 profile's) or alltoall" in r.err


def test_deepep_and_the_primus_default_run_on_amd(cli, tmp_path):
    for switches in ({"moe_dispatcher": "deepep"}, {"moe_dispatcher": "alltoall"}, {}):
        r = _estimate(cli, tmp_path, **switches)
        assert r.code == 0 and "step_time" in r.out, switches


def test_hybridep_on_an_nvidia_part_runs(cli, tmp_path):
    r = _estimate(cli, tmp_path, "dgx-b200-superpod", moe_dispatcher="hybridep")
    assert r.code == 0 and "step_time" in r.out


def test_a_dense_model_on_amd_keeps_a_moot_hybridep(cli, tmp_path):
    """The dispatcher of a model without MoE layers dispatches nothing (`perf.train.moot`): not refused."""
    (tmp_path / "job.yaml").write_text(_job(moe_dispatcher="hybridep").replace("qwen3-30b-a3b", "llama3-8b")
                                       .replace("ep: 8", "ep: 1"), encoding="utf-8")
    r = cli("estimate", str(SPECS), str(tmp_path), "--workload", "moe-amd")
    assert r.code == 0 and "step_time" in r.out


def test_the_stack_range_of_an_amd_moe_job_leaves_nemo_out(cli, tmp_path):
    """A job that states no stack ranges over the profiles that run on its part: nemo-2025's HybridEP does not."""
    r = _estimate(cli, tmp_path)
    (note,) = [ln for ln in r.out.splitlines() if ln.startswith("note: stack not stated")]
    assert "(nemo-2025 left out: its HybridEP runs on NVIDIA GPUs only)" in note and "(nemo-2025)" not in note


def test_a_sweep_marks_its_hybridep_points_on_amd_as_could_not_run(cli, tmp_path):
    (tmp_path / "sweep.yaml").write_text("""kind: Sweep
id: moe-amd-sweep
name: MoE on MI355X with HybridEP
workload: moe-amd
axes: {accelerators: [64, 128]}
objectives: [{metric: tokens_per_second}]
""", encoding="utf-8")
    _estimate(cli, tmp_path, moe_dispatcher="hybridep")   # writes job.yaml
    r = cli("sweep", str(tmp_path / "sweep.yaml"), "--path", str(SPECS), "--path", str(tmp_path), "--out",
            str(tmp_path / "out"), "--format", "text")
    assert "2 points, 0 fit, 0 feasible, 2 could not run" in r.out


def _estimate_on_tpu(cli, tmp_path, **switches: object):
    """newuser71's trial: a MoE job on the shipped TPU v4 pod (a part of neither NVIDIA nor AMD)."""
    (tmp_path / "job.yaml").write_text(qwen3_training("moe-tpu", "{tp: 1, pp: 1, ep: 8}", cluster="tpu-v4-pod",
                                                      name="Qwen3-30B-A3B on 64 TPU v4", global_batch=512,
                                                      **switches), encoding="utf-8")
    return cli("estimate", str(SPECS), str(tmp_path), "--workload", "moe-tpu")


def test_hybridep_on_a_tpu_names_only_the_plain_all_to_all(cli, tmp_path):
    """Neither HybridEP nor DeepEP runs on a TPU: the refusal of a stated nemo-2025's HybridEP names alltoall alone.

    Before, it named "deepep (Primus-Turbo's DeepEP, the primus-2025 profile's) or alltoall", and deepep was then
    estimated on the TPU as DeepEP's deduplicated dispatch with no word that it cannot run there.
    """
    r = _estimate_on_tpu(cli, tmp_path, stack="nemo-2025")
    assert r.code == 2 and "Traceback" not in r.err
    assert "moe_dispatcher hybridep (the nemo-2025 profile's) cannot run on tpu-v4" in r.err
    assert "expected moe_dispatcher alltoall (the plain all-to-all exchange; deepep does not run there either" in r.err
    assert "deepseek-ai/DeepEP at 0297fc80, README.md, Requirements" in r.err
    assert "or alltoall" not in r.err


def test_deepep_on_a_tpu_is_refused_at_the_job(cli, tmp_path):
    r = _estimate_on_tpu(cli, tmp_path, moe_dispatcher="deepep")
    assert r.code == 2 and "Traceback" not in r.err
    assert "job.yaml:7:1: error: workload 'moe-tpu': moe_dispatcher deepep (stated) cannot run on tpu-v4" in r.err
    assert "is neither an NVIDIA nor an AMD GPU; expected moe_dispatcher alltoall" in r.err


def test_the_plain_all_to_all_runs_on_a_tpu(cli, tmp_path):
    r = _estimate_on_tpu(cli, tmp_path, moe_dispatcher="alltoall")
    assert r.code == 0 and "step_time" in r.out, r.err


def test_the_default_profiles_hybridep_is_refused_shortly(cli, tmp_path):
    """A job that states no stack asked for no HybridEP: its refusal says where it came from and the one key to state.

    newuser99 (a start-up's own part, Mixtral 8x22B with nothing of the stack stated): the default nemo-2025 profile's
    HybridEP was refused in some 1,500 characters, most about where DeepEP runs on AMD parts. The same path here, on
    the shipped TPU v4 (a part of neither NVIDIA nor AMD).
    """
    r = _estimate_on_tpu(cli, tmp_path)
    assert r.code == 2 and "Traceback" not in r.err
    assert ("job.yaml:7:1: error: workload 'moe-tpu': moe_dispatcher hybridep, taken by default from the nemo-2025 "
            "profile (no stack stated), runs on NVIDIA GPUs only, not on tpu-v4; expected moe_dispatcher alltoall"
            in r.err)
    assert "DeepEP at" not in r.err and "Primus" not in r.err and len(r.err) < 600


@pytest.mark.parametrize(("stated", "short"), [({}, True), ({"stack": "nemo-2025"}, False),
                                               ({"moe_dispatcher": "hybridep"}, False), ({"ep_dedup": True}, False)])
def test_only_a_dispatcher_nothing_asked_for_is_refused_shortly(h100, stated, short):
    """newuser99's part (vendor Nexa Silicon, no CUDA compute capability): the short refusal is for a job that states
    nothing that leads to HybridEP; a stated stack, dispatcher or deduplication keeps the full account of why."""
    import dataclasses

    from archgen.model.workload import Training
    from archgen.perf.train.stacks import on_vendor, training_knobs
    from archgen.perf.workload.nvidia_only import hybridep_problem

    nx1 = dataclasses.replace(h100, accelerator="nexa-nx1", vendor="Nexa Silicon", compute_capability=0.0)
    t = on_vendor(Training(seq_len=4096, global_batch=512, precision="bf16", **stated), nx1.vendor)
    said = hybridep_problem(nx1, t, str(training_knobs(t).moe_dispatcher), True)
    assert said is not None and "cannot run on nexa-nx1" not in said if short else "cannot run on nexa-nx1" in said
    assert ("taken by default from the nemo-2025 profile (no stack stated)" in said) == short
    assert (len(said) < 300) == short
