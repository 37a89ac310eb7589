"""JSON carries a ranged metric's band at both ends of its range, and an infinite end's reason (leftovers21).

nu41cost's open list: `check --format json` and `estimate --format json` gave a training job's cost per token the
model-error band at the value alone, while the text takes it at each end of the cost's range over goodput
(`derived.band_ends`: the band's low end at the range's low end, its high end at the range's high end); and an
infinite end read "no upper bound" in JSON where the text says why (`metric.unbounded`). The figures are the shipped
`llama3-405b-pretrain-gb200` job's, as `archgen check specs/ --format json` gave them on main: cost per token
1.0763e-06 USD, range 9.3493e-07 to 5.5717e-06 USD, dense-training band -38.15 % to +16.64 % (docs/accuracy.md).
"""

from __future__ import annotations

import math

import pytest

from archgen.display import SPARE_BASIS
from archgen.metric import UNBOUNDED, WHY_UNBOUNDED
from archgen.output.envelope import metric_quantity
from archgen.output.estimate import band_json
from archgen.perf.workload.bands import Band
from archgen.units import Q_

BAND = Band("dense-training", "cost_per_token", 87, -0.3815, 0.1664, 0.0881)
VALUE, LOW, HIGH = Q_(1.0762973e-06, "USD"), Q_(9.349276e-07, "USD"), Q_(5.571665e-06, "USD")


def _metrics(high=HIGH) -> dict:
    return {"cost_per_token": VALUE, "cost_per_token_low": LOW, "cost_per_token_high": high}


def test_the_band_is_taken_at_each_end_of_the_range():
    j = band_json(BAND, VALUE, _metrics(), "cost_per_token")
    # p / (1 + high) at the range's low end, p / (1 + low) at its high end; before: at the value, 9.23e-07 to 1.74e-06
    assert j["low"]["value"] == pytest.approx(9.349276e-07 / 1.1664)
    assert j["high"]["value"] == pytest.approx(5.571665e-06 / (1 - 0.3815))
    assert j["range"] == {"low": {"value": pytest.approx(9.349276e-07), "unit": "USD"},
                          "high": {"value": pytest.approx(5.571665e-06), "unit": "USD"}, "basis": SPARE_BASIS}
    alone = band_json(BAND, VALUE)                        # no range known: at the value, no `range`
    assert alone["range"] is None and alone["high"]["value"] == pytest.approx(1.0762973e-06 / (1 - 0.3815))


def test_an_infinite_end_says_why():
    j = band_json(BAND, VALUE, _metrics(Q_(math.inf, "USD")), "cost_per_token")
    assert j["high"] == j["range"]["high"] == {"value": None, "unit": "USD", "unbounded": UNBOUNDED}
    # a metric in another unit: before, quantity_json's "no upper bound" whatever the metric
    assert metric_quantity("restart_time_high", Q_(math.inf, "s"))["unbounded"] == WHY_UNBOUNDED["restart_time"]
    assert metric_quantity("goodput_time_to_train_high", Q_(math.inf, "s"))["unbounded"] == UNBOUNDED
    assert metric_quantity("ttft", Q_(math.inf, "s"))["unbounded"] == "no upper bound"
    assert metric_quantity("ttft", Q_(0.2, "s")) == {"value": 0.2, "unit": "s"}
