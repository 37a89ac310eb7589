"""The requirements' count says how many are met on assumed inputs; a waived row names its waiver (newuser106, 6).

A facility engineer read "5 requirement(s): 1 met, 2 not met, 2 not provided; 4 waived" above a matrix whose one met
row was "met (on assumed inputs: ...)", "—" as the Reason of each "not met (waived)" row (the waiver's text stood
only in the validation report), and nine assumed inputs of one cluster's IT power in a row, hard to scan.

The fixture: four DGX H100 (130.45 kg each, NVIDIA DGX H100/H200 User Guide) and three 2U PDUs whose 12 kg is a
placeholder listed unconfirmed, so a weight floor `>= 500 kg` is met on an assumed input; 32 accelerators meet
`>= 16` on none; `>= 64` is not met and waived.
"""

from __future__ import annotations

from archgen.model.field_words import grouped_inputs
from archgen.open_item import customer_text
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
power:
  feeds: {count: 3, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+1}
  pdus: {redundancy: N+1}
cooling:
  air: {class: A2, delta_t: 16 K}
requirements:
  - {id: REQ-W, statement: weight floor, metric: weight, target: ">= 500 kg"}
  - {id: REQ-A, statement: accelerators, metric: accelerators, target: ">= 16"}
  - {id: REQ-B, statement: more accelerators, metric: accelerators, target: ">= 64"}
waivers:
  - check: REQ001
    requirement: REQ-B
    reason: Accepted for the pilot hall, 32 of the 64 asked. A second rack is ordered for the next phase.
"""


def _section(tmp_path):
    run = run_specs(tmp_path, {"r.yaml": RACK})
    scope, _ = rack_scope(run, run.racks["rack/r"], "r", "2026-01-01")
    section = requirements_section(scope)
    table = next(b for b in section.blocks if isinstance(b, Table))
    return section, {row[0]: row for row in table.rows}


def test_the_count_names_those_met_on_assumed_inputs_apart(tmp_path):
    section, rows = _section(tmp_path)
    assert str(rows["REQ-W"][8]).startswith("met (on assumed inputs: pdu-2u-415v-60a-3ph mechanical.weight")
    assert str(rows["REQ-A"][8]) == "met"
    count = next(b.text for b in section.blocks if isinstance(b, Para))
    assert count == "3 requirement(s): 1 met, 1 met on assumed inputs, 1 not met; 1 waived."


def test_a_waived_row_names_its_waiver_short(tmp_path):
    _, rows = _section(tmp_path)
    assert str(rows["REQ-B"][8]) == "not met (waived)"
    # the first sentence; its second, owner and expiry in the validation report (reasoncell43: the cell says so)
    assert rows["REQ-B"][10] == ("waived: Accepted for the pilot hall, 32 of the 64 asked"
                                 " (in full in the validation report)")
    assert rows["REQ-A"][10] == "—"
    # the customer edition says a finding is waived (Status), never the team's reason (render.edition)
    assert customer_text(rows["REQ-B"][10]) == "—" and customer_text(rows["REQ-A"][10]) == "—"


def test_assumed_inputs_sharing_a_field_are_grouped():
    shared = ("a power.max (unconfirmed)", "b power.max (unconfirmed)", "c power_per_end (unconfirmed)",
              "d power_per_end (unconfirmed)", "e efficiency (unconfirmed)", "hall PUE")
    assert grouped_inputs(shared) == ("power.max (unconfirmed) of a, b; power_per_end (unconfirmed) of c, d; "
                                      "e efficiency (unconfirmed); hall PUE")
    alone = ("a power.max (unconfirmed)", "b cooling.liquid_fraction (unconfirmed)", "accelerator failure rate")
    assert grouped_inputs(alone) == ", ".join(alone)   # nothing to group: the list as it was


#: The weight under a cap is a lower bound (no link part states a weight), not provided and waived as an open finding.
CAPPED = RACK.replace("""  - {id: REQ-B, statement: more accelerators, metric: accelerators, target: ">= 64"}""",
                      """  - {id: REQ-M, statement: weight cap, metric: weight, target: "<= 1400 kg"}""").replace(
    "check: REQ001\n    requirement: REQ-B", "check: REQ002\n    requirement: REQ-M").replace(
    "reason: Accepted for the pilot hall, 32 of the 64 asked. A second rack is ordered for the next phase.",
    'reason: "Open finding, not a pass: the weight is a lower bound (cables: no weight stated). Weigh it."')


def test_a_reason_is_one_clause_the_rest_in_the_validation_report(tmp_path):
    """reasoncell43: REQ-MECH-001's Reason held the lower bound's note whole (what it leaves out, the share of it
    unconfirmed) and the waiver's first sentence, ~900 characters in one cell; a compliance matrix gives the reason
    in one clause, and the finding in the validation report gives it at length."""
    run = run_specs(tmp_path, {"r.yaml": CAPPED})
    scope, _ = rack_scope(run, run.racks["rack/r"], "r", "2026-01-01")
    table = next(b for b in requirements_section(scope).blocks if isinstance(b, Table))
    reason = {row[0]: row for row in table.rows}["REQ-M"][10]
    own = ("weight is at least 727.8 kg, a lower bound, and the target <= 1,400 kg is met there but may not be "
           "with what it leaves out, which must add under 672.2 kg for it to hold")
    assert str(reason) == f"{own}; waived: Open finding, not a pass (in full in the validation report)"
    assert customer_text(reason) == f"{own} (in full in the validation report)"   # no team reason for a customer
    [f] = [f for f in run.findings if f.id == "REQ002" and f.requirement == "REQ-M"]
    assert "the cables and transceivers in its ports" in f.message and "36 kg rests on weights" in f.message
    assert f.waived.startswith("Open finding, not a pass: the weight is a lower bound (cables: no weight stated)")
