"""`estimate --cases` gives the same range over what a case leaves unstated as the accuracy page (issue 20 part 1).

Before, the CLI text showed only the efficiency ranges and the JSON none, while docs/accuracy.md also spanned the
stack profiles (a case that states no stack) and the switches the stack's configurations split on
(`switch_allows.UNSETTLED`, primus-2025). Both now read `scoring.unstated.unstated_span`, the function behind
`unstated_range`, which the accuracy page reads.

The case is AMD's MLPerf Training v5.1 Llama 3.1 8B MI355X submission (tests/perf/data/mlperf-training-v5-amd.yaml)
with its stack left out, so it runs AMD's newest profile, primus-2025, and is open in the stack and in Primus's split
switches (gradient-accumulation fusion, cross entropy).
"""

from __future__ import annotations

import json

import pytest

from archgen.scoring.cases import read_case_file
from archgen.scoring.catalog import load_accelerators
from archgen.scoring.unstated import unstated_range, unstated_span

CASE = """\
schema: archgen-validation/1
cases:
- id: amd-8b-no-stack
  source: "mlcommons/training_results_v5.1 AMD MI355X llama31_8b, stack left out for this test"
  status: confirmed
  system: {accelerator: mi355x, count: 8, scale_up: {domain: 8, bandwidth: "537.6 GB/s"}}
  model: {layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn: 14336, vocab: 128256, gated_ffn: true}
  training: {seq_len: 8192, global_batch: 32, micro_batch: 2, precision: fp8, fp8_recipe: delayed, tp: 1, pp: 1, dp: 8, cp: 1, recompute: none, attention: flash}
  measured: [{metric: step_time, value: 1.0432, unit: s}]
"""


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    p = tmp_path_factory.mktemp("unstated") / "c.yaml"
    p.write_text(CASE, encoding="utf-8")
    return p


def test_text_and_json_show_the_accuracy_pages_range(cli, path):
    (case,) = read_case_file(path).cases
    accs = load_accelerators()
    span, over = unstated_span(case, accs)
    assert span == unstated_range(case, accs) and "step_time" in span
    assert "the stack profiles (the case states none)" in over
    assert "grad_accum_fusion false/true, cross_entropy te/unfused" in over
    lo, hi = span["step_time"]
    assert lo < hi
    (row,) = json.loads(cli("estimate", "--cases", path, "--format", "json").out)
    assert row["unstated"]["low"] == {"value": pytest.approx(lo), "unit": "s"}
    assert row["unstated"]["high"] == {"value": pytest.approx(hi), "unit": "s"}
    assert row["unstated"]["errors"] == pytest.approx([lo / 1.0432 - 1, hi / 1.0432 - 1])
    assert row["unstated"]["over"] == over
    text = cli("estimate", "--cases", path).out
    assert f"({lo / 1.0432 - 1:+.1%} to {hi / 1.0432 - 1:+.1%}) over {over}" in text
