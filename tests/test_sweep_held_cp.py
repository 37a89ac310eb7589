"""A training sweep that neither states nor sweeps cp says it held cp at 1, as `estimate` says it (nu53fix).

`archgen estimate` names the cp it held at 1 where the workload leaves cp out (newuser53: Llama 3.1 70B at 131,072
tokens on 512 GB200 read "layout searched" at 5.411 s, tp 32, cp 1, where the plan search found 3.487 s at tp 2,
cp 16). A sweep of such a workload searched each point's layout with cp held at 1 and said nothing: its summary, its
JSON and its report now carry the note beside the model's other defaults (`points.model_defaults`).
"""

from __future__ import annotations

import pytest

from archgen.commands import sweep as sw
from archgen.commands import sweep_problems
from archgen.perf.explore.points import model_defaults
from tests.conftest import SPECS

HELD = "cp 1 at every point, held, not searched: neither the workload states it nor an axis sweeps it"


def _problem(tmp_path, axes: str, parallelism: str = ""):
    (tmp_path / "w.yaml").write_text(f"""kind: Workload
id: w
model: llama3-8b
cluster: gb200-nvl72-su
accelerators: 64
training:
  seq_len: 32768
  global_batch: 64
  precision: bf16
{parallelism}""", encoding="utf-8")
    path = tmp_path / "sweep.yaml"
    path.write_text(f"kind: Sweep\nid: s\nworkload: w\naxes:\n{axes}\nobjectives: [{{metric: tokens_per_second}}]\n",
                    encoding="utf-8")
    (problem,) = sweep_problems.problems(*sw.load(path, [SPECS, tmp_path]))
    return problem


@pytest.mark.parametrize(("axes", "parallelism", "held"), [
    ("  tp: [1, 2]", "", True),                                   # cp neither stated nor swept: held, and said
    ("  tp: [1, 2]\n  cp: [1, 4]", "", False),                    # swept
    ("  tp: [1, 2]", "  parallelism: {cp: 4}\n", False)])         # stated
def test_a_sweep_names_the_cp_it_held(tmp_path, axes, parallelism, held):
    notes = model_defaults(_problem(tmp_path, axes, parallelism))
    assert any(n.startswith(HELD) for n in notes) is held, notes
    if held:
        note = next(n for n in notes if n.startswith(HELD))
        assert "`archgen estimate --search-plan` the workload, which searches cp too" in note


def test_the_sweep_summary_prints_it(cli, tmp_path):
    _problem(tmp_path, "  tp: [1, 2]")
    r = cli("sweep", str(tmp_path / "sweep.yaml"), "--path", SPECS, "--path", tmp_path, "--out", tmp_path / "out",
            "--formats", "csv")
    assert r.code == 0, r.err
    assert f"  note: {HELD}" in r.out
