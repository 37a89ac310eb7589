"""`archgen estimate --cases`: the scores of a validation-case file as text and JSON.

Apart from `output.estimate` so that an estimate of a workload does not import the case scoring (its case models
and the serving scheduler: issue 25, the CLI's start-up).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from archgen.model.cases import Case
from archgen.output.estimate import show_value
from archgen.perf.workload.bands import MIN_BIN, Band
from archgen.perf.workload.case_bands import case_band, holds
from archgen.quantity_json import to_json
from archgen.scoring.cases import Refused
from archgen.scoring.scores import CaseResult, Scores, summary
from archgen.units import Q_

#: Each scored measurement's band (`perf.workload.case_bands.case_band`: its family's, at its load, arrival and
#: context; the model's error alone), by (case id, metric); a metric that carries none (memory) is absent.
CaseBands = Mapping[tuple[str, str], Band]


def case_bands(cases: list[Case], results: list[CaseResult]) -> dict[tuple[str, str], Band]:
    """Each scored measurement's band (`case_bands.case_band`), by (case id, metric), where its metric carries one."""
    by_id = {c.id: c for c in cases}
    return {(r.id, r.metric): b for r in results if (b := case_band(by_id[r.id], r.metric, r.load)) is not None}


def case_results_json(results: list[CaseResult], ranges: dict[str, tuple[dict[str, tuple[float, float]], str]]
                      | None = None, bands: CaseBands | None = None) -> list[dict[str, Any]]:
    """The `estimate --cases --format json` list (`ranges`, `bands`: as `case_scores_json` takes them)."""
    out = []
    for r in results:
        row = {"id": r.id, "metric": r.metric, "measured": _quantity(r.measured, r.unit),
               "predicted": _quantity(r.predicted, r.unit), "error": r.error}
        if bands is not None:
            b = bands.get((r.id, r.metric))
            row |= {"band": band_of_case_json(b, r), "in_band": holds(b, r.error) if b and b.measured else None}
        span, over = (ranges or {}).get(r.id, ({}, ""))
        if r.metric in span:
            lo, hi = span[r.metric]
            row["unstated"] = {"low": _quantity(lo, r.unit), "high": _quantity(hi, r.unit),
                               "errors": [lo / r.measured - 1.0, hi / r.measured - 1.0], "over": over}
        out.append(row)
    return out


def band_of_case_json(b: Band | None, r: CaseResult) -> dict[str, Any] | None:
    """A measurement's band in `estimate --cases` JSON; null where its metric carries none.

    Its `family`, load `bin` (empty where not binned), `measurements`, `expected_coverage` ((n - 1) / (n + 1),
    `bands.expected_coverage`), the model's `error` ends and the `low` and `high` the measured value may lie in by
    them around the prediction (`Band.values`); where no run measured it (`Band.measured`), those are null and `reason`
    says why.
    """
    if b is None:
        return None
    ends = b.values(r.predicted)
    return {"family": b.family, "bin": b.bin, "measurements": b.count, "expected_coverage": b.coverage,
            "error": {"low": b.low, "high": b.high} if ends else None,
            "low": _quantity(ends[0], r.unit) if ends else None, "high": _quantity(ends[1], r.unit) if ends else None,
            "reason": None if ends else b.describe()}


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


def case_scores_json(scores: Scores, ranges: dict[str, tuple[dict[str, tuple[float, float]], str]] | None = None,
                     bands: CaseBands | None = None) -> list[dict[str, Any]]:
    """Every case of a file in order: its metrics' results, or one refused object.

    `ranges` as `case_scores_text` takes them: a row whose metric has one gets `unstated`, its lowest and highest
    prediction (quantities), their errors and what they span (`over`); none of them is scored. With `bands`, every
    row gets `band` (`band_of_case_json`) and `in_band`, whether the measured value lies within it (null where there
    is none).
    """
    out: list[dict[str, Any]] = []
    for e in scores.entries:
        out += [refused_json(e)] if isinstance(e, Refused) else case_results_json(e.results, ranges, bands)
    return out


#: The lists `case_scores_text` gives after the table, each a heading and why, by case id: `unfit`, the layouts that
#: do not fit by the model, still predicted as stated (`scoring.case_memory.unfit_reason`); `capped`, the simulated
#: serving cases whose requests in flight the replica caps below the concurrency they state
#: (`scoring.case_memory.admission_cap`); `flop`, the cases whose FLOP metrics count fewer FLOPs than the model's own
#: count (`scoring.cases.flop_note`).
CASE_LISTS = {
    "unfit": "Stated layouts that do not fit by the model (predicted as stated):",
    "capped": "Stated concurrency or batch above what the replica admits by the model (the rest queue, as engines do):",
    "flop": "FLOP metrics counted by the case's own formula, not the model's count:",
}


def case_scores_text(scores: Scores, ranges: dict[str, tuple[dict[str, tuple[float, float]], str]] | None = None,
                     bands: CaseBands | None = None, lists: Mapping[str, Mapping[str, str]] | None = None) -> str:
    """The scored cases' table, the lists of `CASE_LISTS` (`lists`, by its keys), the ranges, then each refusal.

    `ranges` maps a case id to each metric's lowest and
    highest prediction and the knobs they span (`scoring.unstated`); none of them is scored. `bands` adds each
    measurement's band and whether it lies inside (`case_results_text`).
    """
    text = case_results_text(scores.results, bands)
    for key, heading in CASE_LISTS.items():
        if items := (lists or {}).get(key):
            text += heading + "\n" + "".join(f"  {cid}: {why}\n" for cid, why in items.items())
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


def case_results_text(results: list[CaseResult], bands: CaseBands | None = None) -> str:
    """A table of predicted against measured, with the median and worst error.

    With `bands`, two columns follow: `in band`, whether the measured value lies within the band its family carries
    (`case_bands.holds`), and that band around the prediction with its expected coverage, (n - 1) / (n + 1) of its n
    measurements (`Band.coverage`): the held-out check of docs/accuracy.md on any run. A line counts those inside.
    """
    shown = [(show_value(r.measured, r.unit, r.metric), show_value(r.predicted, r.unit, r.metric)) for r in results]
    width = max([len(r.id) for r in results] + [4])
    mw = max([len(r.metric) for r in results] + [len("metric")])  # each column as wide as its longest entry
    vw = max([len(v) for pair in shown for v in pair] + [len("predicted")])
    extra = "  in band  band (expected coverage)" if bands is not None else ""
    lines = [f"{'case':{width}}  {'metric':{mw}} {'measured':>{vw}} {'predicted':>{vw}} {'error':>8}{extra}"]
    for r, (measured, predicted) in zip(results, shown, strict=True):
        lines.append(f"{r.id:{width}}  {r.metric:{mw}} {measured:>{vw}} {predicted:>{vw}} {r.error:+8.1%}"
                     + (_band_cells(bands.get((r.id, r.metric)), r) if bands is not None else ""))
    s = summary(results)
    if s["count"]:
        lines.append(f"{s['count']} measurements: median |error| {s['median']:.1%}, worst {s['worst']:.1%}")
    banded = [(b, r) for r in results if bands is not None and (b := bands.get((r.id, r.metric))) and b.measured]
    if banded:
        inside = sum(holds(b, r.error) for b, r in banded)
        lines.append(f"{inside} of {len(banded)} banded measurements inside their family's band "
                     f"({s['count'] - len(banded)} with no band)")
    return "\n".join(lines) + "\n"


def _band_cells(b: Band | None, r: CaseResult) -> str:
    """The `in band` and `band (expected coverage)` cells of one measurement (`case_results_text`)."""
    ends = b.values(r.predicted) if b is not None else None
    if b is None:
        return f"  {'-':7}  none (the metric carries no band)"
    if ends is None or b.coverage is None:
        why = (f"unmeasured at this context ({b.measure} {b.tokens:,} tokens, longest {b.longest:,})" if b.longest else
               f"{b.count} measurement{'s' if b.count != 1 else ''} at this load, fewer than {MIN_BIN}" if b.bin else
               "no measurement of its family")
        return f"  {'-':7}  none: {why}"
    return (f"  {'yes' if holds(b, r.error) else 'no':7}  {show_value(ends[0], r.unit, r.metric)} to "
            f"{show_value(ends[1], r.unit, r.metric)} ({b.coverage:.0%} of {b.count})")
