"""The Pareto front says, above its table, how many of its points fit at the memory range's high end (newuser107, 8).

Every front point of newuser107's 70B/B200 training sweep fit only at the model's memory figure (193.1 of 193.3 GB;
"Fits at memory high end: no" on each row), which the table gave point by point: a PoC taking point 13 as is would
likely run out of memory. The front section now counts them from `PointRow.fits_high_end` (memreq42) and names the
best that does fit on each objective.
"""

from __future__ import annotations

from tests.conftest import SPECS

SWEEP = """kind: Sweep
id: front
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [256, 512]
  tp: [4, 8]
  pp: [1, 2, 4]
objectives:
  - {{metric: tokens_per_second}}
  - {{metric: {second}}}
"""


def _note(cli, tmp_path, second: str) -> str:
    (tmp_path / "s.yaml").write_text(SWEEP.format(second=second), encoding="utf-8")
    r = cli("sweep", str(tmp_path / "s.yaml"), "--path", str(SPECS), "--out", str(tmp_path / "out"), "--formats", "md")
    assert r.code == 0, r.err
    md = (tmp_path / "out" / "front" / "front.md").read_text(encoding="utf-8")
    front = md.split("## 2 Pareto front", 1)[1].split("*Table", 1)[0]
    (note,) = [line for line in front.splitlines() if line.startswith("> Memory: ")]
    table = md.split("*Table 3: The Pareto front*", 1)[1].split("\n\n", 2)[1].splitlines()
    high = table[0].split(" | ").index("Fits at memory high end")
    return note, [row.split(" | ")[high] for row in table[2:]]


def test_a_front_that_fits_only_at_the_models_figure_says_so(cli, tmp_path):
    note, column = _note(cli, tmp_path, "energy_per_token")
    assert column and set(column) == {"no"}
    assert note.startswith(f"> Memory: 0 of the {len(column)} front points fit in memory at the high end of the memory "
                           "range too")
    assert "every one fits only at the model's figure, and a run of one as is may run out of memory" in note
    assert "The best that does" not in note


def test_the_best_front_point_that_fits_at_the_high_end_is_named(cli, tmp_path):
    note, column = _note(cli, tmp_path, "memory_per_gpu")
    fit = column.count("yes")
    assert 0 < fit < len(column)
    assert note.startswith(f"> Memory: {fit} of the {len(column)} front points fit")
    assert "The best that does: on Tokens/s, point \\#" in note and "; on Memory per accelerator, point \\#" in note
