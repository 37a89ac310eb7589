"""`gap A/ B/`: each row names the design it belongs to, in Markdown and JSON (newuser41's open list; leftovers21).

With two proposals in one report (`compare.gap.merge`, docs/rendering.md "Several proposals in one gap") a row on a
rack, a workload or a glob that matches nothing said nothing of whose it was: `rack/compute` may be vendor A's or
vendor B's. Each row now names its design by the clusters its run holds; a row both designs give alike (our hall)
names both; a report of one design has no design column.
"""

from __future__ import annotations

import json

from archgen.compare.gap import Gap, GapRow, merge
from archgen.model.requirements import Requirement
from archgen.output.gap import markdown, to_json
from archgen.units import Q_

RACK = Requirement(id="B-001", statement="Rack power", metric="it_power", target="<= 140 kW")
HALL = Requirement(id="B-002", statement="Hall area", metric="it_power", target="<= 5 MW")


def _gap(cluster: str, rack_kw: float) -> tuple[Gap, frozenset[str]]:
    rows = (GapRow(RACK, "rack/compute", "met", Q_(rack_kw, "kW")), GapRow(HALL, "facility/hall", "met", Q_(1, "MW")))
    objects = (f"cluster/{cluster}", f"cluster/{cluster}/fabric/compute", "rack/compute")
    return Gap(("a",), ("req",), rows, (), objects), frozenset({"rack/compute", "facility/hall"})


def test_each_row_names_its_design():
    g = merge([_gap("vendor-a", 120), _gap("vendor-b", 132)])
    by = {(r.requirement.id, float(r.value.m_as("kW"))): r.designs for r in g.rows}
    assert by == {("B-001", 120.0): ("cluster/vendor-a",), ("B-001", 132.0): ("cluster/vendor-b",),
                  ("B-002", 1000.0): ("cluster/vendor-a", "cluster/vendor-b")}     # the hall: alike in both
    text = markdown(g)
    assert "| design | requirement | level |" in text
    assert "| `cluster/vendor-b` | B-001 | SHALL | `rack/compute` |" in text      # before: no design named
    assert "| `cluster/vendor-a`, `cluster/vendor-b` | B-002 |" in text
    rows = json.loads(to_json(g))["rows"]
    assert sorted(map(tuple, (r["design"] for r in rows))) == [
        ("cluster/vendor-a",), ("cluster/vendor-a", "cluster/vendor-b"), ("cluster/vendor-b",)]
    assert [r["design"] for r in json.loads(to_json(g, "customer"))["rows"]] == [r["design"] for r in rows]


def test_one_design_has_no_design_column():
    g = merge([_gap("vendor-a", 120)])
    assert "| design |" not in markdown(g) and all(r["design"] is None for r in json.loads(to_json(g))["rows"])
