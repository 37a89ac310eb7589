"""A sweep evaluated in this process (`--workers 1`) drops each chunk's rows once tallied, as a worker does (newuser40).

`--workers 1` evaluated every point as one chunk and kept every row: 476 MB of resident memory at 99,960 points and
335 MB at 49,920 (about 2.8 kB a point), where a two-worker run's parent held 199 MB. The in-process path now cuts
the points into chunks of about `commands.workers.LOCAL_CHUNK` and keeps only the front and best points' rows unless
the rows are asked for (an `xlsx` workbook, `evaluate_all` as a library), so its memory does not grow with the points.
"""

from __future__ import annotations

import gc
import math

import pytest

from archgen.commands import workers
from archgen.perf.explore.problem import PointRow
from tests.test_sweep import TRAIN, problem_of

#: 2 counts x 40 HBM bandwidth factors: 80 training points, one hardware axis (a grid row is one point).
WIDE = TRAIN.replace("  scale_out_bandwidth: [1, 0.5]\n",
                     "  hbm_bandwidth: [" + ", ".join(f"{0.5 + 0.05 * k:.2f}" for k in range(40)) + "]\n")


@pytest.fixture
def problem(tmp_path, monkeypatch):
    monkeypatch.setattr(workers, "LOCAL_CHUNK", 16)
    return problem_of(tmp_path, WIDE)


def _live_rows(problem) -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, PointRow) and o.values.get("hbm_bandwidth") is not None
               and set(o.values) == set(problem.axes))


def test_in_process_chunks_are_dropped_once_tallied_unless_rows_are_asked_for(problem):
    """Without `rows`, only the front's and best points' rows stay alive; with them, every row (the workbook)."""
    assert problem.size == 80
    lean = workers.evaluate_all(problem, None, rows=False)
    kept = len(lean.rows.kept)
    assert 0 < kept < 80
    assert _live_rows(problem) == kept
    assert len(workers.submit(problem, None, rows=False).parts) == math.ceil(80 / 16)
    full = workers.evaluate_all(problem, None)
    assert _live_rows(problem) == 80 + kept
    assert list(lean.rows) == list(full.rows)  # a dropped chunk read again is evaluated again: the same rows
    assert (lean.front, lean.best) == (full.front, full.best)


def test_in_process_chunks_write_the_points_csv_of_one_chunk(problem):
    """The lines of `points.csv` written chunk by chunk are those of the points evaluated as one chunk."""
    from archgen.render.point_table import csv_text
    lines: list[str] = []
    workers.evaluate_all(problem, None, written=lines, rows=False)
    assert len(lines) == 5
    assert "".join(lines) == csv_text(problem, workers.evaluate_all(problem, None).rows, header=True)


def test_in_process_training_chunks_hold_whole_layout_sets_where_one_fits(problem, monkeypatch):
    """A layout set's 40 points (one count, every HBM factor) are not cut where a chunk holds one: cutting a set costs
    part of its work twice (`vectorised.set_stride`); a set larger than a chunk is cut at rows of its grid."""
    monkeypatch.setattr(workers, "LOCAL_CHUNK", 50)
    assert [(q.args[1], q.args[2]) for q in workers.submit(problem, None, rows=False).parts] == [(0, 40), (40, 80)]
    monkeypatch.setattr(workers, "LOCAL_CHUNK", 30)
    assert [(q.args[1], q.args[2]) for q in workers.submit(problem, None, rows=False).parts] == [
        (0, 30), (30, 60), (60, 80)]
