"""Spare-parts stock: how many units of each part class to hold on site, from a stated replenishment lead time.

A failed unit is sent back (RMA) or reordered, and a replacement arrives after the turnaround T. With failures a
Poisson process of rate lambda (the class's failures a year, every unit of it, interrupting or not) and one
replacement ordered per failure (an (s - 1, s) base-stock policy), the number of replacements on order at a random
time is Poisson with mean lambda T, whatever the distribution of T (Palm's theorem; Sherbrooke, "METRIC: A
Multi-Echelon Technique for Recoverable Item Control", Operations Research 16(1), 1968, and "Optimal Inventory
Modeling of Systems", 2nd ed., 2004, chapter 2). A stock of s then has no failed unit waiting for a spare with
probability P(X <= s) (the item's availability), and a failure finds a spare on the shelf with probability
P(X <= s - 1) (the fill rate: Poisson failures see the time average, Wolff's PASTA, Operations Research 30(2),
1982). The stock is the fewest s with P(X <= s) >= the set's `no_stockout` (docs/reliability.md, Spare-parts stock).
Without a stated turnaround the stock is not provided: no default lead time stands in.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from archgen.analyse.failure_model import StockLine
from archgen.perf.train.poisson import log_poisson_cdf, poisson_quantile

#: Classes with no part to stock: a software interruption replaces nothing.
NO_PART = ("software",)
#: Seconds in a year of 365.25 days, the year of every failure rate (`model.reliability.HOURS_PER_YEAR`).
YEAR_S = 365.25 * 86400


def stock_lines(entries: Iterable[dict], level: float) -> tuple[StockLine, ...]:
    """One `StockLine` per part class from the failure model's class entries (`analyse.reliability`).

    Each entry holds the class `name`, its `units`, `failures` (a year), `pipeline` (failures x turnaround in
    years, summed over its parts: Palm's mean for parts with different lead times is the sum of theirs) and
    `untimed` (parts with no turnaround). A class and its management share (a BMC NIC) draw on one stock.
    """
    by: dict[str, dict] = {}
    for e in entries:
        if e["name"] in NO_PART or not e["units"]:
            continue
        b = by.setdefault(e["name"], {"units": 0, "failures": 0.0, "pipeline": 0.0, "untimed": set(),
                                      "assumed_lead": set(), "lead_sources": set()})
        b["units"] += e["units"]
        b["failures"] += e["failures"]
        b["pipeline"] += e["pipeline"]
        for key in ("untimed", "assumed_lead", "lead_sources"):
            b[key] |= e.get(key, set())
    out = []
    for name, b in sorted(by.items()):
        if b["untimed"]:
            out.append(StockLine(name, b["units"], b["failures"], None, None, None, None, None,
                                 tuple(sorted(b["untimed"]))))
            continue
        mean = b["pipeline"]
        s = poisson_quantile(mean, level)
        out.append(StockLine(name, b["units"], b["failures"], mean / b["failures"] * YEAR_S if b["failures"] else 0.0,
                             mean, s, math.exp(log_poisson_cdf(mean, s)), math.exp(log_poisson_cdf(mean, s - 1)),
                             assumed_lead=tuple(sorted(b["assumed_lead"])),
                             lead_sources=tuple(sorted(b["lead_sources"]))))
    return tuple(out)


def no_turnaround(line: StockLine) -> str:
    """Why a class's spare-parts stock is not provided: the parts with no stated turnaround, in words."""
    return (f"no replenishment turnaround is stated for {', '.join(line.untimed)} (`turnaround` of the part's "
            "`reliability:`, its class in the FailureRates set, or the set's own): the stock rests on it")
