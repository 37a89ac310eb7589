"""The cost sheet a finance reader audits: every input and step of the TCO, live formulas in the workbook (newuser64).

newuser64 (a finance analyst comparing the DGX B200 SuperPOD and the GB200 SU over five years): the workbook
`render --formats xlsx` wrote had the BOM (no prices), the requirements, the cable runs and the port map, and no
CSV held a price: the capex (27,824,410 USD on the GB200 SU) and the TCO (8,267,921 USD a year) were only in the
document's text, to be typed into a spreadsheet by hand. `cost.csv` and the workbook's `cost` sheet now give each
capex line (quantity x unit price), the facility's inputs and each figure made from them; in the workbook those are
formulas over the cells above, which this test evaluates (a small evaluator: the sheet uses only + - * / ^, SUM over
one column and IF) and holds to what `check` reports, then changes the tariff cell as an analyst would.
"""

from __future__ import annotations

import csv
import io
import re

import pytest

from archgen.render.cost_sheet import cost_sheet
from archgen.render.tables import csv_bytes, xlsx_bytes
from tests.conftest import run_cli

CLUSTERS = ("cluster/gb200-nvl72-su", "cluster/dgx-b200-superpod")


def _sheet(shipped, path: str):
    openpyxl = pytest.importorskip("openpyxl")
    a = shipped.clusters[path]
    table = cost_sheet(shipped.operations.cost[path], a)
    assert table is not None
    return openpyxl.load_workbook(io.BytesIO(xlsx_bytes([table])))["cost"], a.metrics


def _evaluate(ws, edits: dict[str, float] | None = None) -> dict[str, float]:
    """Every Amount (column E) by its Item (column A), formulas evaluated over the sheet, with `edits` by item."""
    cells = {f"{c.column_letter}{c.row}": c.value for row in ws.iter_rows(min_row=2) for c in row}
    items = {cells[f"A{r}"]: f"E{r}" for r in range(2, ws.max_row + 1)}
    for item, value in (edits or {}).items():
        cells[items[item]] = value
    done: dict[str, float] = {}

    def value(ref: str) -> float:
        if ref not in done:
            v = cells[ref]
            done[ref] = _formula(v[1:], value) if isinstance(v, str) and v.startswith("=") else float(v or 0)
        return done[ref]
    return {item: value(ref) for item, ref in items.items() if cells[ref] is not None}


def _formula(expr: str, value) -> float:
    expr = re.sub(r"SUM\(E(\d+):E(\d+)\)", lambda m: "(" + "+".join(f"E{r}" for r in range(int(m[1]),
                                                                                          int(m[2]) + 1)) + ")", expr)
    expr = re.sub(r"(?<=\d)=(?=\d)", "==", expr).replace("^", "**").replace("IF(", "_if(")
    names = {ref: value(ref) for ref in set(re.findall(r"\b[A-Z]\d+\b", expr))}
    return float(eval(expr, {"__builtins__": {}, "_if": lambda c, a, b: a if c else b}, names))  # noqa: S307


@pytest.mark.parametrize("path", CLUSTERS)
def test_the_workbooks_formulas_give_back_checks_figures(shipped, path):
    ws, m = _sheet(shipped, path)
    got = _evaluate(ws)
    for item, metric in (("Capex", "capex"), ("Energy per year", "energy_cost_per_year"),
                         ("Space per year", "space_cost_per_year"),
                         ("Capital recovery factor", "capital_recovery_factor"),
                         ("Capital recovered per year", "capital_cost_per_year"), ("TCO per year", "tco_per_year"),
                         ("TCO per accelerator-hour (owned)", "tco_per_accelerator_hour"),
                         ("TCO per used accelerator-hour", "tco_per_used_accelerator_hour")):
        assert got[item] == pytest.approx(m[metric].m, rel=1e-9), item
    assert got["TCO over the depreciation years"] == pytest.approx(5 * m["tco_per_year"].m)
    # five yearly payments at 8 % repay the capex and its interest: 5 x 0.25046 - 1 = 25.2 % of the capex
    assert got["Of which cost of capital"] == pytest.approx(m["capex"].m * (5 * 0.08 / (1 - 1.08 ** -5) - 1))
    assert ws["E2"].data_type == "f" and ws["A1"].value == "Item"


def test_a_tariff_changed_in_the_workbook_moves_the_energy_and_the_tco(shipped):
    ws, m = _sheet(shipped, "cluster/gb200-nvl72-su")
    base, dear = _evaluate(ws), _evaluate(ws, {"Electricity price": 0.12})
    assert dear["Energy per year"] == pytest.approx(base["Energy per year"] * 0.12 / 0.0895)
    assert dear["TCO per year"] - base["TCO per year"] == pytest.approx(dear["Energy per year"] -
                                                                       base["Energy per year"])
    assert dear["Capex"] == base["Capex"] == pytest.approx(27_725_410)   # 27,824,410 with 132 SR8 for the LACC (newuser80)


def test_the_csv_holds_the_numbers_and_says_how_each_is_computed(shipped):
    a = shipped.clusters["cluster/gb200-nvl72-su"]
    text = csv_bytes(cost_sheet(shipped.operations.cost[a.cluster.path], a)).decode()
    assert "gb200-compute-tray,System,144,150000,21600000,USD,Qty x unit price,assumed,2025-01," in text
    assert "\nCapex,,,,27725410,USD," in text
    assert not [c for row in csv.reader(io.StringIO(text)) for c in row if c.startswith("=")]   # numbers, no formula
    assert "support and maintenance contracts (`cost.support` not stated)" in text   # what the TCO leaves out
    assert "the maximum draw of gb200-compute-tray" in text   # the average load is an upper bound, and why


def test_render_writes_the_cost_csv_and_sheet(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    r = run_cli("render", "specs", "--target", "gb200-nvl72-su", "--out", str(tmp_path), "--formats", "csv,xlsx")
    assert r.code == 0, r.err
    assert (tmp_path / "gb200-nvl72-su" / "cost.csv").is_file()
    book = openpyxl.load_workbook(tmp_path / "gb200-nvl72-su" / "gb200-nvl72-su.xlsx")
    assert "cost" in book.sheetnames and book.calculation.fullCalcOnLoad


def test_the_cost_summary_marks_the_energy_at_maximum_draw(shipped):
    """The paragraph said the energy was an upper bound; the table a reader copies from did not (newuser64)."""
    from archgen.render.operations import cost_section
    a = shipped.clusters["cluster/gb200-nvl72-su"]
    assert a.typical_from_max   # no catalog compute system states a typical draw
    summary = next(b for b in cost_section(shipped, a).blocks if getattr(b, "id", None) == "cost-summary")
    items = [row[0] for row in summary.rows]
    assert "Energy per year (an upper bound: maximum draw, see above)" in items
    assert "TCO per year (its energy an upper bound, its capex a lower bound)" in items   # cost31: rails, cords


def test_the_performance_section_says_the_cost_per_token_carries_energy_at_maximum_draw(shipped):
    """check judges a job's cost per token between its ends (no energy cost, value); the document says so too."""
    from archgen.render.performance import section, workloads_for
    top = section(workloads_for(shipped, "gb200-nvl72-su"), shipped.operations.unsettled)
    text = " ".join(b.text for sub in top.sections for b in sub.blocks if isinstance(getattr(b, "text", None), str))
    # the cost per token's end is the corner of that and the repair wait's (the 405B job leaves no hot spare:
    # restore42 gave the repair's end its cost ends), the cost per hour's the energy's alone
    assert "cost_per_million_tokens, cost_per_token: its energy cost, 12.8 % of the TCO" in text
    assert ("; the other end is also taken with a failed node replaced at once, the value with every hardware "
            "failure waiting the rate set's repair time; the job leaves no idle node") in text   # tail42
    assert "{value}" not in text and "{other}" not in text and "at this end" not in text
    assert "job_cost_per_hour: its energy cost, 12.8 % of the TCO" in text


def test_the_sheet_carries_the_used_hour_on_to_the_goodput_hour_and_each_jobs_cost_per_million_tokens(shipped):
    """newuser85 (a finance analyst's GB300 business case): the sheet stopped at the used accelerator-hour, so the
    figures the committee decides on, the cost per goodput hour and per million tokens, were in no cell with a
    formula, only in the document's text. The GB200 SU's 405B job: used hour x 576 GPUs / (goodput tokens x 3,600)."""
    from archgen.render.performance import workloads_for
    path = "cluster/gb200-nvl72-su"
    a = shipped.clusters[path]
    jobs = tuple(r.workload.id for r in workloads_for(shipped, "gb200-nvl72-su"))
    openpyxl = pytest.importorskip("openpyxl")
    table = cost_sheet(shipped.operations.cost[path], a, shipped.metrics, jobs)
    assert table is not None
    got = _evaluate(openpyxl.load_workbook(io.BytesIO(xlsx_bytes([table])))["cost"])
    m = shipped.metrics[path]
    assert got["TCO per goodput accelerator-hour"] == pytest.approx(m["tco_per_goodput_accelerator_hour"].m, rel=1e-9)
    priced = [j for j in jobs if "cost_per_million_tokens" in shipped.metrics[f"workload/{j}"]]
    assert priced and "llama3-405b-pretrain-gb200" in priced
    for job in priced:
        w = shipped.metrics[f"workload/{job}"]
        assert got[f"{job}: cost per hour"] == pytest.approx(w["job_cost_per_hour"].m, rel=1e-9), job
        assert got[f"{job}: cost per million tokens"] == pytest.approx(w["cost_per_million_tokens"].m, rel=1e-9), job
    tokens = got["llama3-405b-pretrain-gb200: tokens per second"] * got["llama3-405b-pretrain-gb200: goodput"]
    assert got["llama3-405b-pretrain-gb200: cost per million tokens"] == pytest.approx(
        m["tco_per_used_accelerator_hour"].m * got["llama3-405b-pretrain-gb200: accelerators"] / (tokens * 3600) * 1e6)
