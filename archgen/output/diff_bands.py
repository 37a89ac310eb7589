"""A partner's change list states a figure's band beside it: one row per figure, not one per band end (nu87fix).

The registry declares many figures with the ends of a band as figures of their own: `<name>_low` and `<name>_high`
(interruptions per day over the rate sets, a part class's 95 % Poisson interval, a cost's ends with and without hot
spares, a sweep point's model error band) and `<name>_ci_low`, `<name>_ci_high` (the 95 % confidence interval of a
job's interruptions and MTTI: `archgen.metrics_operations`). Listed as rows, a GB300 SU with a rack fewer moved 175
figures, about 60 of them band ends that moved with their figure (newuser87's trial). `rows` puts each end that moved
in its figure's row, where that figure moved too in the same table; an end whose figure did not move keeps its own
row. JSON keeps every figure, each end naming the one it bounds (`band_of`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from archgen import metrics
from archgen.compare.diff import MetricChange
from archgen.output.diff_cells import decimals, display_unit, shown_number

#: The bands' suffixes, as their cells name them, in the order a cell states them; a CI's before a plain end's,
#: which its suffix also ends in.
BANDS = (("band", "_low", "_high"), ("95 % CI", "_ci_low", "_ci_high"))


@dataclass(frozen=True)
class Row:
    """A changed figure and the ends of its bands that changed with it."""

    change: MetricChange
    ends: tuple[MetricChange, ...] = ()


def band_of(c: MetricChange) -> tuple[str, str, str] | None:
    """(the figure's key, the band's name, "low" or "high") where `c` is a band end of a figure of its object."""
    for band, low, high in reversed(BANDS):    # `_ci_low` before `_low`
        for end, suffix in (("low", low), ("high", high)):
            figure = c.metric.removesuffix(suffix)
            if figure != c.metric and metrics.lookup(c.object, figure) is not None:
                return figure, band, end
    return None


def rows(changes: list[MetricChange]) -> list[Row]:
    """`changes` as rows: each band end whose figure is among them in that figure's row, in the figures' order."""
    keys = {(c.object, c.metric) for c in changes}
    ends: dict[tuple[str, str], list[MetricChange]] = defaultdict(list)
    alone = []
    for c in changes:
        b = band_of(c)
        if b is not None and (c.object, b[0]) in keys:
            ends[(c.object, b[0])].append(c)
        else:
            alone.append(c)
    return [Row(c, tuple(ends.get((c.object, c.metric), ()))) for c in alone]


def grouped(changes: list[MetricChange]) -> set[tuple[str, str]]:
    """(object, key) of each band end that `rows` states in its figure's row: JSON's `band_of` is set for these."""
    return {(e.object, e.metric) for r in rows(changes) for e in r.ends}


def band_text(row: Row, side: str) -> str:
    """The bands of a row's figure on one side (`side`: "base" or "head"), "band 0.0765 to 1.709; 95 % CI ..."; "".

    In the figure's display unit, which its cell names. An end that did not change is not among the row's ends: a
    band then reads by the end it has ("band high 1.709").
    """
    unit = display_unit(row.change.object, row.change.metric, row.change.base, row.change.head)
    said = []
    for band, _, _ in BANDS:
        found: dict[str, str] = {}
        for e in row.ends:
            b = band_of(e)
            q = getattr(e, side)
            if b is not None and b[1] == band and q is not None:
                v = float((q.to(unit) if unit else q.to("dimensionless")).magnitude)
                found[b[2]] = metrics.unbounded(e.metric) if v == math.inf else shown_number(v, decimals(v))
        if len(found) == 2:
            said.append(f"{band} {found['low']} to {found['high']}")
        elif found:
            [(end, value)] = found.items()
            said.append(f"{band} {end} {value}")
    return "; ".join(said)


def with_band(cell: str, row: Row, side: str) -> str:
    """A figure's cell with its bands in parentheses, where it has any on that side."""
    band = band_text(row, side)
    return f"{cell} ({band})" if band and cell != "—" else cell
