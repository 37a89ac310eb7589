"""A requirement met on a figure that rests on assumed inputs says which (REQ005, `analyse.assumed`), from the input
that showed it: a vendor's quote for a DGX H100 cluster, whose cost requirements read plainly "met" though the rack,
PDU and hall figures under them are the catalog's assumed placeholders.

Two racks of four DGX H100 (the REQ004 case's), in the shipped hall-air: its energy price and PUE, rent and
depreciation are `basis: assumed`; the quote prices the DGX H100 and the rack (sourced); the PDUs keep the catalog's
assumed price.
"""

from __future__ import annotations

import json

import pytest

from archgen.commands.gap import gap
from archgen.model.requirements import Status
from archgen.output.gap import markdown, to_json
from tests.conftest import write_tree
from tests.data.clusters.small import DGX_H100_RACK

PROPOSAL = {
    "c.yaml": DGX_H100_RACK.replace("id: c4\n", "id: c4\nfacility: hall-air\n", 1) + """\
---
kind: Cluster
id: c
facility: hall-air
units:
- id: su
  racks:
  - {rack: c4, count: 2}
layout:
- {unit: su, count: 1}
floor: {racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3 m, tray_drop: 1.5 m}
scale_up: {domain: node, size: 8, bandwidth: 900 GB/s}
""",
    "quote.yaml": """\
kind: Prices
id: quote
prices:
  dgx-h100: {capex: 250000 USD, date: "2025-06", basis: sourced, source: "vendor quote Q-1, line 1"}
  c4: {capex: 3000 USD, date: "2025-06", basis: sourced, source: "vendor quote Q-1, line 2"}
  rail-kit: {capex: 0 USD, date: "2025-06", basis: sourced, source: "vendor quote Q-1, line 1 (with each system)"}
  power-cord-c19-c20: {capex: 0 USD, date: "2025-06", basis: sourced, source: "vendor quote Q-1, line 1"}
  blanking-panel-1u: {capex: 0 USD, date: "2025-06", basis: sourced, source: "vendor quote Q-1, line 2 (with the rack)"}
"""
# The rule-counted lines priced too, so the capex leaves nothing out and is no lower bound (cost31: a target met on
# one is at risk, which this test's "met (on assumed inputs)" is not about).,
}
REQUIREMENTS = """\
kind: Requirements
id: buyer
requirements:
- {id: REQ-B-1, statement: Capex, subject: "cluster/*", metric: capex, target: "<= 3000000 USD"}
- {id: REQ-B-2, statement: Energy, subject: "cluster/*", metric: energy_cost_per_year, target: "<= 1000000 USD"}
- {id: REQ-B-3, statement: TCO, subject: "cluster/*", metric: tco_per_accelerator_hour, target: "<= 20 USD"}
- {id: REQ-B-4, statement: Cheap, subject: "cluster/*", metric: tco_per_accelerator_hour, target: "<= 0.5 USD"}
- {id: REQ-B-5, statement: IT load, subject: "cluster/*", metric: it_power, target: "<= 100 kW"}
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("assumed")
    write_tree(root / "p", PROPOSAL)
    write_tree(root / "r", {"buyer.yaml": REQUIREMENTS})
    return gap([root / "p"], [root / "r"])


def test_each_figure_names_the_assumed_inputs_it_rests_on(report):
    rows = {r.requirement.id: r for r in report.rows}
    pdu, energy, space = "pdu-415v-60a-3ph price", "hall-air energy price and PUE", "hall-air space cost and depreciation"
    assert rows["REQ-B-1"].assumed == (pdu,)                      # capex: the prices only, the quote's are sourced
    assert rows["REQ-B-2"].assumed == (energy,)                   # energy: the hall's price and PUE only
    assert rows["REQ-B-3"].assumed == (pdu, energy, space)        # the TCO: all of them
    assert rows["REQ-B-4"].status == Status.NOT_MET and rows["REQ-B-4"].assumed == ()   # a miss stays a miss
    assert rows["REQ-B-5"].assumed == ()                          # IT power rests on no price or rate
    assert all(r.status == Status.MET for k, r in rows.items() if k != "REQ-B-4")   # statuses unchanged


def test_gap_shows_them_in_markdown_and_json(report):
    md = markdown(report)
    assert "✅ met (on assumed inputs: pdu-415v-60a-3ph price)" in md
    doc = json.loads(to_json(report))
    assumed = {r["requirement"]: r["assumed"] for r in doc["rows"]}
    assert assumed["REQ-B-2"] == ["hall-air energy price and PUE"] and assumed["REQ-B-5"] is None


def test_check_reports_req005_without_changing_the_exit_code(tmp_path):
    from tests.conftest import run_cli

    write_tree(tmp_path / "p", PROPOSAL)
    write_tree(tmp_path / "p", {"buyer.yaml": REQUIREMENTS.replace("<= 0.5 USD", "<= 100 USD")})
    result = run_cli("check", tmp_path / "p", "--format", "json")
    assert result.code == 0, result.err
    found = [f for f in json.loads(result.out)["findings"] if f["id"] == "REQ005"]
    assert sorted(f["requirement"] for f in found) == ["REQ-B-1", "REQ-B-2", "REQ-B-3", "REQ-B-4"]
    assert {f["severity"] for f in found} == {"info"}


def test_the_matrix_status_keeps_its_style():
    """The compliance matrix shows "met (on assumed inputs: ...)", still styled as a pass."""
    from archgen.render.blocks import Column, Table

    t = Table("t", "t", (Column("Status"),), (("met (on assumed inputs: x price)",),), status_column=0)
    assert t.row_status(0) == "pass"


def test_a_sweep_document_names_them_per_cluster(tmp_path):
    """A sweep judged cost per token on the same assumed prices with nothing saying so; its document's paragraph
    per cluster (`Machine.rates`, from `sweep_figures`) now names them, as REQ005 does in `check`."""
    from archgen.analyse.sweep_figures import sweep_figures
    from tests.conftest import run_specs

    r = run_specs(tmp_path, PROPOSAL, "p")
    words = sweep_figures(r.specs, r.clusters["cluster/c"])[3]
    assert words.endswith("; cost per token on pdu-415v-60a-3ph price, hall-air energy price and PUE, "
                          "hall-air space cost and depreciation, hall-air utilisation (not stated: every hour "
                          "taken as used), "   # a job's hours are used hours (tests/analyse/test_unstated_utilisation.py)
                          # and its goodput waits for repairs whose times no source gives (newuser69)
                          "accelerator repair time 24 h (assumed), host repair time 24 h (assumed), "
                          "nic repair time 8 h (assumed)")


@pytest.mark.parametrize(("words", "given", "dropped"), [
    ("hall PUE", (" PUE",), True),                                        # a sweep over pue gives the PUE
    ("hall energy price and PUE", (" PUE",), False),                      # ... not the price paired with it
    ("hall energy price and PUE", (" energy price and PUE", " PUE"), True),   # both swept: the pair is given
    ("hall location-based carbon intensity", (" PUE",), False),
])
def test_a_swept_pue_is_no_assumed_input_but_the_price_is(words, given, dropped):
    """r39fix: an energy or carbon figure names the hall's PUE alone (`assumed._pue_words`); a sweep over `pue`
    gives it at every point, while the energy cost's 'energy price and PUE' stays until the price is swept too."""
    from archgen.analyse.assumed import _given

    assert _given(words, given) is dropped
