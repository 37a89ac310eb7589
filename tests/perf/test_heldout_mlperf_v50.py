"""MLPerf Inference v5.0 Server / Interactive rows of NVIDIA's, held out (issue 20 part 8; fp4decode42):
tests/perf/data/heldout-mlperf-v50.yaml, scored by hand by newuser104 and listed on docs/accuracy.md ("Held out").

The file enters no band, so each row tests the band `archgen estimate` prints. The measured figures are the logs'
(ntuhpc/mlperf_inference_results_v5.0 at cf354115, each row's mlperf_log_summary.txt, quoted in its `source`), and
the misses stand as found: the Hopper FP8 rows' TPOT within 13 %, the Blackwell FP4 rows' 40-49 % fast (the
file's header and docs/perf-model.md, "Blackwell FP4 decode between memory- and compute-bound").
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from archgen.output.heldout import checked
from tests.conftest import docs_script

HELD = Path(__file__).resolve().parent / "data" / "heldout-mlperf-v50.yaml"
#: The logs' mean TTFT and TPOT (ns) and completed tokens/s, as each summary prints them.
LOGS = {
    "ho-mlperf50-llama2-70b-interactive-8xh200-tp1-fp8": (119447699, 33723979, 19424.25),
    "ho-mlperf50-llama2-70b-interactive-8xb200-tp1-fp4": (85598458, 36129344, 59409.25),
    "ho-mlperf50-llama31-405b-server-8xh200-tp8-fp8": (1830994317, 53873926, 291.37),
    "ho-mlperf50-llama31-405b-server-8xb200-tp4-fp4": (1860083007, 87022478, 845.82),
    "ho-mlperf50-llama31-405b-server-72xgb200-tp4-fp4": (1647855640, 109977196, 8850.10),
}


@pytest.fixture(scope="module")
def rows():
    return {(c.result.id, c.result.metric): c for c in checked(HELD)}


def test_the_file_is_held_out():
    gen, bands = docs_script("gen_accuracy"), docs_script("gen_bands")
    assert HELD in gen.HELD_OUT.values() and HELD not in gen.INDEPENDENT.values()
    assert HELD not in bands.CASE_FILES


def test_the_measurements_are_the_logs_figures(rows):
    """Each row's TTFT, TPOT and tokens/s are its log's (ms to two decimals), and its source quotes them."""
    text = HELD.read_text(encoding="utf-8")
    for case, (ttft, tpot, tokens) in LOGS.items():
        assert rows[(case, "ttft")].result.measured == pytest.approx(ttft / 1e9, abs=5e-6)
        assert rows[(case, "tpot")].result.measured == pytest.approx(tpot / 1e9, abs=5e-6)
        assert rows[(case, "tokens_per_second")].result.measured == pytest.approx(tokens)
        source = re.search(rf"id: {case}\n  source: '([^']*)'", text)
        assert source and f"Mean First Token latency {ttft} ns" in source[1], case
        assert f"Mean Time to Output Token {tpot} ns" in source[1] and f"tokens per second {tokens:.2f}" in source[1]


def test_hopper_fp8_tpot_is_near_and_blackwell_fp4_tpot_is_fast(rows):
    """The pattern newuser104 found, as scored: H200 FP8 TPOT -12.3 % and +7.2 %; B200 / GB200 NVFP4 -46.3 %,
    -40.4 %, -44.9 %. No factor is fitted to these rows (the file's header)."""
    tpot = {case: rows[(case, "tpot")].result.error for case in LOGS}
    hopper = [e for c, e in tpot.items() if "h200" in c]
    blackwell = [e for c, e in tpot.items() if "h200" not in c]
    assert hopper == pytest.approx([-0.123, 0.072], abs=0.005)
    assert blackwell == pytest.approx([-0.463, -0.404, -0.449], abs=0.005)


def test_the_405b_blackwell_rows_have_no_band(rows):
    """Their 9,429 + 656 / 658 tokens lie past the longest context a serving-under-load band was measured at (10,084
    tokens): no band, where the H200 row at 9,429 + 647 has one (newuser104's context cliff)."""
    for case in LOGS:
        banded = rows[(case, "tpot")].banded
        assert banded == ("405b-server-8xb200" not in case and "72xgb200" not in case), case
