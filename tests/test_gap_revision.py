"""A proposal states which release of our requirements it answers, and `archgen gap` notices an old one (newuser86).

A hardware program releases revision A of its requirements to three ODMs, then B with a rack budget cut from 150
to 145 kW. Before, neither side could say which release a proposal answers: `Requirements` had no revision and a
proposal no place to name one, so an ODM's proposal written against A was judged against B in silence. Now our
document states `revision: B`, a proposal's `document.answers: {h100-hall: A}` names the release it answers, and gap
says so in its summary, its JSON (`revisions`) and its exit code (1: the proposal answers a superseded release).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import run_cli, write_tree

DATA = Path(__file__).parent / "data" / "gap"
OURS = ("kind: Requirements\nid: h100-hall\nname: H100 hall\n{revision}requirements:\n"
        "  - {{id: REQ-HALL-CL-001, statement: Accelerators in the cluster, subject: 'cluster/*', "
        "metric: accelerators, target: '>= 128'}}\n")


def _proposal(tmp_path: Path, answers: str) -> Path:
    """ACME's proposal (tests/data/gap) with 60 A feeds (its 30 A ones are an error of its own: exit 1), its
    cluster stating `answers` in `document:` where given."""
    root = tmp_path / "acme"
    shutil.copytree(DATA / "proposal", root)
    racks = root / "racks" / "acme-racks.yaml"
    racks.write_text(racks.read_text(encoding="utf-8").replace("current: 30 A", "current: 60 A", 1), encoding="utf-8")
    pod = root / "clusters" / "acme-pod.yaml"
    if answers:
        pod.write_text(pod.read_text(encoding="utf-8").replace(
            "name: ACME H100 pod\n", f"name: ACME H100 pod\ndocument: {{revision: '3', answers: {answers}}}\n", 1),
            encoding="utf-8")
    return root


def _ours(tmp_path: Path, revision: str) -> Path:
    stated = f"revision: {revision}\n" if revision else ""
    return write_tree(tmp_path / "ours", {"hall.yaml": OURS.format(revision=stated)})


def test_a_proposal_answering_the_released_revision_says_so(tmp_path):
    r = run_cli("gap", _proposal(tmp_path, "{h100-hall: B}"), "--against", _ours(tmp_path, "B"))
    assert r.code == 0, r.out + r.err
    assert "It answers revision B of h100-hall, the revision judged." in r.out
    doc = json.loads(run_cli("gap", _proposal(tmp_path / "j", "{h100-hall: B}"), "--against", _ours(tmp_path, "B"),
                             "--format", "json").out)
    assert doc["revisions"] == [{"requirements": "h100-hall", "released": "B", "answered": ["B"],
                                 "objects": ["cluster/acme-pod"], "current": True}]


def test_a_proposal_answering_an_old_revision_fails(tmp_path):
    r = run_cli("gap", _proposal(tmp_path, "{h100-hall: A}"), "--against", _ours(tmp_path, "B"))
    assert r.code == 1                                      # every row met: was 0, the old release unnoticed
    assert r.out.split("\n")[2].startswith("❌")
    assert ("It answers revision A of h100-hall (cluster/acme-pod), not revision B, the one judged: it answers a "
            "superseded release, and its rows are judged against B.") in r.out
    doc = json.loads(run_cli("gap", _proposal(tmp_path / "j", "{h100-hall: A}"), "--against", _ours(tmp_path, "B"),
                             "--format", "json").out)
    assert doc["revisions"][0]["current"] is False and doc["summary"]["failing"] is True
    assert doc["summary"]["revisions_superseded"] == 1
    customer = run_cli("gap", _proposal(tmp_path / "c", "{h100-hall: A}"), "--against", _ours(tmp_path, "B"),
                       "--audience", "customer")
    assert "It answers revision A of h100-hall, not revision B" in customer.out and customer.code == 1


def test_a_proposal_stating_no_revision_is_told_which_it_is_judged_against(tmp_path):
    r = run_cli("gap", _proposal(tmp_path, ""), "--against", _ours(tmp_path, "B"))
    assert r.code == 0 and r.out.split("\n")[2].startswith("⚠️")
    assert ("It states no revision of h100-hall it answers (a rack's or cluster's document.answers); judged against "
            "revision B.") in r.out


def test_requirements_without_a_revision_ask_nothing(tmp_path):
    r = run_cli("gap", _proposal(tmp_path, ""), "--against", _ours(tmp_path, ""))
    assert r.code == 0 and "revision" not in r.out.split("\n")[2]
    assert "revisions" not in json.loads(run_cli("gap", _proposal(tmp_path / "j", ""), "--against",
                                                 _ours(tmp_path, ""), "--format", "json").out)
