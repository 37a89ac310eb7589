"""Benchmark a 10^4-point sweep of `scale_up_bandwidth` on NVL72 racks: batched against point by point, same rows.

Run: `python bench/bench_sweep_switched.py [points per point]` (default 0: the batch only). gb200-nvl72-su links
its GPUs over a `link` part, so a point's bandwidth moves its links per accelerator and the switched domain's port
rule (`perf.explore.vectorised_sets.port_rule`); above x1 the cluster's 72 GPUs are refused (fewer ports, or more
links than the chip's 18), so 62 of the 100 bandwidth levels are invalid rows and 38 x 100 points are estimated.
Prints CPU seconds (of this process: the machines are shared and their wall time noisy) and, with an argument, the
per-point path's on the first that many points, whose rows it compares with the batch's.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections import Counter

from bench_sweep import problem_of

from archgen.perf.explore import points, vectorised

SWEEP = f"""kind: Sweep
id: bench-switched
workload: llama3-405b-pretrain-gb200
max_points: 1000000
axes:
  accelerators: [576]
  scale_up_bandwidth: {[round(0.25 + 0.02 * i, 2) for i in range(100)]}
  hbm_bandwidth: {[round(0.5 + 0.01 * i, 2) for i in range(100)]}
objectives:
  - {{metric: step_time, goal: min}}
"""


def main(one: int) -> None:
    """Time the batch on the whole sweep and, where `one` > 0, the per-point path on its first `one` points."""
    with tempfile.TemporaryDirectory() as tmp:
        problem = problem_of(SWEEP, tmp)
    cpu = time.process_time()
    rows = vectorised.evaluate(problem, 0, problem.size)
    print(f"batched: {problem.size:,} points, {time.process_time() - cpu:.2f} s CPU, "
          f"{dict(Counter(r.status for r in rows))}")
    if one:
        cpu = time.process_time()
        ref = points.evaluate(problem, 0, one)
        print(f"per point: {one:,} points, {time.process_time() - cpu:.2f} s CPU; rows equal: {ref == rows[:one]}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
