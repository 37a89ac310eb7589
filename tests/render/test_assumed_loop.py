"""A rack's liquid-loop figures marked unconfirmed read "assumed" in its document and in `check` (COOL016).

lo23cat: the catalog racks' `supply` 40 °C, `delta_t` 10 K, `racks_per_cdu` 8 and `cdu_count` 2 cite nothing, and
the rack document printed them like datasheet figures ("Secondary supply accepted by the trays | 40 °C"). Marked
under `cooling.liquid.unconfirmed:`, each is tagged "(assumed)" with every value built on it, listed in the
Unconfirmed inputs table and the open items, and named by COOL016; a figure not marked is shown as stated.
"""

from __future__ import annotations

from archgen.render.blocks import Section, Table
from archgen.render.common import open_items_section, validation_section
from archgen.render.rack_cooling import cooling
from archgen.render.target import rack_scope
from tests.conftest import run_specs

LOOP = ("{cdu: in-row-cdu-1.3mw, cdu_count: 2, cdu_redundancy: N+1, racks_per_cdu: 8, supply: 40 degC, "
        "delta_t: 10 K, class: W32, unconfirmed: [supply, racks_per_cdu], notes: design assumption}")
RACK = f"""kind: Rack
id: r
facility: hall-liquid
form_factor: {{standard: eia-19, height: 48 U, width: 600 mm, depth: 1200 mm, max_payload: 1400 kg, weight: 180 kg}}
slots:
- {{at: 9, part: amd-mi355x-platform, count: 4}}
- {{at: 1, part: pdu-415v-60a-3ph, count: 4}}
power:
  feeds: {{count: 4, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}}
  pdus: {{redundancy: N+N}}
cooling:
  liquid: {LOOP}
  air: {{class: A2, delta_t: 20 K}}
"""


def _rows(section: Section, table_id: str) -> list[tuple[str, ...]]:
    """The rows of table `table_id` anywhere in `section`, as text."""
    for block in section.blocks:
        if isinstance(block, Table) and block.id == table_id:
            return [tuple(str(v) for v in row) for row in block.rows]
    return [row for sub in section.sections for row in _rows(sub, table_id)]


def test_marked_figures_and_what_rests_on_them_are_tagged(tmp_path):
    rows = dict(_rows(cooling(run_specs(tmp_path, {"racks/r.yaml": RACK}).racks["rack/r"]), "liquid"))
    assert rows["Secondary supply accepted by the trays"] == "40 °C (assumed)"
    assert rows["Racks sharing the CDU group"] == "8 (assumed)"
    assert rows["Group liquid load / utilisation"].endswith("(assumed)")   # 8 racks' heat on the group
    # not marked: shown as stated
    assert rows["Coolant and ΔT"] == "pg25, 10 K"
    assert rows["ASHRAE liquid class"] == "W32 (facility water ≤ 32 °C)"
    assert not rows["CDU"].endswith("(assumed)")


def test_unmarked_loop_is_shown_as_stated(tmp_path):
    text = RACK.replace(", unconfirmed: [supply, racks_per_cdu], notes: design assumption", "")
    rows = dict(_rows(cooling(run_specs(tmp_path, {"racks/r.yaml": text}).racks["rack/r"]), "liquid"))
    assert not any("(assumed)" in v for v in rows.values())


def test_listed_in_unconfirmed_inputs_open_items_and_check(tmp_path):
    run = run_specs(tmp_path, {"racks/r.yaml": RACK})
    scope, _ = rack_scope(run, run.racks["rack/r"], "r", "2026-01-01")
    assert ("r", "Rack", "cooling.liquid: supply 40 °C, racks_per_cdu 8", "design assumption") in _rows(
        validation_section(scope), "unconfirmed")
    items = [str(i) for b in open_items_section(scope, []).blocks for i in getattr(b, "items", ())]
    assert "Confirm r: cooling.liquid (supply 40 °C, racks_per_cdu 8), assumed." in items
    [f] = [f for f in run.findings if f.id == "COOL016"]
    assert f.severity == "info" and f.message.startswith(
        "the liquid loop rests on assumed figures (cooling.liquid.unconfirmed): supply 40 °C, racks_per_cdu 8")


def test_a_coolant_flow_requirement_names_the_assumed_delta_t(tmp_path):
    # The flow is Q / (ρ c_p ΔT): met at an assumed ΔT, the requirement is met only as far as the ΔT holds (REQ005).
    text = RACK.replace("unconfirmed: [supply, racks_per_cdu]", "unconfirmed: [delta_t]") + (
        "requirements:\n  - {id: REQ-FLOW, statement: Coolant flow, metric: coolant_flow, target: '<= 1000 L/min'}\n")
    run = run_specs(tmp_path, {"racks/r.yaml": text})
    [f] = [f for f in run.findings if f.id == "REQ005"]
    assert f.message.endswith(", r cooling.liquid.delta_t (unconfirmed)"), f.message   # after the parts' power


def test_assumed_air_and_enclosure_figures_are_tagged(tmp_path):
    # airsrc: the air ΔT sets the air flow (V̇ = Q̇ / (ρ c_p ΔT)) and the exhaust; the empty weight the rack's weight
    # and floor load. Marked (COOL017, MECH005), each and what rests on it reads "(assumed)", and a weight target met
    # on it names it (REQ005).
    from archgen.render.rack import rack_design
    text = RACK.replace("  air: {class: A2, delta_t: 20 K}\n", "  air: {class: A2, delta_t: 20 K, unconfirmed: [delta_t], "
                        "notes: design assumption}\n").replace(
        "weight: 180 kg}", "weight: 180 kg, unconfirmed: [weight], notes: no enclosure model chosen}") + (
        "requirements:\n  - {id: REQ-W, statement: Weight, metric: weight, target: '>= 500 kg'}\n")
    # weight67: the rack's weight leaves its PDUs, cables and coolant out, a lower bound; a floor (>=) it meets is met,
    # where a ceiling (<= 1400 kg) it meets would be not provided (tests/analyse/test_weight_bound.py)
    run = run_specs(tmp_path, {"racks/r.yaml": text})
    a = run.racks["rack/r"]
    air = dict(_rows(cooling(a), "air"))
    assert air["Air ΔT"] == "20 K (assumed)" and air["Air flow required"].endswith("(assumed)")
    assert air["ASHRAE air class"] == "A2 (allowable inlet 10–35 °C)"   # not marked: as stated
    scope, _ = rack_scope(run, a, "r", "2026-01-01")
    weight = {r[0]: r for r in _rows(rack_design(scope, a), "weight")}
    assert weight["Empty rack"][1] == "180 kg (assumed)" and weight["Total weight"][1].endswith("assumed)")
    assert not weight["Installed equipment (payload)"][2].endswith("(assumed)")   # max_payload not marked
    rows = _rows(validation_section(scope), "unconfirmed")
    assert ("r", "Rack", "cooling.air: delta_t 20 K", "design assumption") in rows
    assert ("r", "Rack", "form_factor: weight 180 kg", "no enclosure model chosen") in rows
    assert {f.id for f in run.findings} >= {"COOL017", "MECH005"}
    [f] = [f for f in run.findings if f.id == "REQ005" and f.requirement == "REQ-W"]
    # and the placed platform's placeholder weight, which its catalog entry marks unconfirmed (weight67)
    assert f.message.endswith("r form_factor.weight (unconfirmed), amd-mi355x-platform mechanical.weight "
                              "(unconfirmed)"), f.message
