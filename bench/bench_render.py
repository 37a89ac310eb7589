"""Benchmark of `archgen render`: every shipped target in all formats, timed per target and format.

Writes bench/results/render.md. Times are also given as ratios to a baseline measured in the same run (the
pipeline run of specs/: load, validate, build, analyse, check), so results from different machines compare.
The issue's budget: rendering the GB200 NVL72 SU (all formats) in under 20 s on 2 cores.

At scale (issue 25, 82 s for 131k GPUs): the 131,072-GPU DGX B200 cluster of `bench_cluster.py`
(bench/specs/b200-131072: 512 SUs, two planes, 3 tiers) rendered in `archgen render`'s default formats (md, html,
csv, svg), its document, port map (about 400,000 cables) and run list, against the same baseline.
`python bench/bench_render.py scale` runs only that case and prints it.

Racks at scale (issue 25, 104 s for ~90,000 racks): the shipped GB300 NVL72 example at 8,182 scalable units
(90,002 racks, `tests/render/scaled.py`, its fabrics left out) rendered in the default formats against the same
baseline, with the issue's target of 10 s. `python bench/bench_render.py racks` runs only that case and prints it.
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
#: The cluster rendered at scale and what `archgen render` writes by default.
SCALE_GPUS, SCALE_FORMATS = 131_072, ("md", "html", "csv", "svg")


def at_scale(baseline: float) -> list[str]:
    """The 131,072-GPU cluster: its pipeline run and its render (once each), as report lines.

    Wall and CPU seconds, each as a ratio to the baseline's (its CPU time measured here): on cores shared with other
    work the CPU ratio is the steadier of the two.
    """
    sys.path.insert(0, str(REPO / "bench"))
    from bench_cluster import SHARED, write_spec

    base_cpu = statistics.median(_cpu(lambda: run([Path("specs")]))[1][1] for _ in range(3))
    paths = [write_spec(SCALE_GPUS), *SHARED]
    result, pipeline = _cpu(lambda: run(paths, scaling=True))
    target = f"bench-b200-{SCALE_GPUS}"
    with tempfile.TemporaryDirectory() as tmp:
        written, render = _cpu(lambda: render_all(result, tmp, target=target, formats=SCALE_FORMATS,
                                                  revision="bench", progress=False))
        size = sum(p.stat().st_size for p in written)
    return [f"## At scale: {target} ({SCALE_GPUS:,} GPUs), formats {', '.join(SCALE_FORMATS)}", "",
            f"Baseline CPU (median of 3): {base_cpu:.3f} s.", "",
            "| step | seconds | ratio to baseline | CPU seconds | CPU ratio to baseline |",
            "| --- | ---: | ---: | ---: | ---: |",
            *[f"| {step} | {wall:.2f} | {wall / baseline:.1f} | {cpu:.2f} | {cpu / base_cpu:.1f} |"
              for step, (wall, cpu) in (("pipeline run (scaling series)", pipeline),
                                        (f"render ({len(written)} files, {size / 1e6:.1f} MB)", render))], ""]


#: Issue 25's design: scalable units of the GB300 example (11 racks each) and the render's target in seconds.
RACK_SUS, RACK_TARGET_S = 8182, 10.0


def at_racks(baseline: float) -> list[str]:
    """The GB300 example at `RACK_SUS` SUs: its pipeline run and its render (once each), as report lines."""
    from tests.render.scaled import CLUSTER, RACKS_PER_SU, scaled_example

    base_cpu = statistics.median(_cpu(lambda: run([Path("specs")]))[1][1] for _ in range(3))
    with tempfile.TemporaryDirectory() as tmp:
        result, pipeline = _cpu(lambda: run([scaled_example(Path(tmp), RACK_SUS)], scaling=True))
        written, render = _cpu(lambda: render_all(result, Path(tmp) / "out", target=CLUSTER, formats=SCALE_FORMATS,
                                                  revision="bench", progress=False))
        size = sum(p.stat().st_size for p in written)
    total = pipeline[0] + render[0]
    return [f"## Racks at scale: {CLUSTER} x {RACK_SUS:,} SUs ({RACK_SUS * RACKS_PER_SU:,} racks, no fabrics), "
            f"formats {', '.join(SCALE_FORMATS)}", "",
            f"Baseline CPU (median of 3): {base_cpu:.3f} s.", "",
            "| step | seconds | ratio to baseline | CPU seconds | CPU ratio to baseline |",
            "| --- | ---: | ---: | ---: | ---: |",
            *[f"| {step} | {wall:.2f} | {wall / baseline:.1f} | {cpu:.2f} | {cpu / base_cpu:.1f} |"
              for step, (wall, cpu) in (("pipeline run (scaling series)", pipeline),
                                        (f"render ({len(written)} files, {size / 1e6:.1f} MB)", render))], "",
            f"Target (issue 25): pipeline and render under {RACK_TARGET_S:.0f} s: {total:.2f} s "
            f"({'met' if total < RACK_TARGET_S else 'NOT met'}).", ""]


def _cpu(func):
    """`func()`'s result, and its (wall, CPU) seconds."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = func()
    return out, (time.perf_counter() - w0, time.process_time() - c0)


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
    only = {"scale": at_scale, "racks": at_racks}.get(sys.argv[1] if len(sys.argv) == 2 else "")
    if only is not None:   # only that case, printed (bench/results/render.md is left as it is)
        print(f"Baseline (pipeline run of specs/, median of 3): {baseline:.3f} s.", *only(baseline), sep="\n")
        return
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
        *at_scale(baseline),
        *at_racks(baseline),
    ]
    path = write_atomic(REPO / "bench" / "results" / "render.md", "\n".join(lines).encode())
    print(path.read_text(encoding="utf-8"))
    if focus_s >= BUDGET_S:
        sys.exit(1)


if __name__ == "__main__":
    main()
