"""How a number reads: the one rule for a metric's value in text, documents, spreadsheets and check messages.

Below the checks and the renderers alike, so that `archgen check`'s messages, `archgen estimate`'s text and the
documents (`archgen.render.fmt`, which re-exports these) show a metric's value the same way. Only unit conversions
and rounding here; JSON keeps every digit.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from archgen.metric import Metric
from archgen.metrics import SPARE_RANGED, unbounded
from archgen.pint_import import pint
from archgen.units import Q_, Q, format_quantity, ureg

#: Display symbols for unit expressions whose pint symbol is awkward in a document.
UNIT_NAMES = {"ft**3/min": "CFM", "ft³/min": "CFM", "kg/m**2": "kg/m²", "m**2": "m²", "degC": "°C",
              "Gbit/s": "Gb/s", "dimensionless": "", "": "", "rack_unit": "U", "l/min": "L/min", "l": "L",
              "TFLOPS": "TFLOP/s", "PFLOPS": "PFLOP/s", "percent": "%"}


def unit_label(unit: str) -> str:
    """Display symbol of a unit expression: ``'kW'``, ``'L/min'``, ``'CFM'``, ``'°C'``.

    A plain expression (letters and slashes, as written by the caller) is shown as written.
    """
    if unit in UNIT_NAMES:
        return UNIT_NAMES[unit]
    if re.fullmatch(r"[A-Za-z/]+", unit):
        return unit
    text = f"{ureg.parse_units(unit):~P}"
    return UNIT_NAMES.get(text, text)


def number(value: float | int, digits: int = 1) -> str:
    """A number with thousands separators and `digits` decimals (``1,340.0``); ``'—'`` for NaN/None."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,d}"
    text = f"{value:,.{digits}f}"
    if text.startswith("-") and float(text[1:].replace(",", "")) == 0:
        text = text[1:]  # no "-0.0"
    return text


def decimals(value: float, digits: int, grouped: bool = True) -> str:
    """`number` at `digits` decimals; a value they would show at fewer than two significant figures at two instead.

    A goodput of 8.7e-06 reads ``8.7e-06`` (`significant`), never ``0.000``, and 0.0005 at three decimals
    ``0.0005``, not ``0.001``: a figure that reads as zero is not zero, and one read at a single rounded figure can
    be off by half (newuser41). The one rule for a small value in `archgen check`'s messages, `archgen gap`'s table,
    every document's cells (`render.fmt.q`, `render.fmt.cell`) and their CSV files (`decimals_column`). A value of 0
    keeps `number`'s text; at no decimals, so does any value from 1 up. Not `grouped` (a CSV cell), no thousands
    separators: ``1340.000``, Python's fixed format (a small value's two figures never have one: it is under 1).
    """
    if value and math.isfinite(value) and abs(value) < _two_figures_below(digits):
        return significant(value, 2)
    return number(value, digits) if grouped else f"{value:.{digits}f}"


def _two_figures_below(digits: int) -> float:
    """The magnitude under which `digits` decimals show fewer than two significant figures (under 1 at none)."""
    return 10 ** (1 - max(digits, 1))


def decimals_column(values: Sequence[float] | np.ndarray, digits: int) -> list[str]:
    """``decimals(v, digits, grouped=False)`` of each of `values`: a CSV column's cells, a column at a time.

    The fixed format of every value, then `decimals` of the few under `_two_figures_below` (found at once, by
    numpy): a sweep's points.csv of 10^5 rows and a port map of 10^6 go through here, where a call per cell cost
    more than the formatting (bench/bench_sweep_output.py, bench/bench_render.py).
    """
    if isinstance(values, np.ndarray):
        column, floats = values, values.tolist()
    else:   # Python floats: formatted as they are, read into numpy once for the test (a tenth of the formatting)
        column, floats = np.fromiter(values, dtype=float, count=len(values)), values
    out = list(map(f"{{:.{digits}f}}".format, floats))
    for i in np.flatnonzero((column != 0) & (np.abs(column) < _two_figures_below(digits))).tolist():
        out[i] = decimals(float(column[i]), digits, grouped=False)
    return out


def duration(seconds: float) -> str:
    """A time as a person reads it, at three significant figures: s below 2 min, then min, h and, from 2, days.

    REL005's checkpoint interval of 60 days read '8.64×10⁴ min' beside an optimum of '0.118 min' (newuser92); '60 d'
    until words40, when a day came to print by its name (`figure`).
    """
    for unit, size in (("days", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= 2 * size:
            return f"{significant(seconds / size, 3)} {unit}"
    return f"{significant(seconds, 3)} s"


def significant(value: float, digits: int = 4) -> str:
    """Python's ``f"{value:,.{digits}g}"`` without the exponent from 10⁻⁴ to 10¹⁵.

    ``'11,440'`` where ``g`` gives ``'1.144e+04'``, trailing zeros dropped as ``g`` drops them; outside that span,
    NaN and infinity as ``g``.
    """
    rounded = float(f"{value:.{digits}g}")
    if rounded == 0 or not math.isfinite(rounded) or not 1e-4 <= abs(rounded) < 1e15:
        return f"{value:,.{digits}g}"
    text = number(rounded, max(digits - 1 - math.floor(math.log10(abs(rounded))), 0))
    return text.rstrip("0").rstrip(".") if "." in text else text


#: The units of time that print by their names (pint's symbols 'd' and 'a' patched out, `unit_definitions`; a week
#: and a month have none): alone after a number other than 1 they read in the plural, '2 years' (`with_unit`).
NAMED_TIMES = ("day", "week", "month", "year")


def with_unit(text: str, unit: str) -> str:
    """A number's text and its unit, a `NAMED_TIMES` unit alone in the plural where the number is not 1: '2 years'.

    The one rule of `figure` (a measured figure in a message) and `metric_value` (a metric's value in any output);
    costtidy40 and words40 made a year and a day print by name, which read '2 year' and '96.23 day'. A unit written
    as a symbol ('h', 'min') or a compound ('EUR/year', 'interruptions/day') is left as it is.
    """
    return f"{text} {unit}{'s' * (unit in NAMED_TIMES and text != '1')}".strip()


def figure(value: pint.Quantity, digits: int = 4) -> str:
    """A quantity at `digits` significant figures in its own unit, never as x10^n: a measured figure in a message.

    pint's ``f"{q:.4g~P}"`` wrote a bisection of 13,107.2 Tbit/s as '1.311×10⁴ Tbit/s' (small36, fmt36); this reads
    '13,107 Tbit/s'. `significant`'s text, thousands grouped, but from 10^digits up the whole number, its last
    figures not rounded to zeros (a capex in USD reads to the dollar); the unit as pint's ``~P`` writes it, a day or
    a year alone in the plural (`with_unit`: 'a repair of 2 years').
    """
    m = float(value.magnitude)
    text = number(round(m)) if math.isfinite(m) and abs(m) >= 10 ** digits else significant(m, digits)
    return with_unit(text, f"{value.units:~P}")


def kw(q: Any) -> str:
    """A power in kW at one decimal with thousands separators, as every check's message gives one: '2,500.0 kW'.

    `number`'s rule, the one the documents and `metric_value` show a kW figure by. One helper for the copies
    `checks/` held (review39); PWR011's, PWR002's and PWR017's texts wrote '2500.0 kW' while PWR022's and the shared
    utility's wrote '2,500.0 kW' (one format since r39fix).
    """
    return f"{number(float(q.to('kW').magnitude), 1)} kW"


def kva(q: Any) -> str:
    """An apparent power in kVA as `kw` gives a real one: '2,500.0 kVA' (a unit's nameplate rating in PWR011/PWR017)."""
    return f"{number(float(q.to('kVA').magnitude), 1)} kVA"


def near_one(p: float, digits: int = 3) -> float | str:
    """A probability's cell: `p`, or where `digits` decimals read 1 but it is below, its shortfall at two figures.

    Enough decimals to show 1 - p at two significant figures: a no-stock-out probability of 0.99996 reads
    ``0.999960``, never ``1.000``, since a figure that reads as certain is not (review39; `decimals`' rule for a
    figure that reads as zero, mirrored). At most 12 decimals: beyond, ``> 0.9…``.
    """
    if p >= 1 or float(f"{p:.{digits}f}") < 1:
        return p
    places = min(12, 1 - math.floor(math.log10(1 - p)))
    text = f"{p:.{places}f}"
    return text if float(text) < 1 else f"> {1 - 10 ** -places:.{places}f}"


#: Significant figures of a quantity in a check's message (`quantity`): Python's ``g`` default, six, which keeps every
#: figure a datasheet prints and drops a float's noise (16th figure) from a product or a unit conversion.
QUANTITY_FIGURES = 6


def quantity(value: pint.Quantity, figures: int = QUANTITY_FIGURES) -> str:
    """A quantity as a check's message shows it: in its own unit, at `figures` significant figures, as a spec writes it.

    ``8 x 700 W`` in kW reads ``'5.6 kW'``, not ``'5.6000000000000005 kW'``, and 1000.0 W ``'1000 W'``: the text is
    `units.format_quantity`'s (no thousands separator: it reads back as a spec value) of the rounded magnitude.
    """
    magnitude = float(f"{float(value.magnitude):.{figures}g}")
    return format_quantity(Q_(magnitude, value.units))


#: Significant figures of a performance estimate wherever it is shown (`archgen estimate`'s text, every document, a
#: spreadsheet's cells); JSON keeps every digit. The model's error on published runs is percents to tens of percents
#: (docs/accuracy.md), so a fifth figure would claim a precision it has not, and three would hide a 1 % change.
ESTIMATE_FIGURES = 4


def estimated(metric: Metric) -> bool:
    """Whether the performance model estimates `metric` (its registry source is under ``perf/``)."""
    return metric.source.startswith("perf/")


def metric_value(metric: Metric, value: pint.Quantity) -> str:
    """A metric's value as every output shows it: the one rule for text, documents and spreadsheets.

    In the metric's display unit (`Metric.unit_of`); a performance estimate (`estimated`) at `ESTIMATE_FIGURES`
    significant figures, a count (no unit, a whole number) whole, any other metric at its registry decimals (`decimals`:
    one they would show at fewer than two significant figures at two). So
    ``tokens_per_second`` 17,105.4 1/s reads ``17,110 tokens/s`` in `archgen estimate` and in the PDF alike, and a
    ``ttft_p99`` of 0.1374 s reads ``137.4 ms`` wherever it shows. An infinite value (a cost's high end where
    goodput's low end is 0, an overrun replica's TTFT) reads `metric.unbounded`'s reason, never a number.
    """
    shown = float(metric.display(value).magnitude)
    if shown == math.inf:   # the high end of a job's cost where goodput's low end is 0 (`metrics.UNBOUNDED`)
        return unbounded(metric.name)
    label = metric.rate_unit() or unit_label(metric.unit_of(value))
    if not metric.unit and shown.is_integer():
        text = number(int(shown))
    elif estimated(metric):
        text = significant(shown, ESTIMATE_FIGURES)
    else:
        text = decimals(shown, metric.digits)   # 8.7e-06, not 0.000; 0.0005, not 0.001
    return with_unit(text, label)   # '96.23 days'


def target_text(target: object, metric: Metric | None) -> str:
    """A requirement's target as written, but for a rate in the words its metric shows it in (``>= 600,000 tokens/s``).

    A target on a rate (`Metric.rate_unit`) is given in the metric's display unit, its number as written; so is a
    bare number on a metric shown in percent (``>= 0.35`` on MFU reads ``>= 35 %``, beside an estimate of
    ``55.51 %``: a reader should not have to guess that 0.35 is a fraction); any other keeps its stated form
    (``<= 0.45 s``).
    """
    limit, op = getattr(target, "limit", None), getattr(target, "op", "")
    if (metric is not None and metric.unit == "percent" and limit is not None and metric.accepts(limit)
            and limit.unitless):
        shown = float(metric.display(limit).magnitude)
        return f"{op} {shown:,.6g} %"
    rate = metric.rate_unit() if metric is not None else None
    if metric is None or rate is None or limit is None or not metric.accepts(limit) or metric.money_rate:
        return str(target)   # a cost per hour's names its time itself (`Target.per`): '<= 2.5 USD/h'
    shown = float(metric.display(limit).magnitude)
    return f"{op} {number(int(shown)) if shown.is_integer() else f'{shown:,.6g}'} {rate}"


#: What the Band of a metric with `_low` and `_high` ends is (`ranged`): not the performance model's error.
RANGE_BASIS = "range over the published failure-rate sets and their 95 % Poisson intervals (docs/reliability.md)"
#: ... and of a job's cost (`metrics.SPARE_RANGED`), whose ends are what it charges and goodput's ends
#: (`perf.workload.derived.cost_ends`), not the failure rates alone.
SPARE_BASIS = ("range from the job's accelerators per goodput token at goodput_high to those and the hot spares its "
               "goodput counts on, beyond the cluster's idle share, per goodput token at goodput_low (the cost per "
               "hour: the spares alone; docs/reliability.md)")

#: ... and of a training job's memory (`perf.hw.reserve.memory_ends`): the caching allocator's waste, no failure rate.
MEMORY_RANGED = ("memory_per_gpu", "memory_headroom")
MEMORY_BASIS = ("range from no allocator waste (the caching allocator holding its tensors alone) to the most a "
                "published measurement found, the CUDA context and NCCL's buffers at their figure at both ends; the "
                "share and its sources are in docs/perf-model.md, section Memory band")


#: ... and of a job's interruptions from one part class (`interruptions_per_day.<class>`): its own count's interval.
CLASS_BASIS = ("95 % Poisson interval of the part class's own count in the point rate set (Garwood; no range where it "
               "states none; docs/reliability.md, Interruptions by part class)")


def range_basis(name: str) -> str:
    """What the range of the metric `name` (one of `ranged`'s) spans: rate sets, a cost's spares, a class's count.

    Or the caching allocator's waste: a training job's memory (`MEMORY_RANGED`).
    """
    return (SPARE_BASIS if name in SPARE_RANGED else CLASS_BASIS if name.startswith("interruptions_per_day.")
            else MEMORY_BASIS if name in MEMORY_RANGED else RANGE_BASIS)


#: The ends of a reliability figure's own 95 % interval (`mtti_ci_low`, spares22): `estimate` and the document say
#: them after the metrics, not as rows of internal names.
CI_ENDS = ("_ci_low", "_ci_high")


def counted_intervals(metrics: Mapping[str, Q]) -> list[tuple[str, Q, Q]]:
    """(metric, low, high) of each figure whose own 95 % interval `metrics` carries (`CI_ENDS`), in their order."""
    return [(k, metrics[k + CI_ENDS[0]], metrics[k + CI_ENDS[1]]) for k in metrics
            if all(k + end in metrics for end in CI_ENDS)]


def ranged(names: Iterable[str], targeted: Collection[str] = ()) -> dict[str, tuple[str, str]]:
    """{metric: (its `_low` name, its `_high` name)} for each metric whose both ends are among `names`.

    The ends (`mtti_low`, `mtti_high`: the range over the failure-rate sets, `archgen.metrics`) read as the metric's
    band wherever an estimate is shown, not as lines of their own beside a bare value. An end that a requirement
    targets (in `targeted`) keeps its own line, and its status.
    """
    names = set(names)
    return {name: (f"{name}_low", f"{name}_high") for name in sorted(names)
            if f"{name}_low" in names and f"{name}_high" in names
            and not {f"{name}_low", f"{name}_high"} & set(targeted)}


def outside(value: Any, ends: tuple[Any, Any] | None) -> str:
    """', wholly above the estimate' (or below) where a band's `ends` both lie on one side of its `value`; else ''.

    Where every run a band comes from was missed in one direction (a closed loop's TPOT at light load: -18.2 % to
    -13.5 %, all under-predicted), its ends lie on one side of the estimate. The estimate is shown as the model gives
    it, never moved into its band (that would be a correction fitted to those runs), and the band beside it says at
    once that it lies wholly to one side (docs/perf-model.md, Error bands, A point outside its band).
    """
    if ends is None:
        return ""
    return ", wholly above the estimate" if ends[0] > value else ", wholly below the estimate" if ends[1] < value \
        else ""
