"""Values as datasheets print them, copied by hand into a spec (newuser49's trial): read with their meaning or refused
with a message that says how to write them."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticCustomError

from archgen.units import FlowRate, Temperature, parse_quantity


class Flow(BaseModel):
    f: FlowRate


class Temp(BaseModel):
    t: Temperature


@pytest.mark.parametrize("text", ["1105 CFM", "1105 cfm", "1.105 kCFM", "1105 ft**3/min"])
def test_cfm_is_a_cubic_foot_per_minute(text):
    """CFM is the name of ft³/min (NVIDIA DGX H100/H200 user guide, specifications: '1,105 CFM'); pint read 'cfm' as
    the centifermi, a length, and did not know 'CFM'."""
    assert Flow(f=text).f.m_as("ft**3/min") == pytest.approx(1105)
    assert parse_quantity(text).m_as("m**3/h") == pytest.approx(1105 * 0.3048**3 * 60)  # 1 ft = 0.3048 m exactly


def test_cfm_is_not_a_length():
    with pytest.raises(ValidationError, match="expected a volumetric flow"):
        Flow(f="1105 fm")   # the femtometre is still a length, refused as a flow


@pytest.mark.parametrize(("value", "hint"), [
    ("45C", "did you mean '45 degC'? ('C' reads as coulomb)"),
    ("30 c", "did you mean '30 degC'? ('c' reads as speed_of_light)"),
    ({"value": 86, "unit": "F"}, "did you mean '86 degF'? ('F' reads as farad)"),
])
def test_a_temperature_read_as_a_charge_offers_the_scale(value, hint):
    """pint reads a bare 'C' as the coulomb and 'F' as the farad; the field's own spelling is offered."""
    with pytest.raises(ValidationError) as info:
        Temp(t=value)
    assert info.value.errors()[0]["ctx"]["hint"] == hint


@pytest.mark.parametrize("value", ["30 \u02daC", "30\u02daC", {"value": 30, "unit": "\u00baC"}])
def test_a_ring_accent_before_c_is_the_degree_sign_in_a_temperature(value):
    """'˚' (U+02DA RING ABOVE) and 'º' (U+00BA) as datasheets print '°': on main pint dropped '˚' and read 30 coulomb,
    refused here with the hint '30 degC'; now the temperature (`quantity_text._DEGREE`)."""
    assert Temp(t=value).t.m_as("degC") == pytest.approx(30)


@pytest.mark.parametrize(("text", "hint"), [("1.8 TBps", "did you mean 'TB/s'?"), ("900 GBps", "did you mean 'GB/s'?")])
def test_unknown_datasheet_spellings_get_the_unit_they_mean(text, hint):
    with pytest.raises(PydanticCustomError) as info:
        parse_quantity(text)
    assert info.value.context["hint"] == hint


@pytest.mark.parametrize(("text", "hint"), [
    ("1,800 GB/s", "write '1800 GB/s' (or, if the comma is a decimal comma, '1.800 GB/s')"),   # 1,800 may be 1.8
    ("1,000,000 W", "write '1000000 W'"),                                # two groups: no decimal comma
    ("1 800 GB/s", "write '1800 GB/s'"),
    ("1\u00a0800 GB/s", "write '1800 GB/s'"),                            # no-break space, as a PDF copies it
    ("1\u2009228.8 GB/s", "write '1228.8 GB/s'"),                        # thin space (SI digit groups)
    ("10,2 kW", "write '10.2 kW'"),
    ("0,125 kW", "write '0.125 kW'"),                                    # a lead 0 is no digit group: was '0125 kW'
    ("1.200.000 W", "write '1200000 W'"),                                # groups by dots: was "unit '.000 W'"
    ("5.000,50 W", "write '5000.50 W'"),
    ("1 228,8 GB/s", "write '1228.8 GB/s'"),                        # groups by spaces and a decimal comma
])
def test_a_number_with_digit_groups_or_a_decimal_comma_says_how_to_write_it(text, hint):
    """'1,800 GB/s' was read as 1 with the unit ',800 GB/s' and '1 800 GB/s' as 1 with '800 GB/s': refused, but as
    a unit that cannot be read, with a hint about unit names."""
    with pytest.raises(PydanticCustomError, match="a number with") as info:
        parse_quantity(text)
    assert info.value.context["hint"] == hint


@pytest.mark.parametrize(("text", "expected"), [("1.8TB/s", 1.8), ("1e3 W", 1000), ("1 kW", 1), ("0.85 TB/s", 0.85),
                                               ("5.000 W", 5)])   # a dot before three digits is a decimal point here
def test_plain_numbers_are_not_digit_groups(text, expected):
    assert parse_quantity(text).magnitude == expected


@pytest.mark.parametrize(("num", "decimals", "form", "numbers"), [
    ("1,800", None, "with a thousands separator", ("1800", "1.800")),
    ("1,800", 2, "with a thousands separator", ("1800",)),          # an amount of money: at most two decimals
    ("5.000", None, "", ("5000", "5.000")),                          # archgen reads it as written: 5
    ("1,000,000", None, "with a thousands separator", ("1000000",)),
    ("1 200 000,50", None, "with digits grouped by spaces", ("1200000.50",)),
    ("0,125", None, "with a decimal comma", ("0.125",)),
    ("-10,2", None, "with a decimal comma", ("-10.2",)),
    ("400.50", 2, "", ("400.50",)),
])
def test_one_reading_of_a_written_number(num, decimals, form, numbers):
    """`read_number` is the one home of digit groups and decimal commas, for quantities and money alike (hints39)."""
    from archgen.unit_hints import read_number
    written = read_number(num, decimals)
    assert (written.form, written.numbers) == (form, numbers)


@pytest.mark.parametrize("num", ["1.2.3", "1,2,3", "12,34,567", "1,800.5.3"])
def test_a_number_no_form_reads_is_none(num):
    from archgen.unit_hints import read_number
    assert read_number(num) is None
