"""Three facility figures say what they are (newuser106, item 9; facility43).

- A typical draw that equals the maximum because parts state no typical draw: the key-metrics row said only
  "131.6 kW" beside "131.6 kW" (GB200 NVL72 rack); it now says "typical = maximum (no typical draw stated for ...)".
- A cluster without power shelves read "Power-shelf loss ... 0.0 kW" (DGX B200 SuperPOD); it is not applicable.
- A CDU's "flow usable 1,950 L/min" is 1,300 kW x the 1.5 L/min/kW rule (`flow_basis: rule`), not a pump rating.

Fixtures: the shipped GB200 NVL72 rack under its own id (18 x 5.4 kW trays and 9 x 3.8 kW switch trays state no
typical draw), tests/data/clusters/small.py's DGX H100 cluster (no power shelves), and a copy of the shipped in-row
CDU as rated or as a rule.
"""

from __future__ import annotations

from archgen.render.cluster import abstract as cluster_abstract
from archgen.render.cluster import cluster_scope
from archgen.render.rack import abstract
from archgen.render.rack_cooling import cooling
from archgen.render.rack_power import typical_note
from archgen.render.target import rack_scope
from archgen.units import Q_
from tests.conftest import SPECS, run_specs
from tests.data.clusters.small import files
from tests.render.test_per_feed import _table

RACK = (SPECS / "catalog" / "racks" / "gb200-nvl72.yaml").read_text(encoding="utf-8").replace(
    "id: gb200-nvl72", "id: r", 1)
CDU = (SPECS / "catalog" / "cooling" / "in-row-cdu-1.3mw.yaml").read_text(encoding="utf-8").replace(
    "id: in-row-cdu-1.3mw", "id: cdu-x", 1)
RULE = "flow_basis: rule"


def _rows(section) -> dict:
    return dict(_table(section, "key-metrics").rows)


def test_a_typical_draw_that_is_the_maximum_says_so(tmp_path):
    run = run_specs(tmp_path, {"racks/r.yaml": RACK})
    a = run.racks["rack/r"]
    assert a.power.typical_from_max == ("gb200-compute-tray", "nvlink5-switch-tray")
    row = _rows(abstract(rack_scope(run, a, "r", "2026-01-01")[0], a))["IT power at the equipment (typical, for energy)"]
    assert row.endswith("; typical = maximum (no typical draw stated for gb200-compute-tray, nvlink5-switch-tray)")


def test_typical_note_names_the_stand_ins_or_nothing():
    kw = lambda v: Q_(v, "kW")  # noqa: E731
    assert typical_note(kw(131.61), kw(131.64), ("a",)) == "; typical = maximum (no typical draw stated for a)"
    assert typical_note(kw(1923.6), kw(1903.0), ("a", "b")) == \
        "; the maximum stands in for a, b (no typical draw stated)"
    assert typical_note(kw(17.2), kw(13.8), ()) == ""


def test_a_cluster_without_power_shelves_has_no_shelf_loss_to_show(tmp_path, shipped):
    run = run_specs(tmp_path, files())
    a = run.clusters["cluster/c"]
    rows = _rows(cluster_abstract(cluster_scope(run, a, "r", "2026-01-01")[0], a))
    assert rows["Power-shelf loss (in IT power at the rack feeds)"].startswith("not applicable (no power shelves")
    su = shipped.clusters["cluster/gb200-nvl72-su"]
    rows = _rows(cluster_abstract(cluster_scope(shipped, su, "r", "2026-01-01")[0], su))
    assert rows["Power-shelf loss (in IT power at the rack feeds)"].startswith("32.5 kW")


def _cdu_rows(tmp_path, cdu: str) -> dict:
    run = run_specs(tmp_path, {"racks/r.yaml": RACK.replace("cdu: in-row-cdu-1.3mw", "cdu: cdu-x"),
                               "cooling/cdu-x.yaml": cdu})
    table = _table(cooling(run.racks["rack/r"]), "liquid")
    assert table is not None
    return dict(table.rows)


def test_a_cdu_flow_by_rule_is_labelled_a_rule_not_a_pump_rating(tmp_path):
    assert RULE in CDU
    rows = _cdu_rows(tmp_path / "rule", CDU)
    label = "Group flow needed / CDU flow usable (the rule 1.5 L/min/kW × capacity, not a pump rating)"
    assert label in rows and "1,950 L/min" in rows[label]
    assert "of its 1,950 L/min (the rule 1.5 L/min/kW × capacity" in rows["One CDU lost (COOL020)"]
    rated = _cdu_rows(tmp_path / "rated", CDU.replace(RULE, "flow_basis: rated"))
    assert "Group flow needed / CDU flow usable" in rated and "of its rated 1,950 L/min" in rated[
        "One CDU lost (COOL020)"]
