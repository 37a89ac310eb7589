"""A requirement judged on an estimate that rests on unconfirmed part figures says so in the compliance matrix.

newuser37: an MFU requirement judged on Rubin's announced FP8 peak read "met" in the matrix with no mark; only the
estimate's note named the figures (`perf.workload.unconfirmed_note`). The figures now enter the assumed inputs the
requirement rests on (`analyse.assumed`): the matrix reads "met (on assumed inputs: ...)" and REQ005 names them, as
for an assumed price. The shipped B200 lists `memory_bandwidth` unconfirmed (8 vs 7.7 TB/s, docs/catalog-audit.md)
and its Llama 3.1 70B pre-training estimate reads it.
"""

from __future__ import annotations

import json

from archgen.model.accelerator import Accelerator
from archgen.perf.workload.unconfirmed_note import unconfirmed_figures, unconfirmed_read


def test_an_mfu_requirement_on_b200_names_its_unconfirmed_figures(shipped):
    b200 = shipped.specs.get("b200-sxm-180gb")
    assert isinstance(b200, Accelerator) and b200.is_unconfirmed("memory_bandwidth")
    read = unconfirmed_read(unconfirmed_figures(b200), "bf16")
    [j] = [j for j in shipped.requirements if j.bound.req.id == "REQ-PERF-001"]
    assert j.outcome.status.value == "met"
    assert j.outcome.assumed == tuple(f"b200-sxm-180gb {f} (unconfirmed)" for f in read)
    assert "b200-sxm-180gb memory_bandwidth (unconfirmed)" in j.outcome.shown
    [f] = [f for f in shipped.findings if f.id == "REQ005" and f.requirement == "REQ-PERF-001"]
    assert "on assumed inputs: b200-sxm-180gb memory_bandwidth (unconfirmed)" in f.message


def test_what_rests_on_the_estimate_names_them_and_nothing_else_does():
    from archgen.perf.workload.estimate_assumed import on_unconfirmed

    class Est:
        accelerator, unconfirmed, assumed = "rubin", ("peak.fp8", "memory"), ()   # an NVIDIA part: no stack assumed
        # the pipeline merges the job's cost and goodput figures into the estimate's metrics
        metrics = {"mfu": 0.5, "memory_headroom": 1.0, "cost_per_token": 1.0, "checkpoint_write_time": 60.0}

    got = on_unconfirmed({"cost_per_token": ("hall price",), "checkpoint_write_time": ("c storage",)}, Est())
    assert got["memory_headroom"] == ("rubin memory (unconfirmed)",)   # reads the capacity alone
    assert got["mfu"] == ("rubin peak.fp8 (unconfirmed)", "rubin memory (unconfirmed)")
    assert got["cost_per_token"] == ("hall price", "rubin peak.fp8 (unconfirmed)", "rubin memory (unconfirmed)")
    assert got["checkpoint_write_time"] == ("c storage",)   # the storage's, not the estimate's


def test_estimate_and_the_performance_table_say_met_on_assumed_inputs_as_check_does(cli, shipped):
    """newuser99: `archgen estimate` and the document's performance table said plain "met" of a requirement judged on
    unconfirmed part figures, where `check` (REQ005), the compliance matrix and `gap` said "met (on assumed inputs:
    ...)". One rule now (`perf.workload.estimate_assumed`) and one set of words (`Outcome.shown`) for all of them.
    """
    from archgen.render import performance
    from tests.render.test_consistency import _tables

    said = "met (on assumed inputs: b200-sxm-180gb memory_bandwidth (unconfirmed)"
    r = cli("estimate", "specs", "--workload", "llama3-70b-pretrain-b200")
    assert r.code == 0, r.err
    (line,) = [ln for ln in r.out.splitlines() if ln.startswith("REQ-PERF-001:")]
    assert line.startswith(f"REQ-PERF-001: mfu >= 35 %: {said}"), line
    section = performance.section([shipped.workloads["workload/llama3-70b-pretrain-b200"]])
    rows = {row[0]: row for row in _tables(section)["perf-metrics-llama3-70b-pretrain-b200"].rows}
    [j] = [j for j in shipped.requirements if j.bound.req.id == "REQ-PERF-001"]
    assert rows["mfu"][5] == j.outcome.shown and rows["mfu"][5].startswith(said)


def test_estimate_json_says_what_check_json_says_of_a_requirement(cli):
    """nu99fix's leftover: `estimate --format json` gave only a requirement's bare "status"; `check --format json`'s
    compliance matrix also gives `shown`, "met (on assumed inputs: ...)". Both now carry the one `Outcome.shown`.
    """
    est = cli("estimate", "specs", "--workload", "llama3-70b-pretrain-b200", "--format", "json")
    assert est.code == 0, est.err
    [req] = [r for r in json.loads(est.out)["requirements"] if r["id"] == "REQ-PERF-001"]
    chk = cli("check", "specs", "--format", "json")
    [row] = [r for r in json.loads(chk.out)["requirements"] if r["requirement"] == "REQ-PERF-001"]
    assert row["subject"] == "workload/llama3-70b-pretrain-b200"
    assert req["status"] == row["status"] == "met"
    assert req["shown"] == row["shown"]
    assert req["shown"].startswith("met (on assumed inputs: b200-sxm-180gb memory_bandwidth (unconfirmed)")
