"""`gap` says which oversubscription each cell gives: the ratio as used beside the ratio the proposal states.

oversub37 named the three ratios in the metric, NET033 and the documents (as stated, as built, as used) and left
`gap`, whose row read `<= 2 | 1.905` for a fabric stated "2:1", the same figure as `check`'s metric with nothing to
say it is not the stated one. The small cluster here (tests/data/clusters/small.py: 16 DGX H100, 128 compute ports
on 64-port QM9700 rail leaves) stated "2:1" splits each leaf 43 down to 21 up (2.05:1 as built, NET033), and its
rail groups fill 40 of the 43 down ports: 40 / 21 = 1.905 as used, what the metric and the row give.
"""

from __future__ import annotations

import json

import pytest

from archgen.commands.gap import report
from archgen.compare.gap import GapRow, ratio_basis
from archgen.model.fabrics import FatTree
from archgen.model.requirements import Requirement
from archgen.output.gap import based
from archgen.units import Q_
from tests.data.clusters.small import files

REQUIREMENTS = """kind: Requirements
id: ours
requirements:
  - {id: NET-1, statement: Leaf taper at most 2 to 1, subject: cluster/c/fabric/f, metric: leaf.oversubscription,
     target: "<= 2"}
"""


@pytest.fixture
def proposal(spec_tree, tmp_path):
    """The small cluster stated "2:1" as the proposal, our requirement on its leaves' ratio apart."""
    (tmp_path / "ours").mkdir()
    (tmp_path / "ours" / "req.yaml").write_text(REQUIREMENTS, encoding="utf-8")
    return spec_tree(files(over="2:1")), tmp_path / "ours"


def test_the_row_names_the_ratio_as_used_and_the_ratio_as_stated(proposal) -> None:
    text, _ = report([proposal[0]], [proposal[1]])
    row = next(line for line in text.splitlines() if line.startswith("| NET-1 |"))
    assert "| \\<= 2 | 1.905 (as used; 2:1 as stated) | ✅ met |" in row, row
    data = json.loads(report([proposal[0]], [proposal[1]], fmt="json")[0])
    [net] = [r for r in data["rows"] if r["requirement"] == "NET-1"]
    assert net["value_is"] == "as used; 2:1 as stated" and net["value"]["value"] == pytest.approx(40 / 21)
    public, _ = report([proposal[0]], [proposal[1]], audience="customer")
    assert "1.905 (as used; 2:1 as stated)" in public


def _fat_tree(**keys) -> FatTree:
    return FatTree.model_validate({"id": "f", "topology": "fat-tree", "role": "compute", "speed": "400 Gb/s",
                                   "switch": "qm9700", **keys})


def test_which_ratio_is_stated_at_each_tier() -> None:
    """The tier's own ratio, else the fabric's where written; none where the fabric states none (its 1:1 default is
    not a statement) or where ports fix the split; other metrics carry no words."""
    fabric = _fat_tree(tiers=3, oversubscription="3:1", spine={"oversubscription": "2:1"})
    assert ratio_basis("leaf.oversubscription", fabric) == "as used; 3:1 as stated"
    assert ratio_basis("spine.oversubscription", fabric) == "as used; 2:1 as stated"
    assert ratio_basis("leaf.oversubscription", _fat_tree()) == "as used"
    assert ratio_basis("leaf.oversubscription", _fat_tree(oversubscription="3:1", leaf={"uplinks": 4})) == "as used"
    assert ratio_basis("leaf.oversubscription", None) == "as used"      # a glob that matched no fabric
    assert ratio_basis("bisection", fabric) == ratio_basis("leaf.switches", fabric) == ""


def test_the_reference_cell_is_as_used_and_an_absent_value_stays_a_dash() -> None:
    req = Requirement(id="R-1", statement="s", metric="leaf.oversubscription", target="<= 2")
    row = GapRow(req, "cluster/c/fabric/f", "met", Q_(1.5, ""), reference=Q_(1.0, ""),
                 basis="as used; 2:1 as stated")
    assert (based(row), based(row, reference=True)) == ("1.50 (as used; 2:1 as stated)", "1.00 (as used)")
    assert based(GapRow(req, "cluster/c/fabric/f", "not provided", basis="as used")) == "—"
