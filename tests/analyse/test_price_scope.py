"""A `Prices` list prices the clusters of its own proposal only (newuser27's open finding 1, procurement trial).

A buyer ran `archgen gap b200/ gb200/ --against req/`: vendor A's quote in `gb200/` priced the 800G SR8 optic at 600
USD, vendor B's in `b200/` left optics out. Every list priced every cluster of the run, so vendor B's capex silently
took vendor A's optic price (65,656,810 → 64,838,410 USD, 2,046 x (1,000 − 600)) and "mmf-800g-sr8 price" left its
assumed inputs. Now a list prices the clusters of the folder it was loaded from (`analyse.price_scope`); one folder
(`check specs/`) is one proposal, as before.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

from archgen.pipeline import run
from tests.conftest import SPECS

B200, GB200 = "cluster/dgx-b200-superpod", "cluster/gb200-nvl72-su"
#: The catalog's own (assumed) price of the 800G SR8 module (specs/catalog/links/mmf-800g-sr8.yaml:23).
CATALOG_SR8 = 1000
QUOTE_A = """\
kind: Prices
id: vendora-quote
prices:
  mmf-800g-sr8: {capex: 600 USD, date: "2026-10", basis: sourced, source: "VA-2026-10 line 7"}
  qm9700: {capex: 21345 USD, date: "2026-10", basis: sourced, source: "VA-2026-10 line 8"}
"""
QUOTE_B = """\
kind: Prices
id: vendorb-quote
prices:
  qm9700: {capex: 22000 USD, date: "2026-11", basis: sourced, source: "VB-2026-11 line 2"}
"""


def _tree(root: Path) -> Path:
    """Vendor B's proposal in `b200/` and vendor A's in `gb200/`, each with its quote, under `root/project`."""
    project = root / "project"
    for folder, cluster, quote in (("b200", "dgx-b200-superpod", QUOTE_B), ("gb200", "gb200-nvl72-su", QUOTE_A)):
        (project / folder).mkdir(parents=True)
        shutil.copy(SPECS / "clusters" / f"{cluster}.yaml", project / folder)
        (project / folder / "quote.yaml").write_text(quote, encoding="utf-8")
    shutil.copy(SPECS / "racks" / "dgx-b200-network.yaml", project / "b200")
    return project


def _run(project: Path, *paths: str):
    with contextlib.chdir(project):
        return run([Path(p) for p in paths])


def test_another_proposals_list_prices_no_part_of_a_cluster(tmp_path):
    project = _tree(tmp_path)
    both, alone = _run(project, "b200", "gb200"), _run(project, "b200")
    cost = both.operations.cost[B200]
    assert cost.capex == alone.operations.cost[B200].capex
    assert "mmf-800g-sr8 price" in cost.assumed
    [sr8] = {line.listed for line in cost.lines if line.part == "mmf-800g-sr8"}
    assert sr8 == ""   # its catalog price, not vendor A's
    # two proposals' lists price the QM9700 differently: no disagreement, each prices its own cluster; information
    # names what each lists of the other's bill of materials
    found = sorted((f.severity, f.object, f.message) for f in both.findings if f.id == "COST004")
    tail = ("which it does not price: that cluster is loaded from another folder named on the command line (another "
            "proposal), whose own lists and the parts' own prices price it")
    assert found == [
        ("info", "prices/vendora-quote", f"prices mmf-800g-sr8, qm9700, on the bill of materials of cluster "
                                         f"'dgx-b200-superpod', {tail}"),
        ("info", "prices/vendorb-quote", f"prices qm9700, on the bill of materials of cluster 'gb200-nvl72-su', {tail}")]
    qm = {path: [line.unit_price.m for line in c.lines if line.part == "qm9700"][0]
          for path, c in both.operations.cost.items()}
    assert qm == {B200: 22000, GB200: 21345}


def test_one_folder_is_one_proposal(tmp_path):
    """`check project/`: every list prices every cluster, as before (and the two QM9700 prices disagree)."""
    project = _tree(tmp_path)
    one, apart = _run(project, "."), _run(project, "b200", "gb200")
    sr8 = sum(line.quantity for line in apart.operations.cost[B200].lines if line.part == "mmf-800g-sr8")
    assert sr8 > 0
    assert one.operations.cost[B200].capex.m == (apart.operations.cost[B200].capex.m - sr8 * (CATALOG_SR8 - 600)
                                                  - 48 * (22000 - 21345))   # vendor A's QM9700 price, first by id
    assert [f.object for f in one.findings if f.id == "COST004"] == ["prices/vendorb-quote"]


def test_cost001_names_the_lines_of_each_currency(tmp_path):
    """newuser27 finding 5: COST001 said "several currencies (EUR, USD)" and named no line in either."""
    project = _tree(tmp_path)
    quote = project / "b200" / "quote.yaml"
    quote.write_text(QUOTE_B.replace("22000 USD", "20000 EUR"), encoding="utf-8")
    found = _run(project, "b200")
    [cost001] = [f for f in found.findings if f.id == "COST001"]
    cost = found.operations.cost[B200]
    usd = list(dict.fromkeys(line.part for line in cost.lines if line.unit_price is not None and line.part != "qm9700"))
    assert len(usd) > 5
    assert cost001.message == (f"prices in several currencies (EUR: qm9700 (Prices vendorb-quote); USD: "
                               f"{', '.join(usd[:5])} and {len(usd) - 5 + 2} more); archgen does not convert them: "
                               "give every price in one currency")   # + 2: the hall's energy price and rent
    # a requirement on the capex keeps its short reason
    assert cost.no_opex == "prices in several currencies (EUR, USD); archgen does not convert them: give every " \
                           "price in one currency (COST001)"
