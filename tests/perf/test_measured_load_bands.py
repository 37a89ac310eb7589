"""Open-loop latency bands at the measured capacity, and the load a capacity error reaches (nu68fix, from newuser68).

MLPerf v5.1's Llama 3.1 8B Server row on 8 x B200 (tests/perf/data/mlperf-inference-v5.yaml: Scheduled samples per
second 999.47; its Offline log on the same system, Samples per second 1,060.23, 136,752 tokens/s over 129 tokens a
sample) ran at 0.94 of its measured capacity; the model, +26.9 % on that Offline log, put it at 0.70, in the moderate
bin, where its TTFT p99 (-97.9 %) set the pessimistic end of every moderate-load TTFT p99 band (newuser68's 405B trial:
2.71 s, band up to 131.6 s).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.perf.workload.band_families import one_bin, reached, single_keys, table_key, table_keys
from archgen.perf.workload.band_source import measured_loads
from archgen.perf.workload.band_table import TABLE
from archgen.perf.workload.bands import band
from archgen.scoring.cases import read_case_file

DATA = Path(__file__).parent / "data"


def test_the_8b_server_row_ran_at_0_94_of_its_offline_log():
    loads = measured_loads(read_case_file(DATA / "mlperf-inference-v5.yaml").cases)
    assert loads["mlperf51-llama31-8b-server-8xb200-tp1-fp4"] == pytest.approx(999.47 / (136752 / 129), rel=1e-9)
    assert loads["mlperf51-llama31-8b-server-8xb200-tp1-fp4"] == pytest.approx(999.47 / 1060.23, rel=1e-3)
    # no Offline twin scored (the 405B B200 / GB200 Offline runs are PP2, left out): the model's load stays theirs
    assert "mlperf51-llama31-405b-server-8xb200-tp4-fp4" not in loads
    # every Server row with a twin ran near its capacity, as loadgen tunes it: 0.77 (GB300 405B) to 0.98
    server = [v for k, v in loads.items() if "-server-" in k]
    assert 0.76 < min(server) and max(server) < 0.99
    # the Interactive rows (interactive40) are tuned to tighter limits: the 8B's at 0.753, in the moderate bin; the
    # Llama 2 70B's states no KV precision (its config none), so the FP8 Offline row is not its twin
    interactive = {k: v for k, v in loads.items() if "-interactive-" in k}
    assert interactive == {"mlperf51-llama31-8b-interactive-8xb200-tp1-fp4": pytest.approx(798.75 / 1060.23, rel=1e-3)}


def test_an_open_loop_reaches_load_times_one_plus_the_offline_high_error():
    high = TABLE["offline-serving"]["tokens_per_second"][2]
    assert reached("serving-under-load", "ttft_p99", 0.53, "poisson", high) == pytest.approx(0.53 * (1 + high))
    assert reached("serving-under-load", "ttft_p99", 0.53, "closed", high) == 0.53   # a closed loop keeps its own
    assert reached("serving-under-load", "tokens_per_second", 0.53, "poisson", high) is None  # not binned
    assert table_key("serving-under-load", "ttft_p99", 0.62, "poisson", 0.62 * 1.4213) == \
        "ttft_p99@moderate..near-capacity@poisson"
    assert single_keys("ttft_p99@light..near-capacity@poisson") == \
        ["ttft_p99@light@poisson", "ttft_p99@moderate@poisson", "ttft_p99@near-capacity@poisson"]
    assert table_keys("serving-under-load", "ttft", 0.6) == \
        ["ttft@light..moderate@poisson", "ttft@light..near-capacity@poisson", "ttft@moderate@poisson",
         "ttft@moderate..near-capacity@poisson"]


def test_one_bin_tells_a_bins_key_from_a_run_of_bins():
    """`one_bin` is the key format's own predicate (moe_serving_note counts one-bin rows by it): a key is one bin's
    exactly where `single_keys` gives it back alone; a key with no bin (a quantity not binned) is one bin's too."""
    for key in table_keys("serving-under-load", "tpot", 0.6, "closed"):
        assert one_bin(key) is (single_keys(key) == [key]), key
    assert one_bin("tokens_per_second") and one_bin("moderate") and not one_bin("light..moderate")


def test_the_trial_ttft_p99_band_is_the_405b_rows_and_a_heavier_run_takes_both_bins():
    """At load 0.53 (newuser68's trial) the reach, 0.75, stays moderate, where GB300's 405B Server row (0.77 of its
    measured Offline capacity) and, since interactive40, the file's four Interactive rows are binned: 5 rows, -91.4 %
    (the 8B's, at its measured 0.75) to +89.5 % (GB200's 405B), a band. From serve37 to interactive40 GB300's row was
    alone there, fewer than a band needs, so no band, and a target there was at risk. Before serve37 the B200 and GB200 405B rows were moderate too, at the model's 0.80 and 0.81,
    and the band was theirs, +5.3 % to +64.4 % (about 1.65 to 2.57 s); their model loads are 0.86 and 0.87 now that
    a full replica's capacity leaves out the closed loop's drain (`measure.closed_measured`), and their Offline runs
    are not scored, so they bin near capacity. At 0.62 the reach, 0.89 (0.88 before kvcfg38 moved the offline band's
    high end +42.0 % -> +43.0 %; 0.91 since lengths40 scored the capacity's band at one length, +46.2 %), is near
    capacity: both bins' 15 rows (11 before interactive40), the 8B Server row's -97.9 % among them."""
    trial = band("serving-under-load", "ttft_p99", load=0.53)
    assert trial is not None and trial.bin == "moderate" and trial.count == 5
    assert (trial.low, trial.high) == (-0.9142, 0.895)
    heavier = band("serving-under-load", "ttft_p99", load=0.62)
    assert heavier is not None and heavier.bin == "moderate..near-capacity" and heavier.count == 15
    assert heavier.low == -0.979
    assert "up to 0.91 at the low end of the capacity's band" in heavier.describe()   # 0.88 before kvcfg38 (x 1.430)
