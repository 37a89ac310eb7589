"""Benchmark of `archgen render`: every shipped target in all formats, timed per target and format.

Writes bench/results/render.md. Times are also given as ratios to a baseline measured in the same run (the
pipeline run of specs/: load, validate, build, analyse, check), so results from different machines compare.
The issue's budget: rendering the GB200 NVL72 SU (all formats) in under 20 s on 2 cores.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from archgen.pipeline import run  # noqa: E402
from archgen.render import FORMATS, render_all, targets  # noqa: E402
from archgen.render.files import write_atomic  # noqa: E402

BUDGET_S = 20.0


def timed(func, repeat: int = 3) -> float:
    """Median wall time of `repeat` calls."""
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        func()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def main() -> None:
    """Time the baseline, then each target in all formats and each format alone; write the report."""
    os.chdir(REPO)
    baseline = timed(lambda: run([Path("specs")]))
    result = run([Path("specs")], scaling=True)  # documents show the growth series
    rows, per_format = [], []
    with tempfile.TemporaryDirectory() as tmp:
        found = targets(result)
        for t in found:
            s = timed(lambda t=t: render_all(result, tmp, target=t.id, formats=FORMATS, revision="bench",
                                             progress=False), repeat=1)
            rows.append((t.kind, t.id, s))
        focus = next((t for t in found if t.kind == "cluster" and "gb200" in t.id), None) or \
            next((t for t in found if t.kind == "cluster"), found[0])
        for f in FORMATS:
            s = timed(lambda f=f: render_all(result, tmp, target=focus.id, formats=(f,), revision="bench",
                                             progress=False), repeat=1)
            per_format.append((f, s))
    focus_s = next(s for _, tid, s in rows if tid == focus.id)
    lines = [
        "# Render benchmark", "",
        f"Machine: {os.cpu_count()} CPU(s), Python {sys.version.split()[0]}. Baseline (pipeline run of specs/, "
        f"median of 3): {baseline:.3f} s. Ratios are to that baseline.", "",
        "## Every target, all formats (md, html, pdf, xlsx, csv, svg, png)", "",
        "| kind | target | seconds | ratio to baseline |", "| --- | --- | ---: | ---: |",
        *[f"| {k} | {tid} | {s:.2f} | {s / baseline:.1f} |" for k, tid, s in rows], "",
        f"## One format at a time, target {focus.id}", "",
        "| format | seconds | ratio to baseline |", "| --- | ---: | ---: |",
        *[f"| {f} | {s:.2f} | {s / baseline:.1f} |" for f, s in per_format], "",
        f"Budget: {focus.id} in all formats under {BUDGET_S:.0f} s: {focus_s:.2f} s "
        f"({'within' if focus_s < BUDGET_S else 'OVER'} budget)."
        + ("" if "gb200" in focus.id else " No GB200 NVL72 SU cluster is shipped yet; the largest shipped cluster "
                                          "stands in for it."), "",
    ]
    path = write_atomic(REPO / "bench" / "results" / "render.md", "\n".join(lines).encode())
    print(path.read_text(encoding="utf-8"))
    if focus_s >= BUDGET_S:
        sys.exit(1)


if __name__ == "__main__":
    main()
