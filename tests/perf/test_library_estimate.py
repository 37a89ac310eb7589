"""An estimate from Python is the one `archgen estimate` prints, notes and requirements included (nu43api).

newuser43's trial found that `estimate_on_cluster(...).requirements == []` read as "no requirements" where it meant
"not judged", and that two notes (the job runs on another cluster; `check` refuses network figures it reads) were
added only by the command. `pipeline.job_on_cluster` now holds both, and the command prints what it returns.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archgen.output.estimate import estimate_json
from archgen.perf.api import estimate_on_cluster, judge_requirements
from archgen.pipeline import built, job_on_cluster
from tests.conftest import SPECS, run_cli
from tests.test_ocs import refused_pod


@pytest.fixture(scope="module")
def shipped():
    return built([SPECS])


def _printed(*args: str) -> dict:
    got = run_cli("estimate", *args, "--format", "json")
    printed = json.loads(got.out)
    printed.pop("archgen")   # the envelope's version key
    return printed


def test_an_unjudged_estimate_has_no_requirements_list(shipped):
    """`estimate_on_cluster` judges nothing: None, which no caller can read as "met" or "none"; judging gives a list."""
    specs, design = shipped
    placed = job_on_cluster(specs, design, "llama3-70b-pretrain-b200")
    bare = estimate_on_cluster(placed.workload, placed.model, placed.on)
    assert bare.requirements is None
    assert estimate_json(bare)["requirements"] is None
    bound = [b.req for b in design.workload_requirements if b.owner == "llama3-70b-pretrain-b200"]
    assert bound, "the shipped job binds requirements (specs/workloads/llama3-70b.yaml)"
    assert judge_requirements(bound, bare) and placed.estimate().requirements
    assert [o.requirement.id for o in placed.estimate().requirements or ()] == [r.id for r in bound]


def test_the_cli_prints_the_estimate_the_library_returns(shipped):
    specs, design = shipped
    for workload, cluster in (("llama3-70b-pretrain-b200", None), ("llama3-70b-serve-b200", "gb200-nvl72-su")):
        est = job_on_cluster(specs, design, workload, cluster).estimate()
        printed = _printed("--workload", workload, *(("--cluster", cluster) if cluster else ()), "--path", str(SPECS))
        assert json.loads(json.dumps(estimate_json(est))) == printed
    assert est.notes[0] == "on cluster 'gb200-nvl72-su' instead of the workload's 'dgx-b200-superpod'"


def test_a_design_check_refuses_is_said_by_the_library_too(tmp_path: Path):
    """The tpu-v4 pod at 800 Gb/s on its 400 Gb/s links fails NET016 (tests/test_ocs.py): the library says so."""
    paths = refused_pod(tmp_path)
    specs, design = built(paths)
    est = job_on_cluster(specs, design, "ar").estimate()
    assert est.notes[0].startswith("cluster 'tpu-v4-pod' fails `archgen check` (1 error(s) in what this estimate "
                                   "reads, NET016; first: NET016 the torus runs 800 Gb/s per link and direction;")
    assert est.requirements == []   # judged: the job has none
    assert json.loads(json.dumps(estimate_json(est))) == _printed("--workload", "ar", *map(str, paths))


def test_one_path_given_alone_is_that_path(shipped):
    """``built("specs")`` read the text as five paths ('s: no such file or directory'); it is the one folder now."""
    specs, design = built(str(SPECS))
    assert specs.items.keys() == shipped[0].items.keys()
    assert design.workload_requirements == shipped[1].workload_requirements



def test_a_workload_naming_no_cluster_asks_for_one_in_the_callers_words(shipped):
    """The message named only the CLI's --cluster; a Python caller gives `cluster=` (`pipeline.job_on_cluster`)."""
    from dataclasses import replace

    from archgen.errors import WorkloadError
    from archgen.in_code import variant
    specs, design = shipped
    free = variant(specs.items["llama3-70b-pretrain-b200"], id="free", cluster=None)
    mine = replace(specs, items={**specs.items, "free": free})
    with pytest.raises(WorkloadError, match=r"^workload 'free': names no cluster; give one to run it on \(`cluster=`"):
        job_on_cluster(mine, design, "free")
    assert job_on_cluster(mine, design, "free", "dgx-b200-superpod").on.cluster == "dgx-b200-superpod"
