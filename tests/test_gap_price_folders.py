"""`gap` prices a proposal by its own quote wherever in the proposal's folder the quote lies (newuser85, finding 1).

A buyer's finance analyst laid out the GB300 proposal as a project (`clusters/`, `prices/`) and ran `archgen gap
trial/gb300 --against trial/req`: `check trial/gb300` read capex 41,627,552 USD on the OEM quote, while `gap` said
capex, TCO and cost per token were not provided ("unpriced parts gb300-compute-tray x144, ..."), the quote in
`prices/` pricing nothing. `gap` runs the proposal's spec files, and a file's own folder was taken as its proposal
(`spec_files.roots`), so the quote in `prices/` priced only clusters under `prices/` (`analyse.price_scope`). Where
the catalog prices the parts (assumed), the quote was passed over without a word and the catalog's prices stood in.
A proposal is the PROPOSAL folder named on the command line, as in `check`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from archgen.commands.gap import gap
from archgen.pipeline import run
from tests.conftest import SPECS, write_tree

#: The vendor's quote for the GB200 compute tray (the catalog's own is an assumed 150,000 USD,
#: specs/catalog/systems/gb200-compute-tray.yaml).
QUOTE = """\
kind: Prices
id: oem-quote
prices:
  gb200-compute-tray: {capex: 172000 USD, date: "2025-01", basis: sourced, source: "OEM quote line 1"}
"""
REQUIREMENTS = """\
kind: Requirements
id: buyer
requirements:
  - {id: R-CAPEX, statement: Capex, subject: "cluster/*", metric: capex, target: ">= 1000000 USD"}
"""
# A floor, which a capex that leaves counted parts out (a lower bound) is judged on with its value; a ceiling it meets
# is not provided (cost31, tests/analyse/test_capex_lower_bound.py), so its row would carry no value to compare.
GB200 = "cluster/gb200-nvl72-su"


def _project(root: Path) -> Path:
    """The GB200 SU as a project with folders: the cluster in `clusters/`, the quote in `prices/`."""
    vendor = root / "vendor"
    (vendor / "clusters").mkdir(parents=True)
    shutil.copy(SPECS / "clusters" / "gb200-nvl72-su.yaml", vendor / "clusters")
    write_tree(vendor, {"prices/quote.yaml": QUOTE})
    write_tree(root / "req", {"buyer.yaml": REQUIREMENTS})
    return vendor


def test_a_quote_in_a_folder_beside_the_cluster_prices_it_in_gap(tmp_path):
    vendor = _project(tmp_path)
    checked = run([vendor]).operations.cost[GB200]
    trays = sum(line.quantity for line in checked.lines if line.part == "gb200-compute-tray")
    catalog = run([SPECS / "clusters" / "gb200-nvl72-su.yaml"]).operations.cost[GB200].capex.m
    assert checked.capex.m == catalog + trays * (172000 - 150000)     # check: the quote prices the trays
    [row] = gap([vendor], [tmp_path / "req"]).rows
    assert row.value.m == checked.capex.m                               # gap: the same capex, the same quote
    assert "gb200-compute-tray price" not in row.assumed


def test_each_of_two_proposals_keeps_its_own_quote_in_its_own_subfolder(tmp_path):
    """Two PROPOSAL folders: each one's quote, under its `prices/`, prices its own cluster only."""
    vendor = _project(tmp_path)
    other = tmp_path / "other"
    (other / "clusters").mkdir(parents=True)
    shutil.copy(SPECS / "clusters" / "dgx-b200-superpod.yaml", other / "clusters")
    shutil.copy(SPECS / "racks" / "dgx-b200-network.yaml", other / "clusters")
    rows = {r.subject: r for r in gap([vendor, other], [tmp_path / "req"]).rows}
    alone = run([other]).operations.cost["cluster/dgx-b200-superpod"].capex.m
    assert rows[GB200].value.m == run([vendor]).operations.cost[GB200].capex.m
    assert rows["cluster/dgx-b200-superpod"].value.m == alone    # vendor's quote prices no B200 part
