"""Quantities typed by hand from datasheets (newuser49's remaining list, nu49b): Unicode forms read by one rule (NFKC,
`archgen.quantity_text`), a range and a per-item unit refused with what to write. The messages as `archgen check`
prints them are the golden `tests/errors/per_item_and_range`."""

from __future__ import annotations

import time

import pytest
from pydantic_core import PydanticCustomError

from archgen.errors import ValidateError
from archgen.in_code import document
from archgen.model import Accelerator, Cluster, Facility, Link, PowerShelf, Switch, System
from archgen.model.spec_paths import quantity_hint
from archgen.units import Q_, parse_quantity

TRAY = {"id": "tray", "source": "test", "mechanical": {"height": "1 U", "weight": "20 kg"}, "power": {"max": "1 kW"}}
SHELF = {"id": "shelf", "source": "test", "capacity": "33 kW", "output_voltage": "50 V", "mechanical": {
    "height": "1 U", "weight": "20 kg"}, "input": {"voltage": "415 V", "basis": "line-to-line", "phases": 3,
                                                   "current": "50 A"}}
LINK = {"id": "sr8", "source": "test", "media": "multimode", "rate": "800 Gb/s", "reach": "50 m", "lanes": 8,
        "power_per_end": "16 W"}
SWITCH = {"id": "sw", "source": "test", "technology": "infiniband", "ports": {"count": 8, "speed": "400 Gb/s"},
          "mechanical": {"height": "1 U", "weight": "5 kg"}, "power": {"max": "100 W"}}


@pytest.mark.parametrize(("text", "celsius"), [
    ("45 \u2103", 45), ("45\u2103", 45),                    # U+2103 DEGREE CELSIUS: NFKC '°C'
    ("113 \u2109", 45),                                      # U+2109 DEGREE FAHRENHEIT: (113 - 32) x 5/9 = 45
    ("\u22125 degC", -5), ("\u22125 \u2103", -5),            # U+2212 MINUS SIGN
    ("\uff14\uff15 degC", 45),                               # full-width digits: NFKC '45'
    ("318.15 \u212a", 45),                                   # U+212A KELVIN SIGN: NFKC 'K'; 318.15 K - 273.15 = 45
])
def test_unicode_temperatures_mean_what_they_print(text, celsius):
    assert parse_quantity(text).to("degC").magnitude == pytest.approx(celsius)


@pytest.mark.parametrize(("text", "expected"), [
    ("\uff11\uff10 kW", Q_(10, "kW")), ("\uff11\uff10 \uff4bW", Q_(10, "kW")),   # full-width digits and letter
    ("1.5 kW/m\u00b2", Q_(1.5, "kW/m**2")),                                      # a superscript stays an exponent
    ("\uff11,\uff18\uff10\uff10 GB/s", None),                                    # still digit groups (refused)
])
def test_full_width_forms_are_read_as_ascii_and_superscripts_as_exponents(text, expected):
    if expected is None:
        with pytest.raises(PydanticCustomError, match="thousands separator"):
            parse_quantity(text)
    else:
        assert parse_quantity(text) == expected


def test_digits_of_another_script_are_refused_with_the_ascii_number():
    """NFKC leaves Arabic-Indic digits as they are; Python's float would read them, but the rule reads ASCII only."""
    with pytest.raises(PydanticCustomError, match="digits outside ASCII") as info:
        parse_quantity("\u0665 kW")
    assert info.value.context["hint"] == "write '5 kW'"


@pytest.mark.parametrize(("text", "unit"), [("20 \u02daC", "degC"), ("68 \u00baF", "degF"), ("45 \u00ba C", "degC"),
                                            ("5 \u00b0 C", "degC"), ("300 \u02daK", "K"), ("\u22125 \u02daC", "degC")])
def test_a_ring_accent_or_an_ordinal_before_a_scale_is_the_degree_sign(text, unit):
    """Datasheets print '˚' (U+02DA) and 'º' (U+00BA) for '°'. On main pint dropped '˚': '20 ˚C' read as 20 coulomb and
    '45 º C' was refused (NFKC would make 'º' the letter 'o'); '5 ° C' read as 5 coulomb-degrees."""
    q = parse_quantity(text)
    assert str(q.units) == str(parse_quantity(f"1 {unit}").units)
    assert q.magnitude == float(text.replace("\u2212", "-").split()[0])


@pytest.mark.parametrize(("text", "char"), [("1 \u02dam", "\u02da"), ("5 \u02da", "\u02da"), ("10 \u00bam", "\u00ba"),
                                            ("5 \u02dac", "\u02da")])
def test_a_ring_accent_or_an_ordinal_elsewhere_is_refused(text, char):
    """pint drops '˚' silently: on main '1 ˚m' read as 1 m."""
    with pytest.raises(PydanticCustomError, match="read as the degree sign only before C, F or K") as info:
        parse_quantity(text)
    assert info.value.context["char"] == char and "20 °C" in info.value.context["hint"]


@pytest.mark.parametrize(("text", "low", "high"), [
    ("10-12 kW", "10 kW", "12 kW"), ("10 to 12 kW", "10 kW", "12 kW"), ("10 \u2013 12 kW", "10 kW", "12 kW"),
    ("10 kW - 12 kW", "10 kW", "12 kW"), ("10~12 kW", "10 kW", "12 kW"), ("0.96-0.98", "0.96", "0.98"),
])
def test_a_range_is_refused_with_its_ends(text, low, high):
    with pytest.raises(PydanticCustomError, match="expected one value") as info:
        parse_quantity(text)
    assert (info.value.context["low"], info.value.context["high"]) == (low, high)


@pytest.mark.parametrize("text", ["1e-3 W", "-5 degC", "2.5e+3 W"])
def test_an_exponent_or_a_sign_is_no_range(text):
    parse_quantity(text)


def _problem(kind, data) -> str:
    with pytest.raises(ValidateError) as info:
        document(kind, data)
    assert len(info.value.problems) == 1
    return str(info.value)


@pytest.mark.parametrize(("kind", "data", "said"), [
    (Link, {**LINK, "power_per_end": "15 to 17 W"}, "and the low and high in `power_range`: [15 W, 17 W]"),
    (PowerShelf, {**SHELF, "efficiency": "96-98 %"}, "and the low and high in `efficiency_range`: [96 %, 98 %]"),
    (System, {**TRAY, "power": {"max": "10-12 kW"}}, "hint: state one value, the figure the design uses"),
])
def test_a_range_names_the_fields_range_form_where_it_has_one(kind, data, said):
    assert said in _problem(kind, data)


@pytest.mark.parametrize(("kind", "data", "said"), [
    (System, {**TRAY, "power": {"max": "700 W/GPU"}}, "write '700 W' if that is one System's value: the field is "
                                                      "per System"),
    (Facility, {"id": "hall", "floor_rating": "2500 kg/m**2", "air": {"supply": "25 degC"},
                "critical_it_power": "132 kW/rack"},
     "write '132 kW' if that is one Facility's value: the field is per Facility"),
    (Switch, {**SWITCH, "ports": {"count": 8, "speed": "400 Gb/s per port"}},   # 'Line rate per port, ...'
     "write '400 Gb/s' if that is one port's value: the field is per port"),
    (Link, {**LINK, "power_per_end": {"value": 16, "unit": "W/end"}}, "write '16 W' if that is one end's value"),
])
def test_a_per_item_unit_is_told_what_the_field_is_per(kind, data, said):
    assert said in _problem(kind, data)


@pytest.mark.parametrize("text", ["12 1/s", "80 L/min", "1105 CFM", "1.5 kW/m**2"])
def test_a_unit_divided_by_a_unit_is_no_per_item_unit(text):
    parse_quantity(text)


def test_a_range_in_a_mapping_of_fractions_names_the_key_in_the_range_form():
    """Accelerator's `efficiency.gemm` is per data type; its range form `gemm_range` is too ({fp8: [lo, hi]})."""
    ctx = {"low": "0.6", "high": "0.7", "hint": "state one value"}
    assert quantity_hint(Accelerator, ("efficiency", "gemm", "fp8"), "quantity_range", ctx) == (
        "state one value here, and the low and high in `gemm_range`: {fp8: [0.6, 0.7]}")


@pytest.mark.parametrize("text", ["1 a" + " " * 100_000 + "x", "1 W" + " " * 100_000 + "/GPU",
                                  "1 - 2 a" + " " * 100_000 + "W"])
def test_a_long_run_of_spaces_is_read_in_linear_time(text):
    """A lazy unit group before `\\s*$` tried every split of a run of spaces: 47 s for 10^5 on main (2 cores)."""
    start = time.perf_counter()
    with pytest.raises(PydanticCustomError):
        parse_quantity(text)
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize(("cls", "loc", "per"), [
    (Accelerator, ("peak", "fp8"), "Accelerator"),   # 'peak per data type': a phrase, not read; the part is named
    (Accelerator, ("l2_cache",), "Accelerator"),     # 'per XCD' after a colon: not read
    (Cluster, ("fabrics", 0, "fat-tree", "speed"), "port"),   # 'Line rate of one fabric port'
    (Link, ("power_per_end",), "end"),               # 'Power per end (transceiver or active cable end)'
])
def test_what_a_field_is_per_is_read_from_its_descriptions_first_clause_or_is_its_part(cls, loc, per):
    hint = quantity_hint(cls, loc, "quantity_per_item", {"plain": "1 W", "hint": ""})
    assert hint == f"write '1 W' if that is one {per}'s value: the field is per {per}"
