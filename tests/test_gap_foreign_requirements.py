"""`gap` says where one proposal's own requirements judge another proposal's objects (newuser41 finding 3).

The input that showed it (new-user trial, a buyer comparing a GB300 and an MI355X proposal in one `gap` run): vendor
A's folder carries its hall's Requirements (`examples/gb300-nvl72-su/requirements/gb300-hall.yaml`, `cluster/*` and
`cluster/*/fabric/compute` globs). In the joint report they judged vendor B's MI355X cluster ("REQ-GB300-NET-002
(One 800 Gb/s compute-fabric port per accelerator (ConnectX-8 XDR)): injection_per_accelerator = 400 Gb/s", the
statement since reworded) as one of vendor B's warning findings, with no word that the requirement was vendor A's. `render` warns of the same case on
stderr (tests/test_partner_outputs.py); `gap` now says it at the top of its internal report and in JSON `notes`.

Since nu41misc, each PROPOSAL path that holds a cluster is a design run on its own (tests/test_gap_designs.py), so
vendor A's hall requirements no longer judge vendor B's cluster at all; the note remains for a path that holds no
cluster (parts, a rack) and joins every design, whose objects another path's globs reach.
"""

from __future__ import annotations

import json
import shutil

from tests.conftest import REPO, SPECS, run_cli

REQ = """kind: Requirements
id: buyer
name: Buyer sign-off
requirements:
  - {id: B-001, statement: Cluster IT power, subject: "cluster/*", metric: it_power, target: "<= 20 MW"}
"""


def _proposals(tmp_path):
    """Vendor A: the GB300 example (with its own hall requirements); vendor B: the shipped MI355X cluster."""
    a, b, ours = tmp_path / "a", tmp_path / "b", tmp_path / "req"
    shutil.copytree(REPO / "examples" / "gb300-nvl72-su", a)
    b.mkdir()
    shutil.copy(SPECS / "clusters" / "mi355x-th5.yaml", b / "mi355x.yaml")
    ours.mkdir()
    (ours / "buyer.yaml").write_text(REQ, encoding="utf-8")
    return a, b, ours


def test_gap_names_a_proposals_requirements_that_reach_another_proposal(tmp_path):
    a, b, ours = _proposals(tmp_path)
    both = run_cli("gap", a, b, "--against", ours)
    assert "applies its requirements to objects of another" not in both.out       # separate designs since nu41misc
    assert not [line for line in both.out.splitlines() if "mi355x-th5" in line and "REQ-GB300" in line]
    parts = tmp_path / "parts"                       # a path with no cluster: its rack joins vendor A's design
    parts.mkdir()
    shutil.copy(SPECS / "racks" / "tpu-v4-cube.yaml", parts / "rack.yaml")
    joined = run_cli("gap", a, parts, "--against", ours)
    head = joined.out.split("### Requirements")[0]
    assert "gb300-hall.yaml applies its requirements to objects of another PROPOSAL given: " in head, head
    assert "on rack/tpu-v4-cube" in head, head
    assert "buyer.yaml applies" not in joined.out        # ours (--against) are meant for every proposal
    doc = json.loads(run_cli("gap", a, parts, "--against", ours, "--format", "json").out)
    assert any("on rack/tpu-v4-cube" in n for n in doc["notes"])
    # the customer edition names no file of ours, so it carries no such note
    public = run_cli("gap", a, parts, "--against", ours, "--audience", "customer").out
    assert "applies its requirements" not in public


def test_gap_of_one_proposal_has_no_such_note(tmp_path):
    a, _, ours = _proposals(tmp_path)
    alone = run_cli("gap", a, "--against", ours)
    assert "applies its requirements to objects of another" not in alone.out
    assert "notes" not in json.loads(run_cli("gap", a, "--against", ours, "--format", "json").out)
