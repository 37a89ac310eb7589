"""A cluster's `cdu_power` not provided names the in-row CDU that states no draw (newuser84's trial).

An ODM's proposal used its own in-row CDU, whose datasheet gave no electrical draw. The RFQ's requirement on
`cdu_power` was rightly not provided, but the reason read "docs/metrics.md gives none where a CDU states no `power`
or the cluster buys no in-row CDU": the architect could not tell the ODM which part to answer for. The reason now
names the CDU and how many the cluster buys (`analyse.cdu_power.no_cdu_power`, held in `Operations.withheld`).
The fixture is the GB300 NVL72 scalable unit (examples/gb300-nvl72-su): 8 racks, one CDU group of 2 in-row CDUs
(`racks_per_cdu: 8`, `cdu_count: 2`), the class part in-row-cdu-1.3mw, which states no `power`.
"""

from __future__ import annotations

import shutil

from archgen.commands.gap import gap
from archgen.units import Q_
from tests.conftest import REPO, run_specs, write_tree

SU = REPO / "examples/gb300-nvl72-su"
CDU = (REPO / "specs/catalog/cooling/in-row-cdu-1.3mw.yaml").read_text(encoding="utf-8")
RFQ = """kind: Requirements
id: rfq
requirements:
  - {id: RFQ-CDU-001, statement: CDU draw, subject: "cluster/*", metric: cdu_power, target: "<= 30 kW"}
"""


def test_the_reason_names_the_cdu_that_states_no_power(tmp_path):
    shutil.copytree(SU, tmp_path / "specs")
    run = run_specs(tmp_path, {})
    assert "cdu_power" not in run.metrics["cluster/gb300-nvl72-su"]
    assert run.operations.withheld["cluster/gb300-nvl72-su"]["cdu_power"] == (
        "in-row-cdu-1.3mw (2 bought for 8 gb300-nvl72 racks) states no `power`, the electrical draw (pumps, "
        "controls) its datasheet gives; state it on the CoolingUnit")


def test_gap_row_gives_that_reason(tmp_path):
    g = gap([SU], [write_tree(tmp_path / "rfq", {"rfq.yaml": RFQ})])
    (row,) = [r for r in g.rows if r.requirement.id == "RFQ-CDU-001"]
    assert (row.status, row.failing) == ("not provided", True)
    assert row.note.startswith("cluster/gb300-nvl72-su's cdu_power is not provided: in-row-cdu-1.3mw (2 bought")


def test_a_cdu_stating_its_draw_gives_the_figure(tmp_path):
    shutil.copytree(SU, tmp_path / "specs")
    stated = CDU.replace("approach: 5 K\n", "approach: 5 K\npower: 12 kW\n")
    run = run_specs(tmp_path, {"cdu.yaml": stated})
    assert run.metrics["cluster/gb300-nvl72-su"]["cdu_power"] == Q_(24, "kW")   # 2 CDUs x 12 kW
    assert "cdu_power" not in run.operations.withheld.get("cluster/gb300-nvl72-su", {})
