"""A capex that leaves out parts the bill of materials counts is a lower bound; rule-counted lines can be quoted.

A buyer's finance analyst (newuser85, issue 22) read FIN-002 `capex <= 45000000 USD` plainly "met" on the GB300 SU,
though the capex left out 1,328 fibre cords, the rail kits and power cords the BOM counts by rule (no catalog part
prices them, and a quote line for one was refused, COST004 "no catalog part") and the rack's liquid fittings and
shelf cords, which its spec does not state ("not provided" lines). The shipped GB200 SU (27,725,410 USD) counts 41
rail kits, 136 blanking panels, 68 C13-C14 cords and 752 fibre cords with no price, and 4 "not provided" lines.
A total that leaves out counted parts is at least its value, its other end unbounded: a target it meets is at risk
(REQ004, with the headroom the left-out parts must stay under), as a cost per token whose high end is unbounded is
(tests/test_unbounded_cost.py); one it misses is not met; a floor it meets is met.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from archgen.analyse.capex_bounds import lower_key
from archgen.model.requirements import Status
from archgen.pipeline import run
from tests.conftest import SPECS

CLUSTER = "cluster/gb200-nvl72-su"
CAPEX = 27_725_410   # USD, the shipped GB200 SU's capex (tests/analyse/test_cost_rack_quote.py's SU_CAPEX)
REQS = """\
kind: Requirements
id: finance
requirements:
  - {id: FIN-1, statement: envelope, subject: cluster/gb200-nvl72-su, metric: capex, target: "<= 30000000 USD"}
  - {id: FIN-2, statement: too low, subject: cluster/gb200-nvl72-su, metric: capex, target: "<= 20000000 USD"}
  - {id: FIN-3, statement: floor, subject: cluster/gb200-nvl72-su, metric: capex, target: ">= 1000000 USD"}
  - {id: FIN-4, statement: hour, subject: cluster/gb200-nvl72-su, metric: tco_per_used_accelerator_hour,
     target: "<= 100 USD/h", level: should}
"""
#: A quote's lines for the rule-counted parts, under the BOM lines' ids (what the BOM and port map name them).
ACCESSORIES = """\
kind: Prices
id: accessories-quote
prices:
  rail-kit: {capex: 150 USD, date: "2025-06", basis: sourced, source: "quote line 7: rail kit"}
  fibre-multimode-mpo-12-apc-type-b-om3-10m: {capex: 60 USD, date: "2025-06", basis: sourced, source: "quote line 8"}
"""


def _design(root: Path, *docs: str) -> Path:
    root.mkdir(parents=True)
    (root / "cluster.yaml").write_text((SPECS / "clusters" / "gb200-nvl72-su.yaml").read_text(encoding="utf-8"),
                                       encoding="utf-8")
    for i, doc in enumerate(docs):
        (root / f"doc{i}.yaml").write_text(doc, encoding="utf-8")
    return root


def test_a_capex_that_leaves_counted_parts_out_is_a_lower_bound(tmp_path):
    r = run([_design(tmp_path / "a", REQS)])
    assert r.metrics[CLUSTER]["capex"].m == CAPEX
    other, why = r.operations.unsettled[CLUSTER][lower_key("capex")]
    assert math.isinf(other.m)
    assert "rail-kit x41" in why and "blanking-panel-1u x136" in why and "fibre cords x752" in why
    assert "liquid-manifold" in why   # a "not provided" line: the rack states no cooling.liquid.manifold
    status = {j.bound.req.id: (j.outcome.status, j.outcome.note) for j in r.requirements}
    assert status["FIN-1"][0] is Status.AT_RISK   # met by the lower bound only (was plainly "met")
    assert "capex is at least 27,725,410 USD, a lower bound" in status["FIN-1"][1]
    assert "which must add under 2,274,590 USD for it to hold" in status["FIN-1"][1]   # 30,000,000 - 27,725,410
    assert status["FIN-2"][0] is Status.NOT_MET   # the lower bound already misses it
    assert status["FIN-3"][0] is Status.MET       # a lower bound meets a floor
    assert status["FIN-4"][0] is Status.AT_RISK   # the TCO rests on the capex
    found = {f.requirement: f for f in r.findings if f.id == "REQ004"}
    assert found["FIN-1"].severity == "warning" and "a lower bound" in found["FIN-1"].message
    assert "FIN-4" in found and "FIN-3" not in found


def test_a_quote_prices_the_rule_counted_lines_by_their_bom_ids(tmp_path):
    r = run([_design(tmp_path / "a", ACCESSORIES)])
    assert not [f for f in r.findings if f.id == "COST004" and f.severity == "error"]   # was "no catalog part"
    assert r.metrics[CLUSTER]["capex"].m == pytest.approx(CAPEX + 41 * 150 + 360 * 60)
    why = r.operations.unsettled[CLUSTER][lower_key("capex")][1]
    assert "rail-kit" not in why and "blanking-panel-1u x136" in why   # priced lines leave the bound's words
