"""A training estimate on a part whose vendor has no stack profile states that it runs an NVIDIA stack (trn2 task 3).

The stack profiles (`model.switches`) are NVIDIA's Megatron-LM, Megatron-Core and NeMo on NVIDIA GPUs, and AMD's
Primus on AMD's. Trainium2 (AWS), Gaudi 3 (Intel) and TPU v4 (Google) have none: their estimates ran NeMo's
switches, overlaps and memory with only a clause of the stack-range note saying so, and a requirement met on them
read as met outright. Now the estimate carries the assumption (`assumed:` line, JSON `assumed`), `check` reports it
(PERF005) and REQ005 names it among the assumed inputs, as it names NVIDIA fleets' failure rates borrowed for the
part (REL007's rates: 'field-h100-2024', measured on H100 and H800).
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO, SPECS, run_specs
from tests.perf.test_torus_scale_up import SWEEP as TORUS_SWEEP

DATA = REPO / "tests" / "data"
TRN2 = ("training stack nemo-2025, NVIDIA's (NeMo 2 / Megatron-Bridge as of 2025 on NVIDIA GPUs): no AWS stack "
        "profile, so trainium2's own stack's switches, overlaps and memory are not modelled")


def _json(cli, *paths, workload: str) -> dict:
    return json.loads(cli("estimate", *map(str, paths), "--workload", workload, "--format", "json").out)


def test_trainium2_estimate_states_the_nvidia_stack(cli) -> None:
    assert _json(cli, SPECS, DATA / "trn2", workload="llama3-70b-pretrain-trn2")["assumed"] == [TRN2]
    text = cli("estimate", str(SPECS), str(DATA / "trn2"), "--workload", "llama3-70b-pretrain-trn2").out
    assert f"\nassumed: {TRN2}\n" in text


@pytest.mark.parametrize(("paths", "workload", "vendor", "part"), [
    ((SPECS, DATA / "gaudi3"), "llama3-70b-train-gaudi3", "Intel", "gaudi3"),
    ((SPECS,), "llama3-70b-pretrain-tpu-v4", "Google", "tpu-v4"),
])
def test_other_vendors_without_a_profile_say_so_too(cli, paths, workload: str, vendor: str, part: str) -> None:
    [said] = _json(cli, *paths, workload=workload)["assumed"]
    assert said.startswith("training stack nemo-2025, NVIDIA's") and f"no {vendor} stack profile, so {part}'s" in said


@pytest.mark.parametrize("workload", ["llama3-70b-pretrain-b200", "llama3-70b-pretrain-mi355x",
                                      "llama3-70b-serve-b200"])
def test_nvidia_amd_and_serving_assume_no_stack(cli, workload: str) -> None:
    """An NVIDIA part runs its own stack, an AMD part Primus (its vendor's profile); serving has no training stack."""
    assert _json(cli, SPECS, workload=workload)["assumed"] == []


def test_a_requirement_met_on_trainium2_names_the_stack_and_the_borrowed_rates(tmp_path) -> None:
    files = {f"trn2/{f.name}": f.read_text(encoding="utf-8") for f in (DATA / "trn2").iterdir()}
    files["trn2/cluster.yaml"] = files["trn2/cluster.yaml"].replace("  precision: bf16\n---", """  precision: bf16
requirements:
  - {id: R-MFU, statement: MFU, metric: mfu, target: ">= 0.1"}
  - {id: R-INT, statement: interruptions, metric: interruptions_per_day, target: "<= 1000 1/day"}
---""", 1)
    found = {f.message.split(" (")[0]: f.message for f in run_specs(tmp_path, files).findings if f.id == "REQ005"}
    assert found["R-MFU"].endswith(f"on assumed inputs: trainium2 vector_peak (unconfirmed), trainium2 scale_up.bandwidth "
                                   f"(unconfirmed), {TRN2}")
    assert "'field-h100-2024' failure rates (measured on h100-sxm5-80gb; trainium2 borrows them)" \
        in found["R-INT"]
    assert "training stack" not in found["R-INT"]       # the interruptions rest on the rates, not on the stack


#: tests/perf/test_torus_scale_up.py's sweep of a TP-16 job on the Trn2 pod's 4x4 tori, with a step-time target.
SWEEP = TORUS_SWEEP.replace("---\nkind: Sweep", """requirements:
  - {id: R-STEP, statement: Step time, metric: step_time, target: "<= 1000 s"}
---
kind: Sweep""", 1)


def test_a_training_sweep_met_on_trainium2_names_the_stack(tmp_path) -> None:
    """The sweep report's once-per-sweep REQ005 note (`render.sweep_unconfirmed`) names the stack beside the figure."""
    from archgen.perf.explore.points import evaluate, summarise
    from archgen.render.sweep_unconfirmed import assumed_stacks, unconfirmed_note
    from tests.conftest import sweep_problems_of

    for p in ("trn2-48xlarge", "rack", "efa-v3-trn2"):
        (tmp_path / f"{p}.yaml").write_text((DATA / "trn2" / f"{p}.yaml").read_text(encoding="utf-8"),
                                            encoding="utf-8")
    path = tmp_path / "sweep.yaml"
    path.write_text((DATA / "trn2-torus" / "cluster.yaml").read_text(encoding="utf-8") + SWEEP, encoding="utf-8")
    problem = sweep_problems_of(path, [SPECS, tmp_path])[0]
    assert assumed_stacks(problem) == (TRN2,)
    [note] = unconfirmed_note(summarise(problem, evaluate(problem, 0, problem.size)))
    assert note.startswith("Met on assumed inputs, where a point meets it: R-STEP. ")
    assert note.endswith(f"(REQ005): trainium2 vector_peak (unconfirmed), trainium2 scale_up.bandwidth (unconfirmed). "
                         f"They also assume {TRN2}.")
