"""A sweep point on another chip in its cluster's fabric is hypothetical hardware, not "as catalogued" (newuser34).

Before: `accelerator: [b200-sxm-180gb, mi355x]` on the DGX B200 SuperPOD gave every point "as catalogued" where a
hardware axis gave the table a Hardware column, and no Hardware column at all where none did: the best-point table
called an MI355X on the POD's 900 GB/s NVLink domain "as catalogued", though no catalogued machine is one (the axis
keeps the cluster's scale-up domain and scale-out path, docs/sweeps.md). The cluster's own chip on the same axis is
the machine as catalogued (specs/clusters/dgx-b200-superpod.yaml, DGX B200 systems of b200-sxm-180gb).
"""

from __future__ import annotations

from tests.conftest import SPECS, sweep_problems_of

SWEEP = """\
kind: Sweep
id: swapped-chip
workload: llama3-70b-pretrain-b200
axes:
  accelerator: [b200-sxm-180gb, mi355x]
  accelerators: [256]
objectives:
  - {metric: step_time, goal: min}
  - {metric: energy_per_token}
"""


def _result(tmp_path, text: str = SWEEP):
    from archgen.perf.explore.points import evaluate, summarise

    path = tmp_path / "sweep.yaml"
    path.write_text(text, encoding="utf-8")
    problem = sweep_problems_of(path, [SPECS, tmp_path])[0]
    return problem, summarise(problem, evaluate(problem, 0, problem.size))


def test_another_chip_is_hypothetical_and_the_own_chip_as_catalogued(tmp_path) -> None:
    from archgen.perf.explore.tally import catalogued
    from archgen.render.point_table import hypothetical

    problem, result = _result(tmp_path)
    flags = {r.values["accelerator"]: hypothetical(r, problem) for r in result.rows}
    assert flags == {"b200-sxm-180gb": [], "mi355x": ["accelerator mi355x"]}
    assert [catalogued(r, problem) for r in result.rows] == [True, False]


def test_the_tables_and_csv_say_so(tmp_path) -> None:
    from archgen.render import point_table
    from archgen.render.sweep import best_section

    problem, result = _result(tmp_path)
    assert "Hardware" in [c.heading for c in point_table.columns(problem)]
    lines = point_table.csv_text(problem, result.rows).splitlines()
    assert ",as catalogued," in lines[1] and ",hypothetical," in lines[2]
    cells = [point_table.cells(problem, r) for r in result.rows]
    assert "as catalogued" in cells[0] and "hypothetical" in cells[1]
    section = best_section(result)
    [table] = [b for b in section.blocks if getattr(b, "kind", "") == "table"]
    by_chip = {row[4]: row[-1] for row in table.rows}
    for axes, hardware in by_chip.items():
        assert hardware == ("hypothetical: accelerator mi355x" if "mi355x" in axes else "as catalogued")
