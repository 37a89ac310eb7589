"""An FP4 estimate on a part that is not an NVIDIA GPU says what of its FP4 is NVIDIA's NVFP4 (newuser22's finding).

Before: Llama 3.1 70B in FP4 on the shipped MI355X cluster was estimated with NVIDIA's NVFP4 (one E4M3 scale per
16 values, 0.5625 B per value, its amax pass and casts: `perf.hw.quant`), and no note said so, where the MI355X's
FP4 is OCP MXFP4 (one E8M0 scale per 32 values; the catalog's own fp4 efficiency is an MXFP4 GEMM, AITER's a4w4).
Since small27 an AMD part's FP4 bytes are MXFP4's (`generation.fp4_format`), and the note says so and what stays NVFP4.
"""

from __future__ import annotations

import json

from tests.conftest import SPECS

NOTE = "FP4 is modelled as NVIDIA's NVFP4"
AMD_NOTE = "FP4 on mi355x (AMD, CDNA 4) is sized as OCP MXFP4"

JOBS = """\
kind: Workload
id: fp4-train-mi355x
name: Llama 3.1 70B FP4 pre-training on MI355X
model: llama3-70b
cluster: mi355x-th5
training: {seq_len: 8192, global_batch: 512, precision: fp4}
---
kind: Workload
id: fp4-serve-mi355x
name: Llama 3.1 70B FP4 serving on one MI355X node
model: llama3-70b
cluster: mi355x-th5
accelerators: 8
inference: {precision: fp4, tp: 8, input_len: 2048, output_len: 256}
---
kind: Workload
id: fp8-serve-mi355x
name: Llama 3.1 70B FP8 serving on one MI355X node
model: llama3-70b
cluster: mi355x-th5
accelerators: 8
inference: {precision: fp8, tp: 8, input_len: 2048, output_len: 256}
---
kind: Workload
id: fp4-serve-b200
name: Llama 3.1 70B FP4 serving on one DGX B200
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 8
inference: {precision: fp4, tp: 8, input_len: 2048, output_len: 256}
"""


def _notes(cli, path, workload: str) -> list[str]:
    return json.loads(cli("estimate", str(SPECS), str(path), "--workload", workload, "--format", "json").out)["notes"]


def test_fp4_on_an_amd_part_says_it_is_sized_as_mxfp4(cli, tmp_path):
    (tmp_path / "jobs.yaml").write_text(JOBS, encoding="utf-8")
    for job in ("fp4-train-mi355x", "fp4-serve-mi355x"):
        notes = _notes(cli, tmp_path, job)
        [note] = [n for n in notes if n.startswith(AMD_NOTE)]
        assert "0.53125 B per value" in note and "NVIDIA's NVFP4 recipes" in note, note
        assert not [n for n in notes if n.startswith(NOTE)], job


def test_no_note_on_fp8_or_on_an_nvidia_part(cli, tmp_path):
    (tmp_path / "jobs.yaml").write_text(JOBS, encoding="utf-8")
    for job in ("fp8-serve-mi355x", "fp4-serve-b200"):
        assert not [n for n in _notes(cli, tmp_path, job) if n.startswith((NOTE, AMD_NOTE))], job
