"""The ends of a range made from tokens/s, and the dataset's read bandwidth, carry the tokens/s's band (bandcarry40).

nobandmet40 marked them unmeasured: a requirement met on `job_cost_low` or `dataset_read_bandwidth` read at risk
(REQ004) whatever its margin, though each is the tokens/s times or over stated inputs (the token budget, goodput at one
end of its range, the prices and accelerators charged, the bytes read per token and the ranks reading each sample), so
the model's error on the tokens/s is theirs exactly. They now take it (`band_families.MADE_FROM_RATE`), as the figure
they are an end of does: met at the value but not at the band's pessimistic end is at risk, met beyond it met, missed
not met. The design is the shipped 405B GB200 job with Llama 3.1 405B's token budget (as test_run_bands) reading int32
token ids (as tests/analyse/test_storage_demand.py).
"""

from __future__ import annotations

import pytest

from archgen.metrics import find
from archgen.model.requirements import Status
from archgen.perf.workload.band_families import MADE_FROM_RATE, RATE_ENDS
from tests.conftest import shipped_edited
from tests.test_run_bands import JOB, LOW, NEW, OLD, PATH, _status

DATA = "dataset: {read_per_token: 4 B, basis: sourced, source: 'int32 token ids, Megatron format'}\n"


@pytest.fixture(scope="module")
def est(tmp_path_factory):
    return shipped_edited(tmp_path_factory.mktemp("ends"), PATH, OLD,
                          NEW.replace("requirements:\n", DATA + "requirements:\n")).workloads[JOB].estimate


@pytest.mark.parametrize("end", RATE_ENDS)
def test_each_end_takes_the_band_of_its_figure(est, end):
    """Each end's band is its figure's (the step time's, or turned for a rate), and no end is marked unmeasured."""
    figure = end.rsplit("_", 1)[0]
    assert end in est.metrics and end in MADE_FROM_RATE and not find("workload", end).unmeasured
    band, own = est.bands[end], est.bands[figure]
    assert (band.low, band.high, band.family) == (own.low, own.high, own.family)


@pytest.mark.parametrize("end", ["job_cost_low", "job_cost_high", "goodput_time_to_train_high",
                                 "goodput_accelerator_hours_low", "cost_per_million_tokens_high"])
def test_an_end_proportional_to_the_step_time_is_judged_on_its_band(est, end):
    """[v / (1 + highest error), v / (1 + lowest error)]: met beyond the pessimistic end is met (before: at risk)."""
    value = est.metrics[end].m
    unit = f"{est.metrics[end].u:~}"
    worst = value / (1 + LOW)   # LOW < 0: the step time under-predicted, the figure larger
    assert _status(est, end, f"<= {worst * 1.01:.2f} {unit}") is Status.MET
    assert _status(est, end, f"<= {(value + worst) / 2:.2f} {unit}") is Status.AT_RISK
    assert _status(est, end, f"<= {value * 0.99:.2f} {unit}") is Status.NOT_MET


def test_goodput_tokens_per_second_low_is_judged_on_the_tokens_per_seconds_band(est):
    value = est.metrics["goodput_tokens_per_second_low"].m_as("1/s")
    worst = value / (1 + est.bands["goodput_tokens_per_second_low"].high)   # the rate over-predicted: lower
    assert worst == pytest.approx(value * (1 + LOW))   # the step time's band, turned
    assert _status(est, "goodput_tokens_per_second_low", f">= {worst * 0.99} 1/s") is Status.MET
    assert _status(est, "goodput_tokens_per_second_low", f">= {(value + worst) / 2} 1/s") is Status.AT_RISK
    assert _status(est, "goodput_tokens_per_second_low", f">= {value * 1.01} 1/s") is Status.NOT_MET


def test_the_dataset_read_bandwidth_takes_the_tokens_per_seconds_band(est):
    """Tokens/s x bytes per token x readers: the tokens/s's band, read as a rate (`band_span.PER_TIME`), not the
    step time's (its ends would then be the other way round)."""
    tps, read = est.bands["tokens_per_second"], est.bands["dataset_read_bandwidth"]
    assert (read.low, read.high) == (pytest.approx(tps.low), pytest.approx(tps.high))
    value = est.metrics["dataset_read_bandwidth"].m_as("MB/s")
    high = value / (1 + tps.low)   # the most it may read: the tokens/s under-predicted
    assert est.bands["dataset_read_bandwidth"].values(est.metrics["dataset_read_bandwidth"])[1].m_as("MB/s") \
        == pytest.approx(high)
    assert _status(est, "dataset_read_bandwidth", f"<= {high * 1.01} MB/s") is Status.MET   # before: at risk
    assert _status(est, "dataset_read_bandwidth", f"<= {(value + high) / 2} MB/s") is Status.AT_RISK
    assert _status(est, "dataset_read_bandwidth", f"<= {value * 0.99} MB/s") is Status.NOT_MET
