"""The performance section of a cluster document: each workload's targets against its estimate, the step-time
breakdown, memory per accelerator, the elasticities to hardware parameters, and the conventions used.

Values come from `archgen.perf` (via `Run.workloads`); this module only lays them out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from matplotlib.figure import Figure as MplFigure

from archgen.render import fmt
from archgen.render.blocks import Bullets, Column, Figure, Para, Section, Table

#: Display unit of each performance metric.
UNITS = {"step_time": "s", "ttft": "ms", "tpot": "ms", "tflops_per_gpu": "TFLOPS", "memory_per_gpu": "GB",
         "memory_headroom": "GB", "tokens_per_second": "1/s", "tokens_per_second_per_gpu": "1/s",
         "tokens_per_second_per_rack": "1/s", "busbw": "GB/s"}


def workloads_for(run: Any, cluster_id: str) -> list[Any]:
    """The workloads of `run` that run on cluster `cluster_id`, by id."""
    results = getattr(run, "workloads", {}) or {}
    return [r for _, r in sorted(results.items()) if r.workload.cluster == cluster_id]


def section(results: list[Any]) -> Section | None:
    """One subsection per workload; None when the cluster has no workload."""
    if not results:
        return None
    top = Section("performance", "Performance").add(Para(
        "Estimates of archgen's analytic model (docs/perf-model.md) on this cluster's accelerators, scale-up domain "
        "and compute fabric. Its accuracy against published measurements is in docs/accuracy.md."))
    for r in results:
        w, e = r.workload, r.estimate
        sub = top.sub(f"perf-{fmt.slug(w.id)}", w.name or w.id)
        if w.description:
            sub.add(Para(w.description))
        if e is None:
            sub.add(Para(f"Not estimated: {r.error}", "note"))
            continue
        layout = ", ".join(f"{k}={v}" for k, v in e.layout.items())
        sub.add(Para(f"{e.kind.capitalize()} on {e.gpus:,} × {e.accelerator}; layout {layout}. "
                     f"{'Fits' if e.fits else 'Does not fit'} in accelerator memory."))
        outcomes = {o.requirement.metric: o for o in e.requirements}
        rows = []
        for name, value in sorted(e.metrics.items()):
            o = outcomes.get(name)
            status = "" if o is None else ("pass" if o.met else "fail" if o.met is False else "n/a")
            digits = 3 if value.dimensionless else 0 if name.startswith("tokens") or name == "concurrency" else 2
            rows.append((name, fmt.q(value, UNITS.get(name), digits), str(o.requirement.target) if o else "",
                         o.requirement.id if o else "", status))
        sub.add(Table(f"perf-metrics-{fmt.slug(w.id)}", "Estimates and targets",
                      (Column("Metric"), Column("Estimate", align="right"), Column("Target"), Column("Requirement"),
                       Column("Status")), tuple(rows), status_column=4))
        total = sum((v for v in e.breakdown.values()), start=0 * next(iter(e.breakdown.values())))
        sub.add(Table(f"perf-breakdown-{fmt.slug(w.id)}", "Time breakdown",
                      (Column("Component"), Column("Time", "ms", 2, "right"), Column("Share", align="right")),
                      tuple((k, v, fmt.pct(float(v / total) if total.magnitude else None, 1))
                            for k, v in e.breakdown.items())))
        sub.add(Figure(f"fig-perf-{fmt.slug(w.id)}", f"perf-{fmt.slug(w.id)}", "Time breakdown"))
        sub.add(Table(f"perf-memory-{fmt.slug(w.id)}", "Memory per accelerator",
                      (Column("Component"), Column("Memory", "GB", 2, "right")), tuple(e.memory.items())))
        if e.sensitivity:
            sub.add(Table(f"perf-sensitivity-{fmt.slug(w.id)}",
                          "Elasticity to each hardware parameter (d ln metric / d ln parameter)",
                          (Column("Parameter"), Column("Elasticity", digits=3, align="right")),
                          tuple(sorted(e.sensitivity.items(), key=lambda kv: -abs(kv[1])))))
        notes = list(e.notes) + [f"{k}: {v}" for k, v in sorted(e.conventions.items())]
        if notes:
            sub.add(Bullets(tuple(notes)))
    return top


def figures(results: list[Any]) -> dict[str, Callable[[], MplFigure]]:
    """A waterfall of the time breakdown for each estimated workload."""
    return {f"perf-{fmt.slug(r.workload.id)}": (lambda r=r: waterfall(r.estimate, r.workload.id))
            for r in results if r.estimate is not None}


def waterfall(e: Any, title: str) -> MplFigure:
    """Step (or request) time built up component by component, largest first."""
    items = [(k, fmt.magnitude(v, "ms")) for k, v in e.breakdown.items() if fmt.magnitude(v, "ms")]
    fig = MplFigure(figsize=(7.0, 0.35 * len(items) + 1.0))
    ax = fig.subplots()
    left = 0.0
    for i, (name, ms) in enumerate(items):
        ax.barh([i], [ms], left=[left], color="#5b8fd6", edgecolor="#333333", linewidth=0.4)
        ax.text(left + ms, i, f" {fmt.number(ms, 1)} ms", va="center", fontsize=7)
        left += ms
    ax.set_yticks(range(len(items)), [name for name, _ in items])
    ax.invert_yaxis()
    ax.set_xlabel("ms")
    ax.set_xlim(0, left * 1.2 or 1)
    ax.set_title(f"{title}: time breakdown ({fmt.number(left, 1)} ms)", loc="left")
    fig.tight_layout()
    return fig
