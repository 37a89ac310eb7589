"""`archgen gap --audience customer` gives a withheld figure's reason in the words its check has for a customer.

A PoC planner (newuser107, item 6) read a vendor's proposal whose `storage:` no fabric reaches: the findings table gave
REL006 in its customer words ("states its checkpoint storage, ... the design does not say who builds the network"),
while the "Not provided" list beside it gave REL006's internal text with its keys stripped mechanically ("states
storage, but ... and storage external network does not say who builds ... (add that fabric, or name its builder
there)"): a key read as words and an instruction to the team. A withheld reason now carries its customer words as a
finding does (`open_item.Worded`, composed by `open_item.worded`), and every customer view reads them.
"""

from __future__ import annotations

import json
from pathlib import Path

from archgen.commands.gap import gap
from archgen.open_item import Worded
from archgen.output.gap import markdown, to_json
from tests.test_storage_unwired import _design

GOODPUT = """\
kind: Requirements
id: buyer
requirements:
  - {id: REQ-GOOD, statement: Goodput, subject: workload/ckpt-70b, metric: goodput, target: ">= 0.9"}
"""

#: REL006's customer words for a storage that no fabric reaches (checks.reliability_storage, tests/checks/cases).
SAID = ("cluster 'b200-storage' states its checkpoint storage, but no fabric of role storage or converged takes a port "
        "of its compute nodes, and the design does not say who builds the network they reach it over")


def test_a_withheld_reason_reads_as_its_finding_does_for_a_customer(tmp_path: Path) -> None:
    proposal = _design(tmp_path, "frontend")
    (tmp_path / "req").mkdir()
    (tmp_path / "req" / "buyer.yaml").write_text(GOODPUT, encoding="utf-8")
    g = gap([proposal], [tmp_path / "req"])
    row, = g.rows
    assert row.status == "not provided"
    assert "`storage.external_network`" in row.note and "(add that fabric" in row.note   # ours: the key, the fix
    text = markdown(g, "customer")
    listed = text.split("**Not provided:**\n\n", 1)[1].splitlines()[0]
    assert listed == f"- REQ-GOOD on `workload/ckpt-70b`: workload/ckpt-70b's goodput is not provided: {SAID} (REL006)"
    finding = next(line for line in text.splitlines() if "| REL006 |" in line)
    assert SAID in finding   # the same words as the finding beside it
    note = json.loads(to_json(g, "customer"))["rows"][0]["note"]
    assert note == f"workload/ckpt-70b's goodput is not provided: {SAID} (REL006)"
    assert "external network" not in text and "name its builder" not in text
    assert "name its builder there" in markdown(g)   # the internal report keeps the team's instruction


def test_the_compliance_matrix_reason_gives_a_withheld_reasons_customer_words() -> None:
    """The rendered compliance matrix's Reason cell reads the same `Worded` reason: the customer edition's words are
    REL006's customer words (`render.compliance.reason_cell`), the internal edition's keep the key."""
    from archgen.model.requirements import Outcome, Requirement, Status
    from archgen.open_item import customer_text, worded
    from archgen.render.compliance import reason_cell

    req = Requirement(id="REQ-GOOD", statement="Goodput", metric="goodput", target=">= 0.9")
    why = worded("{} (REL006)", Worded(f"{SAID.replace('checkpoint storage', '`storage:`')} (add that fabric)", SAID))
    note = worded("{}'s {} is not provided: {}", "workload/w", "goodput", why)
    cell = reason_cell(Outcome(req, None, Status.NOT_PROVIDED, note), "workload/w", "")
    assert customer_text(cell) == f"{SAID} (REL006)"
    assert "`storage:`" in cell and "(add that fabric)" in cell
