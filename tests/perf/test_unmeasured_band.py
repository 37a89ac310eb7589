"""The band of a part with no published measurement says so, and spans what its stated efficiency ranges leave open.

newuser8's trial (tests/data/trn2: AWS Trainium2 / trn2.48xlarge from datasheet figures only): the step time read
"band 15.32 s to 28.36 s: model error ... on 56 dense training measurements", none of them on Trainium2, while its
span over the efficiency ranges it borrows (14.86 s to 24.69 s) was a separate note. A requirement met at the
band's pessimistic end but not at the span's pessimistic end taken with the model's error read as met.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import REPO, SPECS

TRN2 = REPO / "tests" / "data" / "trn2"
PAGE = " ".join((REPO / "docs" / "perf-model.md").read_text(encoding="utf-8").split())

REQUIREMENT = """kind: Workload
id: pretrain-trn2-req
model: llama3-70b
cluster: trn2-pod
training: {seq_len: 8192, global_batch: 512, precision: bf16}
requirements:
  - {id: REQ-T-001, statement: Optimizer step time, metric: step_time, target: "<= 30 s"}
"""


def _json(cli, *paths: Path, workload: str) -> dict:
    return json.loads(cli("estimate", *map(str, paths), "--workload", workload, "--format", "json").out)


def test_an_unmeasured_part_band_spans_its_efficiency_span_with_the_model_error(cli):
    est = _json(cli, SPECS, TRN2, workload="llama3-70b-pretrain-trn2")
    b = est["bands"]["step_time"]
    assert b["measurements"] == 87 and b["on_accelerator"] == {"accelerator": "trainium2", "measurements": 0}
    step = est["metrics"]["step_time"]["value"]
    lo, hi = b["spread"]["low"] * step, b["spread"]["high"] * step
    # the span over the stated ranges the note gives, 14.73 s to 24.54 s (14.69 s to 24.50 s before rope40 charged
    # Llama 3.1's rotary embedding; 14.82 s to 24.64 s while the nemo-2025
    # profile reduced gradients in fp32, before session gradreduce)
    assert (lo, hi) == (pytest.approx(14.73, abs=0.005), pytest.approx(24.54, abs=0.005))
    note = next(n for n in est["notes"] if "over those ranges the step time spans" in n)
    assert f"{lo:.4g} s to {hi:.4g} s" in note
    # each end of it with the model's error in the same direction
    assert b["low"]["value"] == pytest.approx(lo / (1 + b["error"]["high"]))
    assert b["high"]["value"] == pytest.approx(hi / (1 + b["error"]["low"]))
    assert b["high"]["value"] > 28.36 * 1.3                     # before: 28.36 s, the model's error alone
    # a rate states the same quantity: its band is the step time's, seen from the other side
    t = est["bands"]["tokens_per_second"]
    tps = est["metrics"]["tokens_per_second"]["value"]
    assert t["low"]["value"] == pytest.approx(tps * step / hi / (1 + t["error"]["high"]))


def test_the_page_s_trainium2_example_reads_the_estimate(cli):
    """docs/perf-model.md ("On this accelerator") quotes this estimate; tidy36: it still read 18.2 s, band 15.32 s to
    28.36 s and 12.51 s to 38.48 s over a span of 14.86 s to 24.69 s, the figures of an earlier model and band."""
    said = re.search(r"step time of ([\d.]+) s: band ([\d.]+) s to ([\d.]+) s by the model's error alone, ([\d.]+) s to "
                     r"([\d.]+) s with its span of ([\d.]+) s to ([\d.]+) s", PAGE)
    assert said, "the page's Trainium2 example"
    est = _json(cli, SPECS, TRN2, workload="llama3-70b-pretrain-trn2")
    b, step = est["bands"]["step_time"], est["metrics"]["step_time"]["value"]
    now = (step, step / (1 + b["error"]["high"]), step / (1 + b["error"]["low"]), b["low"]["value"], b["high"]["value"],
           b["spread"]["low"] * step, b["spread"]["high"] * step)
    assert [float(x) for x in said.groups()] == pytest.approx(now, abs=0.006), (said[0], now)


def test_the_text_says_how_many_measurements_are_on_the_part(cli):
    out = cli("estimate", str(SPECS), str(TRN2), "--workload", "llama3-70b-pretrain-trn2").out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("step_time"))
    assert "on 87 dense training measurements, none of them on trainium2, so the band also spans the step time " \
           "(14.73 s to 24.54 s around 18.06 s) over its stated efficiency ranges" in line


def test_a_measured_part_band_counts_its_own_and_is_not_widened(cli):
    est = _json(cli, SPECS, workload="llama3-70b-pretrain-b200")
    b = est["bands"]["step_time"]
    assert b["on_accelerator"] == {"accelerator": "b200-sxm-180gb", "measurements": 7} and b["spread"] is None
    step = est["metrics"]["step_time"]["value"]
    assert b["high"]["value"] == pytest.approx(step / (1 + b["error"]["low"]))


def test_serving_on_an_unmeasured_part_spans_the_throughput_range(cli):
    est = _json(cli, SPECS, TRN2, workload="llama3-70b-serve-trn2")
    b = est["bands"]["tokens_per_second_per_gpu"]
    assert b["on_accelerator"]["measurements"] == 0 and b["spread"] is not None
    assert b["spread"]["low"] < 1 <= b["spread"]["high"]


def test_a_requirement_met_only_optimistically_is_at_risk(cli, tmp_path):
    (tmp_path / "req.yaml").write_text(REQUIREMENT, encoding="utf-8")
    est = _json(cli, SPECS, TRN2, tmp_path, workload="pretrain-trn2-req")
    [req] = est["requirements"]
    # 18.2 s meets 30 s; on the 56 measurements of the trial the model's error alone (28.36 s) did too, the span's
    # slow end with it did not (38.5 s; the 18 MLPerf v5 rows since widened the error, so the slow end is further)
    assert req["status"] == "at risk" and req["pessimistic"]["value"] > 30
