"""A hall's `cost.residual_value`: what the hardware is worth when the depreciation years end (newuser85, finding 3).

A finance analyst signing a five-year GB300 business case found the capital recovered per year repaying the whole
capex, the cluster worth nothing after five years, and nothing saying so: no input, no word in the cost paragraph or
the cost sheet. The capital recovery with a salvage value S is the engineering-economics annual worth
CR = P (A/P, i, n) − S (A/F, i, n) = (P − S (1 + i)^−n) (A/P, i, n) (Blank and Tarquin, Engineering Economy,
section 6.2: a first cost of 50,000 USD, a salvage value of 5,000 USD after 5 years at 10 %: CR = 12,371 USD a year;
https://sciemce.com/qa/qZBnCelr8xeP). Unstated, the residual value is 0, and the document and the sheet say so.
"""

from __future__ import annotations

import io

import pytest

from archgen.analyse.cost import capital_recovery, recovered_per_year
from archgen.pipeline import run
from tests.conftest import SPECS, write_tree

GB200 = "cluster/gb200-nvl72-su"


def test_the_textbook_capital_recovery_with_a_salvage_value():
    """Blank and Tarquin's 50,000 USD first cost, 5,000 USD salvage, 5 years at 10 %: 12,371 USD a year."""
    assert 50_000 * recovered_per_year(0.10, 5, 5_000 / 50_000) == pytest.approx(12_371, abs=1)
    assert recovered_per_year(0.10, 5, 0) == capital_recovery(0.10, 5)          # no salvage: the plain factor
    assert recovered_per_year(0.0, 5, 0.2) == pytest.approx(0.8 / 5)             # straight line: (P − S) / n


def _hall(root, residual: str) -> object:
    hall = (SPECS / "catalog" / "facilities" / "hall-liquid.yaml").read_text(encoding="utf-8")
    hall = hall.replace("  discount_rate: 0.08\n", f"  discount_rate: 0.08\n{residual}")
    write_tree(root, {"hall-liquid.yaml": hall})
    return run([SPECS / "clusters" / "gb200-nvl72-su.yaml", root / "hall-liquid.yaml"])


def test_a_stated_residual_value_lowers_the_capital_per_year_and_the_tco(tmp_path):
    none, resold = _hall(tmp_path / "a", ""), _hall(tmp_path / "b", "  residual_value: 0.15\n")
    m0, m1 = none.metrics[GB200], resold.metrics[GB200]
    capex = m0["capex"].m
    assert m1["capital_cost_per_year"].m == pytest.approx(capex * 0.25046 * (1 - 0.15 * 1.08 ** -5), rel=1e-4)
    assert m0["tco_per_year"].m - m1["tco_per_year"].m == pytest.approx(
        m0["capital_cost_per_year"].m - m1["capital_cost_per_year"].m)
    assert m1["capital_recovery_factor"] == m0["capital_recovery_factor"]       # the factor itself is unchanged


def test_the_cost_sheet_and_paragraph_state_the_residual_value(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    from archgen.render.cost_sheet import cost_sheet
    from archgen.render.operations import cost_section
    from archgen.render.tables import xlsx_bytes
    from tests.render.test_cost_sheet import _evaluate
    for residual, words in (("", "counts no resale value"), ("  residual_value: 0.15\n", "less a residual value")):
        r = _hall(tmp_path / str(len(residual)), residual)
        a = r.clusters[GB200]
        ws = openpyxl.load_workbook(io.BytesIO(xlsx_bytes([cost_sheet(r.operations.cost[GB200], a)])))["cost"]
        got = _evaluate(ws)
        assert got["Capital recovered per year"] == pytest.approx(r.metrics[GB200]["capital_cost_per_year"].m)
        assert got["Residual value at the end"] == (0.15 if residual else 0)
        text = " ".join(b.text for b in cost_section(r, a).blocks if isinstance(getattr(b, "text", None), str))
        assert words in text
