"""Held-out runs against the error bands (issue 20 part 8; tests/perf/data/heldout-v5.yaml, docs/accuracy.md "Held out").

A band is the range of its family's scored errors; these runs were scored into none of them, so each tests whether the
band `archgen estimate` prints reaches the measured value.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.output.heldout import checked, heldout_section
from archgen.perf.workload.band_families import NEAR_CAPACITY
from archgen.perf.workload.band_span import turned
from archgen.perf.workload.band_table import TABLE
from archgen.perf.workload.bands import MIN_BIN, expected_coverage
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


def test_near_capacity_poisson_latencies_are_banded_at_measured_loads(rows):
    """Lenovo's B200 and Nebius's H200 Llama 2 70B Server runs use the configurations of NVIDIA's B200 and Dell's H200
    runs, at the same or a 2 % higher rate; the model places both near capacity. Before newuser45 that Poisson bin
    held 3 runs (NVIDIA's B200 and GB200, Dell's H200) and all 12 of these TTFT and TPOT figures fell outside it
    (TTFT p99 +353.6 % and -81.1 % against -63.9 % to +341.6 %). Dell's rows now state the fused FFN activation its
    config builds, which puts its Server run at moderate load, so the bin holds 2 and gives no band: a latency
    target there was at risk, not met on a 3-run range expected to hold half of such runs (Wilks).

    nu68fix: the scored Server rows are binned at their measured capacity where their file has its Offline log
    (`band_source.measured_loads`), and 8 ran near it, so the bin has a band again (TTFT p99 -97.9 % to -23.2 %):
    all six of Nebius's latencies lay inside, and four of Lenovo's just above it (TTFT p99 -22.4 %, TPOT p99
    -3.9 %, against NVIDIA's own B200 row's -24.5 % and -4.6 % at the high end).

    serve37: a replica's capacity is its closed loop's steady rounds' (the drain left out), 4-10 % lower, so the
    405B B200 and GB200 Server rows, binned at the model's load for want of a scored Offline twin, read 0.86 and
    0.87 (0.80 and 0.81 before) and join the bin: 10 rows, and its high ends are theirs (TTFT p99 +64.4 %, TPOT p99
    +16.0 %). All twelve lie inside now, Lenovo's four because the band widened, not because the errors moved
    (TTFT p99 still -22.4 %, TPOT p99 -3.9 %)."""
    lenovo = "ho-mlperf51-llama2-70b-server-8xb200-lenovo"
    for case in (lenovo, "ho-mlperf51-llama2-70b-server-8xh200-nebius"):
        for metric in ("ttft", "tpot", "ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99"):
            row = rows[(case, metric)]
            assert row.bin == "near-capacity" and row.count == 10 >= MIN_BIN
            assert row.banded and row.inside, (case, metric)
    # above every 70B row's error: inside only by the 405B rows' over-prediction
    assert rows[(lenovo, "ttft_p99")].result.error == pytest.approx(-0.224, abs=5e-4)
    assert rows[(lenovo, "tpot_p99")].result.error == pytest.approx(-0.039, abs=5e-4)


def test_dell_h200_rows_state_the_fused_ffn_activation_their_config_builds():
    """closed/Dell/configs/XE9680L_H200_SXM_141GBx8/{Offline,Server}/llama2-70b.py (inference_results_v5.1@965182b0)
    build with 'gemm_swiglu_plugin': 'fp8' in every entry, which the model states as `ffn_activation: fused`; the
    rows took the default `separate` before. Stated, the Server run was at moderate load by the model's own replica
    (0.84, below 0.85); since serve37 measures a closed loop's steady rounds (the drain left out) the replica's
    capacity is 16.0 requests/s, not 17.0, and the run reads 0.89, near capacity, as its measured 0.96 bins it
    (`band_source.measured_loads`). The Offline row's error is +2.5 % (was -0.2 %), a closed form serve37 left."""
    from archgen.scoring.cases import read_case_file
    from archgen.scoring.scores import score_cases
    cf = read_case_file(HELD.parent / "mlperf-inference-v5.yaml")
    dell = [c for c in cf.cases if "h200-dell" in c.id]
    assert len(dell) == 2 and all(c.inference.ffn_activation == "fused" for c in dell)
    results = [r for r in score_cases(cf).results if "h200-dell" in r.id]
    server = next(r for r in results if "-server-" in r.id and r.metric == "ttft_p99")
    assert server.load is not None and NEAR_CAPACITY < server.load == pytest.approx(0.894, abs=0.001)
    offline = next(r for r in results if "-offline-" in r.id)
    assert 0.0 < offline.error < 0.04


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


def test_a_stated_layout_that_does_not_fit_is_marked_and_explained(rows):
    """mtpfix35: DeepSeek-V3's stated layout is above the H800's HBM by the model's memory count, where the run fit.
    Its throughput is still judged as stated (as a scored file's rows are), the row says it does not fit and the
    section gives the model's reason (`unfit_reason`) and the case's notes (what the case format cannot state)."""
    row = rows[("ho-deepseek-v3-2048xh800", "tokens_per_second")]
    assert row.fits is False and row.banded and "section 3.2.3" in row.notes
    needs = float(row.unfit.split("needs ")[1].split(" GB")[0])
    assert row.unfit.startswith("the stated layout needs") and needs > 85.5   # the H800's 80 GB as the model counts it
    unfit = {c.result.id for c in rows.values() if c.fits is False}
    assert unfit == {"ho-deepseek-v3-2048xh800", "ho-mlperf51-llama2-70b-offline-8xb200-lenovo"}
    lines = heldout_section(HELD, "heldout-v5.yaml")
    (shown,) = [line for line in lines if line.startswith("| ho-deepseek-v3-2048xh800 |")]
    assert shown.endswith("| **no** | **no** |")   # outside its band, and does not fit
    listed = [line for line in lines if line.startswith("- `")]
    assert [line.split("`")[1] for line in listed] == sorted(unfit) and row.notes in listed[0]
    assert all(c.fits for c in rows.values() if c.result.id not in unfit)
