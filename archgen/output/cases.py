"""`archgen estimate --cases`: the scores of a validation-case file as text and JSON.

Apart from `output.estimate` so that an estimate of a workload does not import the case scoring (its case models
and the serving scheduler: issue 25, the CLI's start-up).
"""

from __future__ import annotations

from typing import Any

from archgen.output.estimate import show_value
from archgen.quantity_json import to_json
from archgen.scoring.cases import Refused
from archgen.scoring.scores import CaseResult, Scores, summary
from archgen.units import Q_


def case_results_json(results: list[CaseResult], ranges: dict[str, tuple[dict[str, tuple[float, float]], str]]
                      | None = None) -> list[dict[str, Any]]:
    """The `estimate --cases --format json` list (`ranges`: as `case_scores_json` takes them)."""
    out = []
    for r in results:
        row = {"id": r.id, "metric": r.metric, "measured": _quantity(r.measured, r.unit),
               "predicted": _quantity(r.predicted, r.unit), "error": r.error}
        span, over = (ranges or {}).get(r.id, ({}, ""))
        if r.metric in span:
            lo, hi = span[r.metric]
            row["unstated"] = {"low": _quantity(lo, r.unit), "high": _quantity(hi, r.unit),
                               "errors": [lo / r.measured - 1.0, hi / r.measured - 1.0], "over": over}
        out.append(row)
    return out


def _quantity(value: float, unit: str) -> dict[str, Any]:
    """A figure of a case result in JSON: a quantity, or a plain number where it has no unit."""
    return {"value": value, "unit": ""} if unit == "dimensionless" else to_json(Q_(value, unit))


def refused_json(r: Refused) -> dict[str, Any]:
    """A refused case in the `estimate --cases --format json` list."""
    def one(p) -> dict[str, Any]:
        loc = p.location
        text = str(p).split("error: ", 1)[-1]
        return {"file": loc.file if loc else None, "line": loc.line if loc else None,
                "column": loc.column if loc else None, "message": text}
    return {"id": r.id, "refused": True, "problems": [one(p) for p in r.problems]}


def case_scores_json(scores: Scores, ranges: dict[str, tuple[dict[str, tuple[float, float]], str]] | None = None
                     ) -> list[dict[str, Any]]:
    """Every case of a file in order: its metrics' results, or one refused object.

    `ranges` as `case_scores_text` takes them: a row whose metric has one gets `unstated`, its lowest and highest
    prediction (quantities), their errors and what they span (`over`); none of them is scored.
    """
    out: list[dict[str, Any]] = []
    for e in scores.entries:
        out += [refused_json(e)] if isinstance(e, Refused) else case_results_json(e, ranges)
    return out


def case_scores_text(scores: Scores, ranges: dict[str, tuple[dict[str, tuple[float, float]], str]] | None = None,
                     unfit: dict[str, str] | None = None) -> str:
    """The scored cases' table, the layouts that do not fit, the ranges, then each refused case's problems.

    `unfit` maps a case id to why its stated layout does not fit by the model (`scoring.cases.unfit_reason`); it is
    still predicted as stated. `ranges` maps a case id to each metric's lowest and highest prediction and the
    knobs they span (`scoring.unstated`); none of them is scored.
    """
    text = case_results_text(scores.results)
    if unfit:
        text += "Stated layouts that do not fit by the model (predicted as stated):\n"
        text += "".join(f"  {cid}: {why}\n" for cid, why in unfit.items())
    ranges = ranges or {}
    rows = [(r, *ranges[r.id][0][r.metric], ranges[r.id][1]) for r in scores.results
            if r.metric in ranges.get(r.id, ({}, ""))[0]]
    if rows:
        text += "Over what the case leaves unstated (not scored):\n"
        text += "".join(f"  {r.id} {r.metric}: {show_value(lo, r.unit, r.metric)} to "
                        f"{show_value(hi, r.unit, r.metric)} "
                        f"({lo / r.measured - 1:+.1%} to {hi / r.measured - 1:+.1%}) over {knobs}\n"
                        for r, lo, hi, knobs in rows)
    if scores.refused:
        lines = [str(p) for r in scores.refused for p in r.problems]
        text += f"{len(scores.refused)} case(s) refused:\n" + "\n".join(lines) + "\n"
    return text


def case_results_text(results: list[CaseResult]) -> str:
    """A table of predicted against measured, with the median and worst error."""
    width = max([len(r.id) for r in results] + [4])
    lines = [f"{'case':{width}}  {'metric':15} {'measured':>16} {'predicted':>16} {'error':>8}"]
    for r in results:
        lines.append(f"{r.id:{width}}  {r.metric:15} {show_value(r.measured, r.unit, r.metric):>16} "
                     f"{show_value(r.predicted, r.unit, r.metric):>16} {r.error:+8.1%}")
    s = summary(results)
    if s["count"]:
        lines.append(f"{s['count']} measurements: median |error| {s['median']:.1%}, worst {s['worst']:.1%}")
    return "\n".join(lines) + "\n"
