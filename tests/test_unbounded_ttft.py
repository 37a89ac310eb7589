"""An overrun serving point's TTFT has no upper bound, and says so without blaming goodput.

The input that showed it (newuser19): Llama 3.1 70B in FP8 on the DGX B200 SuperPOD, TP 8 over 64 GPUs, 2,048 + 128
tokens at 320 requests/s, 40 per replica, more than a full replica serves (`perf.serve.run.overrun`). `archgen
estimate` said "no upper bound"; the sweep's points.csv and report, `gap` and `diff` said "no upper bound: goodput's
low end is 0", the reason a training job's cost has none, on a serving job that has no goodput.
"""

from __future__ import annotations

import json

from archgen.metrics import UNBOUNDED, unbounded
from tests.conftest import SPECS, run_cli

WORKLOAD = """\
kind: Workload
id: l70-overrun
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 64
inference: {precision: fp8, tp: 8, input_len: 2048, output_len: 128, scenario: server, arrival_rate: 320 1/s}
"""
SWEEP = """\
kind: Sweep
id: l70-overrun-sweep
workload: l70-overrun
axes: {arrival_rate: ["320 1/s"]}
objectives: [{metric: ttft_p99}]
"""
SLA = """\
kind: Requirements
id: serving-sla
requirements:
  - {id: SLA-TTFT-1, statement: TTFT p99, subject: "workload/*", metric: ttft_p99, target: "<= 450 ms", source: t}
"""


def test_the_rule():
    assert unbounded("ttft_p99") == unbounded("ttft") == "no upper bound"
    assert unbounded("cost_per_token_high") == unbounded("cost_per_token") == UNBOUNDED


def test_sweep_and_gap_say_no_upper_bound_for_an_overrun_ttft(tmp_path):
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "w.yaml").write_text(WORKLOAD, encoding="utf-8")
    (tmp_path / "w" / "s.yaml").write_text(SWEEP, encoding="utf-8")
    (tmp_path / "req").mkdir()
    (tmp_path / "req" / "sla.yaml").write_text(SLA, encoding="utf-8")
    got = run_cli("sweep", tmp_path / "w" / "s.yaml", "--path", SPECS, "--path", tmp_path / "w",
                  "--out", tmp_path / "out", "--formats", "md,csv")
    assert got.code == 1, got.out   # its one point overruns, so none is feasible (servefix: MLPerf calls it INVALID)
    folder = tmp_path / "out" / "l70-overrun-sweep"
    csv = (folder / "points.csv").read_text(encoding="utf-8")
    report = (folder / "l70-overrun-sweep.md").read_text(encoding="utf-8")
    assert "no upper bound" in csv and "goodput" not in csv
    assert "no upper bound" in report and "goodput's low end" not in report
    (tmp_path / "w" / "s.yaml").unlink()
    gap = run_cli("gap", tmp_path / "w", SPECS / "clusters" / "dgx-b200-superpod.yaml", SPECS / "racks",
                  "--against", tmp_path / "req")
    row = next(line for line in gap.out.splitlines() if line.startswith("| SLA-TTFT-1"))
    assert "no upper bound" in row and "goodput" not in row
    js = json.loads(run_cli("gap", tmp_path / "w", SPECS / "clusters" / "dgx-b200-superpod.yaml", SPECS / "racks",
                            "--against", tmp_path / "req", "--format", "json").out)
    assert js["rows"][0]["value"]["unbounded"] == "no upper bound"
