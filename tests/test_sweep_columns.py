"""Sweep output from columns (issue 25 part 4): the CSV written a column at a time is the cell-by-cell CSV to the
byte, the document's table of the front is capped with a note, and a plot of many points is gridded."""

from __future__ import annotations

import dataclasses

import pytest

from archgen.commands import sweep as sw
from archgen.perf.explore.points import Result
from archgen.perf.explore.problem import PointRow
from archgen.render import point_table, sweep_figure, tables
from archgen.render import sweep as report
from tests.conftest import SPECS


@pytest.fixture(scope="module")
def platforms() -> Result:
    """The shipped sweep 'DGX B200 against GB200 NVL72' (hardware axes, a SHALL requirement of the sweep's own)."""
    [result] = [r for r in sw.evaluate_sweeps(SPECS / "sweeps" / "llama3-70b.yaml", [SPECS])[1]
                if r.problem.sweep.id == "llama3-70b-train-platforms"]
    return result


def _odd_rows(result: Result) -> list[PointRow]:
    """The sweep's rows and rows of every other shape: could not run (a reason with a comma, one like a formula),
    does not fit (memory metrics only), a metric missing, requirements unjudged."""
    ok = next(r for r in result.rows if r.status == "ok")
    memory = {k: v for k, v in ok.metrics.items() if k in ("memory_per_gpu", "power")}
    return [*result.rows,
            PointRow(900, ok.values, ok.cluster, "invalid", "tp 3 does not divide 64 heads, nor 8 KV heads"),
            PointRow(901, ok.values, ok.cluster, "invalid", "=HYPERLINK(\"x\")"),
            dataclasses.replace(ok, index=902, status="does not fit", reason="needs 212 GB, has 180 GB",
                                metrics=memory, met={}, feasible=False),
            dataclasses.replace(ok, index=903, metrics={k: v for k, v in ok.metrics.items() if k != "mfu"},
                                layout={"tp": 8, "pp": 1, "dp": 16, "cp": 1, "ep": 1, "interleave": 1})]


def test_the_columnar_csv_is_the_cell_by_cell_csv_to_the_byte(platforms):
    rows = _odd_rows(platforms)
    table = report.points_table(platforms, rows, "points", "Every point")
    assert point_table.csv_text(platforms.problem, rows).encode("utf-8") == tables.csv_bytes(table)
    # a chunk written without its header continues the file (the workers write theirs so)
    head, tail = rows[:7], rows[7:]
    joined = point_table.csv_text(platforms.problem, head) + point_table.csv_text(platforms.problem, tail, False)
    assert joined == point_table.csv_text(platforms.problem, rows)


def _front_of(result: Result, n: int) -> Result:
    """`result` with `n` feasible points all on the front (its first two objectives rising together)."""
    ok = next(r for r in result.rows if r.feasible)
    (x, _), (y, _) = result.objectives[:2]
    rows = [dataclasses.replace(ok, index=i, metrics={**ok.metrics, x: 1e5 + i, y: 1.0 + i / 1e3})
            for i in range(n)]
    return dataclasses.replace(result, rows=rows, front=list(range(n)), best={m: 0 for m, _ in result.objectives})


def test_the_document_lists_at_most_100_front_points_and_says_where_the_rest_are(platforms):
    result = _front_of(platforms, 250)
    section = report.front_section(result)
    [table] = [b for b in section.blocks if getattr(b, "kind", "") == "table"]
    notes = [b.text for b in section.blocks if getattr(b, "kind", "") == "para"]
    assert len(table.rows) == report.FRONT_ROWS == 100
    assert any("250 points" in t and "leaves out 150" in t and "front.csv" in t for t in notes)
    shown = [row[0] for row in table.rows]
    assert shown[0] == 0 and shown[-1] == 249 and shown == sorted(shown)  # both ends of the front, in point order
    files = report.render_sweep(result, ("csv",), None, "rev", "hash")
    assert files["front.csv"].decode().count("\n") == 251  # the header and every point
    small = report.front_section(_front_of(platforms, 100))
    assert not any("leaves out" in b.text for b in small.blocks if getattr(b, "kind", "") == "para")


def test_a_plot_of_many_points_draws_one_marker_per_grid_cell(platforms):
    n = sweep_figure.GRID_FROM + 1000
    result = _front_of(platforms, n)
    (x, _), (y, _) = result.objectives[:2]
    assert point_table.DISPLAY[x][2] in point_table.PLAIN  # plotted as the number it is
    result = dataclasses.replace(result, rows=[dataclasses.replace(r, metrics={
        **r.metrics, x: 1e5 + (r.index % 100) * 10.0, y: 1.0 + r.index % 2 + r.index * 1e-9}) for r in result.rows],
        front=[0])
    fig = sweep_figure.pareto_figure(result)
    offsets = [p for c in fig.axes[0].collections for p in c.get_offsets().tolist()]
    xs = {round(x, 6) for x, _ in offsets}
    assert len(xs) == 100  # 100 distinct throughputs, each wider apart than a cell: each keeps its column
    assert len(offsets) == 100  # 60 points a throughput, in one band of the second objective thinner than a cell
    cell = (99 * 10.0) / sweep_figure.GRID[0]
    assert min(xs) == pytest.approx(1e5 + cell / 2) and max(xs) == pytest.approx(1e5 + 990 - cell / 2)


def test_the_blocked_pareto_front_is_the_brute_force_front():
    """Every feasible point no other feasible point dominates, ties kept: checked against all pairs, on integer
    objectives (many ties) over several blocks."""
    import random

    from archgen.perf.explore.front import PARETO_BLOCK, pareto

    rng = random.Random(25)
    goals = [("a", True), ("b", False), ("c", False)]
    rows = [PointRow(i, {}, "c", "ok", metrics={"a": rng.randint(0, 30), "b": rng.randint(0, 30),
                                                "c": rng.randint(0, 30)}, feasible=rng.random() < 0.9)
            for i in range(3 * PARETO_BLOCK + 7)]

    def key(r: PointRow) -> tuple[float, ...]:
        return (-r.metrics["a"], r.metrics["b"], r.metrics["c"])

    def dominates(p: PointRow, q: PointRow) -> bool:
        return all(u <= v for u, v in zip(key(p), key(q), strict=True)) and key(p) != key(q)

    feasible = [r for r in rows if r.feasible]
    expected = [i for i, r in enumerate(rows) if r.feasible and not any(dominates(o, r) for o in feasible)]
    assert pareto(rows, goals) == expected and len(expected) > 3
