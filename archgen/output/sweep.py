"""`archgen sweep`: what the command prints, a summary line per sweep or JSON (the reports are `render.sweep`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from archgen.output.envelope import document, dumps, metric_quantity, with_old_names
from archgen.perf.explore.batch_path import path_note
from archgen.perf.explore.hardware_scope import peak_axis_scope, power_note, price_note
from archgen.perf.explore.points import (
    Result,
    model_defaults,
    requirements,
    stated_in,
    unmeasured_efficiencies,
)
from archgen.perf.explore.problem import PointRow
from archgen.perf.explore.sweep_notes import conventions, scope_notes
from archgen.perf.explore.tally import tally
from archgen.quantity_json import to_json as quantity
from archgen.render.point_table import DISPLAY, level_text, pipeline_layout
from archgen.render.sweep import fit_count, shown
from archgen.units import Q_, Q


def summary(result: Result) -> str:
    """The points by outcome and the best point per objective, as lines of text."""
    c = result.counts()
    lines = [f"sweep {result.problem.sweep.id}: {c['points']:,} points, {fit_count(c)}, {c['feasible']:,} "
             f"feasible, {c['invalid']:,} could not run; Pareto front of {c['front']:,}"]
    for metric, i in result.best.items():
        if i is None:
            lines.append(f"  best {metric}: no feasible point")
            continue
        r = result.rows[i]
        axes = ", ".join(f"{k} {level_text(v, k)}" for k, v in r.values.items())
        run = pipeline_layout(result.problem, r.layout)   # an uneven split: what runs it under Megatron
        lines.append(f"  best {metric}: {shown(r, metric)} at point #{r.index} ({axes})"
                     + (f", pp {r.layout['pp']} uneven: runs with pipeline_layout '{run}'" if run else ""))
    lines += [f"  judged: {judged(result)}"] if requirements(result.problem) else []
    lines += [f"  not feasible: {n:,} point(s) fit, and {reason}" for reason, n in unprovided(result)]
    lines += [f"  note: not one measurement, taken at its point everywhere: {line}"
              for line in unmeasured_efficiencies(result.problem)]
    lines += [f"  note: {line}" for line in model_defaults(result.problem)]
    lines += [f"  note: {line}" for line in scope_notes(result.problem, tally(result).batch_bounds)]
    return "\n".join(lines)


def judged(result: Result) -> str:
    """The requirements every point is judged on, with their levels, by the document that states them, in words.

    "REQ-1 (SHALL), REQ-2 (SHOULD) of Workload 'w'; REQ-3 (SHALL) of Requirements 'r'; REQ-4 (SHALL) of Sweep 's'".
    """
    where = stated_in(result.problem)
    by: dict[tuple[str, str], list[str]] = {}
    for q in requirements(result.problem):
        by.setdefault(where[q.id], []).append(f"{q.id} ({q.level.upper()})")
    return "; ".join(f"{', '.join(ids)} of {kind} '{owner}'" for (kind, owner), ids in by.items())


def unprovided(result: Result) -> list[tuple[str, int]]:
    """The reasons points that fit are not feasible for a SHALL requirement not provided, with their counts.

    Most points first, then by reason (`explore.points.feasibility` gives the reason).
    """
    got = [(reason, n) for (status, reason), n in tally(result).reasons.items() if status == "ok"]
    return sorted(got, key=lambda x: (-x[1], x[0]))


def reasons(result: Result) -> list[dict[str, Any]]:
    """Every reason points could not run, do not fit or fit with a SHALL not provided, with their counts."""
    got = sorted(tally(result).reasons.items(), key=lambda x: (-x[1], x[0]))
    return [{"status": status, "reason": reason, "points": n} for (status, reason), n in got]


def text(results: Sequence[Result], written: Sequence[Path]) -> str:
    """Each sweep's summary, then the files written."""
    return "".join(f"{line}\n" for line in [*(summary(r) for r in results), *map(str, written)])


def json_text(results: Sequence[Result], written: Sequence[Path]) -> str:
    """Every sweep as JSON with the files written."""
    return dumps(document(sweeps=[to_json(r) for r in results], files=[str(p) for p in written]), sort_keys=True)


def to_json(result: Result) -> dict[str, Any]:
    """The sweep as JSON: summary, objectives, the front and the best points (quantities in SI units)."""

    def point(r: PointRow) -> dict[str, Any]:
        run = pipeline_layout(result.problem, r.layout)   # only where pp splits the layers unevenly
        return {**({"pipeline_layout": run} if run else {}), "index": r.index,
                "axes": {k: quantity(v) if isinstance(v, Q) else v for k, v in r.values.items()},
                "cluster": r.cluster, "status": r.status, "reason": r.reason, "feasible": r.feasible,
                "layout": r.layout, "requirements": r.met, "at_risk": list(r.at_risk),
                **({"fits_high_end": r.fits_high_end} if r.fits_high_end is not None else {}),
                **({"batch_bound": r.batch_bound} if r.batch_bound else {}),
                "metrics": with_old_names({m: metric_quantity(m, Q_(v, DISPLAY[m][1]))
                                           for m, v in sorted(r.metrics.items())})}

    p = result.problem
    where = stated_in(p)
    judged_on = [{"id": q.id, "level": q.level, "metric": q.metric, "target": str(q.target),
                  "stated_in": {"kind": where[q.id][0], "id": where[q.id][1]}} for q in requirements(p)]
    return {"sweep": p.sweep.id, "workload": p.workload.id, "summary": result.counts(), "requirements": judged_on,
            "objectives": [{"metric": m, "goal": "max" if up else "min"} for m, up in result.objectives],
            "best": {m: point(result.rows[i]) if i is not None else None for m, i in result.best.items()},
            "front": [point(result.rows[i]) for i in result.front], "reasons": reasons(result),
            "unmeasured_efficiencies": unmeasured_efficiencies(p), "model_defaults": model_defaults(p),
            **({"conventions": said} if (said := conventions(p)) else {}),   # the document's, a serving sweep's
            **({"unpowered": text} if (text := power_note(p)) else {}),
            **({"unpriced": text} if (text := price_note(p)) else {}),
            **({"per_point": text} if (text := path_note(p)) else {}),
            **({"batch_bounds": [{"bound": k, "points": n} for k, n in bounds.items()]}
               if (bounds := tally(result).batch_bounds) else {}),
            **({"peak_scope": [{**s, "held": {k: quantity(v) for k, v in s["held"].items()}} for s in scope]}
               if (scope := peak_axis_scope(p)) else {})}
