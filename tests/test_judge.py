"""One judgement of a requirement (`model.requirements.judge`) and one status vocabulary, used by every command."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from archgen.model.requirements import Requirement, Status, judge, judge_each
from archgen.units import Q_

PACKAGE = Path(__file__).resolve().parent.parent / "archgen"


def req(target: str, metric: str = "it_power") -> Requirement:
    return Requirement(id="REQ-PWR-001", statement="IT load", metric=metric, target=target)


@pytest.mark.parametrize(("target", "value", "status"), [
    ("<= 132 kW", Q_(131.6, "kW"), Status.MET),
    ("<= 132 kW", Q_(132_000.1, "W"), Status.NOT_MET),
    ("< 132 kW", Q_(132, "kW"), Status.NOT_MET),          # a strict target is not met at the limit
    (">= 0.35", Q_(0.558, ""), Status.MET),
    ("== 72", Q_(72, ""), Status.MET),
])
def test_judge_compares_in_the_targets_unit(target, value, status):
    o = judge(req(target), value)
    assert o.status is status and o.met is (status is Status.MET) and o.value == value and o.band is None


def test_nothing_to_judge_is_not_provided_with_the_reason():
    o = judge(req("<= 132 kW"), None, "rack/r has no metric 'it_power'")
    assert (o.status, o.met, o.value, o.note, o.headroom, o.margin) == (
        Status.NOT_PROVIDED, None, None, "rack/r has no metric 'it_power'", None, None)
    wrong = judge(req("<= 132 kW"), Q_(18, "U"))
    assert wrong.status is Status.NOT_PROVIDED and wrong.note.startswith("target <= 132 kW does not have the dimension")


def test_headroom_and_margin_come_with_the_outcome():
    o = judge(req("<= 132 kW"), Q_(131.6, "kW"))
    assert o.headroom.m_as("kW") == pytest.approx(0.4) and o.margin == pytest.approx(0.4 / 132)


def test_the_status_words_are_the_ones_every_report_prints():
    assert [s.value for s in Status] == ["met", "at risk", "not met", "not provided", "not applicable"]


# A throughput estimate of 1.0e6 tokens/s whose band (perf.workload.bands) is [p / (1 + 0.302), p / (1 - 0.085)]: 768,049 to
# 1,092,896 tokens/s (1e6 / 1.302 and 1e6 / 0.915).
BAND = (Q_(1e6 / 1.302, "1/s"), Q_(1e6 / 0.915, "1/s"))


@pytest.mark.parametrize(("target", "status", "pessimistic"), [
    (">= 700000 1/s", Status.MET, 1e6 / 1.302),       # the low end 768,049 meets it too
    (">= 800000 1/s", Status.AT_RISK, 1e6 / 1.302),   # met at 1e6, not at 768,049
    (">= 1000000 1/s", Status.AT_RISK, 1e6 / 1.302),  # met at the limit itself
    (">= 1100000 1/s", Status.NOT_MET, 1e6 / 1.302),  # the estimate misses it: not met, whatever the band
    ("<= 1050000 1/s", Status.AT_RISK, 1e6 / 0.915),  # a ceiling is at risk at the band's high end, 1,092,896
    ("<= 1100000 1/s", Status.MET, 1e6 / 0.915),
])
def test_a_value_met_but_not_across_its_band_is_at_risk(target, status, pessimistic):
    o = judge(req(target, "tokens_per_second"), Q_(1e6, "1/s"), band=BAND)
    assert o.status is status and o.met is (status is not Status.NOT_MET)
    assert o.pessimistic.m_as("1/s") == pytest.approx(pessimistic) and o.band == BAND


def test_without_a_band_nothing_is_at_risk():
    o = judge(req(">= 800000 1/s", "tokens_per_second"), Q_(1e6, "1/s"))
    assert o.status is Status.MET and o.pessimistic is None


def test_no_module_but_judge_compares_a_value_with_a_target():
    """Two copies of a rule drift (STYLE.md habit 14): `Target.met_by` is called by `judge` alone."""
    calls = [f"{p.relative_to(PACKAGE)}:{i}" for p in PACKAGE.rglob("*.py")
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"\.met_by\(", line) and "def met_by" not in line]
    assert len(calls) == 1 and calls[0].startswith("model/requirements.py:"), calls


@pytest.mark.parametrize(("target", "values", "unit"), [
    ("<= 132 kW", [131_600.0, 132_000.0, 132_000.1, 1e9], "W"),   # converted to the target's unit, as judge does
    ("< 132 kW", [131.9, 132.0, 132.1], "kW"),                    # strict: not met at the limit
    (">= 0.35", [0.349, 0.35, 0.558], ""),
    ("> 0.35", [0.35, 0.351], ""),
    ("== 72", [71.0, 72.0, 73.0], ""),
])
def test_judge_each_is_judge_on_each_value(target, values, unit):
    """The array form a batched sweep uses (`judge_each`) gives, value by value, what `judge` gives on each."""
    r = req(target, "it_power" if unit else "mfu")
    assert judge_each(r, Q_(np.asarray(values), unit)) == [judge(r, Q_(v, unit)).met for v in values]


def test_judge_each_of_another_dimension_is_not_provided_as_judge():
    r = req("<= 132 kW")
    assert judge_each(r, Q_(np.asarray([1.0, 2.0]), "U")) is None
    assert judge(r, Q_(1.0, "U")).status is Status.NOT_PROVIDED


def test_no_module_but_judge_each_compares_arrays_with_a_target():
    """`Target.met_by_each` (the array comparison) is called by `tolerance.passes` alone, the one comparison (a miss
    within the requirement's tolerance included) that `judge` and `judge_each` both make (prop30)."""
    calls = [f"{p.relative_to(PACKAGE)}:{i}" for p in PACKAGE.rglob("*.py")
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"\.met_by_each\(", line) and "def met_by_each" not in line]
    assert len(calls) == 1 and calls[0].startswith("model/tolerance.py:"), calls


def test_a_value_that_rounds_to_its_limit_is_shown_with_the_digits_that_tell_them_apart():
    """relfix's finding: REQ004 read "goodput = 1.000 meets >= 0.99984, but ... 1.000 does not" (the registry's three
    decimals); a value whose rounding reads as the limit is shown at six significant figures, others as the matrix."""
    from archgen.checks.requirements import shown

    goodput = Requirement.model_validate({"id": "REQ-G-1", "statement": "s", "subject": "workload/*",
                                          "metric": "goodput", "target": ">= 0.99984"})
    assert [shown(goodput, Q_(v, ""), "workload/w") for v in (0.9999, 0.9997, 0.95)] == ["0.9999", "0.9997", "0.950"]
    ttft = Requirement.model_validate({"id": "REQ-G-2", "statement": "s", "subject": "workload/*",
                                       "metric": "ttft_p99", "target": "<= 0.45 s"})
    assert shown(ttft, Q_(0.2499, "s"), "workload/w") == "249.9 ms"


def test_a_sweep_point_is_judged_with_its_range_as_judge_judges_it():
    """`perf.workload.derived.judge_points` (both sweep paths) gives `judge`'s status on each point's value and range:
    the one "at risk" rule (`status_of`), met at the value but not at one end of its range."""
    from archgen.perf.workload.derived import judge_points
    r = req(">= 0.9", "goodput")
    points = [{"goodput": 0.95}, {"goodput": 0.95, "goodput_low": 0.85, "goodput_high": 0.97},
              {"goodput": 0.95, "goodput_low": 0.92, "goodput_high": 0.97}, {"goodput": 0.8, "goodput_low": 0.7,
                                                                             "goodput_high": 0.95},
              {"goodput": 0.95, "goodput_low": 0.85}]                          # one end only: no range
    expected = [judge(r, Q_(p["goodput"], ""), band=(Q_(p["goodput_low"], ""), Q_(p["goodput_high"], ""))
                      if "goodput_high" in p else None).status for p in points]
    assert judge_points(r, points, "") == expected == [Status.MET, Status.AT_RISK, Status.MET, Status.NOT_MET,
                                                       Status.MET]
    assert judge_points(req("<= 132 kW"), [{"it_power": 1.0}], "U") is None   # another dimension: not provided


def test_judge_values_is_judge_on_each_value_and_band():
    """`perf.workload.derived.judge_values` (the batched path's estimate metrics, and `judge_points` under it) gives
    `judge`'s status on each value with its band's ends, and on the value alone without them."""
    from archgen.perf.workload.derived import judge_values
    r = req("<= 132 kW")
    values, low, high = [120.0, 120.0, 140.0, 131.0], [110.0, 110.0, 130.0, 125.0], [130.0, 135.0, 150.0, 132.0]
    banded = [judge(r, Q_(v, "kW"), band=(Q_(lo, "kW"), Q_(hi, "kW"))).status
              for v, lo, hi in zip(values, low, high, strict=True)]
    assert judge_values(r, np.asarray(values), "kW", (np.asarray(low), np.asarray(high))) == banded == [
        Status.MET, Status.AT_RISK, Status.NOT_MET, Status.MET]
    assert judge_values(r, values, "kW") == [judge(r, Q_(v, "kW")).status for v in values]
    assert judge_values(r, values, "U") is None                      # another dimension: not provided
