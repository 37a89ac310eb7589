"""A requirement's `parent`: the stakeholder need or requirement it refines, kept in every report (newuser61).

Before, `parent:` was refused ("unknown key 'parent'; did you mean 'target'?"), so a requirement set's
parent/child traceability lived only in statement text. Now the compliance matrix and `gap` show it beside the
statement, JSON gives it as `parent`, and `diff` lists a requirement re-parented as redefined.
"""

from __future__ import annotations

import json

import pytest

from archgen.commands.gap import gap
from archgen.errors import SpecError
from archgen.model.requirements import Requirement
from archgen.output.gap import markdown, to_json
from tests.conftest import SPECS, run_cli, write_tree
from tests.test_gap import fixed_proposal, requirements_without

CHILD = ('  - {id: REQ-HALL-MECH-009, statement: Rack weight for the lifts, subject: "rack/*", metric: weight, '
         'target: "<= 2000 kg", parent: STK-LIFT-001}\n')


def test_one_id_or_a_list():
    one = Requirement(id="SYS-1", statement="s", metric="weight", target="<= 1 kg", parent="STK-001")
    assert one.parent == ["STK-001"] and one.traced == "s (refines STK-001)"
    two = one.model_copy(update={"parent": ["STK-001", "STK-002"]})
    assert two.traced == "s (refines STK-001, STK-002)"
    assert Requirement(id="SYS-2", statement="s", metric="weight", target="<= 1 kg").traced == "s"


def test_its_own_parent_is_refused():
    with pytest.raises(ValueError, match="SYS-1 names itself as its parent"):
        Requirement(id="SYS-1", statement="s", metric="weight", target="<= 1 kg", parent="SYS-1")


def test_a_parent_that_is_not_an_id_is_refused_at_its_line(tmp_path):
    bad = requirements_without(tmp_path / "r", extra=CHILD.replace("STK-LIFT-001", "stakeholder need 1"))
    with pytest.raises(SpecError) as e:
        gap([fixed_proposal(tmp_path / "p")], [bad])
    assert "h100-hall.yaml:" in str(e.value) and "parent" in str(e.value)


def test_gap_and_check_keep_the_parent(tmp_path):
    ours = requirements_without(tmp_path / "r", extra=CHILD)
    g = gap([fixed_proposal(tmp_path / "p")], [ours])
    line = next(x for x in markdown(g).splitlines() if x.startswith("| REQ-HALL-MECH-009 |"))
    assert "| Rack weight for the lifts (refines STK-LIFT-001) |" in line
    rows = json.loads(to_json(g))["rows"]
    row = next(r for r in rows if r["requirement"] == "REQ-HALL-MECH-009")
    assert (row["statement"], row["parent"]) == ("Rack weight for the lifts", ["STK-LIFT-001"])
    assert {r["parent"] for r in rows if r["requirement"] != "REQ-HALL-MECH-009"} == {None}
    matrix = json.loads(run_cli("check", fixed_proposal(tmp_path / "c"), ours, "--format", "json").out)
    assert {r["requirement"]: r["parent"] for r in matrix["requirements"]}["REQ-HALL-MECH-009"] == ["STK-LIFT-001"]


def test_diff_shows_a_requirement_re_parented(tmp_path):
    rack = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")
    power = '{id: REQ-PWR-010, statement: Rack IT load, metric: it_power, target: "<= 45 kW"}'
    assert power in rack
    base = write_tree(tmp_path / "base", {"rack.yaml": rack.replace(power, power[:-1] + ", parent: STK-001}")})
    head = write_tree(tmp_path / "head", {"rack.yaml": rack.replace(power, power[:-1] + ", parent: STK-002}")})
    r = run_cli("diff", base, head)
    assert "1 redefined" in r.out and r.out.split("\n")[2].startswith("⚠️")
    assert ("| REQ-PWR-010 | `rack/dgx-h100-4` | Rack IT load (refines STK-002) | SHALL it\\_power \\<= 45 kW, "
            "refines STK-001 → **SHALL it\\_power \\<= 45 kW, refines STK-002** |") in r.out
    [row] = json.loads(run_cli("diff", base, head, "--format", "json").out)["requirements"]
    assert row["parent"] == ["STK-002"] and row["base_definition"]["parent"] == ["STK-001"]


def test_the_compliance_matrix_keeps_the_parent(tmp_path):
    rack = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")
    power = '{id: REQ-PWR-010, statement: Rack IT load, metric: it_power, target: "<= 45 kW"}'
    root = write_tree(tmp_path / "s", {"rack.yaml": rack.replace(power, power[:-1] + ", parent: STK-001}")})
    r = run_cli("render", root, "--target", "dgx-h100-4", "--out", tmp_path / "out", "--formats", "csv,md")
    assert r.code == 0, r.err
    csv = (tmp_path / "out" / "dgx-h100-4" / "requirements.csv").read_text(encoding="utf-8")
    assert "REQ-PWR-010,SHALL,Rack IT load (refines STK-001)," in csv
    assert "| Rack IT load (refines STK-001) |" in (tmp_path / "out" / "dgx-h100-4" / "dgx-h100-4.md").read_text(
        encoding="utf-8")
