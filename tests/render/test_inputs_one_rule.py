"""Every output lists a requirement's assumed inputs, and counts those met on them, by one rule (reasoncell43).

weightmet43 grouped the inputs by field in the documents' Status cells and counted "met on assumed inputs" apart in
their count, while `check --format json`'s matrix (`shown`), `gap`'s status cells and count, REQ005's finding and
`estimate` kept the ungrouped list and the plain "met": one requirement read two ways.

The fixture: four DGX H100 (130.45 kg each, NVIDIA DGX H100/H200 User Guide), three 2U PDUs and one SN4600C whose
weights are placeholders listed unconfirmed (catalog), so a weight floor `>= 500 kg` is met on two parts' one field.
"""

from __future__ import annotations

from archgen.compare.gap import GapRow, counted
from archgen.model.requirements import Status
from archgen.output.gap import _public_row, _row_json, _status_cell
from archgen.output.matrix import rows as matrix_rows
from archgen.render.blocks import Para, Table
from archgen.render.compliance import requirements_section
from archgen.render.target import rack_scope
from tests.conftest import run_specs

RACK = """kind: Rack
id: r
form_factor: {standard: eia-19, height: 42 U, width: 600 mm, depth: 1200 mm, max_payload: 1360 kg, weight: 170 kg}
slots:
  - {at: 3, part: dgx-h100, count: 4}
  - {at: 35, part: pdu-2u-415v-60a-3ph, count: 3}
  - {at: 41, part: sn4600c}
power:
  feeds: {count: 3, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+1}
  pdus: {redundancy: N+1}
cooling:
  air: {class: A2, delta_t: 16 K}
requirements:
  - {id: REQ-W, statement: weight floor, metric: weight, target: ">= 500 kg"}
  - {id: REQ-A, statement: accelerators, metric: accelerators, target: ">= 16"}
"""

GROUPED = "mechanical.weight (unconfirmed) of pdu-2u-415v-60a-3ph, sn4600c"


def test_each_output_lists_the_inputs_grouped_alike(tmp_path):
    run = run_specs(tmp_path, {"r.yaml": RACK})
    [j] = [j for j in run.requirements if j.bound.req.id == "REQ-W"]
    o = j.outcome
    assert o.shown == f"met (on assumed inputs: {GROUPED})"   # estimate prints it, the JSON matrix carries it
    assert o.public_shown == "met (on assumed inputs: weight (unconfirmed) of pdu-2u-415v-60a-3ph, sn4600c)"
    [row] = [r for r in matrix_rows(run.requirements, run.findings) if r["requirement"] == "REQ-W"]
    assert row["shown"] == o.shown and row["assumed"] == list(o.assumed)   # the list itself kept for programs
    [req005] = [f for f in run.findings if f.id == "REQ005" and f.requirement == "REQ-W"]
    assert req005.message.endswith(f"on assumed inputs: {GROUPED}")
    assert req005.public_message.endswith("on assumed inputs: weight (unconfirmed) of pdu-2u-415v-60a-3ph, sn4600c")
    scope, _ = rack_scope(run, run.racks["rack/r"], "r", "2026-01-01")
    section = requirements_section(scope)
    table = next(b for b in section.blocks if isinstance(b, Table))
    assert str({r[0]: r for r in table.rows}["REQ-W"][8]) == o.shown
    gap_row = GapRow(o.requirement, "rack/r", o.status, o.value, assumed=o.assumed)
    assert _status_cell(gap_row) == f"✅ met (on assumed inputs: {GROUPED})"
    assert _status_cell(gap_row, public=True) == ("✅ met (on assumed inputs: weight (unconfirmed) of "
                                                  "pdu-2u-415v-60a-3ph, sn4600c)")   # as the customer's documents
    # the customer JSON row carried the spec keys ("mechanical.weight") its status cell says in words (reasoncell43)
    assert _row_json(gap_row)["assumed"] == list(o.assumed)
    assert _public_row(_row_json(gap_row))["assumed"] == ["pdu-2u-415v-60a-3ph weight (unconfirmed)",
                                                          "sn4600c weight (unconfirmed)"]


def test_gap_counts_as_the_documents_do(tmp_path):
    run = run_specs(tmp_path, {"r.yaml": RACK})
    section = requirements_section(rack_scope(run, run.racks["rack/r"], "r", "2026-01-01")[0])
    assert next(b.text for b in section.blocks if isinstance(b, Para)) == \
        "2 requirement(s): 1 met, 1 met on assumed inputs."
    rows = [GapRow(j.outcome.requirement, j.bound.subject, j.outcome.status, j.outcome.value,
                   assumed=j.outcome.assumed) for j in run.requirements]
    assert counted(rows) == {"met": 1, "met_on_assumed_inputs": 1, "at_risk": 0, "not_met": 0, "not_provided": 0,
                             "not_applicable": 0}
    assert Status.MET.value in counted(()) and sum(counted(rows).values()) == len(rows)
