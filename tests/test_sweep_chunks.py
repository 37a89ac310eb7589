"""A sweep evaluated in chunks (issue 25 part 4): each chunk tallied where it was evaluated, and the chunks merged into
the result of all the rows, so that one worker and two write the same files to the byte."""

from __future__ import annotations

import dataclasses
import math
import random
import time

import numpy as np
import pytest

from archgen.commands import sweep as sw
from archgen.commands import workers
from archgen.perf.explore.front import best
from archgen.perf.explore.points import objectives, requirements, summarise
from archgen.perf.explore.problem import PointRow, SweepProblem
from archgen.perf.explore.tally import Rows, chunk, merge, tally
from archgen.perf.explore.vectorised import evaluate
from tests.conftest import SPECS, sweep_problems_of


@pytest.fixture(scope="module")
def problem() -> SweepProblem:
    """The shipped sweep 'DGX B200 against GB200 NVL72': categorical axes, hardware axes, a SHALL requirement."""
    return next(p for p in sweep_problems_of(SPECS / "sweeps" / "llama3-70b.yaml", [SPECS])
                if p.sweep.id == "llama3-70b-train-platforms")


def _rows(problem: SweepProblem, n: int, seed: int) -> list[PointRow]:
    """`n` rows of every outcome on the problem's points, with integer objectives: many ties, many dominated."""
    rng = random.Random(seed)
    goals = objectives(problem.sweep)
    reqs = [q.id for q in requirements(problem)]
    rows = []
    for i in range(n):
        values = problem.point(i % problem.size)
        kind = rng.random()
        if kind < 0.1:
            rows.append(PointRow(i, values, values["cluster"], "invalid", rng.choice(["tp 3", "too many"])))
            continue
        met = {q: rng.choice([True, False, None]) for q in reqs}
        k = rng.randint(0, 12)  # better on the maximised objectives, worse on the minimised ones: a wide front
        metrics = {m: float(k if up else k + rng.randint(0, 1)) for m, up in goals}
        if kind < 0.2:
            rows.append(PointRow(i, values, values["cluster"], "does not fit", "needs 212 GB", {}, {}, met, False))
            continue
        if kind < 0.25:
            metrics.pop(rng.choice(goals)[0])  # a metric missing: not plotted, never on the front
        rows.append(PointRow(i, values, values["cluster"], "ok", "", {"tp": 8}, metrics, met,
                             rng.random() < 0.8 and len(metrics) == len(goals)))
    return rows


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_chunks_merge_into_the_summary_of_all_rows(problem, seed):
    """The front of the chunks' fronts is the front of all points (ties kept), the best of their best points the best
    (the first on ties), and the tallies add up to the tally of all rows, plot columns in point order."""
    rows = _rows(problem, 3000, seed)
    whole = summarise(problem, rows)
    assert len(whole.front) > 3 and whole.counts()["invalid"] > 0
    rng = random.Random(seed)
    cuts = sorted({0, 1, 2, *rng.sample(range(3, len(rows)), 12), len(rows)})  # chunks of one row too
    for keep in ("list", "pickle"):
        got = merge(problem, [chunk(problem, rows[a:b], a, keep) for a, b in zip(cuts, cuts[1:], strict=False)])
        assert (got.front, got.best, got.counts()) == (whole.front, whole.best, whole.counts())
        t, u = tally(got), tally(whole)
        assert (t.met, t.reasons, t.fit.groups) == (u.met, u.reasons, u.fit.groups)
        for f in ("feasible", "catalogued", "group"):
            assert np.array_equal(getattr(t.fit, f), getattr(u.fit, f))
        for m in t.fit.values:
            assert np.array_equal(t.fit.values[m], u.fit.values[m], equal_nan=True)
            assert np.array_equal(t.fit.present[m], u.fit.present[m])
        assert isinstance(got.rows, Rows) and got.rows == rows and got.rows[-1] == rows[-1]
        assert [got.rows[i] for i in got.front] == [rows[i] for i in whole.front]


def test_a_result_whose_rows_are_replaced_is_tallied_again(problem):
    """A result's tally is the chunks' tally only while the rows are the chunks' rows."""
    rows = _rows(problem, 200, 4)
    got = merge(problem, [chunk(problem, rows, 0)])
    fewer = dataclasses.replace(got, rows=rows[:50])
    assert fewer.counts()["points"] == 50 and got.counts()["points"] == 200


def test_rows_not_kept_are_evaluated_again_when_read(problem):
    """A worker that keeps no rows (`keep="none"`, what `archgen sweep` asks for unless it writes a workbook) sends
    back the front and best points; reading another row evaluates its chunk again, to the same rows."""
    rows = evaluate(problem, 0, problem.size)
    got = merge(problem, [chunk(problem, rows[:5], 0, "none"), chunk(problem, rows[5:], 5, "none")])
    assert got.rows.kept and all(got.rows[i] == rows[i] for i in got.front)
    assert list(got.rows) == rows and got.counts() == summarise(problem, rows).counts()


@pytest.mark.slow
@pytest.mark.parametrize("text", [
    # training, searched: 4,200 points, chunks of at least 2,048 points (2,048 and 2,152)
    """kind: Sweep
id: t
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [128, 256, 512]
  precision: [bf16, fp8]
  hbm_bandwidth: [0.5, 0.75, 1, 1.25, 1.5, 1.75, 2]
  scale_out_bandwidth: [0.5, 1, 2, 4]
  peak: [0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 2.75, 3, 3.25, 3.5, 3.75, 4, 4.25, 4.5, 4.75, 5, 5.25, 5.5, 5.75,
         6, 6.25, 6.5]
objectives: [{metric: tokens_per_second}, {metric: energy_per_token}]
""",
    # serving, point by point: nine chunks
    """kind: Sweep
id: t
workload: llama3-70b-serve-b200
axes:
  tp: [2, 4, 8]
  batch: [1, 8, 64, 512]
  hbm_capacity: [1, 0.05]
objectives: [{metric: tokens_per_second_per_gpu}, {metric: tpot}]
"""])
def test_one_and_two_workers_write_the_same_files(tmp_path, text):
    path = tmp_path / "sweep.yaml"
    path.write_text(text, encoding="utf-8")
    files = []
    for n in (1, 2):
        printed, code = sw.sweep(path, [SPECS], workers=n, out=tmp_path / str(n), formats=("md", "csv", "svg"),
                                 fmt="json")
        out = tmp_path / str(n) / "t"
        files.append((code, printed.replace(str(tmp_path / str(n)), ""),
                      {p.name: p.read_bytes() for p in sorted(out.iterdir())}))
    assert files[0] == files[1]
    assert sorted(files[0][2]) == ["front.csv", "pareto.svg", "points.csv", "t.md"]



def test_guided_chunks_cover_the_points_once_and_shrink():
    """Each chunk a quarter of the points left with two workers (at least `least`): 10^5 training points in 13
    chunks, from 25,020 down to 2,048 and the rest."""
    for size, n, least in ((100080, 2, 2048), (600, 2, 4), (24, 2, 1), (7, 16, 1), (1, 2, 2048)):
        got = workers.guided(size, n, least)
        assert [a for a, _ in got] == [0, *(b for _, b in got[:-1])] and got[-1][1] == size
        sizes = [b - a for a, b in got]
        assert sizes == sorted(sizes, reverse=True) and min(sizes[:-1] or [least]) >= least
    assert [b - a for a, b in workers.guided(100080, 2, 2048)] == [25020, 18765, 14074, 10556, 7917, 5937, 4453,
                                                                   3340, 2505, 2048, 2048, 2048, 1369]
    assert workers.guided(10, 1, 10) == [(0, 10)] and workers.guided(0, 1, 0) == []  # no pool: one chunk, or none
    # each chunk rounded up to whole rows of 20 points (`row_stride`) but the last
    assert [b - a for a, b in workers.guided(100080, 2, 2048, 20)] == [25020, 18780, 14080, 10560, 7920, 5940, 4460,
                                                                       3340, 2500, 2060, 2060, 2060, 1300]
    # and, given the layout sets' 16,680 points (`set_stride`), ended at a set's edge where that keeps a chunk
    # between half and one and a half times its size: 13 chunks that cut no set, where the 13 above cut 5
    snapped = workers.guided(100080, 2, 2048, 20, 16680)
    assert [b - a for a, b in snapped] == [16680, 16680, 16680, 16680, 8340, 8340, 4180, 3140, 2340, 2060, 2060,
                                           2060, 840]
    assert all(b % 16680 == 0 or a // 16680 == (b - 1) // 16680 for a, b in snapped)
    assert [a for a, _ in snapped] == [0, *(b for _, b in snapped[:-1])] and snapped[-1][1] == 100080
    assert workers.guided(100080, 2, 2048, 20, 7) == workers.guided(100080, 2, 2048, 20)  # not whole rows: as before


#: The 10^5-point benchmark's sweep (bench/bench_sweep.py) with three HBM bandwidths: 360 points in 6 layout sets.
GRID = """kind: Sweep
id: grid
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [128, 256, 512]
  precision: [bf16, fp8]
  hbm_bandwidth: [0.5, 0.55, 0.6]
  scale_out_bandwidth: [0.5, 1, 2, 4]
  peak: [1, 1.25, 1.5, 1.75, 2]
objectives: [{metric: tokens_per_second}]
"""


def _here():
    """A pool class that evaluates each chunk as it is handed in and notes its range (in `ranges`, its own)."""
    from concurrent.futures import Future

    class Here:
        ranges: list[tuple[int, int]] = []

        def submit(self, fn, problem, a, b, *rest):
            self.ranges.append((a, b))
            done: Future = Future()
            done.set_result(fn(problem, a, b, *rest))
            return done

    return Here


def test_training_chunks_hold_whole_rows_of_the_points_grid(tmp_path, monkeypatch):
    """A worker's chunk ends at a multiple of `row_stride` (here 20 points: the scale-out x peak levels of one HBM
    bandwidth), so every batch of every chunk is worked out on the points' grid (`grid_hw`, never the flat batch
    that partial rows at a chunk's edges fell back to); the rows are those of one chunk."""
    from archgen.perf.explore import vectorised_bounds as vb  # where the batches call `grid_hw`
    from archgen.perf.explore.vectorised_grid import row_stride

    Here = _here()
    path = tmp_path / "sweep.yaml"
    path.write_text(GRID, encoding="utf-8")
    (p,) = sweep_problems_of(path, [SPECS])
    assert row_stride(p) == 20
    whole = workers.evaluate_all(p, None).rows
    flat, real = [], vb.grid_hw
    monkeypatch.setattr(vb, "grid_hw", lambda pts, take: real(pts, take) or flat.append(take))
    monkeypatch.setattr(workers, "MIN_CHUNK", 20)
    got = workers.evaluate_all(p, Here(), 2).rows
    assert flat == [], flat  # partial rows at the edges of 90, 68, 51, ... points would take the flat batch
    assert Here.ranges == [(0, 60), (60, 120), (120, 180), (180, 240), (240, 300), (300, 320), (320, 340),
                           (340, 360)]  # 100, 80, 60, ... points, ended at the edges of the 60-point layout sets
    assert list(got) == list(whole)


def test_chunks_smaller_than_a_row_hold_whole_blocks_of_its_last_axes(tmp_path, monkeypatch):
    """Where a row (20 points) is larger than the least chunk (here 8), the chunks end at multiples of the largest
    block of the grid's last axes that is not (the 5 peak levels of one scale-out bandwidth: `row_stride`), so their
    batches still take the grid (`grid_hw`), not the flat batch of partial blocks; the rows are those of one chunk."""
    from archgen.perf.explore import vectorised_bounds as vb  # where the batches call `grid_hw`
    from archgen.perf.explore.vectorised_grid import row_stride

    Here = _here()
    path = tmp_path / "sweep.yaml"
    path.write_text(GRID, encoding="utf-8")
    (p,) = sweep_problems_of(path, [SPECS])
    assert (row_stride(p), row_stride(p, 20), row_stride(p, 8), row_stride(p, 4)) == (20, 20, 5, 1)
    whole = workers.evaluate_all(p, None).rows
    flat, real = [], vb.grid_hw
    monkeypatch.setattr(vb, "grid_hw", lambda pts, take: real(pts, take) or flat.append(take))
    monkeypatch.setattr(workers, "MIN_CHUNK", 8)
    got = workers.evaluate_all(p, Here(), 2).rows
    assert flat == [], flat
    assert [b - a for a, b in Here.ranges] == [60, 60, 60, 60, 30, 30, 15, 15, 10, 10, 10]  # 90, 68, 51, ... unaligned,
    # then at the edges of the 60-point layout sets where a chunk cut one
    assert list(got) == list(whole)


def test_a_training_sweep_of_small_layout_sets_is_shared_in_whole_sets(tmp_path):
    """Sets of 60 points, under MIN_CHUNK, their axes first: the workers get chunks of whole sets (a batch never holds
    two sets' points, so each has the batches of one process), not the sweep as one chunk for one worker; with a set's
    points spread over the sweep (an axis that tells sets apart after a vector axis) it stays one chunk."""
    from archgen.perf.api import set_size, set_stride

    path = tmp_path / "sweep.yaml"
    path.write_text(GRID, encoding="utf-8")
    (p,) = sweep_problems_of(path, [SPECS])
    assert (p.size, set_stride(p), set_size(p)) == (360, 60, 60) and workers.MIN_CHUNK > 60
    Here = _here()
    got = workers.evaluate_all(p, Here(), 2).rows
    assert Here.ranges == [(0, 120), (120, 180), (180, 240), (240, 300), (300, 360)]  # 90, 60, 45, ... rounded up
    assert list(got) == list(workers.evaluate_all(p, None).rows)
    path.write_text(GRID.replace("  accelerators: [128, 256, 512]\n", "").replace(
        "  scale_out_bandwidth:", "  accelerators: [128, 256, 512]\n  scale_out_bandwidth:"), encoding="utf-8")
    (p,) = sweep_problems_of(path, [SPECS])
    assert (p.size, set_stride(p), set_size(p)) == (360, 20, 60)
    Here = _here()
    workers.evaluate_all(p, Here(), 2)
    assert Here.ranges == [(0, 360)]


def test_a_nan_metric_is_no_ones_best_so_the_chunks_best_is_the_best():
    """`min` over NaN depends on the order: a NaN first would be "best" of one chunk and not of the whole."""
    def row(i, v):
        return PointRow(i, {}, "c", "ok", "", {}, {"m": v}, {}, True)
    rows = [row(0, math.nan), row(1, 3.0), row(2, 1.0), row(3, math.nan)]
    assert best(rows, "m", maximise=False) == 2
    assert best(rows, "m", maximise=True) == 1
    assert best(rows[:1], "m", maximise=False) is None


def test_a_chunk_that_fails_cancels_the_chunks_not_started(tmp_path, monkeypatch):
    """`evaluate_all` on a caller's pool: the first chunk's error is raised and the chunks no worker took are
    cancelled (`Pending`'s `with` block), so the pool does not evaluate them for nothing."""
    from concurrent.futures import Future

    class Stuck:  # a pool whose first chunk fails and whose other chunks no worker has taken
        futures: list[Future] = []

        def submit(self, *args):
            got: Future = Future()
            if not self.futures:
                got.set_exception(ValueError("the first chunk failed"))
            self.futures.append(got)
            return got

    path = tmp_path / "sweep.yaml"
    path.write_text(GRID, encoding="utf-8")
    (p,) = sweep_problems_of(path, [SPECS])
    monkeypatch.setattr(workers, "MIN_CHUNK", 20)  # 8 chunks (`test_training_chunks_hold_whole_rows...`)
    with pytest.raises(ValueError, match="the first chunk failed"):
        workers.evaluate_all(p, Stuck(), 2)
    assert len(Stuck.futures) == 8 and all(f.cancelled() for f in Stuck.futures[1:])


def _held(*args):
    """A chunk that takes a minute: what the workers of `test_an_error_beside_the_workers_ends_them` run."""
    time.sleep(60)
    raise AssertionError("a chunk ran to its end")


def test_an_error_beside_the_workers_ends_them_without_waiting(tmp_path, monkeypatch):
    """An error in the parent while two worker processes evaluate (here the checks, which run beside them) reaches
    the caller at once: the chunks not started are cancelled and the workers running the others ended
    (`workers.executor`), not waited for (a minute each here)."""

    class Broken(Exception):
        pass

    def failing(*analysed, **options):   # `judged(*analysed, as_of=...)`
        raise Broken("a check failed")

    handed: list = []
    forked: list = []

    def submit(*args):
        handed.append(workers.submit(*args))
        forked.extend(args[1]._processes.values())  # the pool's workers, forked at its first chunk
        return handed[-1]

    path = tmp_path / "sweep.yaml"
    path.write_text(GRID, encoding="utf-8")
    monkeypatch.setattr(workers, "cpu_count", lambda: 2)  # two worker processes, whatever this machine has
    monkeypatch.setattr(workers, "MIN_CHUNK", 20)         # 8 chunks (`test_training_chunks_hold_whole_rows...`)
    monkeypatch.setattr(workers, "evaluate_chunk", _held)
    monkeypatch.setattr(sw, "submit", submit)
    monkeypatch.setattr(sw, "judged", failing)
    started = time.monotonic()
    with pytest.raises(Broken, match="a check failed"):
        sw.evaluate_sweeps(path, [SPECS], workers=2)
    assert time.monotonic() - started < 30
    [pending] = handed
    assert len(pending.parts) == 8
    # at most two chunks running and three in the pool's call queue (CPython's ProcessPoolExecutor holds
    # max_workers + EXTRA_QUEUED_CALLS = 3 there besides the ones its workers took, and a queued one cannot be
    # cancelled); the rest cancelled. ">= 5" failed under load, once the workers had taken theirs and the queue refilled
    assert sum(f.cancelled() for f in pending.parts) >= 3
    # the pool's own workers ended (not "no new child": a process another test's pool left behind could be counted)
    assert len(forked) == 2 and not any(process.is_alive() for process in forked)


def test_a_worker_prepares_a_layout_set_once_for_all_its_chunks(tmp_path, monkeypatch):
    """A worker gets each chunk's problem pickled anew; the layout sets it prepared for an earlier chunk are found
    by the problem's content (`workers.PREPARED`), so three chunks of one set prepare it once, and give the rows of
    one chunk. Another problem (the sweep with other HBM levels) prepares its own."""
    import pickle

    from archgen.cache import Memo
    from archgen.perf.explore import vectorised_sets

    calls = []
    real = vectorised_sets.prepare
    monkeypatch.setattr(vectorised_sets, "prepare", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(workers, "PREPARED", Memo(8))
    path = tmp_path / "sweep.yaml"
    path.write_text(GRID, encoding="utf-8")
    (p,) = sweep_problems_of(path, [SPECS])  # 6 layout sets of 60 points each

    def sent(problem):  # what a worker process gets
        return pickle.loads(pickle.dumps(problem, pickle.HIGHEST_PROTOCOL))

    parts = [workers.evaluate_chunk(sent(p), a, b, keep="list")[0].rows for a, b in ((0, 20), (20, 40), (40, 60))]
    assert len(calls) == 1
    assert [r for rows in parts for r in rows] == evaluate(p, 0, 60)  # prepared anew, no cache
    assert len(calls) == 2
    path.write_text(GRID.replace("[0.5, 0.55, 0.6]", "[0.5, 0.55]"), encoding="utf-8")
    (q,) = sweep_problems_of(path, [SPECS])
    workers.evaluate_chunk(sent(q), 0, 20)
    assert len(calls) == 3


def _tracked() -> int:
    """Objects the cyclic collector examines in this process (the frozen ones are not)."""
    import gc
    return len(gc.get_objects())


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="workers are forked on Linux only")
def test_a_worker_leaves_the_objects_it_was_forked_with_out_of_its_collections():
    """`workers._worker_start` freezes what the worker inherits: its full collections do not examine (and copy the
    pages of) the parent's objects, here 50,000 lists made before the pool forked."""
    held = [[] for _ in range(50_000)]  # lists: the collector tracks every one (not an empty dict)
    with workers.executor(2) as pool:
        assert pool is not None
        assert pool.submit(_tracked).result() < len(held)
    assert _tracked() > len(held)
