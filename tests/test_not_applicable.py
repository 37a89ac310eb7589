"""A glob subject that matches a workload whose job cannot have the metric: not applicable there, never REQ002.

newuser64 found a `cost_per_million_tokens` requirement on `workload/*` counted one REQ002 error for each collective
(nccl-tests-like) job it matched. The registry's jobs of the metric (`metrics.py`: cost per million tokens is a
training and inference metric) decide whether a requirement applies to a matched workload (nu64fix). The fixture is
`archgen gap`'s (tests/data/gap), whose only workload is a collective, workload/acme-allreduce.
"""

from __future__ import annotations

import shutil

from archgen.commands.gap import gap
from archgen.model.requirements import Status, fails
from tests.conftest import run_specs, write_tree
from tests.test_gap import PROPOSAL

GLOB = """kind: Requirements
id: tco
requirements:
  - {id: REQ-TCO-001, statement: Cost per million tokens of every job, subject: "workload/*",
     metric: cost_per_million_tokens, target: "<= 1 USD"}
"""
EXACT = GLOB.replace('"workload/*"', "workload/acme-allreduce")


def test_glob_on_a_collective_is_not_applicable(tmp_path):
    shutil.copytree(PROPOSAL, tmp_path / "specs")
    run = run_specs(tmp_path, {"requirements.yaml": GLOB})
    assert not [f for f in run.findings if f.id == "REQ002"]
    (j,) = [j for j in run.requirements if j.bound.req.id == "REQ-TCO-001"]
    assert j.outcome.status is Status.NOT_APPLICABLE and j.outcome.met is None
    assert j.outcome.note == ("workload/acme-allreduce is a collective job: 'cost_per_million_tokens' is a metric "
                              "of training and inference jobs")
    assert not fails("shall", j.outcome.status)


def test_exact_subject_is_still_a_mistake(tmp_path):
    shutil.copytree(PROPOSAL, tmp_path / "specs")
    run = run_specs(tmp_path, {"requirements.yaml": EXACT})
    (f,) = [f for f in run.findings if f.id == "REQ002"]
    assert f.severity == "error" and "is a collective job" in f.message


def test_gap_row_says_not_applicable(tmp_path):
    g = gap([PROPOSAL], [write_tree(tmp_path / "r", {"tco.yaml": GLOB})])
    (row,) = g.rows
    assert (row.status, row.subject, row.failing) == ("not applicable", "workload/acme-allreduce", False)
    assert g.summary()["by_level"]["shall"]["not_applicable"] == 1
