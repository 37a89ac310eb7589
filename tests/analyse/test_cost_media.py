"""Links without link media are no free links: a fabric tier that names none withholds the capex (COST002).

A buyer's proposal A: the shipped GB200 NVL72 scalable unit grown to four SUs (2,304 GPUs) with the compute fabric's
tiers left to `auto`, which makes it three tiers whose `spine_core` tier names no link media (CAB003: 3,072 links).
Before, those 3,072 links had no line in the bill of materials, so the capex ($115,588,520) counted them as free, a
"capex <= 130M USD" requirement was met in `gap`, and the network's share of the capex read 20.3 % without them.
"""

from __future__ import annotations

from pathlib import Path

from archgen.analyse.cost import CAPEX_METRICS
from archgen.compare.gap import judge_proposal
from archgen.model.requirements import Status
from archgen.pipeline import run
from tests.conftest import SPECS

CLUSTER = "cluster/gb200-nvl72-su"
CAPEX_REQUIREMENT = """\
kind: Requirements
id: buyer
requirements:
  - {id: RFP-COST-004, statement: Capex, subject: "cluster/*", metric: capex, target: "<= 130000000 USD"}
"""


def _proposal(root: Path, spine_core: str = "") -> Path:
    """The shipped GB200 SU as four SUs with `tiers: auto`; `spine_core` the compute fabric's core link media."""
    root.mkdir(parents=True)
    text = (SPECS / "clusters" / "gb200-nvl72-su.yaml").read_text(encoding="utf-8")
    for old, new in (("  - {unit: su, count: 1}", "  - {unit: su, count: 4}"),
                     ("expect: {accelerators: 576, nodes: 144, racks: 10}\n", ""),
                     ('target: "== 8"', 'target: "== 32"'),
                     ("    tiers: 2\n    rail_optimized: true", "    tiers: auto\n    rail_optimized: true"),
                     ("      leaf_spine: [dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8, smf-800g-dr8]\n",
                      "      leaf_spine: [dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8, smf-800g-dr8]\n" + spine_core)):
        assert old in text, old
        text = text.replace(old, new, 1)
    (root / "cluster.yaml").write_text(text, encoding="utf-8")
    (root / "req.yaml").write_text(CAPEX_REQUIREMENT, encoding="utf-8")
    return root


def test_links_without_media_withhold_the_capex(tmp_path):
    r = run([_proposal(tmp_path / "a")])
    assert [f.message for f in r.findings if f.id == "CAB003"] == [
        "spine_core: 3072 links without link media: their cables, transceivers and optics power are not provided, "
        "and their reach not checked; list their link options under `links.spine_core`"]
    assert not set(CAPEX_METRICS) & set(r.metrics[CLUSTER])          # was capex 115,588,520 USD
    warn, = (f for f in r.findings if f.id == "COST002")
    assert "links without link media: compute spine_core x3072" in warn.message
    row, = judge_proposal(r, {"buyer"}, [tmp_path / "a" / "cluster.yaml"]).rows
    assert row.status is Status.NOT_PROVIDED and "without link media (compute spine_core x3072" in row.note  # was met


def test_media_on_the_tier_price_its_links(tmp_path):
    core = "      spine_core: [dac-800g-osfp, mmf-800g-sr8]\n"
    r = run([_proposal(tmp_path / "a", core)])
    assert not [f for f in r.findings if f.id in ("CAB003", "COST002")]
    cost = r.operations.cost[CLUSTER]
    sr8 = sum(line.quantity for line in cost.lines if line.part == "mmf-800g-sr8")
    assert sr8 > 3968 and r.metrics[CLUSTER]["capex"].m > 115_588_520     # the core's links are bought now
