"""A sweep says which efficiencies its points take at a point rather than one measurement (newuser8's finding).

Before, a sweep of a vendor's new part without an `efficiency:` block (AWS Trainium2) printed its Pareto front and
best points with nothing saying that its GEMM, HBM, flash-attention and scale-up efficiencies were assumed points,
where `archgen estimate` of the same workload says so; the report read as certain as one of a measured part.
Figures: AWS Neuron documentation, Trainium2 Architecture (667 BF16 and 1,299 FP8 TFLOPS dense, 96 GiB at 2.9 TB/s,
NeuronLink-v3 1.28 TB/s per chip) and Amazon EC2 Trn2 Architecture (16 chips and 2,048 GiB of host memory per
trn2.48xlarge); tdp, the server's power and size are placeholders, listed as unconfirmed.
"""

from __future__ import annotations

import json
from pathlib import Path

from archgen.perf.explore.points import evaluate, model_defaults, summarise, unmeasured_efficiencies
from archgen.render.sweep import conventions_section
from tests.conftest import SPECS, sweep_problems_of

TRN2 = """kind: Accelerator
id: trainium2
vendor: AWS
source: AWS Neuron documentation, Trainium2 Architecture
memory: 96 GiB
memory_bandwidth: 2.9 TB/s
peak: {bf16: 667 TFLOPS, fp8: 1299 TFLOPS}
tdp: 500 W
scale_up: {technology: NeuronLink-v3, bandwidth: 640 GB/s, links: 4}
unconfirmed: [tdp, scale_up.bandwidth]
---
kind: System
id: trn2-48xlarge
source: AWS Neuron documentation, Amazon EC2 Trn2 Architecture
accelerator: trainium2
accelerators: 16
mechanical: {height: 4 U, weight: 90 kg}
power: {max: 12 kW}
unconfirmed: [mechanical, power.max]
---
kind: Rack
id: trn2-rack
form_factor: {standard: eia-19, height: 42 U, width: 600 mm, depth: 1200 mm, max_payload: 1360 kg, weight: 170 kg}
slots:
- {at: 9, part: trn2-48xlarge, count: 4}
- {at: 1, part: pdu-415v-60a-3ph, count: 4}
power:
  feeds: {count: 4, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}
  pdus: {redundancy: N+N}
cooling:
  air: {class: A2, delta_t: 20 K}
---
kind: Cluster
id: trn2
units:
- id: row
  racks: [{rack: trn2-rack, count: 1}]
layout:
- {unit: row, count: 1}
floor: {racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3 m, tray_drop: 1.5 m}
scale_up: {domain: node, size: 16, technology: ethernet, bandwidth: 1.28 TB/s}
---
kind: Workload
id: serve-trn2
model: llama3-70b
cluster: trn2
accelerators: 16
inference: {precision: fp8, tp: 16, input_len: 2048, output_len: 256}
---
kind: Sweep
id: s
workload: serve-trn2
axes:
  precision: [bf16, fp8]
  tp: [8, 16]
objectives:
  - {metric: tokens_per_second}
"""


def _problem(tmp_path: Path):
    path = tmp_path / "trn2.yaml"
    path.write_text(TRN2, encoding="utf-8")
    return sweep_problems_of(path, [SPECS, tmp_path])[0]


def test_a_sweep_of_an_unmeasured_part_says_its_efficiencies_are_assumed(tmp_path):
    problem = _problem(tmp_path)
    lines = unmeasured_efficiencies(problem)
    assert len(lines) == 1 and lines[0].startswith("trainium2: ")
    for what in ("bf16 GEMM efficiency", "fp8 GEMM efficiency", "HBM efficiency", "flash-attention efficiency",
                 "scale-up link efficiency"):
        assert f"{what} (not measured: the part states none; assumed point" in lines[0], what
    result = summarise(problem, evaluate(problem, 0, problem.size))
    bullets = conventions_section(result).blocks[0].items
    assert any("Efficiencies that are not one measurement" in b and "trainium2: bf16 GEMM efficiency (not measured"
               in b for b in bullets)


def test_the_command_prints_and_the_json_carries_them(tmp_path, cli):
    path = tmp_path / "trn2.yaml"
    path.write_text(TRN2, encoding="utf-8")
    out = cli("sweep", str(path), "--path", str(SPECS), "--path", str(tmp_path), "--out", str(tmp_path / "out"),
              "--formats", "md")
    assert "note: not one measurement, taken at its point everywhere: trainium2: bf16 GEMM efficiency (not measured" \
        in out.out
    got = cli("sweep", str(path), "--path", str(SPECS), "--path", str(tmp_path), "--out", str(tmp_path / "out"),
              "--formats", "md", "--format", "json")
    [sweep] = json.loads(got.out)["sweeps"]
    assert sweep["unmeasured_efficiencies"] == unmeasured_efficiencies(_problem(tmp_path))


def test_a_sweep_states_the_model_defaults_its_points_take_as_the_estimate_does(tmp_path, cli):
    """trialfix item 5: the Trainium2 states no `efficiency.vector` or `gemm_half_size`; `archgen estimate` of the
    workload notes the defaults it takes, but the sweep's summary, JSON and report did not."""
    path = tmp_path / "trn2.yaml"
    path.write_text(TRN2, encoding="utf-8")
    est = cli("estimate", "--workload", "serve-trn2", "--path", str(SPECS), "--path", str(tmp_path), "--format",
              "json")
    said = [n for n in json.loads(est.out)["notes"] if "model's defaults" in n]
    assert len(said) == 1 and said[0].startswith("not stated by trainium2 or its system, so taken from the model's "
                                                 "defaults: vector (FP32 FMA) efficiency")
    problem = _problem(tmp_path)
    assert model_defaults(problem) == said                   # the estimate's words: one helper
    out = cli("sweep", str(path), "--path", str(SPECS), "--path", str(tmp_path), "--out", str(tmp_path / "out"),
              "--formats", "md")
    assert f"  note: {said[0]}\n" in out.out                  # before: only the unmeasured efficiencies' note
    got = cli("sweep", str(path), "--path", str(SPECS), "--path", str(tmp_path), "--out", str(tmp_path / "out"),
              "--formats", "md", "--format", "json")
    [sweep] = json.loads(got.out)["sweeps"]
    assert sweep["model_defaults"] == said
    bullets = conventions_section(summarise(problem, evaluate(problem, 0, problem.size))).blocks[0].items
    assert f"At every point of the sweep, {said[0]}." in bullets
