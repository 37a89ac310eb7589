"""A serving estimate on a part whose vendor has no engine profile states the NVIDIA engine it assumes (small25).

Training estimates on AWS, Intel and Google parts state the NVIDIA stack they run (PERF005, trn2). Serving there ran
vLLM's defaults (its batch limit, `model.engine.VENDOR_ENGINES`) on the kernels a CUDA engine launches, at the costs
measured on Hopper (`kernels.KERNEL_OVERHEAD` 1.3 us, Hazy Research 2025; `kernels.GEMM_FILL` 2.26 us, DeepGEMM on an
H800) and with vLLM's gpu_memory_utilization of 0.9, with nothing saying so. Now the estimate carries it (`assumed:`,
JSON `assumed`), PERF005 reports it and REQ005 names it on a requirement met on it. The training stack-range note
no longer repeats the assumed stack ("the profiles describe NVIDIA stacks ...") where the `assumed:` line says it.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO, SPECS, run_specs

DATA = REPO / "tests" / "data"


def _engine(vendor: str, part: str, kv: str = "90% of HBM, less its profiling peak (vLLM's gpu_memory_utilization)"
            ) -> str:
    return ("serving engine vllm as it runs on NVIDIA GPUs (its CUDA kernels per pass, 1.3 us per kernel and 2.26 us "
            f"per GEMM's fill as measured on Hopper, the KV cache in {kv}): no " + vendor + " engine profile, so "
            + part + "'s own serving backend's kernels, their costs and its memory are not modelled")


def _json(cli, *paths, workload: str) -> dict:
    return json.loads(cli("estimate", *map(str, paths), "--workload", workload, "--format", "json").out)


@pytest.mark.parametrize(("folder", "workload", "vendor", "part"), [
    ("trn2", "llama3-70b-serve-trn2", "AWS", "trainium2"),
    ("gaudi3", "llama3-70b-serve-gaudi3", "Intel", "gaudi3"),
])
def test_serving_on_another_vendor_states_the_engine(cli, folder, workload, vendor, part) -> None:
    assert _json(cli, SPECS, DATA / folder, workload=workload)["assumed"] == [_engine(vendor, part)]
    text = cli("estimate", str(SPECS), str(DATA / folder), "--workload", workload).out
    assert f"\nassumed: {_engine(vendor, part)}\n" in text


def test_the_engine_note_states_the_jobs_kv_fraction(cli, tmp_path) -> None:
    """review57: the note said "the KV cache in 90% of HBM" whatever gpu_memory_utilization the job stated (and
    without the profiling peak kvrule37/kvpeak37 take out); it now says the fraction and the rule the estimate uses."""
    for f in (DATA / "trn2").iterdir():
        (tmp_path / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    job = tmp_path / "cluster.yaml"
    job.write_text(job.read_text(encoding="utf-8").replace("  tp: 16\n", "  tp: 16\n  gpu_memory_utilization: 0.6\n",
                                                              1), encoding="utf-8")
    stated = _engine("AWS", "trainium2", "60% of HBM, less its profiling peak (vLLM's gpu_memory_utilization, as the "
                                         "job states)")
    assert _json(cli, SPECS, tmp_path, workload="llama3-70b-serve-trn2")["assumed"] == [stated]


def test_serving_on_nvidia_assumes_no_engine(cli) -> None:
    assert _json(cli, SPECS, workload="llama3-70b-serve-b200")["assumed"] == []


def test_perf005_and_req005_name_the_engine(tmp_path) -> None:
    files = {f"trn2/{f.name}": f.read_text(encoding="utf-8") for f in (DATA / "trn2").iterdir()}
    files["trn2/cluster.yaml"] = files["trn2/cluster.yaml"] + """requirements:
  - {id: R-TPS, statement: Throughput, metric: tokens_per_second_per_gpu, target: ">= 1 tokens/s"}
"""
    found = run_specs(tmp_path, files).findings
    perf = [f.message for f in found if f.id == "PERF005" and "serve" in f.message]
    assert perf == [f"llama3-70b-serve-trn2 is estimated with an assumed {_engine('AWS', 'trainium2')}"]
    [req] = [f.message for f in found if f.id == "REQ005" and f.message.startswith("R-TPS")]
    assert req.endswith(_engine("AWS", "trainium2"))


def test_the_stack_range_note_leaves_the_assumed_stack_to_its_line(cli) -> None:
    """TPU v4's training job states no stack: its stack-range note names the profiles' span once, and the NVIDIA
    stack is said by the `assumed:` line only (the note's clause repeated it)."""
    est = _json(cli, SPECS, workload="llama3-70b-pretrain-tpu-v4")
    [note] = [n for n in est["notes"] if n.startswith("stack not stated")]
    assert "profiles describe NVIDIA stacks" not in note
    assert len(est["assumed"]) == 1 and est["assumed"][0].startswith("training stack nemo-2025, NVIDIA's")
