"""The document's cost table shows each ranged cost with its range, as `check` gives it (nu41cost).

newuser41: `render` showed "TCO per goodput accelerator-hour 39.62" alone where `check` gave 13.56 to "no upper
bound" (goodput's low end 0 over the rate sets). The shipped GB200 SU's cost per goodput accelerator-hour runs from
the used hour's cost over goodput_high to that over goodput_low (`operations_stage.goodput_hour_cost`).
"""

from __future__ import annotations

import math

import pytest

from archgen.metrics import unbounded
from archgen.render.operations_cost import _range, cost_section


def test_the_cost_table_shows_the_goodput_hours_range(shipped):
    a = shipped.clusters["cluster/gb200-nvl72-su"]
    m = a.metrics
    table = next(b for b in cost_section(shipped, a).blocks if getattr(b, "id", None) == "cost-hourly")
    rows = {row[0]: row for row in table.rows}
    row = rows["TCO per goodput accelerator-hour, a lower bound"]   # its capex leaves rails and cords out (cost31)
    used = m["tco_per_used_accelerator_hour"].m_as("USD")
    low, high = used / m["goodput_high"].m, used / m["goodput_low"].m
    assert row[1] == pytest.approx(used / m["goodput"].m)
    assert row[2] == f"{low:,.2f} to {high:,.2f}"
    assert rows["TCO per accelerator-hour (owned), a lower bound"][2] == "—"   # no goodput in it: no range


def test_an_infinite_end_reads_its_reason():
    m = {"tco_per_goodput_accelerator_hour_low": _usd(13.56),
         "tco_per_goodput_accelerator_hour_high": _usd(math.inf)}
    assert _range(m, "tco_per_goodput_accelerator_hour", "USD") == \
        f"13.56 to {unbounded('tco_per_goodput_accelerator_hour')}"


def _usd(v: float):
    from archgen.units import Q_
    return Q_(v, "USD")
