"""What a capacity planner is told when a serving input asks for what no hardware gives, or names a metric the docs list.

The inputs that showed it (newuser19): Llama 3.1 70B in FP8 on the DGX B200 SuperPOD, TP 8 over 64 GPUs (8
replicas), 2,048 + 128 tokens, Poisson arrivals. A `tokens_per_second >= 10000 1/s` target at 40 requests/s, whose
flow is 40 x 128 = 5,120 tokens/s, was a PERF001 error with no word on why (no hardware serves more than arrives);
a sweep objective `cost_per_million_tokens` was refused as "not a metric of a inference job", where docs/metrics.md
lists it for inference and `render` shows it for the same workload.
"""

from __future__ import annotations

from tests.conftest import SPECS, run_cli

WORKLOAD = """\
kind: Workload
id: l70-hints
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 64
inference: {{precision: fp8, tp: 8, input_len: 2048, output_len: 128, scenario: server, arrival_rate: {rate} 1/s}}
requirements:
  - {{id: REQ-HINT-001, statement: Throughput, metric: tokens_per_second, target: ">= 10000 1/s"}}
"""
SWEEP = """\
kind: Sweep
id: l70-hints-sweep
workload: l70-hints
axes: {accelerators: [32, 64]}
objectives: [{metric: cost_per_million_tokens}]
"""


def test_a_throughput_target_above_the_offered_load_says_what_sets_it(tmp_path):
    """The miss names the offered load and what to change: the arrival rate, not the hardware."""
    (tmp_path / "w.yaml").write_text(WORKLOAD.format(rate=40), encoding="utf-8")
    got = run_cli("check", SPECS, tmp_path)
    line = next(x for x in got.out.splitlines() if "REQ-HINT-001" in x)
    assert "PERF001" in line and "tokens_per_second = 5,120 tokens/s" in line
    assert "the offered load, 40 requests/s x 128 tokens, sets it" in line and "raise arrival_rate" in line
    est = run_cli("estimate", SPECS, tmp_path, "--workload", "l70-hints")
    assert "REQ-HINT-001: tokens_per_second >= 10,000 tokens/s: not met (the offered load, 40 requests/s" in est.out


def test_an_overrun_miss_names_no_offered_load(tmp_path):
    """At 320 requests/s the replicas do not keep up (`perf.serve.run.overrun`): the hardware sets tokens/s, so the
    miss says nothing of the offered load."""
    (tmp_path / "w.yaml").write_text(WORKLOAD.format(rate=320).replace("10000", "40000"), encoding="utf-8")
    got = run_cli("check", SPECS, tmp_path)
    line = next(x for x in got.out.splitlines() if "REQ-HINT-001" in x)
    assert "PERF001" in line and "offered load" not in line


def test_a_sweep_takes_cost_per_million_tokens_for_a_serving_job(tmp_path):
    """docs/metrics.md lists it for inference; a point gives cost per token x 10^6, as `check` does."""
    (tmp_path / "w.yaml").write_text(WORKLOAD.format(rate=160), encoding="utf-8")
    (tmp_path / "s.yaml").write_text(SWEEP, encoding="utf-8")
    got = run_cli("sweep", tmp_path / "s.yaml", "--path", SPECS, "--path", tmp_path, "--out", tmp_path / "out",
                  "--formats", "csv")
    assert got.code == 0, got.out + got.err
    header, *rows = (tmp_path / "out" / "l70-hints-sweep" / "points.csv").read_text(encoding="utf-8").splitlines()
    col = header.split(",").index("Cost per million tokens (USD)")
    assert len(rows) == 2 and all(float(r.split(",")[col]) > 0 for r in rows)


def test_overrun_and_missed_sweep_points_say_why_they_are_not_feasible(tmp_path):
    """At 160 requests/s, 16 and 32 accelerators (2 and 4 replicas) cannot keep up: before, Status "ok", Feasible
    "yes", no reason. A point that misses a SHALL target had an empty Reason too."""
    (tmp_path / "w.yaml").write_text(WORKLOAD.format(rate=160).replace("10000", "20000"), encoding="utf-8")
    (tmp_path / "s.yaml").write_text(SWEEP.replace("[32, 64]", "[16, 64]"), encoding="utf-8")
    got = run_cli("sweep", tmp_path / "s.yaml", "--path", SPECS, "--path", tmp_path, "--out", tmp_path / "out",
                  "--formats", "csv")
    header, *rows = (tmp_path / "out" / "l70-hints-sweep" / "points.csv").read_text(encoding="utf-8").splitlines()
    assert got.code == 0 and len(rows) == 2, got.out + got.err
    cols = header.split(",")
    small, full = (dict(zip(cols, r.split(",", len(cols) - 1), strict=True)) for r in rows)
    assert small["Feasible"] == "no" and small["Reason"].startswith("arrivals outrun the replicas")
    assert "REQ-HINT-001 (SHALL) not met" in small["Reason"]
    assert full["Feasible"] == "yes" and full["Reason"] == ""  # 64: 20,480 tokens/s, as they arrive


def test_replicas_is_a_sweep_axis(tmp_path):
    """newuser19 had to sweep `accelerators` to vary the replicas; `replicas` is an inference axis, and more than
    the accelerators hold is an invalid point with its reason."""
    (tmp_path / "w.yaml").write_text(WORKLOAD.format(rate=160), encoding="utf-8")
    (tmp_path / "s.yaml").write_text(SWEEP.replace("accelerators: [32, 64]", "replicas: [8, 9]"), encoding="utf-8")
    got = run_cli("sweep", tmp_path / "s.yaml", "--path", SPECS, "--path", tmp_path, "--out", tmp_path / "out",
                  "--formats", "csv")
    assert got.code == 0, got.out + got.err
    _, eight, nine = (tmp_path / "out" / "l70-hints-sweep" / "points.csv").read_text(encoding="utf-8").splitlines()
    assert "replicas 8" in eight and ",ok,yes," in eight
    assert ",invalid,no," in nine and nine.endswith(",tp x replicas = 72 exceeds the 64 accelerators")
