"""An estimate names each default it took because the part states none, and its origin (newuser8's finding).

Trainium2 (tests/data/trn2, datasheet figures only) was estimated with a B200's vector efficiency (0.926), an
H100-over-PCIe host link efficiency (0.81), the GEMM size ramp's assumed 128 and the NVIDIA NeMo stack profile, and
no note said so, where the efficiencies it takes at a point are named.
"""

from __future__ import annotations

import json

from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.workload.defaults_note import defaults_used
from tests.conftest import REPO, SPECS

TRN2 = REPO / "tests" / "data" / "trn2"


def _notes(cli, *paths, workload: str) -> list[str]:
    return json.loads(cli("estimate", *map(str, paths), "--workload", workload, "--format", "json").out)["notes"]


def test_the_trial_estimate_names_its_defaults_and_their_origin(cli):
    notes = _notes(cli, SPECS, TRN2, workload="llama3-70b-pretrain-trn2")
    [note] = [n for n in notes if n.startswith("not stated by trainium2 or its system")]
    assert "vector (FP32 FMA) efficiency 0.926, a B200's OpenCL-Benchmark rate" in note
    assert ("GEMM size ramp gemm_half_size 128, one 128-wide matrix-unit tile, not a figure of trainium2's own matrix "
            "units: an assumption") in note and "tensor-core" not in note   # nu50fix: no tensor cores on Trainium
    assert "host link efficiency 0.81, nvbandwidth's host-to-device copy on an H100 over PCIe Gen5 x16" in note
    [stack] = [n for n in notes if n.startswith("stack not stated")]
    # the NVIDIA stack is said once, by the estimate's `assumed:` line (small25), not again in the stack-range note
    assert "nemo-2025" in stack and "trainium2 states no CUDA compute capability" not in stack


def test_a_part_that_states_them_is_not_told_it_did_not(cli, tmp_path):
    text = (SPECS / "catalog" / "accelerators" / "trainium2.yaml").read_text(encoding="utf-8")
    stated = text.replace("\nefficiency:\n", "\nefficiency:\n  vector: 0.9\n  gemm_half_size: 96\n", 1)
    assert stated != text
    (tmp_path / "trainium2.yaml").write_text(stated, encoding="utf-8")
    for f in TRN2.iterdir():
        (tmp_path / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    notes = _notes(cli, SPECS, tmp_path, workload="llama3-70b-pretrain-trn2")
    [note] = [n for n in notes if n.startswith("not stated by trainium2")]
    assert "vector" not in note and "gemm_half_size" not in note and "host link efficiency 0.81" in note


def test_an_nvidia_part_stack_note_says_nothing_more(cli):
    notes = _notes(cli, SPECS, workload="llama3-70b-pretrain-b200")
    [stack] = [n for n in notes if n.startswith("stack not stated")]
    assert "CUDA compute capability" not in stack


def test_defaults_used_reads_the_part():
    from archgen.model.accelerator import Accelerator
    acc = Accelerator.model_validate({"kind": "Accelerator", "id": "x", "source": "s", "memory": "96 GiB",
                                      "memory_bandwidth": "2.9 TB/s", "peak": {"bf16": "667 TFLOPS"},
                                      "tdp": "500 W", "efficiency": {"vector": 0.9}})
    used = defaults_used(hardware_for(acc, scale_up_size=1))
    assert len(used) == 1 and used[0].startswith("GEMM size ramp")
