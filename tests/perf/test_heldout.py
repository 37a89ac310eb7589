"""Held-out runs against the error bands (issue 20 part 8; tests/perf/data/heldout-v5.yaml, docs/accuracy.md "Held out").

A band is the range of its family's scored errors; these runs were scored into none of them, so each tests whether the
band `archgen estimate` prints reaches the measured value.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.output.heldout import checked, expected_coverage, heldout_section
from archgen.perf.workload.band_table import TABLE
from archgen.perf.workload.bands import turned
from tests.conftest import docs_script

HELD = Path(__file__).resolve().parent / "data" / "heldout-v5.yaml"


@pytest.fixture(scope="module")
def rows():
    return {(c.result.id, c.result.metric): c for c in checked(HELD)}


def test_heldout_file_enters_no_band():
    """docs/gen_bands.py reads the scored and independent files, never a held-out one: else it tests nothing."""
    bands = docs_script("gen_bands")
    gen = docs_script("gen_accuracy")
    assert HELD in gen.HELD_OUT.values()
    assert HELD not in bands.CASE_FILES
    table = (Path(__file__).resolve().parents[2] / "archgen" / "perf" / "workload" / "band_table.py").read_text(encoding="utf-8")
    assert "heldout-v5.yaml" not in table


def test_expected_coverage_is_wilks():
    """The range of n exchangeable errors holds a further one with probability (n - 1) / (n + 1) (Wilks 1941)."""
    assert expected_coverage(3) == pytest.approx(0.5)
    assert expected_coverage(87) == pytest.approx(86 / 88)
    assert expected_coverage(0) == 0.0


def test_deepseek_v3_lies_above_the_moe_training_band(rows):
    """DeepSeek-V3 (arXiv 2412.19437, Table 1 / section 1): 180K H800 GPU hours per trillion tokens on 2,048 H800,
    1e12 / (180,000 x 3,600 / 2,048) tokens/s. The model's tokens/s is low by more than MoE training's band allows:
    the band's lowest rate error is the step-time band's highest error turned round."""
    row = rows[("ho-deepseek-v3-2048xh800", "tokens_per_second")]
    assert row.result.measured == pytest.approx(1e12 / (180_000 * 3_600 / 2_048), rel=1e-6)
    count, low, high, _ = TABLE["moe-training"]["step_time"]
    assert (row.count, row.low, row.high) == (count, *turned(low, high))
    assert row.result.error < row.low and not row.inside


def test_near_capacity_latency_bands_miss_held_out_twins(rows):
    """Lenovo's B200 and Nebius's H200 Llama 2 70B Server runs use the configurations of two of the three runs the
    near-capacity Poisson bins were taken on (NVIDIA's B200, Dell's H200), at the same or a 2 % higher rate; the
    model places both near capacity, and their TTFT p99 errors fall outside that 3-run band on both sides. A range of
    3 is expected to hold half of such runs (Wilks), not all."""
    for case in ("ho-mlperf51-llama2-70b-server-8xb200-lenovo", "ho-mlperf51-llama2-70b-server-8xh200-nebius"):
        row = rows[(case, "ttft_p99")]
        assert row.bin == "near-capacity" and row.count == 3
        assert not row.inside
    assert rows[("ho-mlperf51-llama2-70b-server-8xb200-lenovo", "ttft_p99")].result.error > 0
    assert rows[("ho-mlperf51-llama2-70b-server-8xh200-nebius", "ttft_p99")].result.error < 0


def test_inside_is_the_error_within_the_band(rows):
    """Every row's verdict is its error against its own band's ends; the page's count is those verdicts'."""
    for row in rows.values():
        assert row.inside == (row.banded and row.low <= row.result.error <= row.high)
    banded = [r for r in rows.values() if r.banded]
    text = "\n".join(heldout_section(HELD, HELD.name))
    assert f"**{sum(r.inside for r in banded)} of {len(banded)} banded measurements inside" in text
    assert "| ho-deepseek-v3-2048xh800 | tokens_per_second |" in text


def test_band_table_states_each_bands_expected_coverage():
    """docs/accuracy.md's band table gives each (family, quantity) the share (n - 1) / (n + 1) its range is expected
    to hold, so a bin of 3 runs does not read as a bound (its expected coverage: 50 %)."""
    from archgen.output.accuracy import band_section
    lines = band_section()
    assert any("| expected |" in ln for ln in lines)
    for key, (n, _lo, _hi, med) in TABLE["serving-under-load"].items():
        row = next(ln for ln in lines if ln.startswith(f"| serving under load | {key} | {n} |"))
        assert f"| {med:.1%} | {(n - 1) / (n + 1):.0%} |" in row
