"""`archgen diff` states the released revisions it compares, and a spec changed under an unchanged revision.

newuser86's trial: between revision A and B of a GB300 SU spec (a requirement tightened, a switch swapped, a waiver
renewed) the comment's title named two folders and nothing named the revisions a partner quotes; and a spec edited
without a new `document.revision` reads the same revision in both releases' documents. Now a "Revisions" line says
`rack/dgx-h100-4` (AG-1) A → B, and a document that changed but still states its BASE revision is listed too.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import SPECS, run_cli, write_tree

RACK = (SPECS / "racks" / "dgx-h100-4.yaml").read_text(encoding="utf-8")
NAME = "name: DGX H100 rack (4 systems, air cooled)\n"
HALL = ("kind: Requirements\nid: hall\n{revision}requirements:\n  - {{id: REQ-1, statement: Rack IT load, "
        "subject: 'rack/*', metric: it_power, target: '{target}'}}\n")


def _tree(root: Path, revision: str, hall: str = "", target: str = "<= 45 kW", rack: str = RACK) -> Path:
    assert NAME in rack
    stated = rack.replace(NAME, NAME + f"document: {{number: AG-1, revision: {revision}}}\n", 1)
    return write_tree(root, {"rack.yaml": stated, "hall.yaml": HALL.format(
        revision=f"revision: {hall}\n" if hall else "", target=target)})


def test_the_revisions_compared_are_stated(tmp_path):
    base = _tree(tmp_path / "a", "A", hall="A")
    head = _tree(tmp_path / "b", "B", hall="B", target="<= 42 kW")
    r = run_cli("diff", base, head)
    lines = r.out.split("\n")
    assert lines[4] == "**Revisions:** `rack/dgx-h100-4` (AG-1) A → B; `requirements/hall` A → B."
    doc = json.loads(run_cli("diff", base, head, "--format", "json").out)
    assert doc["revisions"] == [
        {"object": "rack/dgx-h100-4", "number": "AG-1", "base": "A", "head": "B", "changed": True, "approval": None},
        {"object": "requirements/hall", "number": None, "base": "A", "head": "B", "changed": True, "approval": None}]
    assert doc["summary"]["revisions_changed"] == 2 and doc["summary"]["revisions_kept"] == 0


def test_a_spec_changed_under_its_old_revision_is_listed(tmp_path):
    base = _tree(tmp_path / "a", "A", hall="A")
    head = _tree(tmp_path / "b", "A", hall="A", target="<= 42 kW")    # the requirement tightened, still "A"
    r = run_cli("diff", base, head)
    assert ("**Revisions:** `requirements/hall` changed but still states revision A: a release of it needs a new "
            "revision.") in r.out
    assert r.out.split("\n")[2].startswith("⚠️")
    doc = json.loads(run_cli("diff", base, head, "--format", "json").out)
    assert doc["revisions"] == [{"object": "requirements/hall", "number": None, "base": "A", "head": "A",
                                 "changed": False, "approval": None}]
    assert doc["summary"]["revisions_kept"] == 1


def test_no_revision_stated_no_line(tmp_path):
    base = write_tree(tmp_path / "a", {"rack.yaml": RACK})
    head = write_tree(tmp_path / "b", {"rack.yaml": RACK.replace("4 systems, air cooled", "4 systems")})
    r = run_cli("diff", base, head)
    assert "Revisions" not in r.out
    assert "revisions" not in json.loads(run_cli("diff", base, head, "--format", "json").out)
