"""The estimate says which bandwidth and latency it took for a scale-up domain over several racks (newuser59).

A job on a GB200 NVL36x2 (the fixture of `tests.analyse.test_scale_up_racks`: two racks of 36 GPUs, one 72-GPU
NVLink domain) is estimated on the whole domain at its bandwidth and the one-rack NVLink step latency; the second
switch hop between racks adds none (docs/perf-model.md, Scale-up domains over several racks). The cluster document's
scale-up table said so; `archgen estimate` printed nothing of it, so a TP group of 72 over two racks read like one
inside an NVL72 rack. Expected figures: the fixture's 1.8 TB/s both ways = 900 GB/s per direction; gb200's
`scale_up.latency` 1.9 us (specs/catalog/accelerators/gb200.yaml).
"""

from __future__ import annotations

from tests.analyse.test_scale_up_racks import _text
from tests.conftest import run_specs

JOB = """---
kind: Workload
id: w
model: llama3-70b
cluster: pod
accelerators: GPUS
training: {seq_len: 8192, global_batch: 288, precision: bf16, parallelism: {tp: 8, pp: 1}}
"""


def _notes(tmp_path, gpus: int, **options) -> list[str]:
    run = run_specs(tmp_path, {"c.yaml": _text(**options) + JOB.replace("GPUS", str(gpus))})
    return list(run.workloads["workload/w"].estimate.notes)


def test_a_job_over_both_racks_of_a_domain_is_told_the_second_hop_adds_no_latency(tmp_path) -> None:
    (note,) = [n for n in _notes(tmp_path, 72) if "spans 2 racks" in n]
    assert note.startswith("the scale-up domain of 72 spans 2 racks of 36 (`scale_up.racks`), and the job takes 72 "
                           "of each domain")
    assert "900 GB/s per direction" in note and "gb200, 1.9 us per collective step" in note
    assert "the second switch hop's latency is not added" in note


def test_a_job_within_one_rack_or_a_one_rack_domain_has_no_such_note(tmp_path) -> None:
    assert not [n for n in _notes(tmp_path / "a", 32) if "spans" in n and "racks" in n]   # 32 of a rack's 36
    one = _text(racks=2, span=1, size=36).replace(", trunk_link: test-trunk", "")
    run = run_specs(tmp_path / "b", {"c.yaml": one + JOB.replace("GPUS", "72")})
    assert not [n for n in run.workloads["workload/w"].estimate.notes if "(`scale_up.racks`)" in n]
