"""A serving point's cost per token carries the range its throughput's band gives, as tokens/s per GPU does (cost31).

newuser85 (issue 22): a sweep of the GB300 serving job gave tokens/s per GPU a range (630 to 979 in points.csv) and
left "Cost per token (low)" and "(high)" empty. A serving job's cost per token is its cost per hour over its tokens
per hour (`derived.cost_per_token`), the cost per hour exact as far as the model goes, so its range is the cost per
hour over the throughput band's ends: low = cost x tokens/s / tokens/s high, high = cost x tokens/s / tokens/s low,
the band `check` judges it on (`run_figures.serving_cost_bands`). The point's requirements are judged as before.
"""

from __future__ import annotations

import pytest

from archgen.perf.explore.points import evaluate_point
from tests.test_sweep_band import _problem, _single


def test_a_serving_points_cost_per_token_has_its_throughputs_range(tmp_path, shipped):
    est = shipped.workloads["workload/llama3-70b-serve-gb200"].estimate
    p = _problem(tmp_path, _single("llama3-70b-serve-gb200", est.accelerators, "cost_per_token"))
    m = evaluate_point(p, 0).metrics
    cost, tps = m["cost_per_token"], m["tokens_per_second"]
    assert (m["cost_per_token_low"], m["cost_per_token_high"]) == pytest.approx(
        (cost * tps / m["tokens_per_second_high"], cost * tps / m["tokens_per_second_low"]), rel=1e-9)
    low, high = est.bands["cost_per_token"].values(est.metrics["cost_per_token"])   # check's band, the same
    assert (m["cost_per_token_low"], m["cost_per_token_high"]) == pytest.approx(
        (low.m_as("USD"), high.m_as("USD")), rel=1e-9)
