"""The switches a design places in no rack are counted with their rack space in the hall's figures (nu48fix).

newuser48's 16,128-GPU GB300 hall placed 320 Q3400 in no rack (NET012, a warning): their power was in the IT power,
their rack space in no figure, and only COST007 said so. The key metrics' racks, the floor plan, the hall's needs and
the space cost read as complete. archgen now counts them, `unracked_switches`, and their rack units,
`unracked_switch_space` (each switch's datasheet height × its count), and those figures say it beside the racks and
the space cost. It adds no rack for them (`analyse/unracked.py` says why).

The case is the GB300 example at 8 SUs (tests/test_example_scaled_su.py): 64 leaves and 36 spines for 96 Q3400
slots, 4 spines in no rack; a Q3400 is 4 U (archgen/catalog/switches/q3400.yaml, `mechanical.height`).
"""

from __future__ import annotations

import pytest

from archgen.analyse.unracked import unracked_words
from tests.conftest import run_specs
from tests.test_example_scaled_su import EXAMPLE

Q3400_HEIGHT_U = 4


#: A target met on the space cost, which leaves the unplaced switches' rack positions out (a test input).
SPACE = ("kind: Requirements\nid: space\nrequirements:\n  - {id: R-SPACE, statement: rent, subject: "
         "cluster/gb300-nvl72-su, metric: space_cost_per_year, target: '<= 1000000000 USD'}\n")


@pytest.fixture(scope="module")
def eight(tmp_path_factory):
    files = {str(p.relative_to(EXAMPLE)): p.read_text(encoding="utf-8") for p in EXAMPLE.rglob("*.yaml")}
    cluster = "clusters/gb300-nvl72-su.yaml"
    files[cluster] = files[cluster].replace("- {unit: su, count: 1}", "- {unit: su, count: 8}", 1)
    files["requirements/space.yaml"] = SPACE
    run = run_specs(tmp_path_factory.mktemp("u8"), files)
    return run, run.clusters["cluster/gb300-nvl72-su"]


def test_the_switches_in_no_rack_and_their_rack_units_are_counted(eight):
    run, a = eight
    m = a.metrics
    assert m["unracked_switches"].m == 4                                     # 64 + 36 - 16 x 6
    assert m["unracked_switch_space"].m_as("U") == 4 * Q3400_HEIGHT_U
    assert unracked_words(m) == "not placed: 4 switches, 16 U in no rack (COST007)"
    [cost] = [f for f in run.findings if f.id == "COST007" and "q3400 x4 (16 U)" in f.message]


def test_the_hall_figures_say_it_beside_the_racks_and_the_space_cost(eight):
    from archgen.render.cluster import abstract, architecture, cluster_scope
    from archgen.render.datacentre import datacentre
    run, a = eight
    scope, _ = cluster_scope(run, a, "r", "2026-01-01")
    key = dict(next(b for b in abstract(scope, a).blocks if getattr(b, "id", "") == "key-metrics").rows)
    assert key["Racks"] == "88 (not placed: 4 switches, 16 U in no rack (COST007))"
    needs = dict(next(b for b in datacentre(scope, a).blocks if getattr(b, "id", "") == "dc-needs").rows)
    assert needs["Rack positions"].startswith("88 racks of the layout; not placed: 4 switches, 16 U in no rack")
    from archgen.render.operations import cost_section
    section = cost_section(run, a)
    assert section is not None
    summary = next(b for b in section.blocks if getattr(b, "id", "") == "cost-summary")
    assert [r[0] for r in summary.rows if r[0].startswith("Space per year")] == [
        "Space per year (not placed: 4 switches, 16 U in no rack (COST007): their rack positions are not in it)"]
    floor = next(b for b in architecture(a).blocks if getattr(b, "id", "") == "fig-floor")
    assert "not placed: 4 switches, 16 U in no rack (COST007): not drawn" in floor.caption


def test_a_design_whose_switches_all_stand_in_racks_has_none(shipped):
    for path, a in shipped.clusters.items():
        assert a.metrics["unracked_switches"].m == 0, path
        assert a.metrics["unracked_switch_space"].m_as("U") == 0, path
        assert unracked_words(a.metrics) == ""


def test_a_target_met_on_the_space_cost_says_it_takes_their_rack_space_as_free(eight):
    run, _ = eight
    [met] = [f for f in run.findings if f.id == "REQ005" and f.requirement == "R-SPACE"]
    assert "no rack space for 4 switches placed in no rack (COST007)" in met.message
