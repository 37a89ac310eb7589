"""A CDU's electrical draw counted where it belongs, and said where the catalog does not state it (rackbom).

The rack-integrator trial (notes/old15/newuser16.md, item 6) found the in-row CDU's pump power absent: the shipped
class part states no `power`, and nothing said so. An in-rack CDU without one drew nothing in its rack's power
with no word; an in-row CDU's draw had no figure at all. Now a cluster's `cdu_power` holds the in-row CDUs it buys x
their stated draw (part of what the PUE adds, not IT power), the facility table sets it against that overhead,
and a CDU without a stated draw is an open item of the rack and cluster documents.
"""

from __future__ import annotations

import pytest

from archgen.analyse.bom import cluster_bom_gaps
from archgen.analyse.fittings import cdu_power_gaps
from archgen.pipeline import run
from archgen.render.datacentre import _capacity
from tests.analyse.test_cost import CLUSTER, _design
from tests.conftest import SPECS, case_files, run_specs

#: The shipped in-row CDU class part with a stated draw (a test figure, not a datasheet's).
CDU = (SPECS / "catalog" / "cooling" / "in-row-cdu-1.3mw.yaml").read_text(encoding="utf-8") + "power: 15 kW\n"


def test_in_row_cdu_draw_is_counted_in_the_cluster(tmp_path):
    r = run([_design(tmp_path / "a", {"cdu.yaml": CDU})])
    a, m = r.clusters[CLUSTER], r.metrics[CLUSTER]
    cdus, = [line for line in a.cabling.bom if line.kind == "CoolingUnit"]
    assert cdus.quantity == 2 and m["cdu_power"].m_as("kW") == pytest.approx(2 * 15)   # 16 racks: one group of 2
    assert m["facility_power"] > m["it_power"] + m["cdu_power"]      # not added to IT power: inside the overhead
    row, = [v for k, v in _capacity(a.cluster.facility, m) if k.startswith("In-row CDUs")]
    overhead = (m["facility_power"] - m["it_power"]).m_as("kW")
    assert row == f"30.0 kW of the {overhead:,.1f} kW the PUE adds to IT power"
    assert not [g for g in cluster_bom_gaps(a) if "electrical draw" in g]


def test_an_unstated_in_row_draw_is_an_open_item(shipped):
    a = shipped.clusters["cluster/gb200-nvl72-su"]
    assert "cdu_power" not in shipped.metrics["cluster/gb200-nvl72-su"]
    gap, = [g for g in cluster_bom_gaps(a) if "electrical draw" in g]
    assert gap.startswith("The electrical draw of in-row-cdu-1.3mw (its pumps and controls, `power`) is not stated")
    assert "`cdu_power` is not provided" in gap


def test_an_unstated_in_rack_draw_is_an_open_item(tmp_path):
    result = run_specs(tmp_path, case_files("COOL012", "pass_in_rack_cdus_placed"))
    gap, = cdu_power_gaps([result.racks["rack/r"].rack])
    assert gap.startswith("The electrical draw of in-rack-cdu-100kw") and "drawing nothing" in gap
