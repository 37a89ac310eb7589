"""The sweep report's figure: the first two objectives of every point that fits, by category, and the Pareto front.

Split from `archgen.render.sweep` (the report's sections and files) for its size; that module draws `pareto.svg` with
`pareto_figure`. Presentation only: every figure comes from `perf.explore.points.Result`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure as MplFigure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, MaxNLocator

from archgen.perf.explore.points import Result
from archgen.perf.explore.problem import PointRow
from archgen.perf.explore.tally import Fitting, tally
from archgen.perf.explore.tally import categories as categorical_axes
from archgen.render import fmt, palette
from archgen.render.point_table import DISPLAY, PLAIN, level_text
from archgen.units import Q_

#: Colours of the categories (colour-blind safe, Okabe and Ito 2008), in level order; the same in every sweep plot.
PALETTE = palette.SERIES


def categories(result: Result) -> list[str]:
    """The categorical axes that vary in this sweep (more than one level), in axis order."""
    return categorical_axes(result.problem)


def category(result: Result, row: PointRow) -> str:
    """A point's combination of categorical axes as a legend label ('dgx-b200-superpod, fp8'), or ''."""
    return ", ".join(level_text(row.values[a]) for a in categories(result))


def pareto_figure(result: Result) -> MplFigure:
    """The first two objectives: every point that fits, coloured by its categorical axes, and the front.

    Colour: the combination of the categorical axes that vary (cluster, accelerator, precision), so that "DGX B200
    against GB200" reads off the plot. Filled markers are feasible, hollow ones fit but miss a SHALL target; a
    triangle marks a point on hypothetical hardware (`tally.assumed`). The front is a line.
    """
    (mx, _), (my, _) = result.objectives[:2]
    fig = MplFigure(figsize=(8.0, 4.4))
    ax = fig.subplots()
    fit = tally(result).fit
    named = [", ".join(level_text(v) for v in k) for k in fit.groups]
    groups = sorted(set(named), key=lambda g: [str(x) for x in g.split(", ")])
    colour = {g: PALETTE[i % len(PALETTE)] if g else "#4c72b0" for i, g in enumerate(groups)}
    names = np.asarray([groups.index(g) for g in named], dtype=np.int64)[fit.group] if named else fit.group
    (xs, xp), (ys, yp) = _display(fit, mx), _display(fit, my)
    span = _span(xs[xp], ys[yp]) if len(fit.feasible) > GRID_FROM else None
    for k, g in enumerate(groups):
        for feasible in (True, False):
            for marker, on_catalog in (("o", True), ("^", False)):
                take = xp & yp & (names == k) & (fit.feasible == feasible) & (fit.catalogued == on_catalog)
                x, y = xs[take], ys[take]
                if len(x) and span is not None:
                    x, y = _gridded(x, y, span)
                if len(x):
                    ax.scatter(x.tolist(), y.tolist(), s=22,
                               marker=marker, linewidths=0.9, edgecolors=colour[g],
                               facecolors=colour[g] if feasible else "none")
    fx, fy = _shown_column([result.rows[i] for i in result.front], mx), \
        _shown_column([result.rows[i] for i in result.front], my)
    front = sorted(((x, y) for x, y in zip(fx, fy, strict=True) if x is not None and y is not None),
                   key=lambda xy: xy[0])
    if front:
        ax.plot([x for x, _ in front], [y for _, y in front], "-", color="#333333",
                linewidth=1.0, zorder=0)
    for m, axis, setter in ((mx, ax.xaxis, ax.set_xlabel), (my, ax.yaxis, ax.set_ylabel)):
        title, _, shown, _ = DISPLAY[m]
        label = "" if shown in PLAIN else fmt.unit_label(shown)
        setter(f"{title} ({label})" if label else title)
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.10g}"))  # 1,500,000, not 1.5 with a 1e6 offset
    ax.grid(True, linewidth=0.3, color="#dddddd")
    handles = [Line2D([], [], marker="o", linestyle="", color=colour[g], label=g or "feasible") for g in groups]
    drawn_marks = marks(result)
    handles += [Line2D([], [], marker="o", linestyle="", markerfacecolor="none", color="#666666", label=HOLLOW)
                ] * (HOLLOW in drawn_marks)
    handles += [Line2D([], [], marker="^", linestyle="", color="#666666", label=TRIANGLE)] * (TRIANGLE in drawn_marks)
    handles += [Line2D([], [], color="#333333", linewidth=1.0, label="Pareto front")]
    title = ", ".join(categories(result))
    ax.legend(handles=handles, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False, fontsize=7,
              title=title or None, title_fontsize=7)
    ax.set_title(result.problem.sweep.name or result.problem.sweep.id, fontsize=9,
                 parse_math=False)  # '$' in a name is text, not TeX (mathtext raised ParseException)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=5))         # long tick labels such as 1,600,000 must not touch
    fig.subplots_adjust(right=0.68)
    return fig


#: Points that fit beyond which the plot draws one marker per cell of a `GRID` over the axes' span, per series (a
#: 10^5-point scatter is a 14 MB SVG of markers drawn over each other; a cell is about a pixel of the plot).
GRID_FROM = 5000
GRID = (440, 340)
GRIDDED = (f"; past {GRID_FROM:,} points, one marker per occupied cell of a {GRID[0]} x {GRID[1]} grid over the "
           "plot (points closer than about a pixel are drawn once)")


#: The plot's marks other than a filled circle, as its legend and the caption name them.
HOLLOW, TRIANGLE = "hollow: misses a SHALL target", "triangle: hypothetical hardware"


def marks(result: Result) -> tuple[str, ...]:
    """The marks the plot draws a point with, of `HOLLOW` and `TRIANGLE`: the legend and the caption name these only.

    newuser107: a sweep of catalogued hardware alone kept "triangle: hypothetical hardware" with no triangle drawn.
    """
    fit = tally(result).fit
    (mx, _), (my, _) = result.objectives[:2]
    shown = _display(fit, mx)[1] & _display(fit, my)[1]
    return (HOLLOW,) * bool((shown & ~fit.feasible).any()) + (TRIANGLE,) * bool((shown & ~fit.catalogued).any())


def drawn(result: Result) -> int:
    """How many of the points that fit the plot draws: those with both its figures, finite (`_display`).

    A point with no power (scaled hardware) has no energy per token, one on a cluster without checkpoint storage no
    goodput: the plot leaves it off, and the caption and alt text count what it draws (newuser107).
    """
    fit = tally(result).fit
    (mx, _), (my, _) = result.objectives[:2]
    return int((_display(fit, mx)[1] & _display(fit, my)[1]).sum())


def _shown_column(rows: list[PointRow], metric: str) -> list[float | None]:
    """`metric` of each row in its display unit as a float (None where a row lacks it), converted as one array."""
    _, si, shown, _ = DISPLAY[metric]
    have = [i for i, r in enumerate(rows) if metric in r.metrics]
    out: list[float | None] = [None] * len(rows)
    if have:
        mags = Q_(np.asarray([rows[i].metrics[metric] for i in have], dtype=float), si).to(shown).magnitude
        for i, x in zip(have, mags.tolist(), strict=True):
            out[i] = x
    return out


def _display(fit: Fitting, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """A metric of the points that fit in its display unit (converted as one array), and where they have it."""
    _, si, shown, _ = DISPLAY[metric]
    have = fit.present[metric] & np.isfinite(fit.values[metric])   # an unbounded cost end has no place on an axis
    out = np.full(len(have), np.nan)
    if have.any():
        out[have] = Q_(fit.values[metric][have], si).to(shown).magnitude
    return out, have


def _span(xs: np.ndarray, ys: np.ndarray) -> tuple[float, float, float, float]:
    """The lowest x, the width, the lowest y and the height of the points plotted (1 where they do not spread)."""
    x = xs.tolist() or [0.0]
    y = ys.tolist() or [0.0]
    return min(x), (max(x) - min(x)) or 1.0, min(y), (max(y) - min(y)) or 1.0


def _gridded(x: np.ndarray, y: np.ndarray, span: tuple[float, float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    """One point per occupied cell of `GRID` (its centre), in the order the cells are first occupied."""
    x0, w, y0, h = span
    nx, ny = GRID
    i = np.minimum(((x - x0) / w * nx).astype(np.int64), nx - 1)  # truncated towards zero, as int() does
    j = np.minimum(((y - y0) / h * ny).astype(np.int64), ny - 1)
    _, first = np.unique(i * ny + j, return_index=True)
    first.sort()
    i, j = i[first], j[first]
    return x0 + (i + 0.5) * w / nx, y0 + (j + 0.5) * h / ny
