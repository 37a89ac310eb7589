"""`gap` shows a small value at two significant figures and a far miss as a ratio (newuser41 open item 10).

The input that showed it (new-user trial, `gap vendorA-full/ vendorB-full/ --against req/`): the MI355X job's
goodput of 8.7e-06 against `>= 0.9` read "0.00" with margin "-100.0 % (-0.90)", and its cost per million tokens of
135,367 USD against `<= 25 USD` a margin of "-541367.1 %". The value now keeps two significant figures where the
table's decimals would show fewer (`display.significant`, the helper the documents use), and a margin of 1,000 % or
more, or a value under 1 % of the limit, reads as the value's ratio to the limit, value / limit.
"""

from __future__ import annotations

from archgen.compare.gap import GapRow
from archgen.model.requirements import Requirement
from archgen.output.gap import margin_text, shown
from archgen.units import Q_

GOODPUT = Requirement(id="B-REL-001", statement="s", metric="goodput", target=">= 0.9")
COST = Requirement(id="B-COST-002", statement="s", metric="cost_per_million_tokens", target="<= 25 USD")


def test_a_tiny_goodput_keeps_its_figures():
    row = GapRow(GOODPUT, "workload/w", "not met", Q_(8.7e-06, ""))
    assert shown(row) == "8.7e-06"                                # before: 0.00
    assert margin_text(row) == "9.7e-06 × the limit (-0.90)"     # 8.7e-06 / 0.9; before: -100.0 % (-0.90)
    small = GapRow(GOODPUT, "workload/w", "not met", Q_(0.0523, ""))
    assert shown(small) == "0.052"                                # before: 0.05
    assert margin_text(small).startswith("-94.2 %")               # (0.0523 - 0.9) / 0.9, a percentage still


def test_a_far_miss_reads_as_a_ratio():
    row = GapRow(COST, "workload/w", "not met", Q_(135_367, "USD"))
    assert shown(row) == "135,367 USD"
    assert margin_text(row) == "5,400 × the limit (-135,342 USD)"   # 135,367 / 25 = 5,414.7; before: -541367.1 %
    near = GapRow(COST, "workload/w", "not met", Q_(60, "USD"))
    assert margin_text(near) == "-140.0 % (-35 USD)"                  # (25 - 60) / 25: under 1,000 %, a percentage
    zero = GapRow(GOODPUT, "workload/w", "not met", Q_(0, ""))
    assert shown(zero) == "0.00" and margin_text(zero) == "-100.0 % (-0.90)"   # a value of 0 is 100 % short
