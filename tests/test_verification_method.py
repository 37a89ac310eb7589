"""A requirement's `verification` method: what decides it where archgen's analysis cannot (docs/rendering.md, Requirements compliance matrix).

A systems engineer's requirement set names how each requirement is verified, by the four methods of the INCOSE
Systems Engineering Handbook (analysis, inspection, demonstration, test). archgen verifies by analysis; a requirement
verified by test at acceptance (an all-reduce bus bandwidth that nccl-tests measures on the delivered cluster) is
only predicted by archgen's figure, so the compliance matrix and `gap` say "met (predicted by analysis, to be
verified by test)" rather than a bare "met" that a reviewer would read as closed. The fixture is tests/test_gap.py's:
REQ-HALL-PERF-001 (busbw >= 150 GB/s) is met on workload/acme-allreduce.
"""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from archgen.commands.gap import gap
from archgen.errors import SpecError
from archgen.model.requirements import Requirement, judge
from archgen.output.gap import markdown, to_json
from archgen.render.blocks import Column, Table
from archgen.units import Q_
from tests.conftest import SPECS, run_cli, write_tree
from tests.test_gap import REQUIREMENTS, fixed_proposal


def _requirements(root, verification: str):
    shutil.copytree(REQUIREMENTS, root)
    path = root / "h100-hall.yaml"
    text = path.read_text(encoding="utf-8")
    old = 'metric: busbw, target: ">= 150 GB/s"'
    assert old in text
    path.write_text(text.replace(old, f"{old}, verification: {verification}"), encoding="utf-8")
    return root


def test_shown_status_names_what_verifies_it():
    by_test = Requirement(id="REQ-T-001", statement="s", metric="busbw", target=">= 150 GB/s", verification="test")
    assert judge(by_test, Q_(200, "GB/s")).shown == "met (predicted by analysis, to be verified by test)"
    assert judge(by_test, Q_(100, "GB/s")).shown == "not met (predicted by analysis, to be verified by test)"
    assert judge(by_test, None, "no value").shown == "not provided"     # nothing predicted to qualify
    by_analysis = by_test.model_copy(update={"verification": "analysis"})
    assert judge(by_analysis, Q_(200, "GB/s")).shown == "met"             # the default: unchanged
    assert Requirement(id="REQ-T-002", statement="s", metric="busbw", target=">= 1 GB/s").verification == "analysis"


def test_matrix_row_keeps_its_status_style():
    rows = (("met (predicted by analysis, to be verified by inspection; on assumed inputs: x (unconfirmed))",),
            ("not met (predicted by analysis, to be verified by test)",))
    table = Table("t", "t", (Column("Status"),), rows, status_column=0)
    assert [table.row_status(i) for i in range(2)] == ["pass", "fail"]


def test_gap_says_what_verifies_a_met_row(tmp_path):
    g = gap([fixed_proposal(tmp_path / "p")], [_requirements(tmp_path / "r", "test")])
    row = next(r for r in g.rows if r.requirement.id == "REQ-HALL-PERF-001")
    assert row.status == "met" and row.to_verify
    md = markdown(g)
    line = next(x for x in md.splitlines() if x.startswith("| REQ-HALL-PERF-001"))
    assert "✅ met (predicted by analysis, to be verified by test)" in line
    assert "1 result(s) judged by analysis only, each still to be verified by the test" in md.splitlines()[2]
    data = json.loads(to_json(g))
    assert data["summary"]["to_verify"] == 1
    assert {r["requirement"]: r["verification"] for r in data["rows"]}["REQ-HALL-PERF-001"] == "test"
    met = dataclasses.replace(g, rows=(row,), findings=())
    assert not met.failing and markdown(met).splitlines()[2].startswith("⚠️")   # passes, but a test is still owed


def test_gap_without_a_verification_method_is_unchanged(tmp_path):
    g = gap([fixed_proposal(tmp_path / "p")], [REQUIREMENTS])
    assert "predicted by analysis" not in markdown(g) and json.loads(to_json(g))["summary"]["to_verify"] == 0


def test_unknown_method_is_refused_at_its_line(tmp_path):
    with pytest.raises(SpecError) as e:
        gap([fixed_proposal(tmp_path / "p")], [_requirements(tmp_path / "r", "tset")])
    text = str(e.value)
    assert "h100-hall.yaml:" in text and "verification" in text and "test" in text


def test_diff_shows_a_verification_method_dropped(tmp_path):
    """A SHALL that a test at acceptance decides made `analysis`, its status unchanged, is redefined, not silent."""
    rack = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")
    power = '{id: REQ-PWR-010, statement: Rack IT load, metric: it_power, target: "<= 45 kW"}'   # 40.9 kW: met
    assert power in rack
    base = write_tree(tmp_path / "base", {"rack.yaml": rack.replace(power, power[:-1] + ", verification: test}")})
    head = write_tree(tmp_path / "head", {"rack.yaml": rack})
    r = run_cli("diff", base, head)
    assert r.code == 0 and r.out.split("\n")[2].startswith("⚠️") and "1 redefined" in r.out
    assert ("SHALL it\\_power \\<= 45 kW, verified by test → **SHALL it\\_power \\<= 45 kW** | "
            "✅ met (predicted by analysis, to be verified by test) | ✅ met |") in r.out
    [row] = json.loads(run_cli("diff", base, head, "--format", "json").out)["requirements"]
    assert row["redefined"] and row["verification"] == "analysis" and row["base_definition"]["verification"] == "test"
