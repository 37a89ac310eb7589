"""`archgen estimate`: performance estimates and validation-case scores as text and JSON (no printing here).

JSON follows the contract of ARCHITECTURE.md: quantities are ``{"value": float, "unit": str}`` in SI units, and
`estimate --cases --format json` is a list of ``{"id", "metric", "measured", "predicted", "error"}``, one per measured
metric of each scored case, in file order; a case the model cannot score is one ``{"id", "refused": true,
"problems": [{"file", "line", "column", "message"}]}`` in its place (no `metric` or `error`: `error` stays the
relative error of a scored metric).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from archgen import metrics
from archgen.display import CI_ENDS, counted_intervals, decimals, outside, range_basis, ranged, target_text
from archgen.model.requirements import Outcome, Status
from archgen.model.switch_table import as_written as show_switch
from archgen.output.envelope import metric_quantity, with_old_names
from archgen.perf.train.stacks import Used, by_origin
from archgen.perf.workload.bands import Band
from archgen.perf.workload.defaults_taken import defaults_line
from archgen.perf.workload.derived import band_ends
from archgen.perf.workload.estimate_result import Estimate
from archgen.quantity_json import to_json
from archgen.render.fits import fits_text
from archgen.render.fmt import (
    elasticity,
    elasticity_note,
    estimate_part,
    hardware_value,
    metric_value,
    pct,
    significant,
)
from archgen.units import Q, relative_change

_DISPLAY = {"s": ("ms", 1e3), "FLOPS": ("TFLOP/s", 1e-12), "B/s": ("GB/s", 1e-9), "1/s": ("1/s", 1.0),
            "B": ("GB", 1e-9), "dimensionless": ("", 1.0)}


def show_value(value: float, unit: str, metric: str = "") -> str:
    """A value in SI `unit` as the estimate reports show it (ms, TFLOP/s, GB/s, GB; a rate as `metric` counts it)."""
    label, scale = _DISPLAY.get(unit, (unit, 1.0))
    declared = metrics.find("workload", metric) if metric else None
    if unit == "1/s" and declared is not None and declared.unit == "1/s":
        label = declared.rate_unit() or label
    if unit == "s" and value >= 1:
        label, scale = "s", 1.0
    if unit == "dimensionless":
        return f"{value:,.0f}" if value >= 10 or value == int(value) else decimals(value, 3)   # 8.7e-06, not 0.000
    return f"{significant(value * scale)} {label}".strip()


#: How the text output names what the elasticities are of, where an estimate says (`Estimate.sensitivity_of`).
SENSITIVITY_OF = {"replica_capacity": "replica capacity (a server run that keeps up serves its offered load, which no "
                                      "hardware moves; the hardware moves how many replicas keep it up)"}


def estimate_json(est: Estimate, waived: Sequence[str] = ()) -> dict[str, Any]:
    """An estimate as JSON-ready data; `waived`, per requirement, what `check` says of its waived finding (`waived`)."""
    return {
        "workload": est.workload, "kind": est.kind, "cluster": est.cluster or None, "accelerator": est.accelerator,
        "accelerators": est.accelerators,
        "layout": est.layout, "fits": est.fits,
        "defaults_taken": [{"name": d.name, "value": d.value, "from": d.source} for d in est.defaults],
        "assumed": list(est.assumed),
        "metrics": with_old_names({k: metric_quantity(k, v) for k, v in est.metrics.items()}),
        "breakdown": {k: to_json(v) for k, v in est.breakdown.items()},
        "memory": {k: to_json(v) for k, v in est.memory.items()},
        "sensitivity": {k: (v if math.isfinite(v) else None) for k, v in est.sensitivity.items()},
        "sensitivity_of": (est.sensitivity_of or ("step_time" if est.kind == "training" else
                                                  "tokens_per_second_per_gpu") if est.sensitivity else None),
        "hardware": {k: to_json(v) for k, v in est.hardware.items()},
        "hardware_unconfirmed": dict(est.hardware_unconfirmed),
        "memory_type": est.memory_type,
        "bands": with_old_names({k: band_json(b, est.metrics[k], est.metrics, k) for k, b in est.bands.items()}),
        "searched": est.searched,
        "requirements": [{"id": o.requirement.id, "metric": o.requirement.metric, "target": str(o.requirement.target),
                          "value": to_json(o.value) if o.value is not None else None, "met": o.met,
                          "status": o.status.value, "shown": o.shown, "note": o.note or None,
                          "pessimistic": to_json(p) if (p := o.pessimistic) is not None else None, "waived": w or None}
                         for o, w in zip(est.requirements, _waivers(est, waived), strict=True)]
        if est.requirements is not None else None,  # None: unjudged
        "conventions": est.conventions, "notes": est.notes,
    }


def _waivers(est: Estimate, waived: Sequence[str]) -> tuple[str, ...]:
    """`waived` as long as the estimate's requirements, '' for each it does not reach (`estimate_text`)."""
    n = len(est.requirements or ())
    return (*waived[:n], *("",) * (n - len(waived[:n])))


def band_json(b: Band, value: Q, others: Mapping[str, Q] | None = None, metric: str = "") -> dict[str, Any]:
    """A metric's error band as JSON.

    Its family, measurements (and those on the estimated accelerator), signed relative errors, the span over the
    part's stated efficiency ranges it also covers (`spread`, factors of the value; null where the part has
    measurements or states no range) and value range (`Band.values`); a serving-under-load latency's also its run's
    `load`, load bin (`perf.workload.band_families.load_bin`, or bins `light..moderate`), whose measurements it
    counts, and `reach`, an open loop's load at the capacity band's low end (null where no further; null elsewhere);
    a job past its family's longest scored context, its `context`: the `measure` furthest past (`prompt`, `sequence`
    or `decode`, `band_families.past`), the job's `tokens` in it and the family's `longest` (null elsewhere); where
    every measurement on the part's vendor misses by more than the family's median |error| (`Band.typical`),
    `vendor`: that vendor, its measurements and their errors (null elsewhere).

    Where `others` (the estimate's metrics) hold the ends of `metric`'s range too (`metric_low`, `metric_high`: a
    training job's cost over its goodput's range, `display.ranged`), `low` and `high` are the band at each end of
    that range (`derived.band_ends`, as the text and `check` take it), and `range` gives the range's own ends and
    what it spans (`basis`, `display.range_basis`); `range` is null elsewhere. Before, JSON gave the band at the
    value alone (nu41cost). An infinite end has no number and says why (`unbounded`, the text's words:
    `envelope.metric_quantity`). `expected_coverage` is the share of further comparable runs the band's n errors are
    expected to hold, (n - 1) / (n + 1) (`bands.expected_coverage`; null without a band). An MoE serving rate's
    `routing` gives its value at the published routing skew (`low`, null where none bounds it) and at balanced
    routing (`high`), which the band's ends do not take in (`Band.routing_values`); null elsewhere. `carried` says
    where a band carried from another quantity's comes from (an offline TPOT's: the tokens/s band by Little's law,
    `band_lookup.offline_gap`), `caveat` why a target met at both its ends is still at risk; null elsewhere.
    """
    ends = band_ends(b, value, others, metric) if others is not None else b.values(value)
    pair = ranged(others or {}).get(metric)
    span = ({"low": metric_quantity(metric, others[pair[0]]), "high": metric_quantity(metric, others[pair[1]]),
             "basis": range_basis(metric)} if pair and others is not None else None)
    on = ({"accelerator": b.accelerator, "measurements": b.on_accelerator} if b.on_accelerator is not None else None)
    vendor = ({"vendor": b.vendor, "measurements": b.typical[0], "low": b.typical[1], "high": b.typical[2],
               "median": b.typical[3]} if b.typical is not None else None)
    load = {"load": b.load, "bin": b.bin, "arrival": b.arrival, "reach": b.reach} if b.bin else None
    context = ({"measure": b.measure, "tokens": b.tokens, "longest": b.longest or b.measured_to}
               if b.longest or b.measured_to else None)
    routed = b.routing_values(value)
    routing = None if routed is None else {"low": None if routed[0] is None else metric_quantity(metric, routed[0]),
                                           "high": metric_quantity(metric, routed[1])}
    if ends is None:
        return {"family": b.family, "measurements": b.count if b.bin else 0, "on_accelerator": on, "load": load,
                "context": context, "error": None, "spread": None, "low": None, "high": None, "vendor": None,
                "range": span, "expected_coverage": None, "routing": routing, "carried": None, "caveat": None}
    return {"family": b.family, "measurements": b.count, "expected_coverage": b.coverage, "on_accelerator": on,
            "load": load, "context": context,
            "error": {"low": b.low, "high": b.high, "median": b.median}, "vendor": vendor,
            "spread": {"low": b.spread[0], "high": b.spread[1]} if b.spread is not None else None,
            "low": metric_quantity(metric, ends[0]), "high": metric_quantity(metric, ends[1]), "range": span,
            "routing": routing, "carried": b.carried.rstrip(": ") or None, "caveat": b.caveat or None}


def band_text(b: Band | None, value: Q, metric: str) -> str:
    """The band after a metric's value: 'band 2.409 s to 3.428 s (expected coverage 98%): model error ...'.

    Or, in brackets, that no run measured it. The expected coverage is the share of further comparable runs the range
    of its n errors is expected to hold, (n - 1) / (n + 1) (`bands.expected_coverage`).
    """
    if b is None:
        return ""
    ends = b.values(value)
    if ends is None:
        return f"  ({b.describe()})"
    return (f"  band {_quantity(ends[0], metric)} to {_quantity(ends[1], metric)}{outside(value, ends)}"
            f"{_coverage(b)}: {b.describe()}")


def _coverage(b: Band | None) -> str:
    """A band's expected coverage, (n - 1) / (n + 1) of its n measurements (`Band.coverage`), after its ends."""
    return "" if b is None else b.coverage_text()


def estimate_text(est: Estimate, waived: Sequence[str] = ()) -> str:
    """A readable report of an estimate; `waived`, per requirement, what `check` says of its waived finding."""
    lines = [f"{est.kind} workload '{est.workload}' on {est.accelerators} x {est.accelerator}"
             + (f" of cluster '{est.cluster}'" if est.cluster else "")]
    if est.layout:
        lines.append("layout: " + ", ".join(f"{k}={v}" for k, v in est.layout.items()))
    if est.memory:   # the document's sentence (`render.fits`)
        lines.append(fits_text(est).strip())
    if est.defaults:
        lines.append("defaults taken: " + defaults_line(est.defaults))
    lines += [f"assumed: {a}" for a in est.assumed]
    for note in est.notes:
        lines.append(f"note: {note}")
    if est.hardware:
        lines.append("hardware per accelerator:")
        lines += [f"  {k:28} {hardware_value(k, v)}{est.hardware_mark(k)}" for k, v in est.hardware.items()]
    if est.metrics:
        lines.append("metrics:")
        ranges = ranged(est.metrics, {o.requirement.metric for o in est.requirements or ()})
        ends = {end for pair in ranges.values() for end in pair}
        lines += [f"  {k:28} {_quantity(v, k)}"
                  + (_range_text(est, k) if k in ranges else band_text(est.bands.get(k), v, k))
                  for k, v in est.metrics.items() if k not in ends and not k.endswith(CI_ENDS)]
        counted = [f"{k} {_quantity(lo, k)} to {_quantity(hi, k)}" for k, lo, hi in counted_intervals(est.metrics)]
        if counted:   # a reliability figure's own interval, as the document says it below its table
            lines.append("95 % interval of the rate set's own failure counts: " + "; ".join(counted))
    if est.breakdown:
        total = sum(float(v.to('s').magnitude) for v in est.breakdown.values()) if est.kind == "training" else 0
        lines.append("breakdown (the replica's time per request, not a request's latency; breakdown, below):"
                     if est.kind == "inference" else "breakdown:")
        for k, v in est.breakdown.items():
            s = float(v.to("s").magnitude)
            share = f"  ({pct(s / total, 1)})" if total else ""
            lines.append(f"  {k:28} {estimate_part(v)}{share}")
    if est.memory:
        lines.append("memory per accelerator:")
        for k, q in est.memory.items():
            lines.append(f"  {k:28} {estimate_part(q)}")
    if est.sensitivity:
        what = SENSITIVITY_OF.get(est.sensitivity_of, est.sensitivity_of) if est.sensitivity_of else \
            "step time" if est.kind == "training" else "tokens/s per accelerator"
        lines.append(f"elasticity of {what} (d ln / d ln):")
        for k, e in sorted(est.sensitivity.items(), key=lambda kv: -abs(kv[1]) if math.isfinite(kv[1]) else -1e9):
            note = elasticity_note(k, est.hardware)
            lines.append(f"  {k:28} {elasticity(e)}" + (f"  ({note})" if note else ""))
    for o, w in zip(est.requirements or (), _waivers(est, waived), strict=True):
        target = target_text(o.requirement.target, metrics.find("workload", o.requirement.metric))  # as `check`
        lines.append(f"{o.requirement.id}: {o.requirement.metric} {target}: {o.shown}"
                     + (f" ({o.note})" if o.note else "") + _risk(o) + (f" (waived: {w.strip()})" if w else ""))
    for k, text in est.conventions.items():
        lines.append(f"{k}: {text}")
    return "\n".join(lines) + "\n"


def what_if_json(base: Estimate, scaled: Estimate, factors: dict[str, float],
                 scope: dict[str, Any] | None = None) -> dict[str, Any]:
    """A what-if as JSON-ready data: the factors, the estimate under them, and each metric against the baseline.

    `scope` (`perf.workload.peak_scope`): the peaks a `peak` factor held and the job with every peak scaled, as
    `peak_scope` {scaled, held, metric, every_peak, layout}; absent where the factor scaled all the job runs at.
    """
    extra = {"peak_scope": {"scaled": scope["scaled"], "held": {k: to_json(v) for k, v in scope["held"].items()},
                            "metric": scope["metric"], "every_peak": to_json(scope["every_peak"]),
                            "every_peak_layout": scope["layout"]}} if scope else {}
    return {"what_if": factors, **extra, "estimate": estimate_json(scaled),
            "baseline": {"layout": base.layout, "fits": base.fits,
                         "metrics": with_old_names({k: to_json(v) for k, v in base.metrics.items()}),
                         "requirements": {o.requirement.id: o.met for o in base.requirements or ()}},
            "change": with_old_names({k: relative_change(base.metrics[k], scaled.metrics[k])
                                      if k in scaled.metrics else None for k in base.metrics})}


def what_if_text(base: Estimate, scaled: Estimate, factors: dict[str, float],
                 scope: dict[str, Any] | None = None) -> str:
    """The estimate under `factors`, then each metric against the baseline (and what a `peak` factor held)."""
    lines = ["what-if: " + ", ".join(f"{k} x{v:g}" for k, v in factors.items()), estimate_text(scaled).rstrip(),
             "against the baseline:"]
    if scope:
        lines.insert(1, _peak_scope_text(base, scaled, scope))
    if base.layout != scaled.layout:
        lines.append("  layout (baseline)            " + ", ".join(f"{k}={v}" for k, v in base.layout.items()))
    for k, b in base.metrics.items():  # a metric the what-if no longer has (it does not fit) shows as n/a
        v = scaled.metrics.get(k)
        change = relative_change(b, v) if v is not None else None
        shown = "" if v is None else " (n/a)" if change is None else f" ({change:+.1%})"
        lines.append(f"  {k:28} {_quantity(b, k)} -> {'n/a' if v is None else _quantity(v, k)}{shown}")
    before = {o.requirement.id: o.status for o in base.requirements or ()}
    for o in scaled.requirements or ():
        if before.get(o.requirement.id) != o.status:
            lines.append(f"  {o.requirement.id}: {before.get(o.requirement.id, Status.NOT_PROVIDED)} -> {o.status}")
    return "\n".join(lines) + "\n"


def _peak_scope_text(base: Estimate, scaled: Estimate, scope: dict[str, Any]) -> str:
    """The line under a `peak` what-if's header: the data type it scaled, the peaks it held, every peak scaled."""
    metric, f = scope["metric"], scope["factor"]
    held = ", ".join(f"{k} {_quantity(v, 'peak')}" for k, v in scope["held"].items())
    every, now, was = scope["every_peak"], scaled.metrics[metric], base.metrics[metric]
    return (f"note: peak x{f:g} scales the {scope['scaled']} peak alone, the job's data type; the part's other tensor "
            f"peaks stay as it states them ({held}), and this job runs part of its work at them (an FP8 or FP4 job's "
            f"attention core, output layer or logits in BF16). With every tensor peak x{f:g}, {metric} "
            f"{_quantity(every, metric)} ({relative_change(was, every) or 0.0:+.1%}), not {_quantity(now, metric)} "
            f"({relative_change(was, now) or 0.0:+.1%})")


def switches_json(used: list[Used]) -> list[dict[str, Any]]:
    """The switches an estimate used (`stacks.explain`), each with its origin, profile and source."""
    return [{"name": u.name, "value": u.value, "origin": u.origin, "profile": u.profile, "source": u.source or None,
             "used": u.used} for u in used]


def switches_text(used: list[Used]) -> str:
    """Every switch an estimate used, one a line, with where its value came from and why."""
    width = max(len(u.name) for u in used)
    lines = ["switches (value, where it came from):"]
    lines += [f"  {u.name:{width}}  {show_switch(u.value):14} {u.where}" + (f": {u.source}" if u.source else "")
              for u in used]
    return "\n".join(lines) + "\n"


def case_switches_text(used: dict[str, list[Used]]) -> str:
    """Each training case's switches in one line, grouped by where they came from (`stacks.by_origin`).

    The switches the case's layout or model makes moot come last, as 'not used'.
    """
    lines = ["Switches per training case (where each value came from):"]
    for case_id, uses in used.items():
        lines.append(f"  {case_id}: " + "; ".join(f"{where}: {', '.join(v)}" for where, v in by_origin(uses).items()))
    return "\n".join(lines) + "\n"


def case_defaults_text(defaults: dict[str, dict[str, str]]) -> str:
    """Each serving case's fields left to their defaults, one case a line (nothing for a case that states them all)."""
    rows = {case_id: d for case_id, d in defaults.items() if d}
    if not rows:
        return ""
    lines = ["Serving fields per case left to their defaults (docs/perf-model.md, Defaults):"]
    lines += [f"  {case_id}: " + ", ".join(f"{k}={v}" for k, v in d.items()) for case_id, d in rows.items()]
    return "\n".join(lines) + "\n"


def _range_text(est: Estimate, metric: str) -> str:
    """The band of a metric with `_low` and `_high` ends (`display.ranged`), and what it spans (`range_basis`).

    Where the metric has a model-error band too (a training job's cost per token, goodput tokens/s: made from its
    tokens/s), the band is taken at each end of the range (`derived.band_ends`), as `check` judges it and the
    document shows it.
    """
    band = est.bands.get(metric)
    both = band_ends(band, est.metrics[metric], est.metrics, metric) if band is not None else None
    ends = both or (est.metrics[f"{metric}_low"], est.metrics[f"{metric}_high"])
    low, high = (_quantity(q, metric) for q in ends)
    error = f", with the {band.describe()} at each end" if both is not None and band is not None else ""
    return f"  band {low} to {high}{_coverage(band) if error else ''}: {range_basis(metric)}{error}"


def _risk(o: Outcome) -> str:
    """Why an outcome is at risk: its band's pessimistic end (none where that meets it: `at_risk.thin`'s note)."""
    p = o.pessimistic
    if o.status is not Status.AT_RISK or p is None or not o.end_misses:
        return ""
    return f" (the pessimistic end of its band, {_quantity(p, o.requirement.metric)}, does not meet it)"


def _quantity(q, metric: str = "") -> str:
    """A metric as the documents show it (`display.metric_value`); an undeclared one at four significant digits."""
    declared = metrics.find("workload", metric)
    if declared is not None and declared.accepts(q):
        return metric_value(declared, q)
    unit = _unit(q)
    return show_value(float(q.to(unit).magnitude), unit)


def _unit(q) -> str:
    for u in ("s", "FLOPS", "B/s", "1/s", "B"):
        if q.is_compatible_with(u):
            return u
    return "dimensionless"
