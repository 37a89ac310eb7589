"""A target on an amount of money has at most its currency's decimals; a price per unit keeps its own (money40).

'<= 5.000 EUR' on capex was read as 5 EUR: a price field refused it (money3dec39: no amount in EUR has three
decimals, so its dot most likely groups thousands), but a requirement's target could not tell an amount (capex,
a cost per year, a job's cost) from a price per accelerator-hour or per million tokens, where three decimals are
legitimate ('<= 2.321 USD' per accelerator-hour). The metric tells them apart (`Metric.amount`).
"""

from __future__ import annotations

import re

import pytest
import yaml

from archgen.errors import SpecError
from archgen.metrics import REGISTRY, amount
from archgen.model import Workload
from archgen.model.requirements import Requirements
from archgen.pipeline import run
from archgen.units import Q_
from tests.analyse.test_cost import TCO_REQUIREMENT
from tests.conftest import SPECS

SERVED = SPECS.parent / "tests" / "data" / "mlperf-server" / "serve-405b-gb200.yaml"


def _edited(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


def test_an_amount_target_with_three_decimals_is_refused_at_its_line(tmp_path):
    """The shipped Llama 3.1 70B pre-training job, given a job-cost target '<= 1.500 USD': refused where written."""
    text = (SPECS / "workloads" / "llama3-70b.yaml").read_text(encoding="utf-8")
    line = ('  - {id: REQ-PERF-002, statement: Training throughput, metric: tokens_per_second, '
            'target: ">= 600000 tokens/s"}\n')
    text = _edited(text, line, line + '  - {id: REQ-COST-009, statement: The run, metric: job_cost, '
                                               'target: "<= 1.500 USD"}\n')
    (tmp_path / "llama3-70b.yaml").write_text(text, encoding="utf-8")
    at = text.splitlines().index(line.rstrip("\n")) + 2
    with pytest.raises(SpecError) as e:
        run([tmp_path])
    message = str(e.value)
    assert re.search(rf"llama3-70b\.yaml:{at}:\d+: error: requirements\.2\.target: expected job cost as an amount of "
                     r"money such as '515000 USD', got '1\.500 USD'", message), message
    assert "write '1500 USD' (or, if the dot is a decimal point, '1.5 USD'): an amount in USD has at most 2 decimals" \
        in message


@pytest.mark.parametrize(("metric", "written"), [("capex", "<= 5.000 EUR"), ("tco_per_year", "<= 10.2345 USD"),
                                                 ("energy_cost_per_year", "<= 5.5 JPY")])
def test_every_amount_metric_refuses_it(metric, written):
    with pytest.raises(Exception, match=r"as an amount of money such as '515000 USD', got '[\d.]+ [A-Z]{3}'"):
        Requirements.model_validate(yaml.safe_load(TCO_REQUIREMENT.replace("tco_per_accelerator_hour", metric)
                                                   .replace("<= 2.5 USD", written)))


def test_a_rate_target_keeps_its_decimals():
    """Owning cost per accelerator-hour (the shipped DGX B200 SuperPOD's is 2.321 USD), and a served job's cost per
    million tokens (newuser68's MLPerf GB200 server job): their targets are prices per unit, read as written."""
    tco = Requirements.model_validate(yaml.safe_load(TCO_REQUIREMENT.replace("<= 2.5 USD", "<= 2.321 USD")))
    assert tco.requirements[0].target.limit == Q_(2.321, "USD")
    served = yaml.safe_load(SERVED.read_text(encoding="utf-8").replace('target: "<= 5 USD"', 'target: "<= 0.125 USD"'))
    (cost,) = [r for r in Workload.model_validate(served).requirements if r.metric == "cost_per_million_tokens"]
    assert cost.target.limit == Q_(0.125, "USD")


def test_an_amount_in_its_minor_unit_and_another_dimension_are_left_as_before():
    ok = Requirements.model_validate(yaml.safe_load(TCO_REQUIREMENT.replace("tco_per_accelerator_hour", "capex")
                                                    .replace("<= 2.5 USD", "<= 400.50 USD")))
    assert ok.requirements[0].target.limit == Q_(400.5, "USD")
    with pytest.raises(Exception, match=r"not comparable with capex") as e:   # not told to write '5000 EUR/year'
        Requirements.model_validate(yaml.safe_load(TCO_REQUIREMENT.replace("tco_per_accelerator_hour", "capex")
                                                   .replace("<= 2.5 USD", "<= 5.000 EUR/year")))
    assert "amount of money such as" not in str(e.value)


def test_amounts_and_prices_are_declared_as_their_names_say():
    """A money metric named a cost per something but a year is a price (`per` a time, or `per_unit`), never an
    amount; a name is one or the other on every kind of object that has it (`metrics.amount` reads names alone)."""
    money = [m for m in REGISTRY if m.money]
    for m in money:
        per = re.search(r"_per_(?!year)", m.name)
        assert m.amount is not bool(per), m.name
    assert {m.name for m in money if amount(m.name) is not None} == {m.name for m in money if m.amount}
    assert amount("capex") is not None and amount("tco_per_accelerator_hour") is None and amount("mfu") is None
