"""A rack's weight that rests on placeholder weights says how much of it is unconfirmed (newuser106, item 5).

A facility engineer read "It weighs at least 1,205 kg, a lower bound" for the GB200 NVL72 rack, of which 720 kg is
18 trays at a 40 kg placeholder, 270 kg nine switch trays at 30 kg and 200 kg eight shelves at 25 kg, each listed
under its part's `unconfirmed:`: the weight carried no mark where every power figure built on an unconfirmed draw
did. Now the weight, the payload and the floor load say "(N kg of it unconfirmed)", the weight note names the
weights, and MECH003, MECH004 and a requirement the lower bound cannot judge (REQ002) name the share.

The fixture: four DGX H100 (130.45 kg each, NVIDIA DGX H100/H200 User Guide, specifications table, as
tests/analyse/test_weight_bound.py) and three 2U PDUs of the catalog's generic class (pdu-2u-415v-60a-3ph, its 12 kg
a placeholder listed unconfirmed) in a 170 kg enclosure: 170 + 4 x 130.45 + 3 x 12 = 727.8 kg, 36 kg of it
unconfirmed, a lower bound (the cables and transceivers of the systems' ports are not weighed).
"""

from __future__ import annotations

import pytest

from archgen.render.blocks import Para, Section, Table
from archgen.render.rack import abstract, rack_design
from archgen.render.target import rack_scope
from tests.conftest import run_specs

FRAME = "{standard: eia-19, height: 42 U, width: 600 mm, depth: 1200 mm, max_payload: %s, weight: 170 kg%s}"


def _rack(pdu: str = "pdu-2u-415v-60a-3ph", payload: str = "1360 kg", frame: str = "") -> dict[str, str]:
    return {"r.yaml": f"""kind: Rack
id: r
facility: hall-air
form_factor: {FRAME % (payload, frame)}
slots:
  - {{at: 3, part: dgx-h100, count: 4}}
  - {{at: 35, part: {pdu}, count: 3}}
power:
  feeds: {{count: 3, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+1}}
  pdus: {{redundancy: N+1}}
cooling:
  air: {{class: A2, delta_t: 16 K}}
requirements:
  - {{id: REQ-W, statement: weight, metric: weight, target: "<= 1400 kg"}}
"""}


def _texts(section: Section) -> list[str]:
    """Every paragraph and table cell of `section`, as text."""
    out: list[str] = []
    for block in section.blocks:
        if isinstance(block, Para):
            out.append(block.text)
        elif isinstance(block, Table):
            out += [str(v) for row in block.rows for v in row]
    return out + [t for sub in section.sections for t in _texts(sub)]


def test_the_space_sums_the_weights_listed_unconfirmed(tmp_path):
    s = run_specs(tmp_path, _rack()).racks["rack/r"].space
    assert s.lower_bound and s.weight.m_as("kg") == pytest.approx(170 + 4 * 130.45 + 36)
    assert [(pid, n, w.m_as("kg")) for pid, n, w in s.marked] == [("pdu-2u-415v-60a-3ph", 3, 12)]
    assert s.unconfirmed_payload.m_as("kg") == s.unconfirmed.m_as("kg") == 36
    framed = run_specs(tmp_path / "f", _rack(frame=", unconfirmed: [weight], notes: no model chosen"))
    s = framed.racks["rack/r"].space   # the enclosure's assumed empty weight is in the weight's share, not the payload's
    assert s.unconfirmed.m_as("kg") == 206 and s.unconfirmed_payload.m_as("kg") == 36


def test_the_rack_document_says_how_much_of_the_weight_is_unconfirmed(tmp_path):
    run = run_specs(tmp_path, _rack())
    a = run.racks["rack/r"]
    scope, _ = rack_scope(run, a, "r", "2026-01-01")
    lead = next(b.text for b in abstract(scope, a).blocks if isinstance(b, Para) and b.style == "lead")
    assert "It weighs at least 728 kg (36 kg of it unconfirmed), a lower bound" in lead
    design = rack_design(scope, a)
    rows = {row[0]: str(row[1]) for b in design.sections[0].blocks if isinstance(b, Table) for row in b.rows}
    assert rows["Total weight"] == "at least 728 kg (36 kg of it unconfirmed)"
    assert rows["Installed equipment (payload)"] == "558 kg (36 kg of it unconfirmed)"
    assert rows["Floor load (weight / footprint)"] == "at least 1,011 kg/m² (50 kg/m² of it unconfirmed)"
    assert any("Of r's weight, 36 kg rests on weights listed unconfirmed, placeholders and not published figures: "
               "pdu-2u-415v-60a-3ph 3 x 12 kg." in t for t in _texts(design))


def test_the_weight_checks_and_a_requirement_name_the_share(tmp_path):
    run = run_specs(tmp_path, _rack(payload="500 kg"))
    found = {f.id: f.message for f in run.findings if f.object == "rack/r"}
    assert found["MECH003"].startswith("installed equipment weighs 557.8 kg (36.0 kg of it unconfirmed), above")
    assert "(728 kg, 36 kg of it unconfirmed, on 0.720 m²" in found["MECH004"]
    note = next(j.outcome.note for j in run.requirements if j.bound.req.id == "REQ-W")
    assert note.endswith("Of its 728 kg, 36 kg rests on weights listed unconfirmed (placeholders): "
                         "pdu-2u-415v-60a-3ph 3 x 12 kg")


def test_a_weight_resting_on_no_unconfirmed_figure_carries_no_share(tmp_path):
    # The same rack with a PDU stating no weight at all (not weighed: the lower bound names it) and none listed
    run = run_specs(tmp_path, {**_rack(pdu="vpdu"), "p.yaml": "kind: PDU\nid: vpdu\nsource: test\nvoltage: 415 V\n"
                               "basis: line-to-line\nphases: 3\ncurrent: 60 A\n"})
    a = run.racks["rack/r"]
    assert not a.space.marked and not a.space.unconfirmed.magnitude
    scope, _ = rack_scope(run, a, "r", "2026-01-01")
    assert not any("unconfirmed" in t for t in _texts(rack_design(scope, a)) if "weight" in t.lower())
    assert not any("of it unconfirmed" in f.message for f in run.findings if f.id.startswith("MECH"))


def test_every_catalog_weight_its_notes_call_a_placeholder_is_listed_unconfirmed():
    # The documents mark a weight by the part's `unconfirmed:` list, never by its notes: a note calling the weight a
    # placeholder (the GB200 tray's 40 kg, fitted to the rack's ~1.36 t) must list it, or the share would leave it out.
    import re
    from pathlib import Path

    import yaml

    from archgen.model.base import is_marked
    catalog = Path(__file__).resolve().parents[2] / "specs" / "catalog"
    said = unlisted = 0
    for path in sorted(catalog.rglob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            notes = doc.get("notes") or "" if isinstance(doc, dict) else ""
            if any("weight" in s.lower() and "placeholder" in s for s in re.split(r"(?<=[.;])\s+", notes)):
                said += 1
                unlisted += not is_marked(doc.get("unconfirmed", False), "mechanical.weight")
    assert said >= 10 and unlisted == 0
