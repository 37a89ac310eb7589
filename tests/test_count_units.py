"""Rate targets in the unit every output prints (small25): the registry names the counts `token`, `request` and
`sample`, each a number as pint's own `count` is, so ``>= 600000 tokens/s`` is the target ``>= 600000 1/s``.

A count is taken only where it is what the value counts: on a metric that counts tokens (`Metric.counts`), in a
field that declares it (`Dim.counts`: a request rate counts requests). Everywhere else it is refused, so no value
becomes comparable that was not (a tokens/s target on a power, requests/s on tokens/s, '700 W/token' as a power).
"""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from archgen import metrics
from archgen.model.target import Target
from archgen.units import Q_, Power, RequestRate, uncounted

_JOB = ("workload",)


@pytest.mark.parametrize("written", ["600000 tokens/s", "600000 token/s", "600000 requests/s", "600000 samples/s"])
def test_a_counted_rate_is_the_rate(written):
    """A count is 1: the quantity equals 600000 1/s, and taking the count out keeps the number as written."""
    q = Target.parse(f">= {written}").limit
    assert q == Q_(600000, "1/s")
    assert uncounted(q).units == Q_(1, "1/s").units and uncounted(q).magnitude == 600000


def test_an_interruption_rate_target_in_the_unit_check_prints():
    """check prints "interruptions_per_day = 7.62 interruptions/day" (`Metric.rate_unit`); the same words as a
    target were "unknown unit 'interruptions/day'" (newuser69), and the plain number "not comparable". Now the
    target is the rate it names, and a count of interruptions on a rate of tokens is refused as any other count."""
    limit = Target.parse("<= 10 interruptions/day").limit
    assert limit == Q_(10, "1/day")
    assert metrics.dimension_problem("interruptions_per_day", limit, ("workload", "cluster")) is None
    assert metrics.as_limit("interruptions_per_day", limit, _JOB) == Q_(10, "1/day")
    assert metrics.dimension_problem("tokens_per_second", Target.parse(">= 5 interruptions/s").limit, _JOB)


def test_a_tokens_per_s_target_is_judged_as_1_per_s():
    """On tokens_per_second (counts tokens) the target is accepted and its limit is the one '>= 600000 1/s' gave,
    so the requirement's value, headroom and JSON are those of the old spelling."""
    limit = Target.parse(">= 600000 tokens/s").limit
    assert metrics.dimension_problem("tokens_per_second", limit, _JOB) is None
    as_limit = metrics.as_limit("tokens_per_second", limit, _JOB)
    assert str(Target(">=", as_limit)) == str(Target.parse(">= 600000 1/s")) == ">= 600000 1/s"
    assert metrics.as_limit("tokens_per_second", Q_(2, "ktoken/s"), _JOB) == Q_(2000, "1/s")


@pytest.mark.parametrize(("metric", "target", "expected"), [
    ("it_power", ">= 25 tokens/s", "expected kW"),                       # a rate is no power
    ("tokens_per_second", ">= 25 requests/s", "expected tokens/s"),      # another count than the metric's
    ("tokens_per_second", ">= 25 tokens**2/s", "expected tokens/s"),     # the count once
    ("mfu", ">= 0.3 tokens", "expected a number"),                       # a fraction counts nothing
    ("interruptions_per_day", "<= 2 tokens/day", "expected interruptions/day"),
])
def test_a_count_on_a_metric_that_counts_another_is_refused(metric, target, expected):
    subjects = ("workload", "cluster")
    why = metrics.dimension_problem(metric, Target.parse(target).limit, subjects)
    assert why is not None and expected in why


class _M(BaseModel):
    rate: RequestRate | None = None
    power: Power | None = None


def test_a_request_rate_takes_requests_only():
    """'40 requests/s' is the arrival rate '40 1/s'; '40 tokens/s' is refused with what a request rate counts."""
    assert _M(rate="40 requests/s").rate == Q_(40, "1/s")
    assert f"{_M(rate='40 requests/s').rate.units:~P}" == "1/s"   # JSON writes '40 1/s', as before
    with pytest.raises(ValidationError) as err:
        _M(rate="40 tokens/s")
    e = err.value.errors()[0]
    assert "which counts tokens" in e["msg"] and e["ctx"]["hint"] == "a request rate counts requests"


def test_a_count_in_a_field_that_counts_nothing_is_refused():
    """A power per token is no power: refused, where reading the count as 1 would take '700 W/token' as 700 W."""
    with pytest.raises(ValidationError) as err:
        _M(power="700 W/token")
    assert "which counts tokens" in err.value.errors()[0]["msg"]


def test_a_fraction_counts_nothing():
    """'0.5 tokens' is dimensionless, as a count is; a share field refuses it as it refuses '5 m'."""
    from pydantic_core import PydanticCustomError

    from archgen.model.field_types import FRACTION_EXPECTED, as_fraction

    assert as_fraction("85 %") == pytest.approx(0.85)
    with pytest.raises(PydanticCustomError) as err:
        as_fraction("0.5 tokens")
    assert str(err.value) == FRACTION_EXPECTED


def test_a_count_a_metric_is_per_is_named():
    """'<= 0.5 J/token' on energy_per_token (already per token): refused, saying the metric's name says so."""
    why = metrics.dimension_problem("energy_per_token", Target.parse("<= 0.5 J/token").limit, ("point",))
    assert why is not None and "expected J; 'token' is a count, not a unit of it" in why
