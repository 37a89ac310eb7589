"""Goodput where an asynchronous checkpoint's blocking time is not known (REL008), from the input that showed it.

A 16,384-GPU Llama 3 job on DGX H100 nodes whose `host_memory` was left out, with asynchronous checkpoints to
100 GB/s storage, had a goodput requirement of 0.85 judged "not met" (PERF001, an error) on 0.845: the goodput that
charges the whole 56.8 s write as blocking, a lower bound, while with no blocking the same job makes 0.93. Here the
same shape on the REL008 case's MI355X node: goodput is given at the whole write, its range reaches the other end,
and a requirement met at one end only is not provided (REQ002), at the severity a miss would have.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from archgen.analyse.job_energy import AT_AVERAGE, AT_MAXIMUM
from archgen.perf.train.goodput import ettr
from tests.conftest import case_files, run_specs, sweep_problems_of


def _run(tmp_path: Path, requirements: str, asynchronous: bool = True):
    files = case_files("REL008", "fail_in_memory_without_host_link")
    # checkpoint storage slow enough that the write matters: 18.6 GB at 1 MB/s, about 5 hours
    files["c.yaml"] = files["c.yaml"].replace(
        "facility: hall-liquid\n", "facility: hall-liquid\nstorage: {capacity: 1 PB, write_bandwidth: 1 MB/s, "
        "read_bandwidth: 100 GB/s, basis: assumed, source: test storage, "
        "external_network: the storage network is outside the test}\n")
    files["w.yaml"] = files["w.yaml"].replace(
        "checkpoint: {in_memory: true}", f"checkpoint: {{asynchronous: {str(asynchronous).lower()}}}") + requirements
    files["r.yaml"] = ("kind: Requirements\nid: r\nrequirements:\n  - {id: REQ-CL, statement: Cluster goodput, "
                       "subject: cluster/c, metric: goodput, target: '>= 0.99', level: should}\n")
    return run_specs(tmp_path, files)


REQS = ("requirements:\n"
        "  - {id: REQ-LOW, statement: met at both ends, metric: goodput, target: '>= 0.85'}\n"
        "  - {id: REQ-MID, statement: met at one end, metric: goodput, target: '>= 0.99'}\n"
        "  - {id: REQ-HIGH, statement: met at neither, metric: goodput, target: '>= 0.9999'}\n"
        "  - {id: REQ-TOK, statement: goodput tokens, metric: goodput_tokens_per_second, target: '>= 1 1/s'}\n")


def test_goodput_on_an_unknown_blocking_time_is_a_range_and_judged_only_where_both_ends_agree(tmp_path):
    r = _run(tmp_path, REQS)
    m = r.workloads["workload/w"].estimate.metrics
    other = r.operations.unsettled["workload/w"]
    low, high = m["goodput"].m, other["goodput"][0].m
    assert 0.85 < low < 0.99 < high < 0.9999
    # the other end is the same job with no stop: each checkpoint costs nothing, a failure loses the write in flight,
    # and one write at a time (the interval is the write); the planned-maintenance factor is the same at both ends
    write, restart = m["checkpoint_write_time"].m_as("s"), m["restart_time"].m_as("s")
    mtti, interval = m["mtti"].m_as("s"), m["checkpoint_interval"].m_as("s")
    planned = low / ettr(interval, write, restart, mtti)
    assert high == pytest.approx(planned * ettr(write, 0.0, restart + write, mtti), rel=1e-9)
    assert m["goodput_high"].m >= high   # the range spans the blocking time as well as the rate sets
    status = {j.bound.req.id: (j.outcome.status.value, j.check) for j in r.requirements}
    # met at both ends, on the test's assumed storage and the shipped set's assumed rates: REQ005 says so
    assert status == {"REQ-LOW": ("met", "REQ005"), "REQ-MID": ("not provided", "REQ002"),
                      "REQ-HIGH": ("not met", "PERF001"), "REQ-TOK": ("met", "REQ005"),
                      "REQ-CL": ("not provided", "REQ002")}
    req002 = {f.requirement: f for f in r.findings if f.id == "REQ002"}
    assert req002["REQ-MID"].severity == "error" and req002["REQ-CL"].severity == "warning"  # SHALL, SHOULD
    assert "met at one end only" in req002["REQ-MID"].message and "REL008" in req002["REQ-MID"].message
    assert req002["REQ-CL"].message.endswith("(REL008)")   # no list of known metrics: it has this one
    assert [f.requirement for f in r.findings if f.id == "PERF001"] == ["REQ-HIGH"]


def test_a_synchronous_checkpoint_has_nothing_unsettled(tmp_path):
    """A synchronous checkpoint blocks for its whole write anyway: the same targets are judged as before."""
    r = _run(tmp_path, REQS, asynchronous=False)
    # only the energies at maximum draw, upper bounds whatever the checkpoint (`analyse.job_energy.upper_bounds`),
    # and the racks' weights and floor loads, lower bounds where a part is not weighed (`analyse.rack.weight_bounds`)
    assert {k for m in r.operations.unsettled.values() for k in m} <= {*AT_MAXIMUM, *AT_AVERAGE, "weight",
                                                                         "floor_load"}
    status = {j.bound.req.id: j.outcome.status.value for j in r.requirements}
    assert status["REQ-MID"] == "not met" and status["REQ-CL"] == "not met"


def test_the_document_gives_the_range_with_its_two_ends(tmp_path):
    """The cluster document's "Range:" note said "over the rate sets" for a range that also spans the blocking time."""
    from archgen.render.blocks import Para
    from archgen.render.operations import reliability_section

    r = _run(tmp_path, REQS)
    g = r.operations.goodput["workload/w"]
    section = reliability_section(r, r.clusters["cluster/c"])
    (note,) = [b.text for b in section.blocks if isinstance(b, Para) and b.text.startswith("Range:")]
    assert (f"over the rate sets and the blocking time, from the whole write ({g.goodput:.3f}) to none "
            f"({g.unblocked.goodput:.3f})") in note


def test_a_sweep_point_spans_the_same_range_as_check(tmp_path):
    """Sweeps carry `check`'s goodput range (docs/sweeps.md): with the blocking time unknown, its no-stop end too."""
    from archgen.analyse.sweep_figures import sweep_figures
    from archgen.perf.train.point_goodput import goodput_of

    r = _run(tmp_path, REQS)
    m = r.workloads["workload/w"].estimate.metrics
    f, ends, _, _, _ = sweep_figures(r.specs, r.clusters["cluster/c"])
    w = r.workloads["workload/w"].workload
    point = goodput_of(f, w, r.specs.get(w.model), 8, ends)[:3]
    assert point == pytest.approx((m["goodput"].m, m["goodput_low"].m, m["goodput_high"].m), rel=1e-12)


SWEEP = """kind: Sweep
id: s
workload: w
axes:
  accelerators: [8, 16]
objectives:
  - {metric: goodput_tokens_per_second}
requirements:
  - {id: REQ-S-LOW, statement: met at both ends, metric: goodput, target: '>= 0.85'}
  - {id: REQ-S-MID, statement: met at one end, metric: goodput, target: '>= 0.99'}
  - {id: REQ-S-HIGH, statement: met at neither, metric: goodput, target: '>= 0.9999', level: should}
"""


def _sweep(tmp_path: Path, text: str = SWEEP, workload: str = ""):
    """The REL008 job swept over 8 and 16 accelerators: its problem, and `archgen sweep --format json`'s result."""
    from tests.conftest import run_cli

    _run(tmp_path, workload)
    (tmp_path / "sweep.yaml").write_text(text, encoding="utf-8")
    with contextlib.chdir(tmp_path):
        problem = sweep_problems_of(Path("sweep.yaml"), [Path("specs")])[0]
        result = run_cli("sweep", "sweep.yaml", "--path", "specs", "--out", "out", "--format", "json")
        csv = (tmp_path / "out" / "s" / "points.csv").read_text(encoding="utf-8")
    return problem, result, csv


def test_a_sweep_judges_only_where_both_ends_agree(tmp_path):
    """A sweep judged `goodput >= 0.99` "not met" on the whole write where check says not provided; both of its
    paths (one point at a time, and the batched one `archgen sweep` takes) now leave it unjudged, as check does.

    Not judged is not met-and-feasible: `check` makes that SHALL not provided an error (REQ002), and a sweep counted
    the points feasible, put them on its front and exited 0. Its points are now not feasible, by `check`'s rule
    (`model.requirements.fails`), with the reason in the CSV, the JSON and the summary, and the sweep exits 1.
    """
    from archgen.perf.explore.points import evaluate_point
    from archgen.perf.explore.vectorised import evaluate as batched

    problem, result, csv = _sweep(tmp_path)
    want = {"REQ-S-LOW": True, "REQ-S-MID": None, "REQ-S-HIGH": False}
    why = ("REQ-S-MID (SHALL) not provided: goodput meets the target at one end only of the unknown checkpoint "
           "blocking time")
    for row in (*(evaluate_point(problem, i) for i in (0, 1)), *batched(problem, 0, 2)):
        assert {k: row.met[k] for k in want} == want and not row.feasible and not row.at_risk
        assert row.status == "ok" and row.reason.startswith(why) and "REL008" in row.reason
    assert result.code == 1, result.err
    (doc,) = json.loads(result.out)["sweeps"]
    assert doc["summary"]["feasible"] == 0 and doc["front"] == [] and doc["best"] == {"goodput_tokens_per_second": None}
    assert [(r["status"], r["points"]) for r in doc["reasons"]] == [("ok", 2)] and doc["reasons"][0]["reason"] \
        .startswith(why)
    assert csv.count(why) == 2


def test_a_sweep_leaves_a_should_not_provided_feasible(tmp_path):
    """The same requirement at SHOULD is a warning in `check`: reported, not enforced, the points feasible."""
    problem, result, _ = _sweep(tmp_path, SWEEP.replace("target: '>= 0.99'}", "target: '>= 0.99', level: should}"))
    assert result.code == 0, result.err
    (doc,) = json.loads(result.out)["sweeps"]
    assert doc["summary"]["feasible"] == 2 and doc["reasons"] == []
    assert all(p["requirements"]["REQ-S-MID"] is None and p["reason"] == "" for p in doc["front"])


def test_a_workloads_goodput_requirement_is_judged_on_the_points_goodput(tmp_path):
    """The workload's own requirement on goodput was judged on the estimate, which has no goodput: not provided at
    every point ("the training job has no goodput") while `check` judges it. It is judged on the point's goodput
    as the sweep's own are, the unknown blocking time included; both paths alike."""
    from archgen.perf.explore.points import evaluate_point
    from archgen.perf.explore.vectorised import evaluate as batched

    text = SWEEP[:SWEEP.index("requirements:")]
    problem, result, _ = _sweep(tmp_path, text, REQS)
    want = {"REQ-LOW": True, "REQ-MID": None, "REQ-HIGH": False, "REQ-TOK": True}
    for row in (*(evaluate_point(problem, i) for i in (0, 1)), *batched(problem, 0, 2)):
        assert row.met == want and not row.feasible
        assert row.reason.startswith("REQ-MID (SHALL) not provided: goodput meets the target at one end only")
    assert result.code == 1


def test_a_sweep_point_names_the_repair_wait_its_other_end_frees_it_of_too(tmp_path):
    """tail42 (restore42's finding): a point's other end frees it of the assumed blocking time and, where the job
    leaves no idle node to stand in (all 32 of the cluster's accelerators), of the wait for a repair too
    (`point_goodput.freed_of`, as `check`'s `unblocked` end). The reason named the blocking time alone; it now names
    each input that moved the point, once, on both paths; at 16 accelerators, with spares, the blocking time alone."""
    from archgen.perf.explore.points import evaluate_point
    from archgen.perf.explore.vectorised import evaluate as batched
    from archgen.perf.train.point_goodput import BLOCKING_WORDS, REPAIR_WORDS

    problem, _, _ = _sweep(tmp_path, SWEEP.replace("[8, 16]", "[16, 32]"))
    why = "REQ-S-MID (SHALL) not provided: goodput meets the target at one end only of "
    for one, many, words in zip((evaluate_point(problem, i) for i in (0, 1)), batched(problem, 0, 2),
                                (BLOCKING_WORDS, f"{BLOCKING_WORDS} and {REPAIR_WORDS}"), strict=True):
        assert one.reason == many.reason and one.reason.startswith(why + words)
        assert one.reason.count("repair wait") == (words != BLOCKING_WORDS)
