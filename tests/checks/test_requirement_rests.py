"""A requirement on a workload rests on its cluster's unresolved references, as the error cascade says.

A typo in a part of a rack the workload's cluster places leaves that part out of the cluster's power, cost and
network figures, which the workload's cost, energy and speed are computed on: neither its own requirements nor a
Requirements document's on it are judged, and their findings are folded under the REF finding (leftovers2 item 3).
"""

from __future__ import annotations

import json

from archgen.model.requirements import Status
from archgen.pipeline import run
from tests.conftest import SPECS
from tests.test_library import PROJECT

RACK = (SPECS / "catalog" / "racks" / "gb300-nvl72.yaml").read_text(encoding="utf-8")
OWN = "requirements:\n  - {id: REQ-OWN-1, statement: Time per output token, metric: tpot, target: \"<= 1 s\"}\n"
DOC = """\
kind: Requirements
id: hall
name: Hall requirements
requirements:
  - {id: REQ-DOC-1, statement: Time per output token, subject: workload/serve, metric: tpot, target: "<= 1 s"}
"""


def _design(tmp_path, rack: str):
    path = tmp_path / "design.yaml"
    path.write_text("---\n".join((PROJECT + OWN, DOC, rack)), encoding="utf-8")
    return path


def _statuses(result) -> dict[str, tuple[Status, str]]:
    return {j.bound.req.id: (j.outcome.status, j.outcome.note) for j in result.requirements
            if j.bound.subject == "workload/serve"}


def test_a_workload_requirement_is_judged_on_a_whole_cluster(tmp_path):
    result = run([_design(tmp_path, RACK)])
    # judged (not "not provided"): met, at both ends of the offline TPOT's band (offband38: the tokens/s band turned;
    # the 2,048 in flight are the engine's max_batch_size, not a memory estimate, so nothing leaves it at risk)
    assert {k: s for k, (s, _) in _statuses(result).items()} == {"REQ-OWN-1": Status.MET,
                                                                 "REQ-DOC-1": Status.MET}


def test_a_typo_in_a_rack_part_leaves_a_workload_requirement_not_provided_and_folded(tmp_path, cli):
    typo = RACK.replace("part: sn2201,", "part: sn2210,")
    assert typo != RACK
    path = _design(tmp_path, typo)
    result = run([path])
    assert result.workloads["workload/serve"].estimate is not None    # the job is still estimated
    statuses = _statuses(result)
    assert {k: s for k, (s, _) in statuses.items()} == {"REQ-OWN-1": Status.NOT_PROVIDED,
                                                         "REQ-DOC-1": Status.NOT_PROVIDED}
    assert statuses["REQ-OWN-1"][1] == "it rests on unresolved reference(s) 'sn2210' (System, Switch, PowerShelf, " \
                                       "PDU or CoolingUnit)"
    assert statuses["REQ-DOC-1"][1].startswith("workload/serve rests on unresolved reference(s) 'sn2210'")
    findings = json.loads(cli("check", path, "--format", "json").out)["findings"]
    on_job = [(f["id"], f["message"].split(":")[0], f.get("caused_by")) for f in findings
              if f["object"] == "workload/serve"]
    assert sorted(on_job) == [("REQ002", "REQ-DOC-1", "REF001 rack/gb300-nvl72: 'sn2210'"),
                              ("REQ002", "REQ-OWN-1", "REF001 rack/gb300-nvl72: 'sn2210'")]


def test_estimate_leaves_them_not_provided_too(tmp_path, cli):
    """`archgen estimate` judges a workload's own requirements by the same rule (`derived.judge_requirements`)."""
    path = _design(tmp_path, RACK.replace("part: sn2201,", "part: sn2210,"))
    out = cli("estimate", "--workload", "serve", "--path", path).out
    assert "REQ-OWN-1: tpot <= 1 s: not provided (it rests on unresolved reference(s) 'sn2210'" in out
    assert "REQ-OWN-1: tpot <= 1 s: met" in cli("estimate", "--workload", "serve", "--path", _design(tmp_path, RACK)).out


def test_a_waiver_the_typo_leaves_unused_is_folded_under_it(tmp_path, cli):
    """A waived miss (PERF001 of a 1 ms target) becomes not provided with the typo, so its waiver matches nothing:
    that SPC002 follows from the typo too, and is folded under the REF001 with the requirement's REQ002."""
    own = OWN.replace('"<= 1 s"', '"<= 1 ms"') + "waivers: [{check: PERF001, requirement: REQ-OWN-1, reason: target under review}]\n"
    for rack, expected in ((RACK, {("PERF001", None)}),
                           (RACK.replace("part: sn2201,", "part: sn2210,"),
                            {("REQ002", "REF001 rack/gb300-nvl72: 'sn2210'"),
                             ("SPC002", "REF001 rack/gb300-nvl72: 'sn2210'")})):
        path = tmp_path / "design.yaml"
        path.write_text("---\n".join((PROJECT + own, rack)), encoding="utf-8")
        findings = json.loads(cli("check", path, "--format", "json").out)["findings"]
        on_job = {(f["id"], f.get("caused_by")) for f in findings if f["object"] == "workload/serve"}
        assert on_job == expected
