"""A training job's cost per token and goodput tokens/s carry the step time's band, as its whole cost does (nu41cost).

newuser41's buyer review: `archgen gap vA2/ --against req2/` read cost per million tokens 3.66 <= 5 USD "met" and
job_cost 54.9 M <= 75 M USD (= 5 USD/M x 15 T tokens) "at risk": the same job and margin, because the cost per token
had its spares' range (3.55-4.71) and no band, while job_cost, the cost per token times the run's tokens, had the step
time's band at each end of that range. Every figure made from the job's tokens/s (`band_families.MADE_FROM_RATE`) now takes
the step time's band (`analyse.goodput.run_bands`), in a sweep too (`derived.judge_points`). The design is the shipped
405B GB200 job with Llama 3.1 405B's token budget (15.6e12 tokens, arXiv 2407.21783 section 3.1), as test_run_bands.
"""

from __future__ import annotations

import pytest

from archgen.model.requirements import Requirement, Status
from archgen.perf.workload.derived import judge_points, judge_requirements
from tests.conftest import shipped_edited
from tests.test_cost_range import SWEEP as SAME_JOB  # the shipped 70B job on 512 GPUs, one point
from tests.test_run_bands import HIGH, JOB, LOW, NEW, OLD, PATH, TOKENS, _status  # the same job and budget


@pytest.fixture(scope="module")
def est(tmp_path_factory):
    return shipped_edited(tmp_path_factory.mktemp("made"), PATH, OLD, NEW).workloads[JOB].estimate


def test_cost_per_million_tokens_and_job_cost_read_the_same_on_the_same_target(est):
    """job_cost = cost per token x tokens: a cost-per-token target x the tokens is the same job-cost target."""
    high = est.metrics["cost_per_million_tokens_high"].m_as("USD")
    worst = high / (1 + LOW)   # the range's high end with the model's pessimistic error there
    seen = set()
    for per_million in (est.metrics["cost_per_million_tokens"].m_as("USD") * 0.99, (high + worst) / 2,
                        worst * 1.01):
        by_token = _status(est, "cost_per_million_tokens", f"<= {per_million} USD")  # a rate: any decimals
        # a job's cost is an amount, in cents (money40 refuses '16408977.994319499 USD')
        assert _status(est, "job_cost", f"<= {per_million * TOKENS / 1e6:.2f} USD") is by_token, per_million
        seen.add(by_token)
    assert seen == {Status.NOT_MET, Status.AT_RISK, Status.MET}   # before: met at (high + worst) / 2


def test_cost_per_token_band_is_the_step_times_at_each_end_of_its_range(est):
    low, high = (est.metrics[f"cost_per_token_{end}"].m_as("USD") for end in ("low", "high"))
    [o] = judge_requirements([Requirement(id="REQ-X-001", statement="x", metric="cost_per_token",
                                          target=f"<= {high} USD")], est)
    assert o.status is Status.AT_RISK and o.band is not None
    assert (o.band[0].m_as("USD"), o.band[1].m_as("USD")) == (pytest.approx(low / (1 + HIGH)),
                                                              pytest.approx(high / (1 + LOW)))


def test_goodput_tokens_per_second_takes_the_tokens_per_seconds_band_at_each_end_of_goodputs_range(est):
    """Tokens/s times goodput: the tokens/s's band (the step time's, turned), at each end of goodput's range, which
    `check` now gives it (`goodput_tokens_per_second_low/high`, a sweep point's already had them)."""
    tps, band = est.bands["tokens_per_second"], est.bands["goodput_tokens_per_second"]
    assert (band.low, band.high) == (pytest.approx(tps.low), pytest.approx(tps.high))
    rate = est.metrics["tokens_per_second"].m_as("1/s")
    low, high = (est.metrics[f"goodput_tokens_per_second_{end}"].m_as("1/s") for end in ("low", "high"))
    assert (low, high) == (pytest.approx(rate * est.metrics["goodput_low"].m),
                           pytest.approx(rate * est.metrics["goodput_high"].m))
    value = est.metrics["goodput_tokens_per_second"].m_as("1/s")
    assert _status(est, "goodput_tokens_per_second", f">= {value * 0.99} 1/s") is Status.AT_RISK   # before: met
    slow = low / (1 + tps.high)   # goodput's low end with the band's pessimistic error there
    assert _status(est, "goodput_tokens_per_second", f">= {slow * 1.01} 1/s") is Status.AT_RISK
    assert _status(est, "goodput_tokens_per_second", f">= {slow * 0.99} 1/s") is Status.MET


def test_a_sweep_point_takes_the_band_at_each_end_of_its_range():
    """`judge_points`: a band's ends are the value times fixed factors, so each end of the range takes its side's."""
    point = {"cost_per_token": 1.0, "cost_per_token_low": 0.9, "cost_per_token_high": 1.2}
    band = (1.0 / 1.2, 1.0 / 0.8)   # errors +20 % and -20 %: [v / 1.2, v / 0.8] about the value
    req = Requirement(id="REQ-S-001", statement="c", metric="cost_per_token", target="<= 1.4 USD")
    assert judge_points(req, [point], "USD", [band]) == [Status.AT_RISK]   # 1.2 / 0.8 = 1.5; before: met (1.25)
    req = Requirement(id="REQ-S-001", statement="c", metric="cost_per_token", target="<= 1.51 USD")
    assert judge_points(req, [point], "USD", [band]) == [Status.MET]


SWEEP = SAME_JOB + """requirements:
  - {id: REQ-SWP-C, statement: Cost per token, metric: cost_per_token, target: '<= TARGET USD'}
"""


def test_a_sweep_point_and_check_read_a_training_cost_per_token_alike_on_both_paths(tmp_path, shipped):
    """The shipped 70B job on 512 of the DGX B200 SuperPOD's GPUs (as test_cost_range): a cost-per-token target
    between the range's high end and that end with the model's pessimistic error is at risk in `check` and in a sweep
    point, per-point and batched (before: met in all three, the spares' range alone)."""
    from archgen.perf.explore.points import evaluate
    from archgen.perf.explore.vectorised import evaluate as batched
    from tests.test_sweep import problem_of

    est = shipped.workloads["workload/llama3-70b-pretrain-b200"].estimate
    high = est.metrics["cost_per_token_high"].m_as("USD")
    target = (high + high / (1 + LOW)) / 2
    assert _status(est, "cost_per_token", f"<= {target} USD") is Status.AT_RISK
    p = problem_of(tmp_path, SWEEP.replace("TARGET", f"{target:.9e}"))
    for row in (*evaluate(p, 0, 1), *batched(p, 0, 1)):
        assert row.metrics["cost_per_token_high"] == pytest.approx(high, rel=1e-9)
        assert row.met["REQ-SWP-C"] is True and row.at_risk == ("REQ-SWP-C",)


def test_a_sweep_points_energy_per_token_takes_the_step_times_band_on_both_paths(tmp_path):
    """Energy per token is the point's power over its tokens/s (`derived.point_metrics`): proportional to the step
    time, so its band is the step time's (`band_families.MADE_FROM_RATE`). A target between the value and the band's
    pessimistic end, value / (1 + lowest error), is at risk per point and batched (before: met)."""
    from archgen.perf.explore.points import evaluate
    from archgen.perf.explore.vectorised import evaluate as batched
    from tests.test_sweep import problem_of

    text = SWEEP.replace("cost_per_token}", "energy_per_token}").replace(
        "{id: REQ-SWP-C, statement: Cost per token, metric: cost_per_token, target: '<= TARGET USD'}",
        "{id: REQ-SWP-E, statement: Energy per token, metric: energy_per_token, target: '<= TARGET J'}")
    (point,) = evaluate(problem_of(tmp_path, text.replace("TARGET", "1e9")), 0, 1)
    energy = point.metrics["energy_per_token"]
    target = (energy + energy / (1 + LOW)) / 2
    p = problem_of(tmp_path, text.replace("TARGET", f"{target:.9e}"))
    for row in (*evaluate(p, 0, 1), *batched(p, 0, 1)):
        assert row.metrics["energy_per_token"] == pytest.approx(energy, rel=1e-9)
        assert row.met["REQ-SWP-E"] is True and row.at_risk == ("REQ-SWP-E",)
