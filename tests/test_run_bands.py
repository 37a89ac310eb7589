"""A training run's time and whole cost carry the model's error band of the tokens/s they are made from (issue 20 part 7).

newuser34's BOLT design: `time_to_train` 93.0 d <= 120 d read "met" while the tokens/s it is made from was "at risk"
(its band's low end, about 1.16 M/s, gives about 150 d): time to train, goodput time to train and the run's cost
were judged with no band. Each is the run's tokens over its tokens/s (over goodput, times the cost per hour), so
proportional to the step time: its band is the step time's (`perf.workload.run_figures.run_bands`). The shipped 405B GB200
job with a token budget (15.6e12 tokens, Llama 3.1 405B's, arXiv 2407.21783 section 3.1) is the design here.
"""

from __future__ import annotations

import pytest

from archgen.model.requirements import Requirement, Status
from archgen.perf.workload.band_table import TABLE
from archgen.perf.workload.derived import judge_requirements
from tests.conftest import shipped_edited

PATH = "workloads/llama3-405b.yaml"
OLD = "  precision: bf16\nrequirements:\n"   # the first: llama3-405b-pretrain-gb200's
TOKENS = 15.6e12
NEW = f"  precision: bf16\ncheckpoint: {{tokens: {TOKENS:g}}}\nrequirements:\n"
JOB = "workload/llama3-405b-pretrain-gb200"
#: The dense-training band of the step time: its lowest and highest signed error (docs/gen_bands.py scores it).
LOW, HIGH = TABLE["dense-training"]["step_time"][1:3]


@pytest.fixture(scope="module")
def est(tmp_path_factory):
    return shipped_edited(tmp_path_factory.mktemp("run"), PATH, OLD, NEW).workloads[JOB].estimate


def _status(est, metric: str, target: str) -> Status:
    [o] = judge_requirements([Requirement(id="REQ-X-001", statement="x", metric=metric, target=target)], est)
    return o.status


@pytest.mark.parametrize("metric", ["time_to_train", "goodput_time_to_train", "job_cost"])
def test_a_runs_time_and_cost_band_is_the_step_times(est, metric):
    """Proportional to the step time, in its direction: [v / (1 + highest error), v / (1 + lowest error)]."""
    v = est.metrics[metric]
    lo, hi = est.bands[metric].values(v)
    assert (lo.m, hi.m) == (pytest.approx(v.m / (1 + HIGH)), pytest.approx(v.m / (1 + LOW)))
    assert est.bands[metric].describe() == est.bands["step_time"].describe()


@pytest.mark.parametrize("metric", ["time_to_train", "goodput_time_to_train"])
def test_a_time_to_train_met_only_by_the_estimate_is_at_risk(est, metric):
    v = est.metrics[metric].m_as("day")
    slow = v / (1 + LOW)   # the band's pessimistic end (goodput's too: taken at goodput_low, below)
    if metric == "goodput_time_to_train":
        slow = est.metrics["goodput_time_to_train_high"].m_as("day") / (1 + LOW)
    assert _status(est, metric, f"<= {v * 0.99} day") is Status.NOT_MET
    assert _status(est, metric, f"<= {(v + slow) / 2} day") is Status.AT_RISK   # before: met
    assert _status(est, metric, f"<= {slow * 1.01} day") is Status.MET


def test_goodput_time_to_train_spans_goodputs_range(est):
    """newuser38: the goodput time to train is the time to train over goodput, so over goodput's own range
    (`goodput_low`, `goodput_high`: the published rate sets and their Poisson intervals, docs/reliability.md) it runs
    from time / goodput_high to time / goodput_low, and the step time's band is taken at each end of that, as for
    `job_cost`. Before, its band was the step time's alone: on this job a target met at the band's pessimistic end
    at the point goodput read "met" though the rate sets' low goodput would miss it."""
    t = est.metrics["time_to_train"].m_as("day")
    g, g_low, g_high = (est.metrics[k].m for k in ("goodput", "goodput_low", "goodput_high"))
    assert 0 < g_low < g < g_high
    assert est.metrics["goodput_time_to_train"].m_as("day") == pytest.approx(t / g)
    low, high = (est.metrics[f"goodput_time_to_train_{end}"].m_as("day") for end in ("low", "high"))
    assert (low, high) == (pytest.approx(t / g_high), pytest.approx(t / g_low))
    [o] = judge_requirements([Requirement(id="REQ-X-001", statement="x", metric="goodput_time_to_train",
                                          target=f"<= {t / g / (1 + LOW) * 1.01} day")], est)
    assert o.status is Status.AT_RISK   # before: met (the step time's band at the point goodput only)
    assert o.band is not None
    assert (o.band[0].m_as("day"), o.band[1].m_as("day")) == (pytest.approx(t / g_high / (1 + HIGH)),
                                                                pytest.approx(t / g_low / (1 + LOW)))


def test_time_to_train_and_the_tokens_per_second_it_is_made_from_agree(est):
    """BOLT's case: a time-to-train target is a tokens/s target, tokens / time; the two read the same status."""
    tps = est.metrics["tokens_per_second"].m_as("1/s")
    assert est.metrics["time_to_train"].m_as("s") == pytest.approx(TOKENS / tps)
    for factor in (0.99, 0.9, 0.7, 0.6):   # met, at risk (twice), met at the pessimistic end 0.6 < 1 + LOW
        target = tps * factor
        by_rate = _status(est, "tokens_per_second", f">= {target} 1/s")
        assert _status(est, "time_to_train", f"<= {TOKENS / target / 86400} day") is by_rate, factor
    assert {_status(est, "tokens_per_second", f">= {tps * f} 1/s") for f in (0.9, 0.6)} == {Status.AT_RISK,
                                                                                          Status.MET}


def test_a_runs_cost_takes_the_band_at_each_end_of_its_spares_range(est):
    """`job_cost` has a range of its own (goodput's ends and the hot spares, `job_cost_low/high`): its band is taken at
    each end of it, so a target met at the range's high end but not with the model's error there is at risk."""
    low, high = (est.metrics[f"job_cost_{end}"].m_as("USD") for end in ("low", "high"))
    worst = high / (1 + LOW)
    [o] = judge_requirements([Requirement(id="REQ-X-001", statement="x", metric="job_cost",
                                          target=f"<= {(high + worst) / 2:.2f} USD")], est)  # in cents: an amount
    # has its currency's decimals (money40 refuses '112552353.9180718 USD')
    assert o.status is Status.AT_RISK   # before: met, the range's high end meeting it
    assert o.band is not None
    assert (o.band[0].m_as("USD"), o.band[1].m_as("USD")) == (pytest.approx(low / (1 + HIGH)), pytest.approx(worst))
    assert _status(est, "job_cost", f"<= {worst * 1.01:.2f} USD") is Status.MET


def test_check_says_what_a_runs_cost_band_spans(tmp_path, est):
    """REQ004 names the model's error and the cost's own range (goodput's ends, and the spares where there are)."""
    high = est.metrics["job_cost_high"].m_as("USD")
    target = (high + high / (1 + LOW)) / 2
    line = f"  - {{id: REQ-PERF-029, statement: Run cost, metric: job_cost, target: '<= {target:.6e} USD'}}\n"
    r = shipped_edited(tmp_path, PATH, OLD, NEW + line)
    [f] = [f for f in r.findings if f.id == "REQ004" and "REQ-PERF-029" in f.message]
    assert f"model error {LOW:+.1%} to {HIGH:+.1%}" in f.message   # 576 of 576: goodput's ends, no spare to charge
    assert "; taken at each end of its range from the job's 576 accelerators per goodput token at goodput_high to " \
        "the same, per goodput token at goodput_low" in f.message
