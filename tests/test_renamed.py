"""A renamed spec key keeps its old name working, with a located warning (SPC003), as mkdocs' `Deprecated(moved_to=)`.

No key has been renamed yet (`archgen.model.renamed.RENAMED` is empty), so these tests register renames of their own:
Megatron-LM's flag name `tp_comm_overlap` for `training.overlap_tp_comm`, and `goal` for each requirement's `target`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.errors import SpecError
from archgen.load import load_paths
from archgen.model.renamed import RENAMED, Renamed
from archgen.validate import validate

WORKLOAD = """\
kind: Workload
id: w
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 512
training:
  seq_len: 8192
  global_batch: 512
  precision: bf16
  tp_comm_overlap: {flag}
requirements:
  - {{id: REQ-A, statement: Throughput, metric: tokens_per_second, goal: ">= 1 1/s"}}
  - {{id: REQ-B, statement: Utilisation, metric: mfu, goal: ">= 0.1"}}
"""


@pytest.fixture
def renamed(monkeypatch):
    """Two renames of the Workload kind, registered for one test."""
    monkeypatch.setitem(RENAMED, "Workload", (Renamed("training.tp_comm_overlap", "training.overlap_tp_comm", "0.1.0"),
                                              Renamed("requirements.*.goal", "requirements.*.target", "0.1.0")))


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "w.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_old_names_load_moved_with_a_located_warning_each(tmp_path, renamed):
    path = _write(tmp_path, WORKLOAD.format(flag="true"))
    specs = validate(load_paths([path]))
    w = specs.get("w")
    assert w.training.overlap_tp_comm is True
    assert [(r.target.op, float(r.target.limit.magnitude)) for r in w.requirements] == [(">=", 1.0), (">=", 0.1)]
    got = [(str(n.location), n.old, n.new, n.since) for n in specs.renamed]
    assert got == [(f"{path}:10:20", "training.tp_comm_overlap", "training.overlap_tp_comm", "0.1.0"),
                   (f"{path}:12:73", "requirements.0.goal", "requirements.0.target", "0.1.0"),
                   (f"{path}:13:60", "requirements.1.goal", "requirements.1.target", "0.1.0")]
    assert specs.renamed[0].text == ("'training.tp_comm_overlap' was renamed 'training.overlap_tp_comm' in 0.1.0; "
                                     "the old name still works, for now")


def test_an_error_in_a_moved_value_is_reported_where_it_was_written(tmp_path, renamed):
    path = _write(tmp_path, WORKLOAD.format(flag="sometimes"))
    with pytest.raises(SpecError) as err:
        validate(load_paths([path]))
    [problem] = err.value.problems
    assert (str(problem.location), problem.path) == (f"{path}:10:20", "training.overlap_tp_comm")


def test_both_names_given_is_an_error_at_the_old_one(tmp_path, renamed):
    text = WORKLOAD.format(flag="true").replace("  tp_comm_overlap: true\n",
                                                "  tp_comm_overlap: true\n  overlap_tp_comm: false\n")
    path = _write(tmp_path, text)
    with pytest.raises(SpecError) as err:
        validate(load_paths([path]))
    [problem] = err.value.problems
    assert str(problem.location) == f"{path}:10:20"
    assert problem.message == ("'training.tp_comm_overlap' was renamed 'training.overlap_tp_comm' in 0.1.0, and "
                               "'training.overlap_tp_comm' is given too")
    assert problem.hint == "remove 'training.tp_comm_overlap'"


def test_without_a_registration_the_old_name_is_an_unknown_key(tmp_path):
    path = _write(tmp_path, WORKLOAD.format(flag="true"))
    with pytest.raises(SpecError) as err:
        validate(load_paths([path]))
    assert {p.message for p in err.value.problems} == {"unknown key 'tp_comm_overlap'", "unknown key 'goal'",
                                                       "missing required key 'target'"}


def test_a_rename_keeps_list_items_in_place():
    with pytest.raises(ValueError, match="same places"):
        Renamed("requirements.*.goal", "goal", "0.1.0")


def test_archgen_validate_prints_the_warning_and_passes(tmp_path, renamed, cli):
    """Beside the shipped specs (the workload names their cluster and model): exit 0, one SPC003 line per key."""
    path = _write(tmp_path, WORKLOAD.format(flag="true"))
    specs = Path(__file__).resolve().parent.parent / "specs"
    result = cli("validate", str(specs), str(path))
    assert result.code == 0, result.out + result.err
    warnings = [line for line in result.out.splitlines() if "SPC003" in line]
    assert len(warnings) == 3
    assert warnings[0].endswith("w.yaml:10:20: warning: SPC003 workload/w: 'training.tp_comm_overlap' was renamed "
                                "'training.overlap_tp_comm' in 0.1.0; the old name still works, for now")
    assert "0 error(s), 3 warning(s), 0 info, 0 waived" in result.out
