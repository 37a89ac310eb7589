"""A cost per hour shows its hour wherever it shows (newuser103's buyer, reltidy42).

A target written '<= 2.5 USD/h' on `tco_per_accelerator_hour` printed '<= 2.5 USD', its value '1.920 USD', and the
JSON unit was "USD": a buyer reads a total. The metric is held as the amount for one hour (`Metric.as_limit`), so
the number is the rate's; what it is shown in now names the hour: text and documents ('USD/h', `Metric.rate_unit`),
the target (`Target.per`), the compliance matrix and `gap`, and the JSON per second as every JSON time is ('USD/s').
"""

from __future__ import annotations

import re

import pytest

from archgen import metrics
from archgen.compare.gap import judge_proposal
from archgen.display import metric_value, target_text
from archgen.docs import json_unit_of, metrics_page
from archgen.output.diff_cells import label_of
from archgen.output.envelope import metric_quantity
from archgen.output.gap import margin_text, markdown, target_cell, value_cell
from archgen.units import Q_
from tests.conftest import shipped_edited

CLUSTER = "cluster/gb200-nvl72-su"
REQS = """kind: Requirements
id: buyer
requirements:
  - {id: REQ-TCO-H, statement: Owning cost of a GPU-hour, subject: cluster/gb200-nvl72-su,
     metric: tco_per_accelerator_hour, target: "<= 2.5 USD/h"}
  - {id: REQ-TCO-A, statement: The same as the amount for one hour, subject: cluster/gb200-nvl72-su,
     metric: tco_per_accelerator_hour, target: "<= 2.5 USD"}
"""


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    root = tmp_path_factory.mktemp("per-hour")
    return root, shipped_edited(root, "clusters/gb200-nvl72-su.yaml", "kind: Cluster\n", "kind: Cluster\n",
                                {"buyer.yaml": REQS})


def test_text_and_targets_name_the_hour(result):
    _, run = result
    m = metrics.lookup(CLUSTER, "tco_per_accelerator_hour")
    value = run.metrics[CLUSTER]["tco_per_accelerator_hour"]
    assert m is not None and m.money_rate and metric_value(m, value).endswith(" USD/h")
    judged = set()
    for rid in ("REQ-TCO-H", "REQ-TCO-A"):   # written per hour, or as the amount for one: one target, shown alike
        (j,) = [j for j in run.requirements if j.bound.req.id == rid]
        assert str(j.bound.req.target) == "<= 2.5 USD/h" == target_text(j.bound.req.target, m)
        judged.add((j.outcome.status, j.outcome.value, j.bound.req.target))
    assert len(judged) == 1                     # one judgement, on the amount for one hour, as before
    assert metric_value(metrics.lookup(CLUSTER, "tco_per_year"), run.metrics[CLUSTER]["tco_per_year"]).endswith(
        " USD")   # a year's cost is an amount, an invoice's line: no time after it


def test_gap_shows_the_hour_in_every_cell(result):
    root, run = result
    gap = judge_proposal(run, {"buyer"}, [root / "specs" / "clusters" / "gb200-nvl72-su.yaml"])
    row = next(r for r in gap.rows if r.requirement.id == "REQ-TCO-H")
    assert target_cell(row) == "<= 2.5 USD/h"
    assert value_cell(row).split(" (")[0].endswith("USD/h"), value_cell(row)
    assert margin_text(row).endswith("USD/h)"), margin_text(row)
    assert "<= 2.5 USD/h" in markdown(gap)


def test_json_gives_a_cost_per_hour_per_second():
    assert metric_quantity("tco_per_accelerator_hour", Q_(1.8, "USD")) == {"value": pytest.approx(0.0005),
                                                                           "unit": "USD/s"}
    assert metric_quantity("job_cost_per_hour_high", Q_(3600, "EUR")) == {"value": pytest.approx(1.0),
                                                                          "unit": "EUR/s"}
    assert metric_quantity("tco_per_year", Q_(5, "USD")) == {"value": 5.0, "unit": "USD"}   # an amount stays one
    assert json_unit_of(metrics.find("cluster", "tco_per_accelerator_hour")) == "USD/s"


def test_diff_and_the_metric_list_name_the_hour():
    assert label_of(CLUSTER, "tco_per_accelerator_hour", "EUR") == "EUR/h"
    row = next(x for x in metrics_page().splitlines() if x.startswith("| `tco_per_accelerator_hour` |"))
    assert row.startswith("| `tco_per_accelerator_hour` | USD/h | USD/s |"), row


def test_a_documents_findings_table_gives_value_and_limit_per_hour(result):
    from archgen.render.common import _found

    _, run = result
    (f,) = [f for f in run.findings if f.requirement == "REQ-TCO-H"]
    judged_on = {("REQ-TCO-H", CLUSTER): "tco_per_accelerator_hour"}
    assert _found(f, judged_on, limit=True) == "2.500 USD/h"     # before: '2.5 USD'
    assert _found(f, judged_on).endswith(" USD/h")


def test_a_lower_bound_on_a_cost_per_hour_names_the_hour(result):
    # review63: REQ004 on a cost per hour that leaves unpriced parts out read "= 1.632 USD/h meets <= 2.5 USD/h ...:
    # tco_per_accelerator_hour is at least 1.632 USD, a lower bound, ... which must add under 0.8678 USD"
    _, run = result
    (f,) = [f for f in run.findings if f.requirement == "REQ-TCO-H"]
    assert f.id == "REQ004" and "a lower bound" in f.message
    assert re.search(r"is at least [\d.,]+ USD/h, a lower bound", f.message), f.message
    assert re.search(r"must add under [\d.,]+ USD/h for it to hold", f.message), f.message
