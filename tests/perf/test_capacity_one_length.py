"""A replica's capacity is judged by the offline runs scored as it is computed: every request of one length (lengths40).

A run under load reports its replica's capacity (`replica_capacity`), a simulated closed loop in which every request
has `input_len` + `output_len` tokens (`perf.serve.scheduler` simulates no spread of lengths), and its load over that
capacity reaches load x (1 + h) at the capacity band's low end (`band_families.reached`). Before lengths40 the band
and h were the offline family's tokens/s errors, each row scored with the spread of outputs it states
(`output_len_cv`): the DeepSeek-R1 Offline rows read +102.2 % (B200) and +115.2 % (GB200 NVL72) with MLPerf's dataset
spread, CV 1.25 (tests/perf/data/mlperf-inference-v5-deepseek.yaml), but +145.2 % and +159.3 % at one length, as the
capacity is computed. The capacity's band is now those rows' errors at one length (docs/gen_bands.py
`capacity_results`), nothing fitted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.perf.workload.band_families import CAPACITY_METRICS, ONE_LENGTH, QUANTITIES, at_engine_cap
from archgen.perf.workload.band_lookup import bands
from archgen.perf.workload.band_source import at_one_length
from archgen.perf.workload.band_table import TABLE
from archgen.perf.workload.bands import band
from archgen.perf.workload.case_bands import case_band
from archgen.scoring.cases import read_case_file
from archgen.scoring.scores import score

DEEPSEEK = Path(__file__).resolve().parent / "data" / "mlperf-inference-v5-deepseek.yaml"
GB200 = "mlperf51-deepseek-r1-offline-72xgb200-tp8-ep8-adp-fp4"
HELD = Path(__file__).resolve().parent / "data" / "heldout-trtllm-r1.yaml"


def test_the_capacity_has_its_own_quantity_made_of_the_same_offline_runs():
    assert {QUANTITIES["inference"][m] for m in CAPACITY_METRICS} == {"replica_capacity"}
    for fam in ("offline-serving", "moe-offline-serving"):
        tput, capacity = TABLE[fam]["tokens_per_second"], TABLE[fam]["replica_capacity"]
        assert capacity[0] == tput[0], fam   # every offline run, once each
    # the MoE family's highest error is DeepSeek-R1's on GB200, whose stated spread the capacity cannot take
    assert TABLE["moe-offline-serving"]["replica_capacity"][2] > TABLE["moe-offline-serving"]["tokens_per_second"][2]


def test_the_band_s_highest_error_is_the_gb200_row_scored_at_one_length():
    case = next(c for c in read_case_file(DEEPSEEK).cases if c.id == GB200)
    assert case.inference is not None and case.inference.output_len_cv == 1.25
    stated, one = (score([c])[0] for c in (case, at_one_length(case)))
    assert one.metric == stated.metric == "tokens_per_second"
    assert one.error == pytest.approx(TABLE["moe-offline-serving"]["replica_capacity"][2], abs=1e-4)   # +159.3 %
    assert stated.error == pytest.approx(TABLE["moe-offline-serving"]["tokens_per_second"][2], abs=1e-4)  # +115.2 %
    assert at_one_length(case).inference.output_len_cv is None and case.inference.output_len_cv == 1.25


@pytest.mark.parametrize("fam", ["serving-under-load", "moe-serving-under-load"])
def test_an_open_loop_reaches_as_far_as_the_capacity_band_and_says_how_it_was_scored(fam):
    high = TABLE[fam.replace("serving-under-load", "offline-serving")]["replica_capacity"][2]
    b = band(fam, "ttft_p99", load=0.2, arrival="poisson")
    assert b is not None and b.reach == pytest.approx(0.2 * (1 + high)) and b.capacity_high == high
    assert f"which the model over-predicted by up to {high:+.1%}" in b.describe()
    assert f"runs, each {ONE_LENGTH}" in b.describe()
    capacity = band(fam.replace("serving-under-load", "offline-serving"), "replica_capacity")
    assert capacity is not None and capacity.high == high


def test_a_closed_loop_at_its_engine_cap_takes_the_one_length_row_for_its_throughput_and_costs():
    """A closed loop at its engine's cap is a capacity run, simulated at one length too (nu60fix): its tokens/s and the
    cost and energy made from it take the same row as `replica_capacity`; its latencies keep their own family's."""
    got = bands("moe-serving-under-load", ["tokens_per_second", "cost_per_million_tokens", "ttft"], capacity=True,
                load=0.9, arrival="closed")
    row = TABLE["moe-offline-serving"]["replica_capacity"]
    assert got["tokens_per_second"].one_length and (got["tokens_per_second"].low, got["tokens_per_second"].high) == \
        (row[1], row[2])
    assert got["cost_per_million_tokens"].one_length and got["cost_per_million_tokens"].family == "moe-offline-serving"
    assert not got["ttft"].one_length and got["ttft"].family == "moe-serving-under-load"
    assert not band("moe-offline-serving", "tokens_per_second").one_length   # an offline run: its rows as stated
    held = next(c for c in read_case_file(HELD).cases if at_engine_cap(c.inference))
    # its prompt (1,042) is past the MoE runs' 804 by more than the margin (margin43): no band; at 804, the row
    past = case_band(held, "tokens_per_second")
    assert past is not None and past.one_length and not past.measured and past.measure == "prompt"
    own = case_band(held.model_copy(update={"inference": held.inference.model_copy(update={"input_len": 804})}),
                    "tokens_per_second")
    assert own is not None and own.one_length and (own.low, own.high) == (row[1], row[2])
