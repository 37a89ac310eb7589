"""A CSV cell shows a small value as the document's cell does: two significant figures, never 0.000 (leftovers22).

`display.decimals` is the one rule of a number's text (leftovers21): at a column's decimals, a value they would show
at fewer than two significant figures at two. The documents' cells took it; their CSV files and a sweep's
points.csv and front.csv still wrote every float at the column's decimals, so that a goodput of 8.7e-06 read 0.000
and 0.0005 at three decimals 0.001. They now take the same rule, without thousands separators (a CSV's number is
read by a spreadsheet, where 1,340.0 is text).
"""

from __future__ import annotations

import csv
import io
import math

from archgen.display import decimals, decimals_column
from archgen.perf.explore.tally import chunk, merge
from archgen.render import tables
from archgen.render.blocks import Column, Table
from archgen.render.point_table import DISPLAY, csv_text, points_table
from archgen.units import Q_
from tests.render.test_render_speed import reference_csv_bytes
from tests.test_unbounded_json import one_point

VALUES = (8.7e-06, 0.0005, -0.0004, 0.0123, 1234.5678, 0.0, -0.0, 2.0, math.nan, math.inf)
#: At three decimals: two figures under 0.01 (10^(1-3)), the fixed format from there up; 0, NaN and inf as before.
TEXTS = ("8.7e-06", "0.0005", "-0.0004", "0.012", "1234.568", "0.000", "-0.000", "2.000", "nan", "inf")


def test_a_column_of_floats_and_a_cell_give_the_documents_rule_without_separators():
    assert decimals_column(VALUES, 3) == list(TEXTS) == [decimals(v, 3, grouped=False) for v in VALUES]
    assert decimals(1234.5678, 3) == "1,234.568" and decimals(8.7e-06, 3) == "8.7e-06"   # the documents' text
    assert decimals_column([0.4, 12.6], 0) == ["0.4", "13"]        # under 1 at no decimals: two figures


def test_csv_bytes_shows_small_values():
    cols = (Column("Float", digits=3), Column("Power", "kW", 2), Column("Mixed", digits=1))
    rows = tuple(zip(VALUES[:5], (Q_(0.4, "W"), Q_(3, "W"), Q_(1500, "W"), None, Q_(2, "MW")),
                     (1, 0.04, "x", None, 0.5), strict=True))
    table = Table("t", "Small", cols, rows)
    got = tables.csv_bytes(table)
    assert got == reference_csv_bytes(table)                        # the column path is the cell-by-cell path
    assert list(csv.reader(io.StringIO(got.decode("utf-8"))))[1:] == [
        ["8.7e-06", "0.0004", "1"], ["0.0005", "0.003", "0.04"], ["-0.0004", "1.50", "x"],
        ["0.012", "", ""], ["1234.568", "2000.00", "0.5"]]        # main: 0.000, 0.00, 0.0, -0.000, 0.00


def test_points_csv_shows_small_values_as_the_table_of_points(tmp_path):
    problem, rows = one_point(tmp_path)
    rows[0].metrics["mfu"] = 8.7e-08              # 8.7e-06 % (a percent column: quantities in the column's unit)
    rows[0].metrics["memory_per_gpu"] = 4.0e4     # 4e-05 GB (the same)
    rows[0].metrics["energy_per_token"] = 3.0e-4  # a plain number
    result = merge(problem, [chunk(problem, rows, 0)])
    text = csv_text(problem, rows)
    assert text.encode("utf-8") == tables.csv_bytes(points_table(result, rows, "points", "Every point"))
    head, row = list(csv.reader(io.StringIO(text)))
    cells = dict(zip(head, row, strict=True))
    assert cells["MFU (%)"] == "8.7e-06" and cells["Memory per accelerator (GB)"] == "4e-05"   # main: 0.0, 0.0
    digits = DISPLAY["step_time"][3]                # a value from 1 up: the fixed format, as before
    assert cells["Step time (s)"] == f"{rows[0].metrics['step_time']:.{digits}f}"
