"""A target on a cost per hour may be written in a currency per time (newuser27's open finding 6).

A buyer wrote `tco_per_accelerator_hour <= 2.5 USD/h` and got "not comparable with tco_per_accelerator_hour
(expected USD)": the metric is an amount per accelerator-hour, declared in plain USD. A metric `per` an hour
(`Metric.per`) now takes a currency per time as the amount for one hour: 2.5 USD/h is 2.5 USD, 0.05 USD/min is
0.05 x 60 = 3 USD. A metric that is no amount per time (capex) still refuses it.
"""

from __future__ import annotations

import pytest

from archgen.errors import SpecError
from archgen.metrics import as_limit, find
from archgen.model.requirements import Requirements
from archgen.units import Q_


def _requirements(metric: str, target: str) -> Requirements:
    return Requirements.model_validate({"kind": "Requirements", "id": "r", "requirements": [
        {"id": "C-001", "statement": "Cost", "subject": "cluster/*", "metric": metric, "target": target}]})


@pytest.mark.parametrize(("target", "usd"), [("<= 2.5 USD/h", 2.5), ("<= 0.05 USD/min", 3.0), ("<= 2.5 USD", 2.5),
                                             ("<= 2.3 EUR/h", None)])
def test_a_currency_per_time_is_the_amount_for_one_hour(target, usd):
    limit = _requirements("tco_per_accelerator_hour", target).requirements[0].target.limit
    if usd is None:   # another currency: converted to its amount, in that currency
        assert str(limit.units) == "EUR" and limit.m == pytest.approx(2.3)
    else:
        assert str(limit.units) == "USD" and limit.m == pytest.approx(usd)


def test_a_job_cost_per_hour_takes_it_too():
    assert as_limit("job_cost_per_hour", Q_(1800, "USD/h"), ("workload",)) == Q_(1800, "USD")
    assert find("cluster", "tco_per_goodput_accelerator_hour_high").per == "h"


def test_a_metric_that_is_no_amount_per_time_refuses_it():
    with pytest.raises(Exception, match=r"not comparable with capex \(expected USD\)"):
        _requirements("capex", "<= 80000000 USD/h")


def test_a_wrong_unit_names_both_forms():
    with pytest.raises(Exception, match=r"not comparable with tco_per_accelerator_hour \(expected USD, or a currency "
                                        r"per time such as 'USD/h'\)"):
        _requirements("tco_per_accelerator_hour", "<= 2.5 USD/kWh")


def test_spec_error_is_located(tmp_path):
    from archgen.pipeline import run
    (tmp_path / "r.yaml").write_text("kind: Requirements\nid: r\nrequirements:\n- {id: C-001, statement: Cost, "
                                     "subject: 'cluster/*', metric: capex, target: '<= 8 USD/h'}\n", encoding="utf-8")
    with pytest.raises(SpecError, match=r"r.yaml:4:\d+: error: requirements.0.target"):
        run([tmp_path])


@pytest.mark.parametrize("written", ["5 EUR/year", "5 EUR/a", "5 EUR/yr"])
def test_a_year_in_the_message_reads_year(written):
    """money40's input: '<= 5 EUR/year' on capex was refused as "target '<= 5 EUR/a'", pint's symbol for a year."""
    with pytest.raises(Exception, match=r"target '<= 5 EUR/year' is not comparable with capex"):
        _requirements("capex", f"<= {written}")
