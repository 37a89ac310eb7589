"""A case file keeps the TP overlap's rules as a workload does, and `predict` applies the rules itself (issue 20).

Megatron-LM turns sequence parallelism off at tp 1 and then asserts 'Tensor parallel communication/GEMM overlap
can happen only when sequence parallelism is enabled' (NVIDIA/Megatron-LM at d98e8a6, megatron/training/
arguments.py lines 1433-1442): `--tp-comm-overlap` runs with sequence parallelism at tp > 1 only. Megatron-Bridge
turns the overlap off at TP < 2 and without sequence parallelism instead (NVIDIA-NeMo/Megatron-Bridge at aae8200,
src/megatron/bridge/training/comm_overlap.py lines 440-446). The Workload refused a stated overlap without sequence
parallelism, the case format did not: llama3-405b-table4 stated it under megatron-lm-2021 (no sequence parallelism)
and the NeMo 25.11 Llama 3 8B rows at tp 1. Both now follow one function (`training_rules.tp_overlap_sp_problem`),
and `predict` refuses a case built around `read_case_file` (a flipped switch) by the same rules.
"""

from __future__ import annotations

import pytest

from archgen.errors import AnalyseError
from archgen.model.training_rules import tp_overlap_sp_problem
from archgen.scoring.case_checks import training_problems
from archgen.scoring.cases import predict, read_case_file
from archgen.scoring.catalog import load_accelerators
from tests.conftest import REPO as ROOT

NEMO = ROOT / "tests" / "perf" / "data" / "nemo-25.11.yaml"
LLAMA = ROOT / "tests" / "perf" / "data" / "llama3-405b-table4.yaml"


def test_the_rule_fires_at_tp_1_whatever_sequence_parallel_says():
    # arguments.py 1433-1440 set sequence_parallel False at tp 1 before the assert at 1441-1442
    assert "cannot run at tp 1" in tp_overlap_sp_problem(True, True, "is stated true", 1)
    assert tp_overlap_sp_problem(True, True, "is stated true", 2) is None
    assert "needs sequence parallelism, which is stated false" in tp_overlap_sp_problem(True, False, "is stated false", 8)
    assert tp_overlap_sp_problem(False, False, "is stated false", 1) is None
    assert tp_overlap_sp_problem(None, False, "is off", 1) is None  # the profile's value: Bridge turns it off


def _case(path, prefix):
    return next(c for c in read_case_file(path).cases if c.id.startswith(prefix))


@pytest.mark.parametrize(("update", "key", "why"), [
    ({"overlap_tp_comm": True}, "overlap_tp_comm", "cannot run at tp 1"),  # a NeMo tp-1 row as it was stated
    ({"overlap_tp_comm": True, "sequence_parallel": True}, "overlap_tp_comm", "cannot run at tp 1"),
])
def test_a_case_at_tp_1_with_the_overlap_is_refused(update, key, why):
    case = _case(NEMO, "nemo-b200-llama3-8b")
    assert case.training.tp == 1 and case.training.overlap_tp_comm is False  # what Bridge ran
    flipped = case.model_copy(update={"training": case.training.model_copy(update=update)})
    (found,) = [(k, m) for k, m in training_problems(flipped) if k == key]
    assert why in found[1]
    with pytest.raises(AnalyseError, match="the stack refuses its training: overlap_tp_comm: overlap_tp_comm true"):
        predict(flipped, load_accelerators())


def test_a_case_without_sequence_parallelism_is_refused_at_its_key(tmp_path):
    text = LLAMA.read_text(encoding="utf-8").replace("interleave: 8, attention", "interleave: 8, overlap_tp_comm: "
                                                                                 "true, attention")
    (tmp_path / "c.yaml").write_text(text, encoding="utf-8")
    cf = read_case_file(tmp_path / "c.yaml")
    assert not cf.cases and len(cf.refused) == 2
    problem = cf.refused[0].problems[0]
    assert problem.path == "llama3-405b-8k-8192gpu.training.overlap_tp_comm"
    assert "needs sequence parallelism, which is off under stack megatron-lm-2021" in str(problem)
    assert str(problem).startswith(f"{tmp_path / 'c.yaml'}:")  # file:line


def test_the_project_files_state_what_ran():
    for path in (NEMO, LLAMA):
        cf = read_case_file(path)
        assert not cf.refused
    assert all(c.training.overlap_tp_comm is False for c in read_case_file(NEMO).cases if c.training.tp == 1)
    assert all(c.training.overlap_tp_comm is None for c in read_case_file(LLAMA).cases)


def test_a_case_without_a_stack_ranges_over_the_profiles_that_run_its_overlap():
    from archgen.perf.train.stacks import variants

    names = [n for n, _ in variants({"overlap_tp_comm": True}, "bf16", False, "nemo-2025", "NVIDIA", 0, 8)]
    assert names == ["megatron-core-2024", "nemo-2025"]  # megatron-lm-2021 has no sequence parallelism to run it on
    names = [n for n, _ in variants({}, "bf16", False, "nemo-2025", "NVIDIA", 0, 8)]
    assert names == ["megatron-core-2024", "megatron-lm-2021", "nemo-2025"]
