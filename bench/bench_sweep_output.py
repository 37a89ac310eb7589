"""Benchmark `archgen sweep` end to end: where a sweep's time goes, and what `--workers 2` gains (issue 25 part 4).

Run: `python bench/bench_sweep_output.py [points]` (default 100,080; `make bench` runs it too, a few minutes: it
holds issue 25's `--workers 2` bar). Writes
bench/results/sweep_output.md. In one process: the CPU seconds of each stage of one worker's sweep, split into what
each worker does for its chunks (evaluate, write their lines of points.csv, tally them and find their Pareto front:
`commands.workers.evaluate_chunk`; with more than one worker and an xlsx workbook, also pickle the rows), what
the parent process does alone (load and analyse the specs, merge the chunks, the document and plot, write the
files) and what it does while the workers evaluate (the workload estimates, operations and checks of the specs).
The serial share s of those CPU seconds bounds what two workers can gain (Amdahl): 1 / (s + (1 - s) / 2). Then the
cell-by-cell CSV
(`tables.csv_bytes` of the table of points, one pint quantity per cell: the writer before) on the first 10,080 rows,
for the ratio. Then the whole command (`commands.sweep.sweep`) with 1 and 2 workers, and with 2 workers that prepare
each layout set once per chunk instead of once per worker process (`commands.workers.PREPARED` holding none: the
code before the per-worker cache), alternating, `ROUNDS` times each: wall clock, the parent's CPU seconds and its
workers', the layout sets prepared (counted through the forked workers, so on Linux) and the load average before
each run. The machines this runs on are shared: the wall-clock ratio is only as good as the machine was idle, the
CPU seconds much less noisy. The
process's malloc keeps freed memory for reuse, as `archgen sweep`'s and its workers' do
(`startup.keep_freed_memory`).

What the comparison leaves out, either way (docs/sweeps.md, Speed): the one-worker sweep runs in this warm process,
whose memory earlier rounds faulted in, while each two-worker run forks fresh workers that fault theirs anew (some
50,000 more page faults; a console-script run of one worker pays its own); and no run pays the console script's
start-up (0.65 CPU seconds of imports before the pool can fork), which is serial whatever the workers.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import platform
import resource
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bench_sweep import TRAIN, levels

from archgen.cache import Memo
from archgen.commands import sweep as sw
from archgen.commands import sweep_problems
from archgen.commands import workers as workers_module
from archgen.perf.explore import vectorised_sets
from archgen.perf.explore.tally import chunk, merge
from archgen.perf.explore.vectorised import evaluate
from archgen.pipeline import judged
from archgen.render import tables
from archgen.render.files import write_atomic
from archgen.render.point_table import csv_text
from archgen.render.sweep import points_table, provenance_of, render_sweep
from archgen.startup import keep_freed_memory

SPECS = Path(__file__).resolve().parent.parent / "specs"
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
#: Name of the two-worker runs as `archgen sweep` makes them (each worker prepares a layout set once).
ONE_PER_WORKER = "2 workers"
#: The command's runs, alternating: name, workers and whether each chunk prepares its layout sets (as before
#: `commands.workers.PREPARED`).
VARIANTS = {"1 worker": (1, False), ONE_PER_WORKER: (2, False), "2 workers, sets prepared per chunk": (2, True)}
#: Who runs a stage the parent process runs while its workers evaluate.
BESIDE = "parent, beside the workers"


def stages(path: Path) -> list[tuple[str, float, str]]:
    """CPU seconds of each stage of one worker's sweep of `path`, in this process, and who runs it."""
    clock = time.process_time
    a = clock()
    analysed, sweeps = sw.analyse(path, [SPECS])
    specs = analysed.specs
    problem = sweep_problems.problems(specs, analysed.clusters, sweeps)[0]
    a2 = clock()
    judged(*analysed)
    b = clock()
    rows = evaluate(problem, 0, problem.size)
    c = clock()
    text = csv_text(problem, rows)
    d = clock()
    part = chunk(problem, rows, 0)
    e = clock()
    pickle.dumps(rows, pickle.HIGHEST_PROTOCOL)
    e2 = clock()
    result = merge(problem, [part])
    f = clock()
    revision, digest = provenance_of(specs, result)
    files = render_sweep(result, ("md", "csv", "svg"), None, revision, digest, points_csv=text)
    g = clock()
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in sorted(files.items()):
            write_atomic(Path(tmp) / name, data)
    h = clock()
    some = rows[:10080]
    old = tables.csv_bytes(points_table(result, some, "points", "Every point"))
    i = clock()
    assert old == csv_text(problem, some).encode("utf-8")
    return [("points", problem.size, ""), ("load and analyse the specs", a2 - a, "parent"),
            ("workload estimates, operations and checks of the specs", b - a2, BESIDE),
            ("evaluate", c - b, "workers"), ("points.csv from columns", d - c, "workers"),
            ("tally, Pareto front and best points of the chunk", e - d, "workers"),
            ("pickle the rows (more than one worker, an xlsx workbook asked for)", e2 - e, "workers, 2+"),
            ("merge the chunks", f - e2, "parent"), ("document, plot and front.csv", g - f, "parent"),
            ("write the files", h - g, "parent"),
            (f"cell-by-cell CSV of {len(some):,} rows (before)", i - h, ""),
            (f"columnar CSV of {len(some):,} rows, estimated", (d - c) * len(some) / len(rows), "")]


#: Layout sets prepared (`perf.explore.vectorised_sets.prepare`) by this process and the workers it forks.
SETS = multiprocessing.Value("l", 0)


def _counted(prepare):
    """`prepare`, counting its calls in `SETS`."""
    def counted(*args):
        with SETS.get_lock():
            SETS.value += 1
        return prepare(*args)
    return counted


def command(path: Path, workers: int, out: Path, per_chunk: bool = False) -> tuple[float, float, float, float, int]:
    """`archgen sweep path --workers N`: wall s, CPU s here and in its workers, the load before, the sets prepared.

    With `per_chunk`, each chunk prepares its layout sets (no per-worker cache).
    """
    load = os.getloadavg()[0]
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    sets = SETS.value
    kept = workers_module.PREPARED
    workers_module.PREPARED = Memo(0) if per_chunk else Memo(kept.size)  # forked with each run's pool
    cpu = time.process_time()
    start = time.perf_counter()
    try:
        sw.sweep(path, [SPECS], workers=workers, out=out, max_points=1_000_000)   # its 100,080 points: past the default
    finally:
        workers_module.PREPARED = kept
    wall = time.perf_counter() - start
    done = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (wall, time.process_time() - cpu,
            done.ru_utime + done.ru_stime - kids.ru_utime - kids.ru_stime, load, SETS.value - sets)


def _spin(n: int = 4_000_000) -> float:
    """CPU seconds of a plain Python loop of `n` multiply-adds in this process (bench_perf's baseline loop)."""
    start = time.process_time()
    x = 0.0
    for i in range(n):
        x = x * 0.5 + i
    return time.process_time() - start


def pair_slowdown(rounds: int = ROUNDS) -> float:
    """CPU of the same loop in each of two processes running at once, over one process alone (least of rounds).

    Two busy processes on this machine's two CPUs each run slower than one alone where the CPUs share a core or the
    host is busy; `--workers 2` cannot beat 2 over that factor, whatever the sweep does.
    """
    alone, pair = [], []
    with ProcessPoolExecutor(max_workers=2) as pool:
        list(pool.map(_spin, [100_000] * 2))  # both started
        for _ in range(rounds):
            alone.append(pool.submit(_spin).result())
            pair.append(max(pool.map(_spin, [4_000_000] * 2)))
    return min(pair) / min(alone)


def main(points: int) -> str:
    """Measure, print and write `bench/results/sweep_output.md`; returns the text."""
    keep_freed_memory()  # as `archgen sweep` and its workers do (`archgen.startup`)
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sweep.yaml"
        text = TRAIN.format(hbm=levels(max(1, points // 120)))
        path.write_text(text, encoding="utf-8")
        got = stages(path)
        slow = pair_slowdown()
        vectorised_sets.prepare = _counted(vectorised_sets.prepare)
        runs: dict[str, list[tuple[float, float, float, float, int]]] = {v: [] for v in VARIANTS}
        for _ in range(ROUNDS):
            for v, (n, per_chunk) in VARIANTS.items():
                runs[v].append(command(path, n, Path(tmp) / f"out{n}", per_chunk))
    after = os.getloadavg()[0]
    n = int(got[0][1])
    named = {name: secs for name, secs, _ in got}
    serial = sum(secs for _, secs, who in got if who == "parent")
    parallel = sum(secs for _, secs, who in got if who in ("workers", BESIDE))
    share = serial / (serial + parallel)
    lines = ["# Sweep output benchmark", "",
             f"Generated by `python bench/bench_sweep_output.py {n}` on {platform.python_implementation()} "
             f"{platform.python_version()}, {os.cpu_count()} CPUs, load average {load:.1f} before and {after:.1f} "
             "after.", "", f"One worker, {n:,} points, CPU seconds per stage, and who runs it with more than one "
             "worker (each worker for its chunks, the parent process alone, or the parent while the workers "
             "run: `commands.sweep.evaluate_sweeps`, counted with the workers' share):", "",
             "| stage | CPU s | runs in |", "|---|---:|---|"]
    lines += [f"| {name} | {secs:,.2f} | {who} |" for name, secs, who in got[1:] if who]
    lines += [f"| one worker's sweep, all stages | {serial + parallel:,.2f} | |", "",
              f"Serial share s = {serial:,.2f} / {serial + parallel:,.2f} = {share:.3f}: two workers can be at most "
              f"1 / (s + (1 - s) / 2) = {1 / (share + (1 - share) / 2):.2f}x faster than one (Amdahl), before the "
              "cost of starting them (and of pickling the rows, "
              f"{named['pickle the rows (more than one worker, an xlsx workbook asked for)']:.2f} s shared by the "
              "workers, where a workbook is asked for).", ""]
    lines += ["| cell-by-cell CSV | CPU s |", "|---|---:|"]
    lines += [f"| {name} | {secs:,.2f} |" for name, secs, who in got[1:] if not who]
    lines += ["", f"Cell-by-cell CSV / columnar CSV: {got[-2][1] / got[-1][1]:,.0f}x.", "",
              f"`archgen sweep`, {ROUNDS} alternating rounds (wall s; CPU s of the parent + of its workers; layout "
              "sets prepared; load average before the run):", ""]
    for v, got_v in runs.items():
        lines.append(f"- {v}: " + "; ".join(f"{wall:.1f} s ({cpu:.1f} + {kids:.1f} CPU s, {sets} sets, load {ld:.1f})"
                                             for wall, cpu, kids, ld, sets in got_v))
    one, two, old = (min(r[0] for r in runs[v]) for v in VARIANTS)
    cpu1, cpu2, cpu_old = (min(r[1] + r[2] for r in runs[v]) for v in VARIANTS)
    parent2 = min(r[1] for r in runs[ONE_PER_WORKER])
    lines += ["", f"Best of each: 2 workers {one / two:.2f}x faster than 1 by the wall clock ({one / old:.2f}x when "
              f"each chunk prepares its sets). CPU seconds: one worker {cpu1:.1f}, two workers {cpu2:.1f} in all "
              f"({cpu_old:.1f} when each chunk prepares its sets), of which the parent {parent2:.1f}; on two idle "
              f"cores two workers would take about {parent2 + (cpu2 - parent2) / 2:.1f} s, "
              f"{cpu1 / (parent2 + (cpu2 - parent2) / 2):.2f}x faster than one.", "",
              f"This machine: a plain Python loop in each of two processes at once takes {slow:.2f}x the CPU of one "
              f"alone (`pair_slowdown`), so two workers can be at most {2 / slow:.2f}x faster than one here, and "
              f"with the serial share s above at most 1 / (s + (1 - s) x {slow:.2f} / 2) = "
              f"{1 / (share + (1 - share) * slow / 2):.2f}x. Measured, {one / two:.2f}x: "
              f"{one / two * (share + (1 - share) * slow / 2):.2f} of that ceiling."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    text = main(int(sys.argv[1]) if len(sys.argv) > 1 else 100080)
    out = Path(__file__).resolve().parent / "results" / "sweep_output.md"
    out.write_text(text, encoding="utf-8")
    print(text)
