"""The sweep report: the design space, its Pareto front, the best point per objective, and every point.

Built on the shared document model (`render.blocks`), so it comes out in every document format; `points.csv` lists
every point and `front.csv` the front, and `pareto.svg` plots the first two objectives (`render.sweep_figure`).
Presentation only: every figure comes from `perf.explore.points.Result`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from archgen import metrics as registry
from archgen.analyse.job_energy import MEASURED
from archgen.model.workload import job_kind
from archgen.perf.explore import sweep_notes
from archgen.perf.explore.front import best
from archgen.perf.explore.points import (
    Result,
    model_defaults,
    requirements,
    stated_in,
    unmeasured_efficiencies,
)
from archgen.perf.explore.problem import PointRow
from archgen.perf.explore.tally import tally
from archgen.render import alt_text, fmt, provenance
from archgen.render.blocks import Bullets, Column, DocumentModel, Figure, Para, Section, Table
from archgen.render.emit import render_document
from archgen.render.point_table import (
    DISPLAY,
    csv_text,
    hypothetical,
    layout_text,
    level_text,
    metric_cell,
    one_sided_note,
    points_table,
    uneven_note,
)
from archgen.render.sweep_figure import GRID_FROM, GRIDDED, categories, drawn, marks, pareto_figure
from archgen.render.sweep_unconfirmed import unconfirmed_note


def shown(row: PointRow, metric: str) -> str:
    """A row's metric as display text with its unit ('4.32 s', '970,220', '32.4 %'), or '—'."""
    q = metric_cell(row, metric)
    if isinstance(q, str):   # `metrics.UNBOUNDED`: no number to show
        return q
    _, _, unit, digits = DISPLAY[metric]
    return fmt.cell(q, None, digits) if not isinstance(q, float) or unit == "dimensionless" else \
        f"{fmt.number(q, digits)} {_rate_unit(metric) or fmt.unit_label(unit)}"


def _rate_unit(metric: str) -> str | None:
    """How a rate metric's unit reads, from the registry (``tokens/s``), or None."""
    m = registry.find("workload", metric) or registry.find("point", metric)
    return m.rate_unit() if m is not None else None


def build(result: Result, revision: str, input_hash: str, date: str | None, failing: int = 0) -> DocumentModel:
    """The sweep document; `failing` error findings in the specs it ran on are stated in its control table."""
    s, w = result.problem.sweep, result.problem.workload
    title = s.name or s.id
    control = [("Document", f"AG-SWEEP-{s.id.upper()}"), ("Title", title), ("Workload", w.id),
               ("Source revision", revision), ("Input hash", input_hash)]
    if failing:
        control.append(("Status", f"Draft — the specs have {failing} failing check(s) (archgen check lists them)"))
    if date:
        control.append(("Date", date))
    return DocumentModel(s.id, "sweep", title, control, [
        overview(result), front_section(result), best_section(result), not_run_section(result),
        conventions_section(result),
    ]).number()


def fit_count(c: dict[str, int], fit: str = "fit") -> str:
    """How many points fit in memory (`Result.counts`): at the model's figure and, with a range, at its high end too.

    A point fits (PERF002, and so is counted feasible) at the model's figure, no allocator waste; where its memory
    has a range over the caching allocator's waste, the count of those that fit at its high end follows, as one
    estimate's fit sentence says both (`render.fits.fits_text`; newuser102: "36 fit in memory" counted at the model's
    figure alone). "36 fit in memory at the model's figure (30 also at its memory range's high end)"; a sweep with
    no range (serving, a TPU) reads "36 fit in memory".
    """
    n, ranged, high = c["fitting"], c["fitting_with_range"], c["fitting_high_end"]
    if not ranged:
        return f"{n:,} {fit}"
    of = "" if ranged == n else f" of the {ranged:,} whose memory has a range"
    return f"{n:,} {fit} at the model's figure ({high:,}{of} also at its memory range's high end)"


def overview(result: Result) -> Section:
    """What was swept and what came out."""
    p = result.problem
    s, w, c = p.sweep, p.workload, result.counts()
    goals = ", ".join(f"{'maximise' if up else 'minimise'} {m}" for m, up in result.objectives)
    lead = (f"{c['points']:,} points around workload {w.id} ({job_kind(w, 'workload')}"
            f"{', model ' + w.model if w.model else ''}): {fit_count(c, 'fit in memory')}, {c['feasible']:,} also meet "
            f"every SHALL requirement, {c['invalid']:,} could not run. Objectives: {goals}. The Pareto front has "
            f"{c['front']:,} point(s).")
    section = Section("overview", "The design space").add(Para(lead, "lead"))
    if s.description:
        section.add(Para(s.description))
    if w.training is not None and p.model is not None:  # goodput: which rate set, and what its range spans
        said = sorted({(b.cluster, b.rates) for b in p.bases.values() if b.failures is not None and b.rates})
        priced = {b.cluster for b in p.bases.values() if b.cost_per_accelerator_hour is not None}
        section.add(*(Para(f"Cluster {cid}: {text} (at each point's accelerator count; docs/sweeps.md). "
                           + ("Cost per token charges the point's own accelerators, while its goodput counts the "
                              "cluster's idle nodes as hot spares; its high end also charges the idle nodes that "
                              "goodput rests on, beyond the cluster's idle share, as `check`'s does "
                              "(docs/reliability.md, Cost). "
                              if cid in priced else "") + "A "
                           "requirement on goodput, goodput tokens or cost per token met at the central value but "
                           "not at one end of that range is at risk: the point stays feasible.")
                      for cid, text in said))
    section.add(*(Para(f"Cluster {cid}: its capex {why.removeprefix('it ')}, so the capex and every cost made from "
                       "it are lower bounds, and a cost target they meet is at risk, as `check` judges it (REQ004; "
                       "docs/sweeps.md)", "note")
                  for cid, why in sorted({(b.cluster, b.capex_left_out) for b in p.bases.values()
                                          if b.capex_left_out and b.cost_per_accelerator_hour is not None})))
    axes = tuple((name, ", ".join(level_text(v, name) for v in levels), len(levels)) for name, levels in p.axes.items())
    section.add(Table("axes", "Axes (the points are their product; the last axis varies fastest)",
                      (Column("Axis"), Column("Values"), Column("Count", align="right")), axes))
    reqs = requirements(p)
    if reqs:
        rows = []
        for q in reqs:
            met, unmet = tally(result).met[q.id]  # a point that does not fit judges what it provides
            target = fmt.target_text(q.target, registry.find("workload", q.metric) or registry.find("point", q.metric))
            rows.append((q.id, q.statement, q.level.upper(), q.metric, target, met, unmet, c["points"] - met - unmet,
                         tally(result).at_risk.get(q.id, 0), " ".join(stated_in(p)[q.id])))
        section.add(Table("requirements", "Requirements at every point (the workload's own, those other documents "
                          "state on the workload, which `archgen check` judges too, then the sweep's); a point "
                          "that could not run, or does not provide the metric, is not judged; a met one is at risk "
                          "where one end of its range over the failure-rate sets (for cost, and the hot spares) "
                          "misses",
                          (Column("Requirement"), Column("Statement"), Column("Level"), Column("Metric"),
                           Column("Target"), Column("Met", align="right"), Column("Not met", align="right"),
                           Column("Not judged", align="right"), Column("Of the met, at risk", align="right"),
                           Column("Stated in")), tuple(rows)))
        section.add(*(Para(n, "note") for n in unconfirmed_note(result)))
    return section


def front_section(result: Result) -> Section:
    """The Pareto front: no feasible point is better on one objective without being worse on another."""
    section = Section("front", "Pareto front")
    if not result.front:
        return section.add(Para("No point fits and meets every SHALL requirement, so there is no front.", "note"))
    section.add(Para("The feasible points (they fit and meet every SHALL requirement) that no other feasible point "
                     "beats on every objective at once. Points tied on every objective are all listed."))
    if len(result.objectives) >= 2:
        a, b = (DISPLAY[m][0] for m, _ in result.objectives[:2])
        by = ", ".join(categories(result))
        fitting, plotted = result.counts()["fitting"], drawn(result)
        which = "every point that fits" if plotted == fitting else (
            f"the {plotted:,} of the {fitting:,} points that fit with both figures (the others lack one: not provided "
            "there)")
        shapes = f" ({'; '.join(drawn_marks)})" if (drawn_marks := marks(result)) else ""
        section.add(Figure("pareto", "pareto", f"{a} against {b}: {which}"
                                               f"{f', coloured by {by}' if by else ''}{shapes}, and the front"
                                               f"{GRIDDED if fitting > GRID_FROM else ''}",
                                   alt_text.pareto(result, a, b, plotted, drawn_marks)))
    shown = listed(result)
    if len(shown) < len(result.front):
        section.add(Para(f"The front has {len(result.front):,} points; the table lists {len(shown):,} of them, spread "
                         f"evenly along {DISPLAY[result.objectives[0][0]][0]}, and leaves out "
                         f"{len(result.front) - len(shown):,}: front.csv beside this document lists every one.",
                         "note"))
    rows = [result.rows[i] for i in shown]
    return section.add(*high_end_note(result), *scope_notes(result),
                       *uneven_note(result.problem, [r.layout for r in rows]), *one_sided_note(result.problem, rows),
                       points_table(result, rows, "front", "The Pareto front"))


def high_end_note(result: Result) -> tuple[Para, ...]:
    """How many front points fit at their memory range's high end too, and the best that does on each objective.

    A front point fits at the model's figure (it is feasible); where its memory has a range over the caching
    allocator's waste, the `HIGH_END` column says whether it fits with the most waste measured too. newuser107's
    70B/B200 front fit at 193.1 of 193.3 GB, every point "no" in that column: a PoC taking one as is would likely run
    out of memory, and the table gave that only point by point. None where no front point has a range.
    """
    front = [result.rows[i] for i in result.front]
    ranged = [r for r in front if r.fits_high_end is not None]
    if not ranged:
        return ()
    high = [r for r in ranged if r.fits_high_end]
    some = " whose memory has a range" if len(ranged) < len(front) else ""
    counted = (f"{len(high):,} of the {len(ranged):,} front points{some} fit{'s' if len(high) == 1 else ''} in memory "
               "at the high end of the memory range too (the most caching-allocator waste measured: the \"Fits at "
               "memory high end\" column)")
    if len(high) == len(ranged):
        return (Para(f"Memory: {counted}.", "note"),)
    left = len(ranged) - len(high)
    rest = (f"; the other{'' if left == 1 else f' {left:,}'} fit{'s' if left == 1 else ''} only at the model's figure, "
            "and a run of one as is may run out of memory" if high else
            ": every one fits only at the model's figure, and a run of one as is may run out of memory (a smaller "
            "micro-batch or more model parallelism lowers the memory per GPU)")
    picks = {m: best(high, m, up) for m, up in result.objectives}   # among the front points that fit with the waste
    bests = [f"on {DISPLAY[m][0]}, point #{high[i].index} ({shown(high[i], m)})" for m, i in picks.items()
             if i is not None]
    return (Para(f"Memory: {counted}{rest}." + (f" The best that does: {'; '.join(bests)}." if bests else ""), "note"),)


def scope_notes(result: Result) -> tuple[Para, ...]:
    """Notes under a table of points: unknown power and price, what the peak axis holds, what bound a serving batch."""
    return tuple(Para(text, "note") for text in sweep_notes.scope_notes(result.problem, tally(result).batch_bounds))


#: Most points a document's table of the front lists; front.csv has them all.
FRONT_ROWS = 100


def listed(result: Result) -> list[int]:
    """The front points the document's table lists (positions in `rows`, in point order).

    All of them up to `FRONT_ROWS`, else `FRONT_ROWS` spread evenly along the first objective, both ends included.
    """
    if len(result.front) <= FRONT_ROWS:
        return list(result.front)
    m, up = result.objectives[0]
    order = sorted(result.front, key=lambda i: ((-1.0 if up else 1.0) * result.rows[i].metrics[m], i))
    n = len(order) - 1
    return sorted({order[round(k * n / (FRONT_ROWS - 1))] for k in range(FRONT_ROWS)})


def best_section(result: Result) -> Section:
    """The best feasible point on each objective alone."""
    rows, flagged = [], []
    for m, up in result.objectives:
        i = result.best.get(m)
        r = result.rows[i] if i is not None else None
        assumed = hypothetical(r, result.problem) if r else []
        if r is not None and assumed:
            flagged.append(f"{DISPLAY[m][0]} (point {r.index}): {', '.join(assumed)}")
        rows.append((DISPLAY[m][0], "max" if up else "min", shown(r, m) if r else None, r.index if r else None,
                     ", ".join(f"{k} {level_text(v, k)}" for k, v in r.values.items()) if r else "—",
                     layout_text(r, result.problem) if r else "—",
                     ("hypothetical: " + ", ".join(assumed)) if assumed else "as catalogued" if r else "—"))
    cols = (Column("Objective"), Column("Goal"), Column("Best"), Column("Point #", align="right"), Column("Axes"),
            Column("Layout"), Column("Hardware"))
    section = Section("best", "Best point per objective")
    if flagged:
        section.add(Para("Hypothetical hardware: these best points assume hardware the catalog does not have (a "
                         "factor other than 1 on a hardware axis, a replaced figure or chip), so they answer a "
                         "what-if, not which platform to buy: " + "; ".join(flagged) + ".", "note"))
    section.add(*scope_notes(result))
    best = [result.rows[i] for i in sorted({i for i in result.best.values() if i is not None})]
    section.add(*uneven_note(result.problem, [r.layout for r in best]), *one_sided_note(result.problem, best))
    return section.add(Table("best", "The best feasible point on each objective alone", cols, tuple(rows)))


#: How the points-by-reason table shows a point that fits but is not feasible (`perf.explore.points.feasibility`).
NOT_JUDGED = "fits, not feasible"


def not_run_section(result: Result) -> Section:
    """Why points could not run, do not fit, or fit and are not feasible, grouped by reason."""
    reasons = tally(result).reasons
    section = Section("not-run", "Points that could not run, do not fit or are not feasible")
    if not reasons:
        return section.add(Para("Every point runs, fits and is feasible."))
    rows = tuple((NOT_JUDGED if status == "ok" else status, reason, n)
                 for (status, reason), n in sorted(reasons.items(), key=lambda x: (-x[1], x[0])))
    return section.add(Table("not-run", "Points by reason (a point that fits is not feasible where a SHALL is not "
                                        "met or not provided, its arrivals outrun its replicas, its cluster fails or "
                                        "does not fit its hall)",
                             (Column("Status"), Column("Reason"), Column("Points", align="right")), rows))


def unmeasured_bullet(result: Result) -> tuple[str, ...]:
    """The efficiencies every point takes at a point, not one measurement, per accelerator (none: no bullet)."""
    lines = unmeasured_efficiencies(result.problem)
    if not lines:
        return ()
    return ("Efficiencies that are not one measurement, taken at their point at every point of the sweep (the "
            "front and the best points rest on them; archgen estimate of the workload gives what the ranges' ends "
            "do to it): " + "; ".join(lines) + ".",)


def defaults_bullet(result: Result) -> tuple[str, ...]:
    """The model's defaults every point takes where a part states no figure, per accelerator (none: no bullet)."""
    lines = model_defaults(result.problem)
    return ("At every point of the sweep, " + "; ".join(lines) + ".",) if lines else ()


def convention_bullets(result: Result) -> tuple[str, ...]:
    """A serving sweep's conventions, a bullet each (`sweep_notes.conventions`, which `--format json` gives too)."""
    return tuple(f"{key}: {words}." for key, words in sweep_notes.conventions(result.problem).items())


def conventions_section(result: Result) -> Section:
    """How the points were evaluated."""
    return Section("conventions", "Conventions").add(Bullets((
        "Every point is an estimate of the base workload by archgen's performance model (docs/perf-model.md); a "
        "parallel layout the workload and the axes leave open is searched (the fastest that fits).",
        *unmeasured_bullet(result),
        *defaults_bullet(result),
        *convention_bullets(result),
        "A hardware axis given as a bare number scales the cluster's figure (×1.5); given as a quantity it replaces "
        "it. Scale-up and scale-out bandwidths are per accelerator per direction.",
        "Power is the job's share of its cluster's IT load at maximum draw (accelerators used / accelerators in the "
        "cluster); another accelerator changes it by the difference of the parts' TDP. A point whose hardware is "
        "scaled (a hardware axis not as catalogued) has no power, energy per token or job IT energy: the catalogued "
        "parts' draw is not the draw of parts with other figures, and the sweep states none. Energy per token is "
        "power / tokens per second: IT energy, without the PUE, at maximum draw: an upper bound, as is job IT energy "
        f"({MEASURED}), so a requirement either misses is not provided, and a front on it ranks the bounds.",
        "Feasible: the point fits in memory, its cluster has no error finding in archgen check, and it meets every "
        "SHALL requirement by the rule archgen check applies (a SHALL not met or not provided is an error there): a "
        "point that does not provide a SHALL requirement's figure is not feasible, and the points by reason say why; "
        "SHOULD and MAY requirements are reported, not enforced.",
    )))


def render_sweep(result: Result, formats: tuple[str, ...], templates: Path | None, revision: str,
                 input_hash: str, date: str | None = None, failing: int = 0,
                 points_csv: str | None = None) -> dict[str, bytes]:
    """Every requested file of one sweep, in memory: the document, `points.csv`, `front.csv`, `pareto.svg`.

    `points_csv` is the points' CSV when the workers wrote it already (`commands.workers`); the CSV files are written
    from columns (`render.point_table.csv_text`), the same bytes as the document tables' CSV.
    """
    doc = build(result, revision, input_hash, date, failing)
    figures = {"pareto": lambda: pareto_figure(result)} if len(result.objectives) >= 2 and result.front else {}
    front = [result.rows[i] for i in result.front]
    sheets = {}
    if "xlsx" in formats:  # a workbook takes the tables of cells
        sheets = {"points.csv": points_table(result, result.rows, "points", "Every point"),
                  **({"front.csv": points_table(result, front, "front", "The Pareto front")} if front else {})}
    files = render_document(doc, figures, sheets, tuple(f for f in formats if f != "csv"), templates, lambda _: None)
    if "csv" in formats:
        p = result.problem
        files["points.csv"] = (points_csv if points_csv is not None else csv_text(p, result.rows)).encode("utf-8")
        if front:
            files["front.csv"] = csv_text(p, front).encode("utf-8")
    return files


def provenance_of(specs: Any, result: Result) -> tuple[str, str]:
    """The revision and input hash of the documents a sweep read (its own, the workload, model and clusters)."""
    p = result.problem
    ids = [p.sweep.id, p.workload.id, *([p.model.id] if p.model else []), *dict.fromkeys(c for c, _ in p.bases),
           *dict.fromkeys(a for _, a in p.bases if a)]
    docs = [specs.get(i) for i in ids if specs.get(i) is not None]
    files = [specs.sources[d.id].file for d in docs if d.id in specs.sources]
    return provenance.git_revision(files), provenance.input_hash(docs)
