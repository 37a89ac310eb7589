"""Benchmark `archgen sweep`: points per second as arrays (`perf.explore.vectorised`) against one by one, in one run.

Run: `python bench/bench_sweep.py` (or `make bench`). Writes bench/results/sweep.md. The machines this runs on are
shared and noisy, so what counts are the ratios: batched against per point (both measured here, one after the other)
and against the pure-Python baseline of `bench_perf.py`. The sweeps are the shipped workloads with generated axes;
the large one has 100,080 points with the layout searched at each. `BENCH_MILLION=1` adds a 999,960-point sweep
(a sweep may have at most 10^6 points; about two minutes and 1.5 GB of rows on a 2-core machine), which
`make bench` leaves out by default. The process's malloc keeps freed memory for reuse, as `archgen sweep`'s does
(`startup.keep_freed_memory`), and what it made before the timings is frozen out of later collections, as the console
script's start-up is (`startup.resume_gc`). The two workers are `archgen sweep --workers 2`'s (`workers.executor`),
started as its are (`workers._worker_start`: frozen too). A plain pool's workers, as the bench had before workers39,
inherit this process's 94,000 objects unfrozen and examine them in each full collection: 0.20-0.24 CPU seconds per
worker on the 10^5-point row (gc.callbacks), 0.009 frozen, some 4 % of the busier worker's CPU charged to two workers.

The last column, batched points per 10^6 baseline ops, is per CPU second of both: the batched evaluation's CPU seconds
and the baseline loop's rate per CPU second (`bench_perf.baseline` on `time.process_time`, the median of three), so
that the load of other processes, which the wall clock counts against whichever of the two it hits, does not move it
(sweepslow, issue 25: on the wall clock it read 358.3, 696.7 and 426.8 in three sessions, the last with no work
added to the sweep; on a machine at load 7.5 the wall-clock baseline spread 1.9x over eight runs, the CPU one 1.06x).
To compare two checkouts, `python bench/compare_ab.py BASE --sweep`.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import platform
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

from bench_perf import baseline

from archgen.commands import sweep as sw
from archgen.commands import sweep_problems, workers
from archgen.perf.explore import points as per_point
from archgen.startup import keep_freed_memory

SPECS = Path(__file__).resolve().parent.parent / "specs"
TRAIN = """kind: Sweep
id: bench-train
workload: llama3-70b-pretrain-b200
max_points: 1000000
axes:
  accelerators: [128, 256, 512]
  precision: [bf16, fp8]
  hbm_bandwidth: {hbm}
  scale_out_bandwidth: [0.5, 1, 2, 4]
  peak: [1, 1.25, 1.5, 1.75, 2]
objectives: [{{metric: tokens_per_second}}, {{metric: energy_per_token}}]
"""
SERVE = """kind: Sweep
id: bench-serve
workload: llama3-70b-serve-b200
axes:
  tp: [1, 2, 4, 8]
  batch: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
  hbm_bandwidth: [0.8, 1, 1.25, 1.5, 2]
  input_len: [512, 2048, 8192]
objectives: [{metric: tokens_per_second_per_gpu}, {metric: tpot}]
"""


def levels(n: int) -> str:
    """`n` factors from 0.5 up, 0.05 apart."""
    return "[" + ", ".join(f"{0.5 + 0.05 * i:g}" for i in range(n)) + "]"


#: name, sweep text, whether to time the per-point path on it (the large sweep would take an hour that way)
SWEEPS = [
    ("training, layout searched (Llama 3.1 70B on DGX B200)", TRAIN.format(hbm=levels(2)), True),
    ("training, layout searched, 10^5 points", TRAIN.format(hbm=levels(834)), False),
    *([("training, layout searched, 10^6 points", TRAIN.format(hbm=levels(8333)), False)]
      if os.environ.get("BENCH_MILLION") == "1" else []),
    ("serving, tp and batch given (Llama 3.1 70B on DGX B200)", SERVE, True),
]


def process_cpu(pid: int) -> float:
    """User and system CPU seconds of process `pid` so far (Linux's /proc/<pid>/stat, fields 14 and 15)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(fn) -> float:
    """Seconds one call of `fn` takes."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def cpu_timed(fn) -> tuple[float, float]:
    """Wall and CPU seconds (of this process) one call of `fn` takes."""
    start, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - start, time.process_time() - cpu


def problem_of(text: str, tmp: str):
    """The sweep `text` on the shipped specs."""
    path = Path(tmp) / "sweep.yaml"
    path.write_text(text, encoding="utf-8")
    specs, clusters, sweeps = sw.load(path, [SPECS])
    return sweep_problems.problems(specs, clusters, sweeps)[0]


def memory(tmp: str) -> tuple[float, float, float]:
    """Bytes per point the rows of a 10,080-point training sweep keep, what is left, and the most held besides.

    What is left once the rows are dropped is what the evaluation caches (`commands.workers.PREPARED`'s layout sets,
    a bounded number of them), counted apart so that it is not charged to the rows.
    """
    problem = problem_of(TRAIN.format(hbm=levels(84)), tmp)
    tracemalloc.start()
    rows = workers.evaluate_all(problem, None).rows
    kept, peak = tracemalloc.get_traced_memory()
    count = len(rows)
    del rows
    left, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return (kept - left) / count, left, peak - kept


def main() -> str:
    """Measure, print and write `bench/results/sweep.md`; returns the table."""
    keep_freed_memory()  # as `archgen sweep` and its workers do (`archgen.startup`)
    load = os.getloadavg()[0]
    base = baseline()
    base_cpu = statistics.median(baseline(time.process_time) for _ in range(3))  # per CPU second: the last column
    rows = []
    pairs = []   # name; one worker's seconds, CPU s; two workers' seconds, each one's CPU s, the parent's; load
    reference = None
    with tempfile.TemporaryDirectory() as tmp:
        for name, text, slow in SWEEPS:
            problem = problem_of(text, tmp)
            per_point.evaluate(problem, 0, 2)  # warm both paths up (imports, caches) before timing
            small = dataclasses.replace(problem, axes={k: v[:1] for k, v in problem.axes.items()})
            # on the whole sweep where it is small, else (the 10^5 row, whose whole sweep would take as long again) on
            # its first level of each axis: this process and the workers alike, each then holding the same layout sets
            # prepared (`workers.PREPARED`), the workers forked first so that they do not inherit what the one worker's
            # timing prepares (the 240-point row read 2.3-2.4x with them forked after it); a worker may still meet a set
            # in its timed chunks that the other prepared, which counts against two workers, as in `archgen sweep`
            warm = problem if slow else small
            with workers.executor(2) as pool:  # `archgen sweep --workers 2`'s pool: workers started as its are
                workers.evaluate_all(warm, pool, 2)
                workers.evaluate_all(warm, None)
                gc.freeze()  # what start-up made left out of later collections, as the console script's (`resume_gc`)
                one = timed(lambda p=problem: per_point.evaluate(p, 0, p.size)) if slow else None
                if one is not None and problem.workload.training is not None:
                    reference = problem.size / one  # per-point rate of the searched training points
                batched, cpu = cpu_timed(lambda p=problem: workers.evaluate_all(p, None))
                pids = list(pool._processes)  # the workers, started: their CPU seconds read around the timing
                before, parent = [process_cpu(q) for q in pids], time.process_time()
                two = timed(lambda p=problem, pool=pool: workers.evaluate_all(p, pool, 2))
                each = [process_cpu(q) - b for q, b in zip(pids, before, strict=True)]
                parent = time.process_time() - parent
            per = problem.size / one if one else reference if problem.workload.training is not None else None
            rows.append((name, problem.size, per, problem.size / batched, batched, cpu,
                         problem.size / two, one is None, problem.workload.training is not None))
            pairs.append((name, batched, cpu, two, each, parent, os.getloadavg()[0]))
        per_row, cached, arrays = memory(tmp)
    lines = ["# Sweep benchmark", "",
             f"Generated by `python bench/bench_sweep.py` on {platform.python_implementation()} "
             f"{platform.python_version()}, {os.cpu_count()} CPUs, load average {load:.1f} before and "
             f"{os.getloadavg()[0]:.1f} after.",
             f"Baseline: {base / 1e6:.1f} M pure-Python multiply-adds per second in the same run, "
             f"{base_cpu / 1e6:.1f} M per CPU second (median of 3).", "",
             "Per point: `perf.explore.points.evaluate`, one estimate per point, the reference. Batched: the path "
             "`archgen sweep` takes (`perf.explore.vectorised`, with each chunk's tally: `perf.explore.tally`), which "
             "gives the same rows. Seconds follow the machine's load; the ratios and the CPU seconds much less. The "
             "last column is the batched path's points per CPU second over the baseline's multiply-adds per CPU "
             "second.", "",
             "| sweep | points | per point, points/s | batched, points/s | batched / per point | batched, s | "
             "batched, CPU s | batched, 2 workers, points/s | batched points per 10^6 baseline ops, CPU |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, n, per, fast, secs, cpu, two, extrapolated, training in rows:
        ratio = (f"{fast / per:,.1f}x" + (" (per point as above)" if extrapolated else "")) if per else "—"
        if not training:
            ratio = "1 (the same path)"
        lines.append(f"| {name} | {n:,} | {f'{per:,.0f}' if per and not extrapolated else '—'} | {fast:,.0f} | "
                     f"{ratio} | {secs:,.1f} | {cpu:,.1f} | {two:,.0f} | "
                     f"{n / cpu / base_cpu * 1e6:,.1f} |")
    lines += ["", "Two workers against one, each sweep's two timings one after the other in this run (issue 25's bar: "
              "at least 1.6x faster on two cores). This machine's two cores are shared with other work (the load "
              "average after each is given), so the wall clock shows what the load left. The CPU seconds tell "
              "what two idle cores would take: about the busier worker's and all of the parent's (which merges "
              "the chunks), against the one worker's.", ""]
    lines += [f"- {name}: one worker {one:,.1f} s ({cpu:,.1f} CPU s), two {two:,.1f} s: {one / two:.2f}x by the wall "
              f"clock (load {load:.1f}); CPU s of the two workers {' and '.join(f'{c:,.2f}' for c in each)}, of the "
              f"parent {parent:,.2f}: about {cpu / (max(each) + parent):.2f}x on two idle cores"
              for name, one, cpu, two, each, parent, load in pairs]
    lines += ["", f"Memory (10,080 training points, tracemalloc): the rows keep {per_row / 1e3:,.2f} kB per point; "
              f"the caches the evaluation fills keep {cached / 1e6:,.1f} MB, whatever the points (the layout sets "
              f"prepared, kept for a worker's later chunks); the evaluation holds at most {arrays / 1e6:,.0f} MB more "
              "while it runs."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    text = main()
    out = Path(__file__).resolve().parent / "results" / "sweep.md"
    out.write_text(text, encoding="utf-8")
    print(text)
