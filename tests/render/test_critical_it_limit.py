"""The Critical IT power row says whose limit a requirement judges where the hall states none (newuser106, item 7).

Input: tests/analyse/test_own_hall_site.py's site, cluster d (one GB200 NVL72 rack, 135.66 kW) naming building a,
and a requirement capping d's `it_power` at 2 MW. Before: the cluster document read "Critical IT power | not
provided" while REQ-HALL-PWR-002 judged the cluster "<= 2 MW ... met", a figure not provided in one table and judged
in another. Expected: with no `critical_it_power` the row names the requirement, its own (assumed) target and its
status; with one, the hall's figure and headroom as before, the requirement not in the row.
"""

from __future__ import annotations

from archgen.render.cluster import cluster_scope
from archgen.render.datacentre import datacentre
from tests.analyse.test_own_hall_site import OTHER, _site

CAP = """---
kind: Requirements
id: room
requirements:
- {id: CAP-1, statement: Cluster IT load within the hall, metric: it_power, target: "<= 2 MW", subject: cluster/d,
   source: our design basis}
- {id: CAP-2, statement: Some IT load, metric: it_power, target: ">= 1 kW", subject: cluster/d}
"""


def _row(tmp_path, deployed: str = "", more: str = CAP) -> str:
    r = _site(tmp_path, deployed_a=deployed, more=OTHER + more)
    a = r.clusters["cluster/d"]
    scope, _ = cluster_scope(r, a, "r", "2026-01-01")
    rows = {b.id: dict(b.rows) for b in datacentre(scope, a).blocks if hasattr(b, "rows")}
    return rows["dc-hall"]["Critical IT power"]


def test_a_hall_stating_none_names_the_requirement_whose_limit_is_judged(tmp_path):
    got = _row(tmp_path)
    assert got == ("not provided: the facility states none (`critical_it_power`); CAP-1 (Cluster IT load within the "
                   "hall) judges the IT power against its own assumed target, <= 2 MW (our design basis), not a "
                   "figure of the hall: met")
    assert got.public.startswith("not provided: the facility states none; CAP-1")
    assert "CAP-2" not in got                  # a floor on the IT power is no capacity


def test_no_capping_requirement_leaves_the_row_not_provided(tmp_path):
    assert _row(tmp_path, more="") == "not provided"


def test_a_hall_stating_its_figure_keeps_its_row(tmp_path):
    got = _row(tmp_path, deployed="critical_it_power: 300 kW\n")
    assert got.startswith("300 kW, headroom") and "CAP-1" not in got
