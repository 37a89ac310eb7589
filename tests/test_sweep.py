"""Design-space sweeps: points, the Pareto front, hardware axes, power, parallel back ends and `archgen sweep`."""

from __future__ import annotations

import json
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

import pytest

from archgen.commands import sweep as sw
from archgen.commands import workers
from archgen.errors import UsageError
from archgen.model.sweep import Sweep
from archgen.perf.explore.front import pareto
from archgen.perf.explore.point_axes import point_hardware as _hardware
from archgen.perf.explore.points import evaluate, evaluate_point, summarise
from archgen.perf.explore.problem import PointRow, SweepProblem
from archgen.perf.hw.hardware import Hardware
from archgen.render.blocks import Para
from archgen.render.sweep import overview
from archgen.units import Q_
from tests.conftest import SPECS, sweep_problems_of

TRAIN = """kind: Sweep
id: t
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [256, 512]
  scale_out_bandwidth: [1, 0.5]
objectives:
  - {metric: tokens_per_second}
  - {metric: energy_per_token}
"""


def sweep_file(tmp_path: Path, text: str = TRAIN) -> Path:
    path = tmp_path / "sweep.yaml"
    path.write_text(text, encoding="utf-8")
    return path



def problem_of(tmp_path: Path, text: str = TRAIN) -> SweepProblem:
    return sweep_problems_of(sweep_file(tmp_path, text), [SPECS])[0]


def test_points_are_the_product_of_the_axes_in_written_order_last_fastest(tmp_path):
    p = problem_of(tmp_path, TRAIN.replace("  accelerators: [256, 512]\n  scale_out_bandwidth: [1, 0.5]\n",
                                           "  scale_out_bandwidth: [1, 0.5]\n  accelerators: [128, 256, 512]\n"))
    assert list(p.axes) == ["cluster", "scale_out_bandwidth", "accelerators"]  # the workload's cluster first
    assert p.size == 6
    assert p.point(0) == {"cluster": "dgx-b200-superpod", "scale_out_bandwidth": 1.0, "accelerators": 128}
    assert p.point(1)["accelerators"] == 256
    assert p.point(3) == {"cluster": "dgx-b200-superpod", "scale_out_bandwidth": 0.5, "accelerators": 128}


def _row(i: int, tokens: float, energy: float, feasible: bool = True) -> PointRow:
    return PointRow(i, {}, "c", "ok", metrics={"tokens_per_second": tokens, "energy_per_token": energy},
               feasible=feasible)


def test_pareto_front_keeps_the_non_dominated_feasible_points_and_ties():
    rows = [_row(0, 10, 1.0), _row(1, 20, 2.0), _row(2, 15, 2.5), _row(3, 20, 2.0), _row(4, 30, 0.5, False),
            _row(5, 5, 1.0), _row(6, 25, 3.0)]
    # 2 is beaten by 1 on both; 5 is beaten by 0 on tokens at equal energy; 4 would dominate all but is infeasible
    assert pareto(rows, [("tokens_per_second", True), ("energy_per_token", False)]) == [0, 1, 3, 6]
    assert pareto(rows, [("tokens_per_second", True)]) == [6]
    assert pareto(rows, [("energy_per_token", False)]) == [0, 5]


def test_a_point_is_the_workload_estimate_and_its_share_of_cluster_power(tmp_path, shipped):
    p = problem_of(tmp_path)
    row = evaluate(p, 2, 3)[0]  # accelerators 512, scale-out x1: exactly the shipped workload
    assert row.values == {"cluster": "dgx-b200-superpod", "accelerators": 512, "scale_out_bandwidth": 1.0}
    est = shipped.workloads["workload/llama3-70b-pretrain-b200"].estimate
    assert row.metrics["step_time"] == pytest.approx(est.metrics["step_time"].m_as("s"), rel=1e-12)
    assert row.layout == est.layout
    cluster = shipped.metrics["cluster/dgx-b200-superpod"]
    power = cluster["it_power"].m_as("W") * 512 / cluster["accelerators"].m
    assert row.metrics["power"] == pytest.approx(power, rel=1e-12)
    assert row.metrics["energy_per_token"] == pytest.approx(power / row.metrics["tokens_per_second"], rel=1e-12)
    assert row.feasible == all(o.met is not False for o in est.requirements if o.requirement.level == "shall")


def test_a_slower_scale_out_never_speeds_a_point_up(tmp_path):
    p = problem_of(tmp_path)
    full, half = evaluate(p, 2, 4)  # 512 accelerators at x1 and x0.5
    assert half.metrics["step_time"] >= full.metrics["step_time"]
    assert "power" in full.metrics   # scaled hardware has no known power (test_sweep_scaled_power.py)
    assert "power" not in half.metrics and "energy_per_token" not in half.metrics


def test_hardware_axes_scale_or_replace_a_figure():
    hw = Hardware("x", peak={"bf16": 1e15, "fp8": 2e15}, gemm_efficiency={}, hbm_capacity=80e9,
                  hbm_bandwidth=3.35e12, scale_up_size=8, scale_up_bandwidth=450e9)
    assert _hardware(hw, {"hbm_bandwidth": 2.0}, "bf16").hbm_bandwidth == 6.7e12
    assert _hardware(hw, {"hbm_bandwidth": Q_(8, "TB/s")}, "bf16").hbm_bandwidth == 8e12
    assert _hardware(hw, {"scale_out_bandwidth": Q_(800, "Gbit/s")}, "bf16").scale_out_bandwidth == 100e9
    assert _hardware(hw, {"peak": Q_(5, "PFLOPS")}, "fp8").peak == {"bf16": 1e15, "fp8": 5e15}
    assert _hardware(hw, {"scale_up_size": 72}, "bf16").scale_up_size == 72
    slow = _hardware(hw, {"latency": 2.0}, "bf16")
    assert (slow.scale_up_latency, slow.scale_out_latency) == (2 * hw.scale_up_latency, 2 * hw.scale_out_latency)


def test_a_value_and_the_equivalent_factor_give_the_same_point(tmp_path):
    p = problem_of(tmp_path, TRAIN.replace("  accelerators: [256, 512]\n  scale_out_bandwidth: [1, 0.5]\n",
                                           "  hbm_bandwidth: [1.5, \"12 TB/s\"]\n"))
    hbm = p.bases[("dgx-b200-superpod", None)].hardware.hbm_bandwidth
    assert hbm == 8e12  # B200: 8 TB/s, so x1.5 is 12 TB/s
    by_factor, by_value = evaluate(p, 0, 2)
    assert by_factor.metrics == by_value.metrics


def test_points_that_cannot_run_are_reported_with_the_reason(tmp_path):
    p = problem_of(tmp_path, TRAIN.replace("  accelerators: [256, 512]\n  scale_out_bandwidth: [1, 0.5]\n",
                                           "  tp: [3, 8]\n  accelerators: [512, 2048]\n"))
    rows = evaluate(p, 0, p.size)
    assert [r.status for r in rows] == ["invalid", "invalid", "ok", "invalid"]
    assert "tp (3)" in rows[0].reason and "64 attention heads" in rows[0].reason
    assert rows[3].reason == "asks for 2048 accelerators; cluster 'dgx-b200-superpod' has 1016"
    assert not any(r.feasible for r in rows if r.status == "invalid")


@pytest.mark.slow
def test_a_process_pool_gives_the_serial_rows(tmp_path):
    p = problem_of(tmp_path)
    serial = workers.evaluate_all(p, None).rows
    with ProcessPoolExecutor(max_workers=2) as pool:
        assert workers.evaluate_all(p, pool, 2).rows == serial
    # Dask's scheduler gives the serial rows of this problem too: tests/test_sweep_dask_idle.py, on its cluster


def test_cli_writes_the_report_and_is_deterministic(tmp_path, cli):
    path = sweep_file(tmp_path)
    outs = []
    for name in ("a", "b"):
        r = cli("sweep", path, "--path", SPECS, "--out", tmp_path / name, "--formats", "md,csv,svg")
        assert r.code == 0, r.err
        outs.append({p.name: p.read_bytes() for p in sorted((tmp_path / name / "t").iterdir())})
    assert outs[0] == outs[1]
    assert sorted(outs[0]) == ["front.csv", "pareto.svg", "points.csv", "t.md"]
    md = outs[0]["t.md"].decode()
    assert "## 2 Pareto front" in md and "![" in md
    assert "sweep t: 4 points" in r.out
    assert outs[0]["points.csv"].decode().count("\n") == 5  # header and 4 points


def test_cli_json_carries_the_front_in_si_units(tmp_path, cli):
    r = cli("sweep", sweep_file(tmp_path), "--path", SPECS, "--out", tmp_path / "o", "-f", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    s = doc["sweeps"][0]
    assert s["summary"]["points"] == 4 and s["summary"]["front"] == len(s["front"]) >= 1
    first = s["front"][0]
    assert first["metrics"]["step_time"]["unit"] == "s"
    assert first["metrics"]["power"]["unit"] == "W"
    assert s["objectives"] == [{"metric": "tokens_per_second", "goal": "max"},
                               {"metric": "energy_per_token", "goal": "min"}]


def test_cli_exit_1_when_no_point_is_feasible(tmp_path, cli):
    text = TRAIN + "requirements:\n  - {id: REQ-X-001, statement: Fast, metric: step_time, target: \"<= 1 ms\"}\n"
    r = cli("sweep", sweep_file(tmp_path, text), "--path", SPECS, "--out", tmp_path / "o")
    assert r.code == 1
    assert "0 feasible" in r.out and "best tokens_per_second: no feasible point" in r.out
    assert "No point fits and meets every SHALL requirement" in (tmp_path / "o" / "t" / "t.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(("args", "text", "message"), [
    (("missing.yaml",), None, "missing.yaml: no such file"),
    ((), "kind: Model\nid: m\nlayers: 1\nhidden: 8\nheads: 1\nffn: 8\nvocab: 8\n", "no Sweep document in the file"),
    (("--workers", "0"), TRAIN, "--workers must be at least 1, got 0"),
    (("--workers", "2", "--scheduler", "tcp://127.0.0.1:9"), TRAIN, "give either --workers or --scheduler"),
])
def test_cli_usage_errors(tmp_path, cli, args, text, message):
    path = sweep_file(tmp_path, text) if text is not None else None
    first = (str(path),) if path else ()
    r = cli("sweep", *first, *args, "--path", SPECS, "--out", tmp_path / "o")
    assert r.code == 2
    assert message in r.err
    assert "Traceback" not in r.err


@pytest.mark.parametrize(("args", "text", "message"), [
    ((), TRAIN.replace("llama3-70b-pretrain-b200", "llama3-70b-serve-b200").replace("accelerators: [256, 512]",
                                                                                    "pp: [1, 2]"),
     "sweep.yaml:5:3: error: sweep 't': axis 'pp' changes a training job; workload 'llama3-70b-serve-b200' is an "
     "inference job"),
    ((), TRAIN.replace("{metric: energy_per_token}", "{metric: ttft}"),
     "sweep.yaml:9:14: error: sweep 't': objective 'ttft' is not a metric of a training job (workload "
     "'llama3-70b-pretrain-b200'), so no point would have it; a training job has step_time, "),
    ((), "kind: Sweep\nid: c\nworkload: nccl-allreduce-gb200-su\naxes: {accelerators: [2, 4]}\n"
         "objectives: [{metric: busbw}, {metric: energy_per_token}]\n",
     "sweep.yaml:5:40: error: sweep 'c': objective 'energy_per_token' is not a metric of a collective job"),
    ((), TRAIN + "requirements:\n  - {id: REQ-PERF-002, statement: Step, metric: step_time, target: \"<= 4 s\"}\n",
     "sweep.yaml:11:10: error: sweep 't': requirement id 'REQ-PERF-002' is also a requirement of workload "
     "'llama3-70b-pretrain-b200' (at "),
    ((), TRAIN.replace("accelerators: [256, 512]", "batch: [1, 8]"),
     "sweep.yaml:5:3: error: sweep 't': axis 'batch' changes an inference job; workload 'llama3-70b-pretrain-b200' is a "
     "training job"),
])
def test_cli_spec_mistakes_are_located_errors(tmp_path, cli, args, text, message):
    """A sweep that does not fit its workload is an error in the specs (exit 1), as SWP001 reports it in check."""
    r = cli("sweep", sweep_file(tmp_path, text), *args, "--path", SPECS, "--out", tmp_path / "o")
    assert r.code == 1
    assert message in r.err
    assert "Traceback" not in r.err


@pytest.mark.parametrize(("objective", "message"), [
    ("goodput_tokens_per_second", "sweep.yaml:7:14: error: sweep 'm': objective 'goodput_tokens_per_second' needs "
     "the training job's goodput, and cluster 'mi355x-th5' gives no checkpoint `storage:` (REL006; "
     "docs/reliability.md)"),
    ("cost_per_token", "sweep.yaml:7:14: error: sweep 'm': objective 'cost_per_token' needs prices, and cluster "
     "'mi355x-th5' has no cost in USD"),
])
def test_an_objective_its_cluster_cannot_give_is_refused_at_its_line(tmp_path, cli, objective, message):
    """Issue 22: the shipped MI355X cluster has no checkpoint storage (REL006 in check) and unpriced parts (COST002).
    A goodput objective gave every point 'nan' and 'best goodput_tokens_per_second: no feasible point' with both
    points feasible; it is refused as the cost objective is."""
    text = (f"kind: Sweep\nid: m\nworkload: llama3-70b-pretrain-mi355x\naxes:\n  accelerators: [256, 512]\n"
            f"objectives:\n  - {{metric: {objective}}}\n")
    r = cli("sweep", sweep_file(tmp_path, text), "--path", SPECS, "--out", tmp_path / "o")
    assert r.code == 2 and message in r.err and "Traceback" not in r.err, r.err


def test_sweep_and_check_report_the_same_mistakes_all_at_once(tmp_path, cli):
    """Two mistakes in one sweep file: `archgen sweep` refuses it with both, `archgen check` finds both (SWP001)."""
    text = TRAIN.replace("{metric: energy_per_token}", "{metric: ttft}").replace("accelerators: [256, 512]",
                                                                                  "batch: [1, 8]")
    path = sweep_file(tmp_path, text)
    r = cli("sweep", path, "--path", SPECS, "--out", tmp_path / "o")
    assert r.code == 1 and r.err.count(": error: ") == 2, r.err
    c = cli("check", SPECS, path, "--format", "json", "--select", "SWP")
    found = [f for f in json.loads(c.out)["findings"] if f["id"] == "SWP001"]
    assert sorted((f["line"], f["message"]) for f in found) == sorted(
        (int(line.split(":")[1]), line.split(": error: ", 1)[1]) for line in r.err.splitlines())


def test_an_unreachable_scheduler_is_a_usage_error(tmp_path, cli, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(workers, "SCHEDULER_TIMEOUT", "1s")
    r = cli("sweep", sweep_file(tmp_path), "--path", SPECS, "--out", tmp_path / "o", "--scheduler",
            "tcp://127.0.0.1:9")
    assert r.code == 2
    assert "cannot reach the Dask scheduler" in r.err


def test_the_shipped_sweeps_validate_and_name_what_exists(shipped):
    sweeps = shipped.specs.of(Sweep)
    assert {s.id for s in sweeps} >= {"llama3-70b-train-platforms", "llama3-70b-serve-batch"}
    assert not [f for f in shipped.findings if f.object.startswith("sweep/")]


def test_cli_writes_a_sweep_with_quantity_axes(tmp_path, cli):
    # a hardware axis given as a quantity used to crash the provenance hash (pint.Quantity not serialisable)
    text = TRAIN.replace("  accelerators: [256, 512]\n  scale_out_bandwidth: [1, 0.5]\n",
                         "  hbm_bandwidth: [\"12 TB/s\", 1.5]\n  hbm_capacity: [\"192 GB\"]\n")
    r = cli("sweep", sweep_file(tmp_path, text), "--path", SPECS, "--out", tmp_path / "o", "-f", "json")
    assert r.code == 0, r.err
    # scaled hardware has no energy, so no front on it (test_sweep_scaled_power.py); the best on tokens/s is the first
    # of the two equal points (8 TB/s x 1.5 = 12 TB/s)
    best = json.loads(r.out)["sweeps"][0]["best"]["tokens_per_second"]
    assert best["axes"]["hbm_bandwidth"] == {"value": 12e12, "unit": "B/s"}
    assert "12 TB/s" in (tmp_path / "o" / "t" / "points.csv").read_text(encoding="utf-8")
    sweep = Sweep.model_validate({"id": "s", "workload": "w", "axes": {"hbm_capacity": ["192 GB", 2]},
                                  "objectives": [{"metric": "mfu"}]})
    assert sweep.model_dump(mode="json")["axes"]["hbm_capacity"] == ["192 GB", 2.0]


def test_a_collective_on_one_accelerator_is_a_point_that_cannot_run(tmp_path):
    # the Workload spec refuses it; a sweep's accelerators axis used to reach a division by zero instead
    p = problem_of(tmp_path, "kind: Sweep\nid: c\nworkload: nccl-allreduce-gb200-su\naxes: {accelerators: [1, 2]}\n"
                             "objectives: [{metric: busbw}]\n")
    one, two = evaluate(p, 0, 2)
    assert (one.status, one.reason) == ("invalid", "a collective needs at least 2 accelerators, got 1")
    assert two.status == "ok" and two.metrics["busbw"] > 0


def test_job_metrics_are_those_the_points_have(tmp_path, shipped):
    from archgen import metrics
    from archgen.metrics_bands import BANDED
    from archgen.model.sweep import JOB_METRICS, SWEEP_METRICS
    performance = {m.name for m in metrics.declared("workload") if m.source.startswith("perf/workload/") and m.sweep}
    under_load = {m.name for m in metrics.declared("workload") if m.source == "perf/serve/scheduler.py"}
    assert under_load == {"ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99"}  # tests/perf/test_mlperf.py produces them
    # a run under load's replica full (tests/perf/test_replicas_to_keep_up.py produces them)
    under_load |= {m.name for m in metrics.declared("workload") if m.source == "perf/serve/run.py"}
    assert under_load >= {"replica_capacity", "replicas_to_keep_up"}
    for w in shipped.workloads.values():
        est = w.estimate
        produced = {m for m in est.metrics if m in performance} | {"power", "accelerators"} | (
            {"energy_per_token", "cost_per_token", "cost_per_million_tokens"} if est.kind != "collective" else set()) | (
            {"goodput", "goodput_low", "goodput_high", "goodput_tokens_per_second", "goodput_tokens_per_second_low",
             "goodput_tokens_per_second_high", "cost_per_token_low", "cost_per_token_high", "checkpoint_write_time",
             "checkpoint_restore_time", "mtti", "mtti_low", "mtti_high", "time_to_train", "goodput_time_to_train",
             "goodput_time_to_train_low", "goodput_time_to_train_high", "accelerator_hours", "job_it_energy",
             "goodput_accelerator_hours", "goodput_accelerator_hours_low", "goodput_accelerator_hours_high",
             # the memory's range over the allocator's waste: every part's but a TPU's (memband41)
             *(f"memory_{m}_{end}" for m in ("per_gpu", "headroom") for end in ("low", "high"))}
            if est.kind == "training"
            else set()) | (
            under_load if est.kind == "inference" else set()) | (  # no shipped workload is served under load
            {f"{m}_{end}" for m in BANDED if m in est.metrics or est.kind == "inference" and m in under_load
             for end in ("low", "high")})  # the band's ends (a run under load's percentiles': newuser97)
        assert produced == set(JOB_METRICS[est.kind]), est.kind
    assert set().union(*JOB_METRICS.values()) == set(SWEEP_METRICS)


def test_an_unknown_format_is_refused_before_any_point_runs(tmp_path, cli, monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("the points ran")
    monkeypatch.setattr(sw, "evaluate_sweeps", never)
    r = cli("sweep", sweep_file(tmp_path), "--path", SPECS, "--out", tmp_path / "o", "--formats", "md,docx")
    assert (r.code, r.err) == (2, "error: unknown format(s) docx; expected some of md,html,pdf,xlsx,csv,svg,png\n")


def test_a_rerun_without_a_front_leaves_no_stale_front(tmp_path, cli):
    out = tmp_path / "o"
    assert cli("sweep", sweep_file(tmp_path), "--path", SPECS, "--out", out).code == 0
    assert (out / "t" / "front.csv").exists() and (out / "t" / "pareto.svg").exists()
    text = TRAIN + "requirements:\n  - {id: REQ-X-001, statement: Fast, metric: step_time, target: \"<= 1 ms\"}\n"
    assert cli("sweep", sweep_file(tmp_path, text), "--path", SPECS, "--out", out).code == 1
    assert sorted(p.name for p in (out / "t").iterdir()) == ["points.csv", "t.md"]


def test_a_sweep_requirement_on_a_metric_the_job_lacks_is_refused(tmp_path, cli):
    text = TRAIN + "requirements:\n  - {id: REQ-X-001, statement: Latency, metric: ttft, target: \"<= 1 s\"}\n"
    r = cli("sweep", sweep_file(tmp_path, text), "--path", SPECS, "--out", tmp_path / "o")
    assert r.code == 1
    assert ("sweep.yaml:11:49: error: sweep 't': requirement REQ-X-001 targets 'ttft', which a training job does not "
            "have") in r.err


def test_a_missing_templates_directory_is_refused_before_the_points_run(tmp_path, cli):
    r = cli("sweep", sweep_file(tmp_path), "--path", SPECS, "--out", tmp_path / "o", "--templates", tmp_path / "no")
    assert r.code == 2
    assert "templates directory" in r.err and "does not exist" in r.err
    assert not (tmp_path / "o").exists()



def test_an_accelerator_axis_swaps_the_chip_and_keeps_the_fabric(tmp_path, shipped):
    p = problem_of(tmp_path, TRAIN.replace("  accelerators: [256, 512]\n  scale_out_bandwidth: [1, 0.5]\n",
                                           "  accelerator: [h200-sxm-141gb]\n  accelerators: [512]\n"))
    own, h200 = p.bases[("dgx-b200-superpod", None)], p.bases[("dgx-b200-superpod", "h200-sxm-141gb")]
    assert h200.hardware.accelerator == "h200-sxm-141gb"
    assert h200.hardware.peak["bf16"] == pytest.approx(989.4e12, rel=1e-3)  # H200 dense BF16 (as H100)
    assert h200.hardware.hbm_bandwidth == pytest.approx(4.8e12)
    for fabric in ("scale_up_size", "scale_up_bandwidth", "scale_out_bandwidth", "oversubscription", "pod"):
        assert getattr(h200.hardware, fabric) == getattr(own.hardware, fabric)
    # 1016 accelerators at 700 W (H200) instead of 1000 W (B200): 304.8 kW less at maximum draw
    assert h200.it_power == pytest.approx(own.it_power - 1016 * 300.0)
    (row,) = evaluate(p, 0, 1)
    assert row.values["accelerator"] == "h200-sxm-141gb"
    assert row.metrics["power"] == pytest.approx(h200.it_power * 512 / 1016)


def test_an_accelerator_axis_says_its_chip_runs_the_clusters_links(tmp_path):
    """newuser95: an H200 on the DGX B200 SuperPOD runs NVLink 5 at 900 GB/s, not its own NVLink 4 at 450 GB/s (an
    H200-against-B200 sweep read 510 tokens/s per H200 there, 441 on its own links); the summary and the document say
    so. The cluster's own chip, and a chip whose links match the cluster's, get no note."""
    from archgen.perf.explore.sweep_notes import scope_notes
    p = problem_of(tmp_path, TRAIN.replace("  accelerators: [256, 512]\n  scale_out_bandwidth: [1, 0.5]\n",
                                           "  accelerator: [h200-sxm-141gb, b200-sxm-180gb]\n  accelerators: [512]\n"))
    (note,) = p.notes
    assert note.startswith("The points of h200-sxm-141gb on dgx-b200-superpod run the cluster's scale-up links, "
                           "900 GB/s per accelerator per direction, not h200-sxm-141gb's own NVLink 4 at 450 GB/s: ")
    assert note in scope_notes(p, {})
    assert not problem_of(tmp_path, TRAIN).notes


def test_the_note_of_a_kept_fabric_names_no_spec_key(tmp_path):
    """words38: the note, which the sweep's summary and document print, said "the scale_up_bandwidth axis"; beside a
    scale-up bandwidth axis it says the points are at its x1. Only its pointer to the docs is left for a reader."""
    from archgen.render.edition_text import leftovers
    p = problem_of(tmp_path, TRAIN.replace("  accelerators: [256, 512]\n  scale_out_bandwidth: [1, 0.5]\n",
                                           "  accelerator: [h200-sxm-141gb]\n  accelerators: [512]\n"
                                           "  scale_up_bandwidth: [1, 0.5]\n"))
    (note,) = p.notes
    assert "on dgx-b200-superpod at the cluster's own scale-up bandwidth (the scale-up bandwidth axis at x1) " in note
    assert "; a scale-up bandwidth axis, or a cluster of its own systems, gives its own links" in note
    assert leftovers(note) == ["docs/sweeps.md"]


def test_an_unknown_accelerator_on_the_axis_is_a_reference_error(tmp_path, cli):
    text = TRAIN.replace("  accelerators: [256, 512]\n", "  accelerator: [h300]\n")
    r = cli("check", sweep_file(tmp_path, text), SPECS)
    assert r.code == 1
    assert "REF001 sweep/t: 'h300' names no document (expected an Accelerator)" in r.out


def test_a_worker_without_archgen_is_a_usage_error(tmp_path):
    class Missing:  # what a Dask executor hands back when its workers cannot unpickle archgen's function
        def submit(self, *args):
            failed: Future = Future()
            failed.set_exception(ModuleNotFoundError("No module named 'archgen'"))
            return failed

    with pytest.raises(UsageError, match="install archgen .* on every Dask worker"):
        workers.evaluate_all(problem_of(tmp_path), Missing(), 4)


@pytest.fixture(scope="module")
def platforms():
    """The shipped sweep 'DGX B200 against GB200 NVL72': clusters x job sizes x precisions x scale-out factors."""
    [result] = [r for r in sw.evaluate_sweeps(SPECS / "sweeps" / "llama3-70b.yaml", [SPECS])[1]
                if r.problem.sweep.id == "llama3-70b-train-platforms"]
    return result


def test_pareto_plot_tells_the_categories_apart(platforms):
    """Issue 11, item 12: the plot answered "DGX B200 against GB200" only in grey and blue. Points are coloured by the
    combination of the categorical axes that vary (cluster x precision here: 4 groups), with a legend naming each."""
    from archgen.render.sweep_figure import PALETTE, category, pareto_figure

    fig = pareto_figure(platforms)
    legend = fig.axes[0].get_legend()
    labels = [t.get_text() for t in legend.get_texts()]
    groups = sorted({category(platforms, r) for r in platforms.rows if r.status == "ok"})
    assert len(groups) == 4 and all(g in labels for g in groups)
    assert {"dgx-b200-superpod, bf16", "gb200-nvl72-su, fp8"} <= set(groups)
    assert legend.get_title().get_text() == "cluster, precision"
    colours = {h.get_color() for h, t in zip(legend.legend_handles, labels, strict=True) if t in groups}
    assert colours == set(PALETTE[:4])
    assert {"hollow: misses a SHALL target", "Pareto front"} <= set(labels)
    # the scaled points (x0.5, x2 scale-out) have no cost per token, so no triangle is drawn and none is listed
    # (newuser107: the legend named one anyway; `sweep_figure.marks`)
    assert "triangle: hypothetical hardware" not in labels


def test_best_points_on_hypothetical_hardware_are_flagged(platforms):
    """Issue 11, item 12: a best point that needs x2 scale-out bandwidth is a what-if, not a platform to buy; the text
    and the table say so, and a point at factor 1 reads "as catalogued"."""
    from archgen.render.sweep import best_section

    section = best_section(platforms)
    [table] = [b for b in section.blocks if getattr(b, "kind", "") == "table"]
    notes = [b.text for b in section.blocks if getattr(b, "kind", "") == "para"]
    for (metric, _), row in zip(platforms.objectives, table.rows, strict=True):
        best = platforms.rows[platforms.best[metric]]
        factor = best.values["scale_out_bandwidth"]
        if factor == 1.0:
            assert row[-1] == "as catalogued"
        else:
            assert row[-1] == f"hypothetical: scale_out_bandwidth ×{factor:g}"
            assert notes and f"(point {best.index}): scale_out_bandwidth ×{factor:g}" in notes[0]
    assert any(platforms.rows[i].values["scale_out_bandwidth"] != 1.0 for i in platforms.best.values()), \
        "the shipped sweep's best throughput rests on x2 scale-out: the flag must show"


#: A serving sweep whose second point (1 % of a B200's HBM) holds no sequence, with requirements on a memory metric,
#: on power and on throughput.
MISFIT = """kind: Sweep
id: s
workload: llama3-70b-serve-b200
axes:
  hbm_capacity: [1, 0.01]
objectives:
  - {metric: tokens_per_second}
requirements:
  - {id: REQ-SWP-001, statement: Headroom, metric: memory_headroom, target: ">= 0 GB"}
  - {id: REQ-SWP-002, statement: Power, metric: power, target: "<= 1 MW"}
  - {id: REQ-SWP-003, statement: Throughput, metric: tokens_per_second, target: ">= 1 1/s"}
"""


def test_a_point_that_does_not_fit_judges_memory_requirements_whoever_states_them(tmp_path):
    """One rule (`perf.workload.derived.judged`) for the workload's requirements and the sweep's own at a point that does not
    fit: on a memory metric judged (the point misses it by its headroom), every other one not provided, power
    included (a scaled HBM has no power, test_sweep_scaled_power.py). 70 GB of FP8 weights over 8 x 1.9 GB (1 % of a
    B200's HBM) hold no sequence."""
    p = problem_of(tmp_path, MISFIT)
    fits, misfit = (evaluate_point(p, i) for i in range(p.size))
    # the workload's TPOT (a SHOULD) is missed at 2,048 in flight: its tokens ~296 ms apart (offtpot37)
    assert fits.status == "ok" and fits.met == {"REQ-PERF-011": False, "REQ-SWP-001": True,
                                                "REQ-SWP-002": True, "REQ-SWP-003": True}
    assert misfit.status == "does not fit" and misfit.metrics["memory_headroom"] < 0 and "power" not in misfit.metrics
    assert misfit.met == {"REQ-PERF-011": None, "REQ-SWP-001": False, "REQ-SWP-002": None,
                          "REQ-SWP-003": None}
    assert not misfit.feasible


def test_the_requirements_table_accounts_for_every_point(tmp_path):
    """The document's requirements table counted only the points that fit: a requirement a misfit point misses
    vanished from it. Met + not met + not judged is every point; the misfit point's headroom is a miss."""
    p = problem_of(tmp_path, MISFIT)
    section = overview(summarise(p, [evaluate_point(p, i) for i in range(p.size)]))
    table = next(b for b in section.blocks if getattr(b, "id", None) == "requirements")
    counts = {row[0]: row[5:8] for row in table.rows}
    assert counts["REQ-SWP-001"] == (1, 1, 0) and counts["REQ-SWP-002"] == (1, 0, 1)
    assert counts["REQ-SWP-003"] == (1, 0, 1)


def test_a_points_goodput_carries_checks_range(tmp_path, shipped):
    """A sweep point's goodput comes with the range `check` gives the same job (issue 22 part 2: every reliability
    metric with its range over the published rate sets), by the same function (`analyse.goodput.failure_ends`).

    Before, a sweep took one rate set's goodput alone, so its Pareto front on goodput or cost per token looked surer
    than `check`'s figure for the same job; the point table now shows both ends beside it.
    """
    p = problem_of(tmp_path, TRAIN.replace("  accelerators: [256, 512]\n  scale_out_bandwidth: [1, 0.5]\n",
                                           "  accelerators: [512]\n")
                   .replace("{metric: energy_per_token}", "{metric: goodput}"))
    (point,) = evaluate(p, 0, 1)
    checked = next(w.estimate.metrics for k, w in shipped.workloads.items() if k.endswith("llama3-70b-pretrain-b200"))
    for name in ("goodput", "goodput_low", "goodput_high"):
        assert point.metrics[name] == pytest.approx(checked[name].m_as(""), rel=1e-12), name
    assert point.metrics["goodput_low"] < point.metrics["goodput"] < point.metrics["goodput_high"]
    from archgen.render.point_table import metric_names
    assert metric_names(p)[:4] == ["tokens_per_second", "goodput", "step_time", "mfu"]
    assert _unbanded(metric_names(p))[-2:] == ["goodput_low", "goodput_high"]  # a table showing goodput shows its
    assert metric_names(p)[-8:-2] == ["step_time_low", "step_time_high", "tokens_per_second_low",   # range, then
                                      "tokens_per_second_high", "mfu_low", "mfu_high"]   # the error band's ends,
    # then the memory's range over the allocator's waste (memband41)
    assert metric_names(p)[-2:] == ["memory_per_gpu_low", "memory_per_gpu_high"]
    assert "goodput_low" not in metric_names(problem_of(tmp_path))  # one without goodput does not


def _goodput_sweep(tmp_path, target: str = ""):
    """The Llama 3 70B B200 job at 512 accelerators with a goodput objective (and a sweep requirement on goodput)."""
    text = (TRAIN.replace("  accelerators: [256, 512]\n  scale_out_bandwidth: [1, 0.5]\n", "  accelerators: [512]\n")
            .replace("{metric: energy_per_token}", "{metric: goodput}"))
    if target:
        text += f"requirements:\n  - {{id: REQ-SWP-GP, statement: Goodput, metric: goodput, target: '{target}'}}\n"
    return problem_of(tmp_path, text)


def test_goodput_tokens_carry_goodputs_range(tmp_path):
    """Goodput tokens per second and cost per token, made from goodput, carry the ends its range makes (issue 22
    part 2): tokens at goodput_low and goodput_high; the dearest token at goodput_low."""
    (point,) = evaluate(_goodput_sweep(tmp_path), 0, 1)
    m = point.metrics
    for end in ("low", "high"):
        assert m[f"goodput_tokens_per_second_{end}"] == pytest.approx(m["tokens_per_second"] * m[f"goodput_{end}"])
    assert m["goodput_tokens_per_second_low"] < m["goodput_tokens_per_second"] < m["goodput_tokens_per_second_high"]
    from archgen.render.point_table import metric_names
    shown = metric_names(problem_of(tmp_path, TRAIN.replace("{metric: energy_per_token}",
                                                            "{metric: goodput_tokens_per_second}")))
    assert _unbanded(shown)[-2:] == ["goodput_tokens_per_second_low", "goodput_tokens_per_second_high"]
    assert "cost_per_token" in m  # the shipped B200 cluster is priced; per goodput token: the low end at the high goodput
    assert m["cost_per_token_low"] < m["cost_per_token"] < m["cost_per_token_high"]
    assert m["cost_per_token_low"] == pytest.approx(m["cost_per_token"] * m["goodput"] / m["goodput_high"])


def test_a_goodput_requirement_missed_at_the_low_end_is_at_risk(tmp_path):
    """A sweep requirement on goodput met at the central value but not at goodput_low is at risk, as `check`'s REQ004
    judges it: the point stays feasible (the objective is on the central value), its row says "at risk" (issue 22
    part 2). The per-point and the batched paths mark the same points."""
    from archgen.model.requirements import Status
    from archgen.perf.explore.vectorised import evaluate as batched
    from archgen.render.point_table import cells
    (point,) = evaluate(_goodput_sweep(tmp_path), 0, 1)
    low, central = point.metrics["goodput_low"], point.metrics["goodput"]
    for target, risky, met in ((f">= {(low + central) / 2}", True, True), (f">= {low / 2}", False, True),
                               (f">= {(central + 1) / 2}", False, False)):
        p = _goodput_sweep(tmp_path, target)
        for row in (evaluate_point(p, 0), *batched(p, 0, 1)):
            assert row.met["REQ-SWP-GP"] is met, target
            assert row.at_risk == (("REQ-SWP-GP",) if risky else ()), target
            assert row.feasible is met, target
            assert (Status.AT_RISK in cells(p, row)) is risky
        table = next(b for b in overview(summarise(p, [evaluate_point(p, 0)])).blocks
                     if getattr(b, "id", None) == "requirements")
        assert table.rows[-1][5:9] == ((1, 0, 0, 1) if risky else (1, 0, 0, 0) if met else (0, 1, 0, 0)), target


def test_the_sweep_document_says_which_rate_set_goodput_uses(tmp_path, shipped):
    """The sweep document names the rate set of the central goodput and the sets its range spans, as `check`'s
    reliability section does (the cluster states none: every published set)."""
    p = _goodput_sweep(tmp_path)
    text = " ".join(b.text for b in overview(summarise(p, evaluate(p, 0, 1))).blocks if isinstance(b, Para))
    rel = shipped.operations.reliability[f"cluster/{p.workload.cluster}"]
    assert f"goodput from the '{rel.rates_id}' rate set" in text
    assert all(r.rates_id in text for r in rel.spread) and rel.spread
    assert "is at risk: the point stays feasible" in text


def test_a_swapped_chip_is_not_priced_at_the_clusters_prices(tmp_path, cli):
    """A PoC planner's sweep of the GB200 NVL72 SU with `accelerator: [gb200, gb300]` and a cost objective gave the
    GB300 points a cost per token from the GB200 systems' prices (the same USD per accelerator-hour, so 0.988 against
    1.087 µUSD per 405B token, only from its speed) and named GB300 the cheapest. The cluster prices its own systems:
    the objective is refused at the axis value, and a swapped chip's points give no cost per token."""
    text = ("kind: Sweep\nid: g\nworkload: llama3-405b-pretrain-gb200\naxes:\n  accelerator: [gb200, gb300]\n"
            "  accelerators: [576]\nobjectives:\n  - {metric: goodput_tokens_per_second}\n"
            "  - {metric: cost_per_token}\n")
    r = cli("sweep", sweep_file(tmp_path, text), "--path", SPECS, "--out", tmp_path / "o")
    assert r.code == 2 and "Traceback" not in r.err, r.err
    assert ("sweep.yaml:5:24: error: sweep 'g': objective 'cost_per_token' needs prices, and cluster 'gb200-nvl72-su' "
            "prices its own 'gb200' systems, not 'gb300' ones") in r.err
    as_requirement = text.replace("  - {metric: cost_per_token}\n", "") + (
        "requirements:\n  - {id: REQ-SWP-301, statement: Cost, metric: cost_per_token, target: \"<= 1 uUSD\"}\n")
    r = cli("sweep", sweep_file(tmp_path, as_requirement), "--path", SPECS, "--out", tmp_path / "o")
    assert r.code == 2 and "requirement 'REQ-SWP-301' on 'cost_per_token' needs prices" in r.err, r.err
    p = problem_of(tmp_path, text.replace("  - {metric: cost_per_token}\n", ""))
    own, gb300 = p.bases[("gb200-nvl72-su", "gb200")], p.bases[("gb200-nvl72-su", "gb300")]
    assert own.cost_per_accelerator_hour == p.bases[("gb200-nvl72-su", None)].cost_per_accelerator_hour
    assert gb300.cost_per_accelerator_hour is None
    rows = evaluate(p, 0, 2)
    assert rows[0].metrics["cost_per_token"] > 0
    assert not [k for k in rows[1].metrics if k.startswith("cost_per_token")]


@pytest.mark.parametrize(("requirement", "message"), [
    ("{id: REQ-SWP-402, statement: Goodput, metric: goodput, target: \">= 0.9\"}",
     "sweep.yaml:9:51: error: sweep 'm': requirement 'REQ-SWP-402' on 'goodput' needs the training job's goodput, and "
     "cluster 'mi355x-th5' gives no checkpoint `storage:` (REL006; docs/reliability.md)"),
    ("{id: REQ-SWP-401, statement: Cost, metric: cost_per_token, target: \"<= 1 uUSD\"}",
     "sweep.yaml:9:48: error: sweep 'm': requirement 'REQ-SWP-401' on 'cost_per_token' needs prices, and cluster "
     "'mi355x-th5' has no cost in USD"),
])
def test_a_requirement_its_cluster_cannot_give_is_refused_at_its_line(tmp_path, cli, requirement, message):
    """A PoC planner's sweep of the MI355X cluster (no checkpoint storage, unpriced parts) with `goodput >= 0.9` as a
    sweep requirement judged the missing goodput (NaN) "not met" at every point: 0 feasible, "no feasible point", for
    a figure the cluster cannot give; a cost requirement was "not provided" and left the points feasible. Both are
    refused before any point runs, as the same metrics as objectives are."""
    text = (f"kind: Sweep\nid: m\nworkload: llama3-70b-pretrain-mi355x\naxes:\n  accelerators: [256, 512]\n"
            f"objectives:\n  - {{metric: tokens_per_second}}\nrequirements:\n  - {requirement}\n")
    r = cli("sweep", sweep_file(tmp_path, text), "--path", SPECS, "--out", tmp_path / "o")
    assert r.code == 2 and message in r.err and "Traceback" not in r.err, r.err


def _unbanded(names: list[str]) -> list[str]:
    """`names` without the error band's ends (`metrics_bands.BANDED`) and the memory's range's, which tables show last."""
    from archgen.display import MEMORY_RANGED
    from archgen.metrics_bands import BANDED
    return [n for n in names if not (n.endswith(("_low", "_high")) and n.rsplit("_", 1)[0] in (*BANDED, *MEMORY_RANGED))]


def test_a_concurrency_objective_states_its_goal(tmp_path, cli):
    """review56: offtpot37 gave `concurrency` no better direction, and an objective of it was then minimised by
    default as a power is ('best concurrency: 64' of batch 64 and 2,048): it is refused at its line without a goal."""
    text = ("kind: Sweep\nid: s\nworkload: llama3-70b-serve-b200\naxes: {batch: [64, 2048]}\n"
            "objectives:\n  - {metric: tpot}\n  - {metric: concurrency}\n")
    r = cli("sweep", sweep_file(tmp_path, text), "--path", SPECS, "--out", tmp_path / "o")
    assert r.code != 0 and "Traceback" not in r.err, r.err
    assert "sweep.yaml:7:14: error: " in r.err and "objective 'concurrency' has no better direction" in r.err, r.err
    stated = Sweep.model_validate({"id": "s", "workload": "w", "axes": {"batch": [64, 2048]},
                                   "objectives": [{"metric": "concurrency", "goal": "max"}]})
    assert stated.objectives[0].maximise
