"""Text alternatives of the diagrams: what each one shows, in words, from the figures it is drawn from.

A figure's caption names it ("Rack elevation of r, front and rear, coloured by part class"); its text alternative
says what a reader who cannot see it would otherwise miss: the parts and the units they take, the stages' loads and
capacities, the fabric's tiers and counts (WCAG 2.1 success criterion 1.1.1, non-text content; ISO 14289-1, PDF/UA-1,
7.3: a figure's alternate description). Each function reads the same analysis the diagram is drawn from
(`render.diagrams`, `render.cluster_diagrams`), so the words and the drawing agree; the documents carry it as the
PDF's ``/Alt``, the HTML SVG's ``<desc>`` (its accessible description, the caption staying its name) and Markdown's
image text (`blocks.Figure.alt`). The rack elevation's is `render.rack.elevation_alt`, beside `part_class`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from archgen.analyse.feed_load import TYPICAL_POWER_FACTOR, low_end
from archgen.analyse.power_chain import Stage
from archgen.analyse.rack import RackAnalysis
from archgen.perf.workload.estimate_result import BREAKDOWN_TITLES
from archgen.render import floor_domains, fmt
from archgen.units import Q_


def _stage(title: str, stage: Stage, load: Any, low: float | None = None) -> str:
    """One panel of the power budget: the stage, its three capacities and the load drawn against them.

    `low`: as the failure-case table's (`rack_power._failure_rows`), a feed group's capacity at
    `TYPICAL_POWER_FACTOR` over its capacity at the assumed 1.00; each capacity then says both.
    """
    def cap(q: Any) -> str:
        at = f"{fmt.q(q * low, 'kW', 1)} at PF {TYPICAL_POWER_FACTOR:.2f}" if low is not None else ""
        return fmt.q(q, "kW", 1) + (f" at PF 1.00 (assumed; {at})" if at else "")
    return (f"{title}: {stage.count} × {fmt.q(stage.unit_capacity, 'kW', 1)}, nameplate "
            f"{cap(stage.unit_capacity * stage.count)}, usable ({stage.redundancy}) {cap(stage.usable)}, one unit lost "
            f"{cap(stage.after_one_loss)}, load {fmt.q(load, 'kW', 1)}")


def power(a: RackAnalysis) -> str:
    """The power budget's panels in words (`diagrams.power_budget`)."""
    p, feeds = a.power, a.rack.spec.power.feeds
    low = low_end(feeds)
    panels = [_stage(fmt.sentence(st.kind), st, st.load) for st in p.stages]
    panels += [_stage(f"{fmt.sentence(g.kind)} after derating", g, g.load, low) for g in p.feed_groups]
    return f"Bar charts, one per stage of {a.rack.spec.id}'s power chain. " + "; ".join(panels) + "."


def cooling(a: RackAnalysis) -> str:
    """The heat split and the CDU group's bars in words (`diagrams.cooling_split`)."""
    c = a.cooling
    total = c.heat.m_as("kW") or 1.0
    parts = [("liquid", c.heat_liquid)]
    if c.rear_door is not None:
        parts.append(("rear door", c.rear_door.taken))
    parts.append(("air", c.heat_air))
    split = ", ".join(f"{label} {fmt.q(q, 'kW', 1)} ({fmt.pct(q.m_as('kW') / total)})" for label, q in parts)
    text = f"A bar of {a.rack.spec.id}'s {fmt.q(c.heat, 'kW', 1)} of heat split into {split}"
    if c.cdu is not None:
        path = a.rack.spec.cooling.liquid
        text += (f"; beside it the CDU group of {path.racks_per_cdu if path else 1} rack(s): group load "
                 f"{fmt.q(c.cdu_load, 'kW', 0)}, usable ({c.cdu.redundancy}) {fmt.q(c.cdu.usable, 'kW', 0)}, "
                 f"nameplate {fmt.q(c.cdu.unit_capacity * c.cdu.count, 'kW', 0)}")
    return text + "."


def topology(a: Any) -> str:
    """Each fabric's column of tiers in words, bottom up (`cluster_diagrams.topology`)."""
    columns = []
    for fa in a.fabrics:
        s = fa.fabric.spec
        names = list(fa.links)
        steps = [f"{fa.endpoint_ports + fa.reserved_ports:,} {s.role} ports"]
        for level, t in enumerate(fa.tiers):
            if level < len(names):
                steps.append(f"{fa.links[names[level]] * fa.planes:,} links")
            steps.append(f"{t.name}: {t.switches * fa.planes:,} × {t.switch.id if t.switch else 'no switch'}")
        columns.append(f"{s.id} ({fa.planes} plane(s), {len(fa.tiers)} tier(s)), bottom up: {', '.join(steps)}")
    return (f"{a.cluster.spec.id}'s fabrics by tier ({a.accelerators:,} accelerators), one column each. "
            + "; ".join(columns) + ".")


def floor(a: Any) -> str:
    """The floor plan's racks by row and type (`cluster_diagrams.floor_plan`)."""
    inst = a.cluster.instances
    rows = max(i.row for i in inst) + 1
    by_row: list[Counter[str]] = [Counter() for _ in range(rows)]
    for i in inst:
        by_row[i.row][i.rack.spec.id] += 1
    runs: list[tuple[int, int, str]] = []          # rows with the same racks told once: (first, last, racks)
    for r, c in enumerate(by_row):
        mix = ", ".join(f"{n} × {rid}" for rid, n in sorted(c.items())) or "no rack"
        if runs and runs[-1][2] == mix and runs[-1][1] == r - 1:
            runs[-1] = (runs[-1][0], r, mix)
        else:
            runs.append((r, r, mix))
    described = [f"row {lo + 1}: {mix}" if lo == hi else f"rows {lo + 1}-{hi + 1}, each: {mix}" for lo, hi, mix in runs]
    return (f"Plan of {a.cluster.spec.id}'s floor: {len(inst)} racks in {rows} row(s), each rack a box coloured by "
            f"its type. " + "; ".join(described) + floor_domains.domain_words(a) + ".")


def goodput(found: list[tuple[str, Any]]) -> str:
    """Each training job's goodput curve and the interval used (`operations.goodput_chart`)."""
    jobs = []
    for wid, g in found:
        text = f"{wid}"
        if g.interval:
            text += (f" at the interval used, {fmt.number(g.interval / 60, 1)} min, goodput "
                     f"{fmt.number(float(g.curve([g.interval])[0]), 3)}")
        if g.optimum:
            text += (f"{',' if g.interval else ''} highest at {fmt.number(g.optimum / 60, 1)} min, "
                     f"{fmt.number(float(g.curve([g.optimum])[0]), 3)}")
        jobs.append(text)
    return ("Goodput (0 to 1) against checkpoint interval in minutes on a log axis, one curve per training job, the "
            "interval used marked by a dot: " + "; ".join(jobs) + ".")


def capex(cost: Any) -> str:
    """The capex bars by kind of part (`operations.capex_chart`)."""
    parts = cost.breakdown()
    return (f"Horizontal bars of capex by kind of part, in million {cost.currency}: "
            + ", ".join(f"{kind} {parts[kind].m / 1e6:,.2f}" for kind in parts) + ".")


def waterfall(e: Any, title: str) -> str:
    """The time breakdown's bars, each starting where the last ended (`performance.waterfall`)."""
    items = [(k, v) for k, v in e.breakdown.items() if fmt.magnitude(v, "ms")]
    total = sum(fmt.magnitude(v, "ms") for _, v in items)
    what = "replica time per request (not a request's latency)" if e.kind == "inference" else "time"
    return (f"Waterfall of {title}'s {what}, {fmt.estimate_part(Q_(total, 'ms'))}, built up component by component: "
            + "; ".join(f"{BREAKDOWN_TITLES.get(k, k)} {fmt.estimate_part(v)}" for k, v in items) + ".")


def roofline(rf: Any) -> str:
    """The roofline's roofs and each kernel's numbered point (`render.roofline.roofline`).

    Both roofs the figure draws (review28: the dashed datasheet roof was in no words), and a kernel of no FLOP,
    which has no place on log axes, said not drawn rather than placed at 0 FLOP/B; the points carry the figure's
    numbers.
    """
    tflops = fmt.magnitude(Q_(1.0, "FLOPS"), "TFLOPS")
    drawn = [k for k in rf.kernels if k.flop > 0 and k.achieved > 0]
    points = [f"{i} {k.phase} {k.name} at {fmt.number(k.intensity, 1)} FLOP/B, {fmt.number(k.achieved * tflops, 1)} "
              f"TFLOPS ({'memory' if k.intensity < rf.ridge else 'compute'} side)" for i, k in enumerate(drawn, 1)]
    missing = [f"{k.phase} {k.name}" for k in rf.kernels if k not in drawn]
    return (f"Log-log roofline, attainable rate against arithmetic intensity: the attainable compute roof (solid) at "
            f"{fmt.number(rf.compute_ceiling * tflops, 0)} TFLOPS meets the memory roof at the ridge, "
            f"{fmt.number(rf.ridge, 0)} FLOP/B; dashed, the datasheet roof, {fmt.number(rf.peak * tflops, 0)} TFLOPS "
            f"and the {rf.memory} bandwidth; one numbered point per kernel: " + "; ".join(points)
            + (f"; not drawn (no FLOP): {', '.join(missing)}" if missing else "") + ".")


def busbw(r: Any, size_text: Any) -> str:
    """The predicted busbw curve, the workload's size and the busbw targets (`performance.busbw_curve`)."""
    sizes, bus = r.curve
    e, w = r.estimate, r.workload
    gbs = [fmt.magnitude(Q_(b, "B/s"), "GB/s") for b in bus]
    targets = [f"{o.requirement.id} {o.requirement.target}, {o.status.value}"
               for o in e.requirements or () if o.requirement.metric == "busbw"]
    return (f"Log-log curve of predicted bus bandwidth (as nccl-tests defines it) against message size for "
            f"{w.collective.op} on {e.accelerators:,} "
            f"accelerators: {gbs[0]:,.3g} GB/s at {size_text(sizes[0])}, {gbs[-1]:,.4g} GB/s at "
            f"{size_text(sizes[-1])}; the workload's {size_text(w.collective.size.m_as('B'))} marked at "
            f"{fmt.number(fmt.magnitude(e.metrics['busbw'], 'GB/s'), 0)} GB/s"
            + (f"; target lines: {'; '.join(targets)}" if targets else "") + ".")


def scaling(series: Any) -> str:
    """Switches, transceivers and network power at each size of the doubling series (`scaling_chart`)."""
    points = [f"{p.accelerators:,} accelerators: {p.switch_total:,} switches, " + (
              f"{fmt.number(p.transceivers, 0)} transceivers, {fmt.q(p.network_power, 'kW', 1)}" if not p.no_media
              else "transceivers and network power not provided (links without link media)")
              for p in series.points]
    return ("Two log-log charts against accelerators as the design doubles, switches per tier and transceivers on the "
            "left, network power in total and per accelerator on the right: " + "; ".join(points) + ".")


def pareto(result: Any, a: str, b: str, drawn: int, marks: tuple[str, ...] = ()) -> str:
    """The sweep's scatter and its front (`sweep_figure.pareto_figure`); the front's table lists the points.

    `drawn`: the points that fit with both figures (`sweep_figure.drawn`), the others left off the plot. `marks`: the
    marks it draws points with besides a filled circle, as its legend names them (`sweep_figure.marks`).
    """
    fitting = result.counts()["fitting"]
    which = f"{fitting:,} points that fit" if drawn == fitting else \
        f"{drawn:,} of the {fitting:,} points that fit (the others lack a figure to plot: not provided there)"
    shapes = f" ({'; '.join(marks)})" if marks else ""
    return (f"Scatter of {a} against {b}: {which}{shapes}; the "
            f"{len(result.front):,} points of the Pareto front joined by a line (the table of the front lists "
            "them).")
