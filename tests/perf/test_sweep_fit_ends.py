"""A sweep counts the points that fit in memory at both ends of the memory's range, as one estimate says both.

newuser102: a sweep's "36 fit in memory" counted at the model's figure (no allocator waste), while `estimate` and the
cluster document say whether the range's high end fits too (`render.fits.fits_text`). The count of the points that fit
at the high end now follows, in the document's lead, the command's summary and the JSON summary, and each point says it
in a column of its own beside its Status (memreq42).
"""

from __future__ import annotations

import csv
import json
import math

import pytest

from archgen.perf.explore.points import Result
from archgen.perf.explore.problem import PointRow
from archgen.perf.explore.vectorised import evaluate
from archgen.perf.hw.reserve import ALLOCATOR_WASTE_HIGH
from archgen.render.point_table import HIGH_END
from archgen.render.sweep import fit_count
from tests.conftest import SPECS, sweep_problems_of

#: The shipped Llama 3.1 70B job on 512 B200 (180 GiB, 193.27 GB each), and on twice that memory (`hbm_capacity`).
ENDS = """\
kind: Workload
id: l70-ends
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 512
training: {seq_len: 8192, global_batch: 512, precision: bf16, stack: nemo-2025}
---
kind: Sweep
id: ends
workload: l70-ends
axes:
  hbm_capacity: [1.0, 2.0]
objectives:
  - {metric: tokens_per_second}
"""
B200 = 180 * 2**30


def test_a_sweep_counts_the_points_that_fit_at_the_range_high_end_too(cli, tmp_path):
    """At the B200's own memory the search packs tp 1, pp 2 to 193.24 GB (0.035 GB left); with the CUDA context and
    two communicators (1.776 GB) outside the allocator, its high end is 1.776 + 191.46 / (1 - share) = 337.7 GB, over
    193.27 GB. At twice the memory (386.5 GB) it picks tp 1, pp 1 at 194.74 GB, whose high end, 1.088 + 193.66 /
    (1 - share) = 340.8 GB with one communicator, fits. So 2 fit at the model's figure and 1 at the high end."""
    (tmp_path / "w.yaml").write_text(ENDS, encoding="utf-8")
    got = cli("sweep", tmp_path / "w.yaml", SPECS, tmp_path, "--out", tmp_path / "out", "--format", "json")
    assert "Traceback" not in got.err, got.err
    (sweep,) = json.loads(got.out)["sweeps"]
    s = sweep["summary"]
    assert (s["points"], s["fitting"], s["fitting_with_range"], s["fitting_high_end"]) == (2, 2, 2, 1)
    p = sweep_problems_of(tmp_path / "w.yaml", [SPECS, tmp_path])[0]
    rows = evaluate(p, 0, p.size)
    for row, capacity, reserve in zip(rows, (B200, 2 * B200), (0.4e9 + 2 * 0.688e9, 0.4e9 + 0.688e9), strict=True):
        m = row.metrics
        assert (row.layout["tp"], row.layout["pp"]) == ((1, 2) if capacity == B200 else (1, 1))
        high = reserve + (m["memory_per_gpu"] - reserve) / (1 - ALLOCATOR_WASTE_HIGH)
        assert m["memory_per_gpu_high"] == pytest.approx(high)
        assert m["memory_per_gpu"] <= capacity and row.fits_high_end is (high <= capacity) is (capacity == 2 * B200)
    text = cli("sweep", tmp_path / "w.yaml", SPECS, tmp_path, "--out", tmp_path / "out")
    assert "sweep ends: 2 points, 2 fit at the model's figure (1 also at its memory range's high end), " in text.out
    doc = (tmp_path / "out" / "ends" / "ends.md").read_text(encoding="utf-8")
    assert "2 fit in memory at the model's figure (1 also at its memory range's high end), " in doc
    # each point's own: a column beside its Status in points.csv (and the document's tables), a key in the JSON
    with (tmp_path / "out" / "ends" / "points.csv").open(encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    assert [(r["Status"], r[HIGH_END]) for r in table] == [("ok", "no"), ("ok", "yes")]
    assert {p["index"]: p["fits_high_end"] for p in sweep["front"]} == {1: True}


def _row(i: int, status: str = "ok", spare: float | None = None) -> PointRow:
    return PointRow(i, {}, "c", status, metrics={} if spare is None else {"memory_headroom_low": spare})


def test_a_point_without_a_range_counts_at_the_models_figure_alone():
    """A point fits at the high end where its headroom there is not negative; a serving point or a TPU's has no
    range (no `memory_headroom_low`, or NaN) and is counted at the model's figure alone; a point that does not fit
    is in neither count."""
    rows = [_row(0, spare=-1e9), _row(1, spare=0.0), _row(2), _row(3, spare=math.nan), _row(4, "does not fit", -5e9)]
    assert [r.fits_high_end for r in rows] == [False, True, None, None, None]
    c = summarise_counts(rows)
    assert (c["fitting"], c["fitting_with_range"], c["fitting_high_end"]) == (4, 2, 1)
    assert fit_count(c) == "4 fit at the model's figure (1 of the 2 whose memory has a range also at its memory " \
                           "range's high end)"
    plain = summarise_counts([_row(0), _row(1)])
    assert fit_count(plain, "fit in memory") == "2 fit in memory"   # a serving sweep reads as before


def summarise_counts(rows: list[PointRow]) -> dict[str, int]:
    """`Result.counts` of `rows`, counted from the rows themselves (they read no problem, front or best point)."""
    return Result(None, rows, [], {}).counts()
