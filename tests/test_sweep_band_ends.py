"""A sweep point carries the ends of the model's error band on its step time, tokens/s and MFU (newuser40).

points.csv, front.csv and `--format json` gave tokens/s, step time and MFU as single numbers while goodput and cost
per token had `_low`/`_high` columns; the band showed only as "at risk" cells. Each banded figure a point's estimate
has (`metrics_bands.BANDED`) now comes with `<name>_low` and `<name>_high`: the ends that judge a requirement on it at
risk (REQ004), the same on the per-point and the batched path, and none where no published run measured it.
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from archgen.perf.explore.points import evaluate_point
from archgen.perf.explore.vectorised import evaluate as batched
from archgen.perf.workload.band_table import TABLE
from tests.conftest import SPECS, sweep_problems_of
from tests.perf.test_unmeasured_band import REQUIREMENT, TRN2
from tests.test_sweep_band import SWEEP as TRN2_SWEEP
from tests.test_sweep_band import _problem

CTX = """kind: Sweep
id: ctx
workload: llama3-70b-pretrain-b200
axes:
  seq_len: [8192, 65536]
  accelerators: [512]
objectives: [{metric: tokens_per_second}]
"""


def test_the_shipped_platforms_point_1_carries_the_dense_training_band_on_both_paths():
    """Point 1 (144 B200, BF16): step time 11.53 s within [s / (1 + high), s / (1 - low)] = [10.38, 18.53] s of the
    dense-training band (87 runs, -37.8 % to +11.1 %: `band_table.TABLE`); tokens/s and MFU are rates of the same
    step, so theirs are [x (1 + low), x (1 + high)]: MFU 54.0 % in [33.6, 60.0] % (54.2 % in [33.5, 59.8] % before
    rope40 charged Llama 3.1's rotary embedding and the band moved with the rows; 59.9 % before session hops2 kept a 64-of-72 job's pipeline on NVLink, which moved
    the band's top end from +10.6 %; 53.2 % in [33.0, 62.1] % while
    the nemo-2025 profile reduced gradients in fp32, before session gradreduce; 62.2 before nu38model moved the dense
    band), whose low end misses the 35 % of REQ-PERF-001, which reads at risk."""
    p = next(q for q in sweep_problems_of(SPECS / "sweeps" / "llama3-70b.yaml", [SPECS])
             if q.sweep.id == "llama3-70b-train-platforms")
    _, low, high, _ = TABLE["dense-training"]["step_time"]
    one, [many] = evaluate_point(p, 1), batched(p, 1, 2)
    assert one.metrics == many.metrics
    m = one.metrics
    assert (m["step_time_low"], m["step_time_high"]) == pytest.approx((m["step_time"] / (1 + high),
                                                                        m["step_time"] / (1 + low)), rel=1e-12)
    for rate in ("tokens_per_second", "tokens_per_second_per_gpu", "mfu"):
        assert (m[f"{rate}_low"], m[f"{rate}_high"]) == pytest.approx((m[rate] * (1 + low), m[rate] * (1 + high)),
                                                                      rel=1e-12)
    assert m["mfu_low"] * 100 == pytest.approx(33.63, abs=0.01) and round(m["mfu_high"] * 100, 1) == 60.0
    assert m["mfu_low"] < 0.35 <= m["mfu"] and "REQ-PERF-001" in one.at_risk


def test_an_unmeasured_parts_ends_take_its_span_as_estimate_gives_them(tmp_path, cli):
    """Trainium2 (no dense-training measurement): a point's ends are `estimate`'s band ends of the same design, the
    span over the part's stated ranges included (24.5 s / (1 - 0.378) = 39.4 s at 256; 39.6 at -38.1 % before
    rope40; 39.8 while the nemo-2025
    profile reduced gradients in fp32, before session gradreduce; 39.7 at -37.9 % before nu38model), on both paths."""
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "req.yaml").write_text(REQUIREMENT, encoding="utf-8")
    p = _problem(tmp_path, TRN2_SWEEP, TRN2, tmp_path / "w")
    one, many = [evaluate_point(p, i) for i in range(p.size)], batched(p, 0, p.size)
    for a, b in zip(one, many, strict=True):
        assert a.metrics.keys() == b.metrics.keys()
        for k in (k for k in a.metrics if k.endswith(("_low", "_high"))):
            assert a.metrics[k] == pytest.approx(b.metrics[k], rel=1e-9, nan_ok=True), (a.index, k)
    own = one[4]   # the workload itself: 256 accelerators, catalogued HBM bandwidth
    est = json.loads(cli("estimate", str(SPECS), str(TRN2), str(tmp_path / "w"), "--workload", "pretrain-trn2-req",
                         "--format", "json").out)
    band = est["bands"]["step_time"]
    assert own.metrics["step_time_low"] == pytest.approx(band["low"]["value"], rel=1e-9)
    assert own.metrics["step_time_high"] == pytest.approx(band["high"]["value"], rel=1e-9)
    assert round(own.metrics["step_time_high"], 1) == 39.4


def test_the_files_show_the_ends_and_leave_them_empty_where_no_run_measured_the_figure(tmp_path, cli):
    """points.csv and front.csv have the ends' columns after the others; at 65,536 tokens of context, past the
    longest dense-training run scored, the band is unmeasured: no end (empty cells, no JSON key), not a number."""
    path = tmp_path / "ctx.yaml"
    path.write_text(CTX, encoding="utf-8")
    got = cli("sweep", str(path), "--path", str(SPECS), "--out", str(tmp_path / "out"), "--format", "json")
    for name in ("points.csv", "front.csv"):
        rows = list(csv.DictReader(io.StringIO((tmp_path / "out" / "ctx" / name).read_text(encoding="utf-8"))))
        heads = list(rows[0])
        ends = ["Step time (low) (s)", "Step time (high) (s)", "Tokens/s (low)", "Tokens/s (high)", "MFU (low) (%)",
                "MFU (high) (%)"]
        memory = ["Memory per accelerator (low) (GB)", "Memory per accelerator (high) (GB)"]   # its range (memband41)
        assert heads[heads.index("Status") - len(ends) - 2:heads.index("Status")] == ends + memory
        short = rows[0]
        assert float(short["Step time (low) (s)"]) < float(short["Step time (s)"]) < float(short["Step time (high) (s)"])
        if name == "points.csv":
            assert [rows[1][e] for e in ends] == [""] * len(ends) and rows[1]["Status"] == "ok"
    points = {p["index"]: p["metrics"] for s in json.loads(got.out)["sweeps"] for p in s["front"]}
    assert {"step_time_low", "step_time_high", "mfu_low", "mfu_high"} <= points[0].keys()
    assert 1 not in points or "step_time_low" not in points[1]
