"""`archgen sweep` takes several paths, as `check`, `render` and `estimate` do (nu52fix).

newuser52: `archgen sweep specs my/colo.yaml my/sw.yaml` failed with "Got unexpected extra argument(s)": the command
took one sweep file and its specs only with `--path`. Now its paths are arguments too (`commands.common.sweep_paths`):
each file argument's Sweep documents run, the others are specs, a directory argument is a spec path; `--path` adds up.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.commands.common import sweep_paths
from tests.conftest import SPECS

#: The shipped Llama 3.1 70B FP8 serving job under another id, in a file of the user's beside the specs.
WORKLOAD = """kind: Workload
id: l70-mine
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 8
inference: {tp: 8, precision: fp8, input_len: 2048, output_len: 128}
"""
SWEEP = """kind: Sweep
id: mine
workload: l70-mine
axes:
  batch: [16]
objectives: [{metric: tokens_per_second_per_gpu}]
"""


def _files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "my").mkdir()
    colo, sw = tmp_path / "my" / "colo.yaml", tmp_path / "my" / "sw.yaml"
    colo.write_text(WORKLOAD, encoding="utf-8")
    sw.write_text(SWEEP, encoding="utf-8")
    return colo, sw


def test_the_paths_split_into_sweep_files_and_spec_paths(tmp_path) -> None:
    colo, sw = _files(tmp_path)
    assert sweep_paths([SPECS, colo, sw], None) == ([colo, sw], [SPECS])
    assert sweep_paths([sw, SPECS, colo], [tmp_path]) == ([sw, colo], [SPECS, tmp_path])
    assert sweep_paths([sw], [SPECS]) == ([sw], [SPECS])     # as before: the one file, specs from --path


@pytest.mark.parametrize("order", [("specs", "colo", "sw"), ("sw", "specs", "colo")])
def test_a_sweep_runs_on_the_paths_given_as_arguments(tmp_path, cli, order) -> None:
    colo, sw = _files(tmp_path)
    named = {"specs": SPECS, "colo": colo, "sw": sw}
    r = cli("sweep", *(named[k] for k in order), "--out", tmp_path / "o")
    assert r.code == 0, r.err
    assert r.out.startswith("sweep mine: 1 points, 1 fit")
    assert (tmp_path / "o" / "mine" / "mine.md").is_file()
    assert not (tmp_path / "o" / "llama3-70b-serve-batch").exists()   # the directory's own sweeps do not run


def test_without_the_workload_file_the_sweep_has_no_workload(tmp_path, cli) -> None:
    _, sw = _files(tmp_path)
    r = cli("sweep", SPECS, sw, "--out", tmp_path / "o")
    assert r.code == 2 and "l70-mine" in r.err and "Traceback" not in r.err


@pytest.mark.parametrize(("args", "message"), [
    (("colo",), "colo.yaml: no Sweep document in the file"),
    (("specs", "colo"), "colo.yaml: no Sweep document in the file"),
    (("colo", "colo2"), "no Sweep document in any of the files given ("),
    (("specs", "nope", "sw"), "nope.yaml: no such file"),
    (("specs",), "specs: is a directory, expected a file"),
    ((), "no sweep file given"),
])
def test_no_sweep_among_the_paths_is_a_usage_error(tmp_path, cli, args, message) -> None:
    colo, sw = _files(tmp_path)
    colo2 = tmp_path / "my" / "colo2.yaml"
    colo2.write_text(WORKLOAD.replace("l70-mine", "l70-other"), encoding="utf-8")
    named = {"specs": SPECS, "colo": colo, "colo2": colo2, "sw": sw, "nope": tmp_path / "my" / "nope.yaml"}
    r = cli("sweep", *(named[k] for k in args), "--out", tmp_path / "o")
    assert r.code == 2 and message in r.err and "Traceback" not in r.err
