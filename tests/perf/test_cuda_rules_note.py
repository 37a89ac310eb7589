"""NVIDIA's rules applied to a part with no CUDA compute capability are named in the estimate (newuser22 finding 4).

Before: FP8 training on the shipped MI355X cluster took Transformer Engine's Hopper rule for quantisation
(`perf.hw.quant._copies`: compute capability below 10, so each quantised tensor written twice, once transposed),
and `cuda_graphs: full_iteration` stated on it was accepted with no word (1.741 s a step either way on 1,024 GPUs,
newuser22's scratch fork of mi355x-th5): both NVIDIA rules, applied silently to an AMD part. Now each has a note;
an NVIDIA part (the B200 of dgx-b200-superpod, compute capability 10.0) and a 16-bit job get none.
"""

from __future__ import annotations

import json

from tests.conftest import SPECS

COPIES = "FP8 quantisation is costed by Transformer Engine's rules for an NVIDIA GPU below compute capability 10"
SWITCHES = "cuda_graphs 'full_iteration' and fp8_recipe 'tensorwise' stated: costed as Megatron-core's CUDA graphs"

JOBS = """\
kind: Workload
id: fp8-train-mi355x
model: llama3-70b
cluster: mi355x-th5
training: {seq_len: 8192, global_batch: 512, precision: fp8, cuda_graphs: full_iteration, fp8_recipe: tensorwise}
---
kind: Workload
id: bf16-train-mi355x
model: llama3-70b
cluster: mi355x-th5
training: {seq_len: 8192, global_batch: 512, precision: bf16, cuda_graphs: full_iteration}
---
kind: Workload
id: fp8-train-b200
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 512
training: {seq_len: 8192, global_batch: 512, precision: fp8, cuda_graphs: full_iteration, fp8_recipe: tensorwise}
"""


def _notes(cli, path, workload: str) -> list[str]:
    return json.loads(cli("estimate", str(SPECS), str(path), "--workload", workload, "--format", "json").out)["notes"]


def test_fp8_training_on_an_amd_part_names_the_hopper_rule_and_the_switches(cli, tmp_path) -> None:
    (tmp_path / "jobs.yaml").write_text(JOBS, encoding="utf-8")
    notes = _notes(cli, tmp_path, "fp8-train-mi355x")
    [copies] = [n for n in notes if n.startswith(COPIES)]
    assert "mi355x states no CUDA compute capability" in copies and "the second copy is an assumption" in copies
    [switches] = [n for n in notes if n.startswith(SWITCHES)]
    assert "Transformer Engine's FP8 recipe on NVIDIA GPUs" in switches and "not modelled" in switches


def test_a_16_bit_job_is_told_of_its_switch_only(cli, tmp_path) -> None:
    (tmp_path / "jobs.yaml").write_text(JOBS, encoding="utf-8")
    notes = _notes(cli, tmp_path, "bf16-train-mi355x")
    assert not any(n.startswith(COPIES) for n in notes)
    assert any(n.startswith("cuda_graphs 'full_iteration' stated: costed as Megatron-core's CUDA graphs on NVIDIA "
                            "GPUs; mi355x") for n in notes), notes


def test_an_nvidia_part_gets_neither(cli, tmp_path) -> None:
    (tmp_path / "jobs.yaml").write_text(JOBS, encoding="utf-8")
    notes = _notes(cli, tmp_path, "fp8-train-b200")
    assert not any(n.startswith(COPIES) or "stated: costed as" in n for n in notes), notes
