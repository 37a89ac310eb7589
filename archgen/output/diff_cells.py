"""The cells of `archgen diff`'s tables: a metric's display unit, its base, head and changes, a requirement's value.

Split from `output.diff` for its size: the Markdown comment's metric and requirement tables take their cells here.
"""

from __future__ import annotations

import math

from archgen import metrics
from archgen.compare.diff import MetricChange
from archgen.compare.requirement_changes import RequirementState
from archgen.metrics_bands import BANDED
from archgen.output.envelope import metric_quantity
from archgen.render.fmt import number, pr_md, unit_label
from archgen.units import Q

#: Display units for metrics whose analysis unit reads badly in a table (bytes, FLOP/s); pint converts.
_DISPLAY = {"B": "GB", "FLOPS": "TFLOP/s", "W": "kW"}


def magnitude(q: Q) -> float:
    """`q`'s magnitude as a float, in its own unit."""
    return float(q.magnitude)


def display_unit(obj: str, name: str, *values: Q | None) -> str:
    """The unit metric `name` of `obj` is shown in: its registry display unit (`archgen.metrics`).

    A metric the registry does not know (a run of older specs) keeps its analysis unit, or a readable one for B,
    FLOP/s and W.
    """
    declared = metrics.lookup(obj, name)
    q = next((v for v in reversed(values) if v is not None), None)
    if declared is not None and (q is None or declared.accepts(q)):
        return declared.unit_of(q)
    if q is None:
        return ""
    unit = f"{q.units:~}" if not q.dimensionless else ""
    unit = _DISPLAY.get(unit, unit)
    if unit == "s" and all(v is None or abs(magnitude(v.to("s"))) < 1 for v in values):
        unit = "ms"
    return unit


def label_of(obj: str, name: str, unit: str) -> str:
    """How `unit` reads for metric `name` of `obj`: a rate in what it counts (``tokens/s``, not ``1/s``).

    As `display.metric_value` shows it in `check` and documents; else the unit's label ("" for none).
    """
    declared = metrics.lookup(obj, name)
    if declared is not None and declared.money_rate and unit:
        return f"{unit}/{declared.per}"   # 'EUR/h': a cost per hour in its own currency
    rate = declared.rate_unit() if declared is not None and unit == declared.unit else None
    return rate or (unit_label(unit) if unit else "")


def decimals(*values: float) -> int:
    """Decimals that show four significant digits of the largest value."""
    big = max((abs(v) for v in values if v and math.isfinite(v)), default=0.0)
    return 0 if big == 0 else min(max(3 - math.floor(math.log10(big)), 0), 6)


def shown_number(value: float, digits: int, sign: bool = False) -> str:
    """`value` grouped, whole where it is, else at `digits` decimals without trailing zeros; '+' where `sign`."""
    if math.isfinite(value) and float(value).is_integer() and abs(value) < 1e15:
        text = number(int(value))
    else:
        text = number(value, digits)
        if "." in text:
            text = text.rstrip("0").rstrip(".")
    return ("+" if sign and value > 0 else "") + text


def _in(q: Q | None, unit: str) -> float | None:
    if q is None:
        return None
    return magnitude(q.to(unit)) if unit else magnitude(q.to("dimensionless"))


def metric_cells(c: MetricChange) -> tuple[str, str, str, str]:
    """(base, head, change, relative change) as display text, both sides in the same display unit."""
    unit = display_unit(c.object, c.metric, c.base, c.head)
    compatible = c.base is not None and c.head is not None and c.head.is_compatible_with(c.base)
    old = _in(c.base, unit) if compatible or c.head is None else None
    new = _in(c.head, unit)
    label = label_of(c.object, c.metric, unit)
    if not compatible and c.base is not None and c.head is not None:  # dimension changed: each in its own unit
        return (_with(magnitude(c.base), f"{c.base.units:~P}"), _with(new, label), "—", "—")
    if math.inf in (old, new):   # a cost's high end where goodput's low end is 0: no number to subtract
        ends = [_with(v, label) if v != math.inf else metrics.unbounded(c.metric) for v in (old, new)]
        return (ends[0], ends[1], "—", "—")
    delta = new - old if old is not None and new is not None and not c.unlike else None
    digits = decimals(*(v for v in (old, new) if v is not None))
    if delta:  # enough decimals that the change itself shows two significant digits
        digits = max(digits, min(max(1 - math.floor(math.log10(abs(delta))), 0), 6))
    shown = [("—" if v is None else (shown_number(v, digits) + (f" {label}" if label else ""))) for v in (old, new)]
    # a percentage's change is in percentage points, beside the relative change in per cent
    # a temperature's change is a difference, in K (°F's in its own degrees): a coolant supply 35 → 40 °C is +5 K
    step = "points" if unit == "percent" else {"degC": "K", "degF": "°F (difference)"}.get(unit, label)
    change = "—" if delta is None else shown_number(delta, digits, sign=True) + (f" {step}" if step else "")
    rel = c.relative
    pct = "—" if rel is None else f"{rel * 100:+.{2 if abs(rel) < 0.01 else 1}f} %"
    return (shown[0], shown[1], change, pct)


def banded_cells(c: MetricChange) -> tuple[str, str, str, str]:
    """`metric_cells` with each side's band beside its value: ``49.46 % (band 30.47 to 54.41 %)``.

    The band is the model's error band on that side's value (`MetricChange.bands`), in the value's display unit at
    its decimals, so that a move reads against the error of the figures it compares (newuser101); an estimate
    that carries a band where one was measured (`metrics_bands.BANDED`) and has none on a side reads "(no band)".
    """
    old, new, change, rel = metric_cells(c)
    unit = display_unit(c.object, c.metric, c.base, c.head)
    label = label_of(c.object, c.metric, unit)

    def beside(cell: str, value: Q | None, ends: tuple[Q, Q] | None) -> str:
        if value is None or cell == "—":
            return cell
        if ends is None:   # an estimate the model gives no band on here: said, not left to read as sure
            return f"{cell} (no band)" if c.object.startswith("workload/") and c.metric in BANDED else cell
        low, high = (magnitude(e.to(unit)) if unit else magnitude(e.to("dimensionless")) for e in ends)
        digits = decimals(low, high)
        said = [shown_number(v, digits) if math.isfinite(v) else metrics.unbounded(c.metric) for v in (low, high)]
        return f"{cell} (band {said[0]} to {said[1]}" + (f" {label})" if label else ")")
    return (beside(old, c.base, c.bands[0]), beside(new, c.head, c.bands[1]), change, rel)


#: The head and rule of a table of metric changes; `direction` is better or worse by the metric registry.
TABLE_HEAD = "| object | metric | base | head | change | relative | direction |"
TABLE_RULE = "|---|---|--:|--:|--:|--:|---|"


def direction_cell(c: MetricChange) -> str:
    """'better ▲' or 'worse ▼' (the arrow: which way the value went), or — where the metric has no better direction.

    ', within band' where each side's value lies in the other's model error band (`MetricChange.within_band`): the
    move is smaller than the model can tell. 'not comparable: <why>' where the sides measure different things
    (`MetricChange.unlike`). Then, where a headroom moved as another cluster joined or left its hall, which one
    (`MetricChange.hall`), and why a side reads 0 (`MetricChange.zeroed`).
    """
    if c.unlike:
        return f"not comparable: {pr_md(c.unlike)}"
    moved = "—" if c.direction is None else \
        f"{c.direction} {'▲' if c.change is not None and c.change.magnitude > 0 else '▼'}"
    moved += ", within band" if c.within_band else ""
    why = "; ".join(pr_md(w) for w in (c.hall, c.zeroed) if w)
    return f"{moved}: {why}" if why else moved


def measure_json(c: MetricChange) -> dict:
    """A metric change's JSON beside its values: its bands, whether it moved within them, why it is not compared.

    Each side's band (`low`, `high`; null without one), whether the move lies within them (`within_band`, null
    without both), why the sides are not comparable (`not_comparable`, then `change`, `relative` and `direction`
    are null) and why a side reads 0 (`zeroed`); null where none.
    """
    bands = {side: {"low": metric_quantity(c.metric, e[0]), "high": metric_quantity(c.metric, e[1])}
             if e is not None else None for side, e in zip(("base", "head"), c.bands, strict=True)}
    return {"band": bands if any(bands.values()) else None, "within_band": c.within_band,
            "not_comparable": c.unlike or None, "zeroed": c.zeroed or None}


def tightened_words(tightened: bool | None) -> str:
    """How a redefined requirement's target moved, said after it: " (tightened)", " (relaxed)" or nothing.

    `RequirementChange.tightened` is None where no single word says it; the internal and the customer report's target
    cell read it alike.
    """
    return "" if tightened is None else " (tightened)" if tightened else " (relaxed)"


def _with(value: float | None, label: str) -> str:
    if value is None:
        return "—"
    return shown_number(value, decimals(value)) + (f" {label}" if label else "")


def requirement_value(state: RequirementState | None) -> str:
    """A requirement's value on one side, in its metric's display unit ('—' where absent or not provided)."""
    if state is None or state.value is None:
        return "—"
    unit = display_unit(state.object, state.metric, state.value)
    return _with(_in(state.value, unit), label_of(state.object, state.metric, unit))
