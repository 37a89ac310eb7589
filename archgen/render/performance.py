"""The performance section of a cluster document.

For each workload: its targets against its estimate, the step-time breakdown, the roofline of one layer's
kernels (`render.roofline`), memory per accelerator, the elasticities to hardware parameters, and the conventions
used.

Values come from `archgen.perf` (via `Run.workloads`: `WorkloadResult.estimate` and `.roofline`); this module only
lays them out.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from matplotlib.figure import Figure as MplFigure
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

from archgen import display, metrics
from archgen.analyse.job_energy import AT_AVERAGE, AT_MAXIMUM, ENERGY_SHARE
from archgen.model.unsettled import ALSO, lower_bounded
from archgen.perf.train.stacks import Used, by_origin
from archgen.perf.workload.cluster import COLLECTIVE_LIBRARY
from archgen.perf.workload.derived import band_ends
from archgen.perf.workload.estimate_result import BREAKDOWN_TITLES
from archgen.perf.workload.upper_bounds import TCO_SHARED
from archgen.render import alt_text, fmt, palette
from archgen.render.blocks import Bullets, Column, Figure, Para, Section, Table
from archgen.render.compliance import status_cell
from archgen.render.fits import fits_text, shown
from archgen.render.roofline import roofline, roofline_blocks
from archgen.units import Q_

#: The energies at maximum draw that `Operations.unsettled` holds as upper bounds (None their other end).
ENERGY_BOUNDS = (*AT_MAXIMUM, *AT_AVERAGE)


def workloads_for(run: Any, cluster_id: str) -> list[Any]:
    """The workloads of `run` that run on cluster `cluster_id`, by id."""
    results = getattr(run, "workloads", {}) or {}
    return [r for _, r in sorted(results.items()) if r.workload.cluster == cluster_id]


def section(results: list[Any], unsettled: dict[str, dict[str, Any]] | None = None) -> Section | None:
    """One subsection per workload; None when the cluster has no workload.

    `unsettled` (`Operations.unsettled`, by workload path): an energy there at maximum draw is shown as the upper
    bound it is (`analyse.job_energy.upper_bounds`), not as a point value.
    """
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
        fits = "" if not e.memory else fits_text(e)
        if not e.layout:                          # no layout fits: nothing below is a step of this job
            layout, fits = "none", f" Does not fit in accelerator memory: {e.misfit or 'no layout fits'}."
        sub.add(Para(f"{e.kind.capitalize()} on {e.accelerators:,} × {e.accelerator}; layout {layout}.{fits}"))
        if r.switches:
            sub.add(Para(stack_text(r.switches, w.id)))
        if e.hardware:
            sub.add(Table(f"perf-hardware-{fmt.slug(w.id)}", "Hardware per accelerator the estimate ran on",
                          (Column("Parameter"), Column("Value", align="right")),
                          tuple((k, fmt.hardware_value(k, v) + e.hardware_mark(k)) for k, v in e.hardware.items())))
        outcomes = {o.requirement.metric: o for o in e.requirements or ()}
        held = [(n.removesuffix(ALSO), q, why) for n, (q, why) in (unsettled or {}).get(r.path, {}).items()]
        bounds = {n: why for n, q, why in held if n in ENERGY_BOUNDS and q is None}   # beside another end too
        shared = {n: why for n, _, why in held if n in TCO_SHARED and why.startswith(ENERGY_SHARE)}   # its cost
        lower = {n: why for n, why in lower_bounded((unsettled or {}).get(r.path, {})).items()   # cost31: a cost
                 if n in e.metrics and not n.endswith(("_low", "_high"))}   # on such capex; its Band the same
        ranged = display.ranged(e.metrics, outcomes)
        rows = []
        for name, value in sorted(e.metrics.items()):
            if any(name in ends for ends in ranged.values()) or name.endswith(display.CI_ENDS):
                continue                          # shown as the Band of the metric, or beside its estimate
            o = outcomes.get(name)
            status = "" if o is None else status_cell(o, why=True)
            both = band_ends(e.bands[name], value, e.metrics, name) if name in ranged and name in e.bands else None
            ends = both or ((e.metrics[ranged[name][0]], e.metrics[ranged[name][1]]) if name in ranged else None)
            band = f"{shown(ends[0], name)} to {shown(ends[1], name)}" if ends is not None else \
                _band_cell(e.bands.get(name), value, name)
            rows.append((name, shown(value, name) + (" (upper bound)" if name in bounds else "")
                         + (" (lower bound)" if name in lower else ""), band,
                         fmt.target_text(o.requirement.target, metrics.find("workload", name)) if o else "",
                         o.requirement.id if o else "", status))
        sub.add(Table(f"perf-metrics-{fmt.slug(w.id)}", "Estimates, error bands and targets",
                      (Column("Metric"), Column("Estimate", align="right"), Column("Band", align="right"),
                       Column("Target"), Column("Requirement"), Column("Status")), tuple(rows), status_column=5))
        if counted := [f"{k} {shown(lo, k)} to {shown(hi, k)}" for k, lo, hi in display.counted_intervals(e.metrics)]:
            sub.add(Para("The 95 % interval of the rate set's own failure counts (Garwood's exact Poisson interval; "
                         "the Band is the range over the published rate sets): " + "; ".join(counted) + "."))
        by_text: dict[str, list[str]] = {}
        for name, b in sorted(e.bands.items()):
            by_text.setdefault(f"{b.coverage_text()}: {b.describe()}", []).append(name)
        if by_text:
            sub.add(Para("Band: where the measured value may lie, by the model's lowest and highest error on "
                         "comparable published runs (docs/accuracy.md); a target the estimate meets but an end of "
                         "the band does not is at risk. " + "; ".join(f"{', '.join(names)}{text}"
                                                                      for text, names in by_text.items()) + "."))
        for why in dict.fromkeys(bounds.values()):   # the energies at maximum draw, by the reason each is a bound
            names = [n for n in sorted(bounds) if bounds[n] == why]
            sub.add(Para(f"{', '.join(names)}: an upper bound, not an estimate: {why}. A target it meets is met, one "
                         "it misses is not provided; its Band is the model's error on the speed alone."))
        for why in dict.fromkeys(lower.values()):
            names = [n for n in sorted(lower) if lower[n] == why]
            sub.add(Para(f"{', '.join(names)}: a lower bound (its Band's ends too), the capex under it being one: "
                         f"{why}. A target it meets below its limit is at risk, one it misses is not met."))
        for why in dict.fromkeys(shared.values()):   # newuser64: check judged them so, the document did not say
            names = [n for n in sorted(shared) if shared[n] == why]
            sub.add(Para(f"{', '.join(names)}: {why}. A target met at one end only is not provided."))
        by_basis: dict[str, list[str]] = {}
        for name in ranged:
            by_basis.setdefault(display.range_basis(name), []).append(name)
        for basis, names in by_basis.items():   # with the model's error at each end where it has a band too
            plain = [n for n in names if n not in e.bands]
            under = "" if basis == display.MEMORY_BASIS else ", as under Reliability and availability"   # memory's
            if plain:
                sub.add(Para(f"The Band of {', '.join(plain)} is the {basis}{under}, not a model error."))
            if banded := [n for n in names if n in e.bands]:
                sub.add(Para(f"The Band of {', '.join(banded)} is the {basis}, as under Reliability and "
                             "availability, with the model's error above taken at each end of it."))
        if e.breakdown:                           # a job that fits no layout has no time to break down
            total = sum((v for v in e.breakdown.values()), start=0 * next(iter(e.breakdown.values())))
            title = "Time breakdown: the replica's time per request" if e.kind == "inference" else "Time breakdown"
            sub.add(Table(f"perf-breakdown-{fmt.slug(w.id)}", title,
                          (Column("Component"), Column("Time", align="right"), Column("Share", align="right")),
                          tuple((k, fmt.estimate_part(v), fmt.pct(float(v / total) if total.magnitude else None, 1))
                                for k, v in e.breakdown.items())))
            sub.add(Figure(f"fig-perf-{fmt.slug(w.id)}", f"perf-{fmt.slug(w.id)}", title,
                           alt_text.waterfall(e, w.id)))
        if getattr(r, "curve", None) is not None:
            tests, choice = curve_names(getattr(r, "vendor", ""))
            name = f"{tests.partition('-')[0]}-{fmt.slug(w.id)}"
            sub.add(Figure(f"fig-{name}", name,
                           f"Predicted {tests} curve of {w.collective.op} on {e.accelerators:,} accelerators "
                           f"(busbw against message size, {choice}) with the workload's busbw targets",
                           alt_text.busbw(r, lambda size: _size_tick(size, None))))
        if r.roofline is not None:
            sub.add(*roofline_blocks(r.roofline, w.id))
        if e.memory:
            sub.add(Table(f"perf-memory-{fmt.slug(w.id)}", "Memory per accelerator",
                          (Column("Component"), Column("Memory", "GB", align="right")),
                          tuple((k, fmt.estimate_part(v)) for k, v in e.memory.items())))
        if e.sensitivity:
            sub.add(Table(f"perf-sensitivity-{fmt.slug(w.id)}",
                          "Elasticity to each hardware parameter (d ln metric / d ln parameter)",
                          (Column("Parameter"), Column("Elasticity", align="right")),
                          tuple((f"{k} ({note})" if (note := fmt.elasticity_note(k, e.hardware)) else k,
                                 fmt.elasticity(v))
                                for k, v in sorted(e.sensitivity.items(), key=lambda kv: -abs(kv[1])))))
        notes = list(e.notes) + [f"{k}: {v}" for k, v in sorted(e.conventions.items())]
        if notes:
            sub.add(Bullets(tuple(notes)))
    return top


def stack_origin(stack: Used) -> str:
    """Where a job's training stack came from, in words: 'stated', or the profile taken where it states none."""
    return "stated" if stack.origin == "stated" else stack.source


def stack_text(used: tuple[Used, ...], workload_id: str) -> str:
    """The training stack an estimate assumed and each switch's value, grouped by where it came from.

    `used` is `stacks.explain`'s list (the stack first), as `WorkloadResult.switches` keeps it; the groups are
    `stacks.by_origin`'s, as `archgen estimate --cases --explain` prints them, so a reader sees which switches the
    step time took from a profile rather than from the workload.
    """
    stack, rest = used[0], list(used[1:])
    groups = by_origin(rest)
    said = groups.pop("stated", [])
    text = (f"Training stack {stack.value} ({stack_origin(stack)}): the switches the workload does not state take "
            f"their values from that profile. By where each value came from (archgen estimate --workload "
            f"{workload_id} --explain gives each one's source): ")
    text += "; ".join(f"{where}: {', '.join(v)}" for where, v in groups.items())
    return text + (f". Stated: {', '.join(said)}." if said else ". The workload states none of them.")


def _band_cell(band: Any, value: Any, name: str) -> str:
    """The range a metric's measured value may lie in by its band ('—' without one, 'not measured' if unknown)."""
    if band is None:
        return "—"
    ends = band.values(value)
    return "not measured" if ends is None else \
        f"{shown(ends[0], name)} to {shown(ends[1], name)}{display.outside(value, ends)}"


def figures(results: list[Any]) -> dict[str, Callable[[], MplFigure]]:
    """A waterfall of the time breakdown and a roofline of one layer's kernels for each estimated workload."""
    out: dict[str, Callable[[], MplFigure]] = {
        f"perf-{fmt.slug(r.workload.id)}": partial(waterfall, r.estimate, r.workload.id)
        for r in results if r.estimate is not None}
    for r in results:
        if r.estimate is not None and r.roofline is not None:
            out[f"roofline-{fmt.slug(r.workload.id)}"] = partial(roofline, r.roofline, r.workload.id)
        if r.estimate is not None and getattr(r, "curve", None) is not None:
            tests = curve_names(getattr(r, "vendor", ""))[0]
            out[f"{tests.partition('-')[0]}-{fmt.slug(r.workload.id)}"] = partial(busbw_curve, r)
    return out


def curve_names(vendor: str) -> tuple[str, str]:
    """The benchmark a collective's curve is named after, and whose algorithm choice it shows, by accelerator vendor.

    The vendor's library (`COLLECTIVE_LIBRARY`) names the benchmark: nccl-tests for NCCL, rccl-tests
    (github.com/ROCm/rccl-tests) for RCCL, which reports busbw as nccl-tests defines it. On an AMD part the model
    picks algorithm and protocol inside a node by RCCL's own table (`perf.comm.rccl`: ROCm/rocm-systems at 03a89144,
    projects/rccl/src/graph/tuning.cc rcclTuningModel; 0cbce2a's choose the same inside a node), and across nodes
    by NCCL's tuning model, RCCL's network figures not being used; the caption says so. Another vendor's part reads
    "collective-tests", its library unnamed, with NCCL's choice.
    """
    library = COLLECTIVE_LIBRARY.get(vendor, "")
    if library == "NCCL":
        return "nccl-tests", "NCCL's algorithm and protocol choice"
    if library == "RCCL":
        return "rccl-tests", ("RCCL's algorithm and protocol choice inside a node (its tuning table, "
                              "ROCm/rocm-systems 03a89144); across nodes as NCCL's tuning model picks them, RCCL's "
                              "network figures not modelled")
    own = f"{library}'s own tuning tables are" if library else "the part's own collective library is"
    return (f"{(library or 'collective').lower()}-tests",
            f"algorithm and protocol as NCCL's tuning model picks them; {own} not modelled")


def _size_tick(value: float, _pos: object) -> str:
    """A message size as nccl-tests prints it: 8 B, 1 KiB, 16 GiB."""
    for unit, scale in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if value >= scale:
            return f"{fmt.number(value / scale, 0)} {unit}"
    return f"{fmt.number(value, 0)} B"


def busbw_curve(r: Any) -> MplFigure:
    """Predicted busbw against message size (log-log), the workload's size marked, busbw targets as lines."""
    sizes, bus = r.curve
    gbs = [fmt.magnitude(Q_(b, "B/s"), "GB/s") for b in bus]
    e, w = r.estimate, r.workload
    fig = MplFigure(figsize=(7.0, 3.8))
    ax = fig.subplots()
    ax.loglog(sizes, gbs, color=palette.BLACK, linewidth=1.4, label="predicted busbw")
    here = fmt.magnitude(e.metrics["busbw"], "GB/s")
    ax.scatter([w.collective.size.m_as("B")], [here], color=palette.BLACK, edgecolor="#222222", zorder=3,
               label=f"{_size_tick(w.collective.size.m_as('B'), None)}: {fmt.number(here, 0)} GB/s")
    for o in e.requirements or ():
        if o.requirement.metric == "busbw":
            y = fmt.magnitude(o.requirement.target.limit, "GB/s")
            colour, style, word = palette.MET if o.met else palette.NOT_MET
            ax.axhline(y, color=colour, linestyle=style, linewidth=1.0,
                       label=f"{o.requirement.id}: {o.requirement.target}, {word}")
    ax.xaxis.set_major_locator(LogLocator(base=2 ** 10))
    ax.xaxis.set_major_formatter(FuncFormatter(_size_tick))
    ax.yaxis.set_major_locator(LogLocator(base=10))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:,.6g}"))
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_minor_locator(NullLocator())
    ax.set_xlabel(f"message size ({curve_names(getattr(r, 'vendor', ''))[0]})")
    ax.set_ylabel("busbw (GB/s)")
    ax.grid(which="major", color="#dddddd", linewidth=0.5)
    ax.legend(loc="upper left", fontsize=6.5, frameon=False)
    ax.set_title(f"{w.id}: {w.collective.op} on {e.accelerators:,} × {e.accelerator}", loc="left", y=1.0)
    fig.tight_layout()
    return fig


def waterfall(e: Any, title: str) -> MplFigure:
    """Step (or request) time built up component by component, each bar named by its title (`BREAKDOWN_TITLES`)."""
    items = [(k, fmt.magnitude(v, "ms")) for k, v in e.breakdown.items() if fmt.magnitude(v, "ms")]
    fig = MplFigure(figsize=(7.0, 0.35 * len(items) + 1.0))
    ax = fig.subplots()
    left = 0.0
    for i, (_, ms) in enumerate(items):
        ax.barh([i], [ms], left=[left], color="#5b8fd6", edgecolor="#333333", linewidth=0.4)
        ax.text(left + ms, i, f" {fmt.estimate_part(Q_(ms, 'ms'))}", va="center", fontsize=7)
        left += ms
    ax.set_yticks(range(len(items)), [BREAKDOWN_TITLES.get(name, name) for name, _ in items])
    ax.invert_yaxis()
    ax.set_xlabel("ms")
    ax.set_xlim(0, left * 1.2 or 1)
    what = "replica time per request" if e.kind == "inference" else "time breakdown"
    ax.set_title(f"{title}: {what} ({fmt.estimate_part(Q_(left, 'ms'))})", loc="left", y=1.0)
    fig.tight_layout()
    return fig
