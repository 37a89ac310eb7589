"""A sweep's points as table columns: the headings, the cell values, and CSV text written column by column.

The document's tables of points (`points_table`) and `points.csv`/`front.csv` show the same columns.
The CSV of 10^5 points is written from plain numbers a column at a time: a metric column is converted to its display
unit once (pint on an array, the same multiplication as per cell) and each cell is formatted as
`render.tables.csv_bytes` formats it; text cells (axis levels, layouts, statuses) are formatted once per distinct
value. The result is byte for byte what `tables.csv_bytes(points_table(...))` writes (a test holds it), at a small
fraction of the cost: no pint object per cell. A chunk of rows can be written on its own (no header), so that the
workers that evaluate the points also write their part of the file (`commands.workers`).
"""

from __future__ import annotations

import csv
import functools
import io
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from archgen import metrics as registry
from archgen.display import MEMORY_RANGED, decimals_column, outside
from archgen.metrics import unbounded as unbounded_text
from archgen.metrics_bands import BANDED
from archgen.model.requirements import Status
from archgen.model.sweep import GOODPUT_METRICS
from archgen.model.sweep_axes import FABRIC_AXES, FACILITY_AXES, MACHINE_AXES
from archgen.model.workload import job_kind
from archgen.perf.explore.points import Result, objectives, requirements
from archgen.perf.explore.problem import PointRow, SweepProblem
from archgen.perf.explore.tally import assumed
from archgen.perf.hw.reserve import holds_reserve
from archgen.perf.workload.training_estimate import layout_string
from archgen.render import fmt
from archgen.render.blocks import Column, Para, Table
from archgen.render.tables import csv_cell
from archgen.units import Q_, Q, format_quantity

#: How each metric is shown: its title, SI unit, display unit and decimals (from `archgen.metrics`).
DISPLAY: dict[str, tuple[str, str, str, int]] = {
    m.name: (m.title, m.dimension or "dimensionless", m.unit or "dimensionless", m.digits)
    for m in (*registry.declared("workload"), *registry.declared("point")) if m.sweep}
#: Metrics listed in the tables of points, per job kind (objectives first, then these).
SHOWN = {"training": ("step_time", "tokens_per_second", "mfu", "memory_per_gpu", "power", "energy_per_token"),
         "inference": ("ttft", "tpot", "tokens_per_second_per_gpu", "concurrency", "power", "energy_per_token"),
         "collective": ("busbw", "time")}
LAYOUT = {"tp": "tp", "pp": "pp", "dp": "dp", "cp": "cp", "ep": "ep", "micro_batch": "mb", "interleave": "v",
          "recompute": "recompute", "replicas": "replicas", "batch": "batch", "max_batch": "max batch", "op": "op",
          "algorithm": "algorithm"}
#: Display units shown as plain numbers: counts, ratios and rates whose title names the unit (Tokens/s).
PLAIN = ("dimensionless", "1/s")


def metric_names(problem: SweepProblem) -> list[str]:
    """The metrics the point tables show: the objectives, then the job's usual figures.

    A table that shows goodput, or a figure made from it, also shows the low and high ends of its range over the
    rate sets (`model.sweep.GOODPUT_METRICS`), as `check` does: one rate set's figure alone would look surer than it is;
    goodput tokens and cost per token shown bring the ends that goodput's ends make. Last, the ends of the model's
    error band of each banded figure shown (`metrics_bands.BANDED`: step time, tokens/s, MFU, TTFT, TPOT), the ends
    a requirement on it is judged at risk by (empty where no published run measured it), and of a training job's
    memory's range over the allocator's waste (`display.MEMORY_RANGED`; empty on a TPU).
    """
    names = [m for m, _ in objectives(problem.sweep)]
    names += [m for m in SHOWN[job_kind(problem.workload, "workload")] if m not in names]
    if GOODPUT_METRICS & set(names):
        names += [m for m in ("goodput", "goodput_low", "goodput_high") if m not in names]
        names += [end for m in ("goodput_tokens_per_second", "cost_per_token", "mtti", "goodput_time_to_train")
                  if m in names
                  for end in (f"{m}_low", f"{m}_high") if end not in names]
    names += [end for m in (*BANDED, *MEMORY_RANGED) if m in names for end in (f"{m}_low", f"{m}_high")
              if end not in names]
    return names


def level_text(level: Any, axis: str = "") -> str:
    """An axis value as text: a factor as '×1.5', a quantity as written, anything else as is.

    A facility axis's number (`FACILITY_AXES`: a utilisation, a discount rate, a PUE) is a level, not a factor: '0.8';
    its price reads as written, every digit ('0.0895 USD/kWh': two digits would show 0.0890 and 0.0895 alike). A
    fabric axis's ratio is down:up, as the fabric writes it: '2:1'.
    """
    if isinstance(level, Q):
        return format_quantity(level) if axis in FACILITY_AXES else \
            fmt.q(level, digits=0 if float(level.magnitude).is_integer() else 2)
    if isinstance(level, float):
        return f"{level:g}:1" if axis in FABRIC_AXES else f"{level:g}" if axis in FACILITY_AXES else f"×{level:g}"
    return str(level)


def layout_text(row: PointRow, problem: SweepProblem | None = None) -> str:
    """The layout a point ran with: 'tp 2 · pp 9 · dp 16 · mb 1 · recompute none'.

    Where it places the layers as DeepSpeed's uniform partition, the layout string Megatron-core needs to run it
    follows (`pipeline_layout`, given the point's `problem`): "... · pipeline_layout 'Et*9|(t*9|)*7t*8L'".
    """
    text = " · ".join(f"{LAYOUT.get(k, k)} {v}" for k, v in row.layout.items() if not (k in ("cp", "ep") and v == 1)
                      and not (k == "interleave" and v == 1))
    run = pipeline_layout(problem, row.layout)
    return text + (f" · pipeline_layout '{run}'" if run else "")


def pipeline_layout(problem: SweepProblem | None, layout: Mapping[str, Any]) -> str | None:
    """The layout string a training point's `layout` runs only with, where pp splits the layers unevenly, else None.

    Megatron-LM asserts an even split unless the stages are stated; the model times such a split as DeepSpeed's
    uniform partition, and `training_estimate.layout_string` gives the string that places it so (newuser38: the
    shipped llama3-70b sweep's pp 9 on 80 layers read as a plain layout, where `estimate` says so in a note).
    """
    if problem is None or problem.model is None or problem.workload.training is None or not layout:
        return None
    return layout_string(problem.model.layers, problem.workload.training, layout)


#: Why a layout shows a `pipeline_layout`, once under a table that shows one (`render.sweep`).
UNEVEN_NOTE = ("A layout followed by a pipeline_layout has a pp that does not divide the model's layers, even with "
               "the embedding and loss as slots: it is timed as DeepSpeed's uniform partition (one layer more on the "
               "first layers mod pp ranks), rank for rank as that layout string places it. Megatron-LM asserts an "
               "even split unless the stages are stated (megatron/training/arguments.py at d98e8a6, line 997), so "
               "under a Megatron stack the point runs only with that string, Megatron-core's "
               "pipeline_model_parallel_layout.")


def uneven_note(problem: SweepProblem, layouts: Sequence[Mapping[str, Any]]) -> tuple[Para, ...]:
    """`UNEVEN_NOTE` as a note, where a table of `layouts` shows a `pipeline_layout`; else nothing."""
    return (Para(UNEVEN_NOTE, "note"),) if any(pipeline_layout(problem, lay) for lay in layouts) else ()


def one_sided_note(problem: SweepProblem, rows: Sequence[PointRow]) -> tuple[Para, ...]:
    """Where a table of `rows` shows a band wholly to one side of its point, a note saying so; else nothing.

    The table gives a band's ends as columns of their own (numbers, as the CSV must), so the words `archgen estimate`
    puts beside the ends (`display.outside`: "wholly above the estimate") go under the table, with the points and
    figures they are true of. The point is the model's, never moved into its band (docs/perf-model.md, Error bands,
    A point outside its band).
    """
    said = []
    for m in (m for m in BANDED if m in metric_names(problem)):
        sides: dict[str, list[int]] = {}
        for r in rows:
            ends = (r.metrics.get(f"{m}_low"), r.metrics.get(f"{m}_high"))
            if m in r.metrics and None not in ends and (side := outside(r.metrics[m], ends)):
                sides.setdefault(side.removeprefix(", "), []).append(r.index)
        said += [f"{DISPLAY[m][0]}'s band lies {side} at point{'s' * (len(at) > 1)} {', '.join(map(str, at))}"
                 for side, at in sorted(sides.items())]
    if not said:
        return ()
    return (Para("; ".join(said) + ": every published run that band comes from was missed in one direction, and the "
                 "estimate is shown as the model gives it, not moved into its band.", "note"),)


def hypothetical(row: PointRow, problem: SweepProblem | None = None) -> list[str]:
    """The hardware a point assumes that the catalog does not have: every hardware axis not as catalogued.

    A factor other than 1 (×2 scale-out bandwidth) or a replaced figure ('1800 GB/s') describes a machine that does
    not exist as catalogued, so a best point resting on it answers a what-if, not a purchase; the cluster's own
    `scale_up_size` or a figure equal to the catalogued one does not (`tally.as_catalogued`).
    """
    return [f"{a} {level_text(row.values[a], a)}" for a in assumed(row.values, problem)]


def number(q: Q | None) -> Any:
    """Counts and rates as plain numbers (tables and CSV show 970,220, not '970,220 1/s'); the rest as is."""
    if q is None or str(q.units) == "percent" or not (q.dimensionless or q.is_compatible_with("1/s")):
        return q
    return float(q.magnitude)


def metric_cell(row: PointRow, metric: str) -> Any:
    """A row's metric as a table cell: `number(value(...))`, or why it has none where it is infinite.

    `metric.unbounded`: a cost's high end where goodput's low end is 0, an overrun replica's TTFT.
    """
    return unbounded_text(metric) if row.metrics.get(metric) == math.inf else number(value(row, metric))


def value(row: PointRow, metric: str) -> Q | None:
    """A row's metric as a quantity in its display unit, or None."""
    if metric not in row.metrics:
        return None
    _, si, shown, _ = DISPLAY[metric]
    return Q_(row.metrics[metric], si).to(shown)


#: The column that says whether a point that fits does so at its memory range's high end too (`PointRow.fits_high_end`)
HIGH_END = "Fits at memory high end"


def high_end_column(problem: SweepProblem) -> bool:
    """Whether a table of points has the `HIGH_END` column: a training sweep on a part whose memory has a range.

    The range is over the caching allocator's waste (`perf.hw.reserve.holds_reserve`: every part but a TPU), so a
    serving sweep or a TPU's has none; the Status column's "ok" is the fit at the model's figure (memreq42).
    """
    return problem.workload.training is not None and any(holds_reserve(b.hardware.vendor)
                                                         for b in problem.bases.values())


def columns(problem: SweepProblem) -> tuple[Column, ...]:
    """The columns of a table of points: index, axes, layout, metrics, outcome, requirements, hardware, reason."""
    cols = [Column("#", align="right"), *(Column(name) for name in problem.axes), Column("Layout")]
    for m in metric_names(problem):
        title, _, shown, digits = DISPLAY[m]
        cols.append(Column(title, None if shown in PLAIN else shown, digits, "right"))
    hardware = any(a in MACHINE_AXES for a in problem.axes)
    return (*cols, Column("Status"), *((Column(HIGH_END),) if high_end_column(problem) else ()), Column("Feasible"),
            *(Column(r.id) for r in requirements(problem)), *((Column("Hardware"),) if hardware else ()),
            Column("Reason"))


def cells(problem: SweepProblem, r: PointRow) -> tuple:
    """One point's row of a table of points, as `columns` lists them (quantities where a column has a unit)."""
    reqs = requirements(problem)
    met = [Status.NOT_PROVIDED if r.met.get(q.id) is None else Status.AT_RISK if q.id in r.at_risk
           else Status.MET if r.met[q.id] else Status.NOT_MET for q in reqs]
    hardware = any(a in MACHINE_AXES for a in problem.axes)
    flag = (("hypothetical" if hypothetical(r, problem) else "as catalogued",) if hardware else ())
    high = (r.fits_high_end,) if high_end_column(problem) else ()   # blank where it does not fit or has no range
    return (r.index, *(level_text(r.values[a], a) for a in problem.axes), layout_text(r, problem),
            *(metric_cell(r, m) for m in metric_names(problem)), r.status, *high, r.feasible, *met, *flag, r.reason)


def points_table(result: Result, rows: Sequence[PointRow], table_id: str, caption: str) -> Table:
    """Points with their axis values, layout, metrics, outcome and requirements (`columns`, `cells`)."""
    p = result.problem
    return Table(table_id, caption, columns(p), tuple(cells(p, r) for r in rows))


def _memo(col: Column, text: Callable[[Any], Any]) -> Callable[[Any], str]:
    """`csv_cell(text(v), col)`, computed once per distinct `v` (axis levels, layouts and statuses repeat)."""
    seen: dict[Any, str] = {}

    def cell(v: Any) -> str:
        key = (type(v), str(v)) if isinstance(v, Q) else (type(v), v)
        got = seen.get(key)
        if got is None:
            got = seen[key] = csv_cell(text(v), col)
        return got
    return cell


def _metric_column(rows: Sequence[PointRow], metric: str, col: Column) -> list[str]:
    """A metric's CSV cells: the column converted to its display unit at once, then each cell as `csv_cell` does."""
    _, si, shown, digits = DISPLAY[metric]
    have = [i for i, r in enumerate(rows) if metric in r.metrics]
    out = [""] * len(rows)
    if not have:
        return out
    unbounded = [i for i in have if rows[i].metrics[metric] == math.inf]   # `metric_cell`
    for i in unbounded:
        out[i] = csv_cell(unbounded_text(metric), col)
    have = [i for i in have if rows[i].metrics[metric] != math.inf] if unbounded else have
    mags: Any = Q_(np.asarray([rows[i].metrics[metric] for i in have], dtype=float), si).to(shown).magnitude
    probe = number(Q_(1.0, shown))
    if not isinstance(probe, float):  # a quantity in the column's unit: rounded to 9 decimals, as `tables._xlsx_cell`
        assert col.unit is not None and str(Q_(1.0, shown).units) == str(Q_(1.0, col.unit).units)
        mags = [round(x, 9) for x in mags.tolist()]   # Python's round, not numpy's: the same digits, byte for byte
    for i, text in zip(have, decimals_column(mags, digits), strict=True):   # 8.7e-06, not 0.000
        out[i] = text
    return out


def csv_text(problem: SweepProblem, rows: Sequence[PointRow], header: bool = True) -> str:
    """`rows` as CSV (the header first when `header`), equal to `tables.csv_bytes` of their table of points."""
    cols = columns(problem)
    axes, metric_list, reqs = list(problem.axes), metric_names(problem), requirements(problem)
    hardware = any(a in MACHINE_AXES for a in problem.axes)
    at = 0
    data: list[list[str]] = [[str(r.index) for r in rows]]
    at += 1
    for a in axes:
        cell = _memo(cols[at], functools.partial(level_text, axis=a))
        data.append([cell(r.values[a]) for r in rows])
        at += 1
    layout = _memo(cols[at], lambda key: layout_text(PointRow(0, {}, "", "", layout=dict(key)), problem))
    data.append([layout(tuple(r.layout.items())) for r in rows])
    at += 1
    for m in metric_list:
        data.append(_metric_column(rows, m, cols[at]))
        at += 1
    status = _memo(cols[at], str)
    data.append([status(r.status) for r in rows])
    at += 1
    if high_end_column(problem):
        data.append([{True: "yes", False: "no", None: ""}[r.fits_high_end] for r in rows])
        at += 1
    data.append(["yes" if r.feasible else "no" for r in rows])
    at += 1
    said = {None: csv_cell(Status.NOT_PROVIDED, cols[at]), True: csv_cell(Status.MET, cols[at]),
            False: csv_cell(Status.NOT_MET, cols[at])}
    risky = csv_cell(Status.AT_RISK, cols[at])
    for q in reqs:
        data.append([risky if q.id in r.at_risk and r.met.get(q.id) is not None else said[r.met.get(q.id)]
                     for r in rows])   # as `cells`: a requirement not judged at a point is never at risk there
        at += 1
    if hardware:
        data.append(["hypothetical" if assumed(r.values, problem) else "as catalogued" for r in rows])
        at += 1
    reason = _memo(cols[at], str)
    data.append([reason(r.reason) for r in rows])
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if header:
        writer.writerow([c.heading for c in cols])
    writer.writerows(zip(*data, strict=True))
    return buf.getvalue()
