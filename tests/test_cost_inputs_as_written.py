"""A hall's cost inputs refused in the words and the unit they were written in (inputs35; newuser90, newuser92).

A utilisation of '0 %' read "expected a number greater than 0.0" and '120 %' "at most 1.0": the bounds of a share
written as a percentage are now given in its unit. `depreciation_years: 5 years` was refused as "expected a number",
while every other duration of the schema is a time with its unit ('72 h'): a time is now taken, in years, and from
a month (review54: '5 h' was taken as 0.00057 years).
"""

from __future__ import annotations

import pytest

from archgen.load import load_text
from archgen.validate import ValidateError, validate
from tests.analyse.test_unstated_utilisation import HALL

WHY = "a depreciation life spans more than one accounting period: a life of hours or days is a slip for years"


def _hall(lines: str):
    """Our hall with `lines` in place of its `depreciation_years: 5` line, validated."""
    return validate(load_text(HALL.replace("depreciation_years: 5", lines), "h.yaml"))


@pytest.mark.parametrize(("written", "message"), [
    ("0 %", "h.yaml:10:16: error: cost.utilisation: expected a share above 0 % and at most 100 %, got '0 %'"),
    ("120 %", "h.yaml:10:16: error: cost.utilisation: expected a share above 0 % and at most 100 %, got '120 %'"),
])
def test_a_utilisation_out_of_range_is_refused_in_percent(written, message):
    with pytest.raises(ValidateError) as err:
        _hall(f"depreciation_years: 5\n  utilisation: {written}")
    assert str(err.value).splitlines()[0] == message


@pytest.mark.parametrize(("written", "years"), [("5", 5.0), ("5 years", 5.0), ("60 months", 5.0), ("4.5 yr", 4.5),
                                               ("6 months", 0.5), ("0.5", 0.5), ("28 days", 28 / 365.25)])
def test_depreciation_years_take_a_number_of_years_or_a_time(written, years):
    assert _hall(f"depreciation_years: {written}").get("our-hall").cost.depreciation_years == years


@pytest.mark.parametrize(("written", "expected"), [
    ("5 kg", "a number of years such as 5, or a time such as '5 years' or '60 months', got '5 kg'"),
    ("five", "a number of years such as 5, or a time such as '5 years' or '60 months', got 'five'"),
    ("40 years", "a time from 28 days to 30 years, got '40 years'"),
    ("0 years", "a time from 28 days to 30 years, got '0 years'"),
    ("0", "a number of years from 0.0767 (28 days) to 30, got 0"),
    ("-5", "a number of years from 0.0767 (28 days) to 30, got -5"),
    # review54: '5 h' was taken as 0.00057 years; a life under a month is a slip for years (MIN_YEARS)
    ("5 h", f"a time from 28 days to 30 years, not 0.00057 years ({WHY}), got '5 h'"),
    ("27 days", f"a time from 28 days to 30 years, not 0.074 years ({WHY}), got '27 days'"),
    ("0.01", f"a number of years from 0.0767 (28 days) to 30 ({WHY}), got 0.01"),
])
def test_depreciation_years_out_of_range_or_of_a_dimension_are_refused(written, expected):
    with pytest.raises(ValidateError) as err:
        _hall(f"depreciation_years: {written}")
    assert str(err.value).splitlines()[0] == f"h.yaml:9:23: error: cost.depreciation_years: expected {expected}"
