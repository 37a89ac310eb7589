"""A sweep point on its cluster's own hardware reads "as catalogued" (newuser22's finding 2).

Before: sweeping `scale_up_size: [8, 16, 64]` on the shipped MI355X cluster (mi355x-th5, a full mesh of 8) marked
the cluster's own size, 8, "hypothetical" in the CSV, the points table and the best-point table: only a float factor
of 1.0 counted as catalogued, so any size, or a figure equal to the catalogued one, was flagged. The catalogued
figures: a mesh of 8 (specs/clusters/mi355x-th5.yaml `scale_up.size`), 8 TB/s of HBM
(specs/catalog/accelerators/mi355x.yaml `memory_bandwidth`, AMD's 8.0 TB/s).
"""

from __future__ import annotations

from tests.conftest import SPECS, sweep_problems_of

SWEEP = """\
kind: Sweep
id: catalogued-axes
workload: llama3-70b-pretrain-mi355x
axes:
  scale_up_size: [8, 4]
  hbm_bandwidth: ["8 TB/s", 1, 2]
  accelerators: [256]
objectives:
  - {metric: step_time, goal: min}
"""


def _result(tmp_path):
    from archgen.perf.explore.points import evaluate, summarise

    path = tmp_path / "sweep.yaml"
    path.write_text(SWEEP, encoding="utf-8")
    problem = sweep_problems_of(path, [SPECS, tmp_path])[0]
    return problem, summarise(problem, evaluate(problem, 0, problem.size))


def test_the_clusters_own_size_and_figures_are_as_catalogued(tmp_path) -> None:
    from archgen.perf.explore.tally import catalogued
    from archgen.render.point_table import hypothetical, level_text

    problem, result = _result(tmp_path)
    flags = {(r.values["scale_up_size"], level_text(r.values["hbm_bandwidth"])): hypothetical(r, problem)
             for r in result.rows}
    assert flags[(8, "8 TB/s")] == [] and flags[(8, "×1")] == []
    assert flags[(8, "×2")] == ["hbm_bandwidth ×2"]
    assert flags[(4, "×1")] == flags[(4, "8 TB/s")] == ["scale_up_size 4"]
    assert [catalogued(r, problem) for r in result.rows] == [not f for f in flags.values()]


def test_csv_and_tables_say_as_catalogued(tmp_path) -> None:
    from archgen.render import point_table
    from archgen.render.sweep import best_section

    problem, result = _result(tmp_path)
    text = point_table.csv_text(problem, result.rows)
    cells = [point_table.cells(problem, r) for r in result.rows]
    own = [c for c, r in zip(cells, result.rows, strict=True)
           if r.values["scale_up_size"] == 8 and r.values["hbm_bandwidth"] != 2.0]
    assert own and all("as catalogued" in c for c in own)
    assert text.count("as catalogued") == 2
    [table] = [b for b in best_section(result).blocks if getattr(b, "kind", "") == "table"]
    [best] = table.rows                                     # the fastest step: twice the HBM bandwidth
    assert best[-1] == "hypothetical: hbm_bandwidth ×2"
