"""A cluster's `failure_rates` and a set's `base` are references: an id that names no set is REF001 (newuser92).

A reliability engineer who misspelt the set (`lablup-b200-2025` for `lablup-b200-2026`) got one REL004 warning and
a cluster that never failed: no class had a rate, so the 16,128-GPU job's MTTI read 43,830 h (the hall's one
assumed site event in five years) and goodput 0.999, and the requirements `mtti >= 2 h` and `goodput >= 0.9` read
*met* (REQ005 info). A `base` misspelt left every class but the set's own out the same way. Both are now REF001
errors with a "did you mean", and what rests on them is not provided (REQ002), as for any unresolved reference.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from archgen.model.requirements import PASSING, Status
from archgen.pipeline import run

DATA = Path(__file__).parents[1] / "data" / "reliability"
RACK = Path(__file__).parents[2] / "specs" / "racks" / "dgx-h100-4.yaml"
JOB = "workload/llama3-405b-16k"
REQS = ("kind: Requirements\nid: reliability\nrequirements:\n"
        "  - {id: REQ-REL-001, statement: MTTI, subject: workload/llama3-405b-16k, metric: mtti, target: '>= 2 h'}\n"
        "  - {id: REQ-REL-002, statement: Goodput, subject: workload/llama3-405b-16k, metric: goodput,"
        " target: '>= 0.9'}\n")
#: A set of one's own on the B200 GPU rate, the rest from its base (as the trial's `ops-gb200`).
OWN = ("kind: FailureRates\nid: ops-own\nname: own\nbase: {base}\nclasses:\n"
       "  accelerator: {{afr: 0.13176, events: 10, repair: 72 h, detection: 2 min, basis: sourced, source: test}}\n")


def _run(tmp_path: Path, rates: str, own_base: str | None = None):
    tree = tmp_path / "llama3"
    shutil.copytree(DATA / "llama3", tree)
    shutil.copy(RACK, tree / "rack.yaml")
    (tree / "reqs.yaml").write_text(REQS, encoding="utf-8")
    if own_base is not None:
        (tree / "own.yaml").write_text(OWN.format(base=own_base), encoding="utf-8")
    cluster = tree / "cluster.yaml"
    cluster.write_text(cluster.read_text(encoding="utf-8").replace(
        "facility: hall-air", f"facility: hall-air\nfailure_rates: {rates}"), encoding="utf-8")
    return run([tree])


def _statuses(r):
    return {j.bound.req.id: j.outcome.status for j in r.requirements if j.bound.req.id.startswith("REQ-REL")}


@pytest.mark.parametrize(("rates", "own_base", "file"), [
    ("lablup-b200-2025", None, "cluster.yaml"),       # the cluster's set misspelt
    ("ops-own", "field-h100-2042", "own.yaml"),        # its base misspelt
])
def test_a_misspelt_rate_set_is_an_error_and_nothing_rests_on_it(tmp_path, rates, own_base, file):
    r = _run(tmp_path, rates, own_base)
    ref = [f for f in r.findings if f.id == "REF001"]
    assert len(ref) == 1 and ref[0].severity == "error" and Path(ref[0].location.file).name == file
    assert "expected a FailureRates" in ref[0].message and "did you mean" in ref[0].message
    # before: MET on a cluster with no failure rate at all; now not provided, naming the reference
    assert set(_statuses(r).values()) == {Status.NOT_PROVIDED}
    why = [f.message for f in r.findings if f.id == "REQ002" and f.requirement.startswith("REQ-REL")]
    assert len(why) == 2 and all("rests on unresolved reference(s)" in m for m in why)


def test_a_set_that_resolves_is_judged(tmp_path):
    """The same job on the set spelt right: judged (its MTTI on the Llama 3 rates and the B200 GPU rate meets 2 h)."""
    r = _run(tmp_path, "ops-own", "field-h100-2024")
    assert not [f for f in r.findings if f.id == "REF001"]
    assert _statuses(r)["REQ-REL-001"] in PASSING
    assert r.metrics[JOB]["mtti"].m_as("h") < 4
