"""Specs written by hand (newuser49's open list): empty values, merge keys, tabs, fractions, rack heights.

Each test fails on main before nu49fix; the messages as `archgen check` prints them are the goldens
`tests/errors/{empty_value,merge_key_twice,tab_indent}`.
"""

from __future__ import annotations

import re

import pytest

from archgen import load
from archgen.errors import UnreadableError
from archgen.load import load_text
from tests.conftest import run_cli


def _refusal(text: str) -> str:
    with pytest.raises(UnreadableError) as err:
        load_text(text, "x.yaml")
    return str(err.value)


def test_an_empty_value_is_located_at_its_key_and_a_null_at_its_value():
    """`max:` with nothing after it: ruamel puts the value where the next token starts (the next line)."""
    doc = load_text("kind: A\nid: a\npower:\n  max:\nnext: 1\nnull_here: ~\nlast:", "x.yaml")[0]
    assert (doc.locate(("power", "max")).line, doc.locate(("power", "max")).column) == (4, 3)
    assert (doc.locate(("null_here",)).line, doc.locate(("null_here",)).column) == (6, 12)
    assert doc.locate(("last",)).line == 7
    assert doc.locate(("next",)).line == 5


SYSTEM = "kind: System\nid: tray\nsource: test\nmechanical: {{height: 1 U, weight: 20 kg}}\npower:\n  max:{}\n"


def test_an_empty_value_says_it_is_empty(tmp_path, monkeypatch):
    (tmp_path / "tray.yaml").write_text(SYSTEM.format(""), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run_cli("check", "tray.yaml")
    assert result.code == 1
    assert result.err.startswith(
        "tray.yaml:6:3: error: power.max: empty value: expected a quantity string such as '132 kW'\n"
        "  hint: YAML reads a key or '-' with nothing after it as null: write the value, or leave the entry out\n")


def test_a_value_written_is_not_called_empty(tmp_path, monkeypatch):
    (tmp_path / "tray.yaml").write_text(SYSTEM.format(" 1 kg"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert "empty value" not in run_cli("check", "tray.yaml").err


def test_a_key_two_merged_mappings_give_is_refused_naming_both_lines():
    text = "kind: A\nid: a\nb: &b {max: 1 kW, min: 0 kW}\nc: &c\n  max: 3 kW\npower:\n  <<: [*b, *c]\n"
    assert _refusal(text) == ("x.yaml:5:3: error: duplicate key 'max' in the mappings '<<' merges into the mapping at "
                              "line 7 (first given at line 3)\n  hint: a merge takes each key from the first mapping "
                              "that gives it: give the key in one of them, or once in this mapping, which overrides "
                              "them")


@pytest.mark.parametrize("power", [
    "{<<: [{max: 1 kW}, {min: 0 kW}]}",            # each key given once
    "{<<: [{max: 1 kW}, {max: 2 kW}], max: 3 kW}",  # given twice, but the mapping's own key overrides both
    "{<<: {max: 1 kW}, max: 3 kW}",                # a merge's usual use: a default overridden
])
def test_a_key_given_once_or_overridden_is_read(power):
    doc = load_text(f"kind: A\nid: a\npower: {power}\n", "x.yaml")[0]
    assert doc.data["power"]["max"] in ("1 kW", "3 kW")


def test_merge_attribute_is_ruamels():
    from ruamel.yaml.comments import merge_attrib

    assert load.MERGED == merge_attrib


@pytest.mark.parametrize(("text", "hint"), [
    ("kind: A\nid: a\nm:\n\tx: 1\n", "indent with spaces: YAML allows no tab in indentation (YAML 1.2.2, section 6.1)"),
    ("kind: A\nid: a\nm:\n  \tx: 1\n", "indent with spaces: YAML allows no tab in indentation (YAML 1.2.2, section 6.1)"),
    ("kind: A\nid: a\nm:\n  x: 10.2\tkW\n", "write a space where the tab is (the YAML reader refuses a tab there)"),
])
def test_a_tab_gets_a_hint(text, hint):
    message = _refusal(text)
    assert "found character '\\t' that cannot start any token" in message
    assert message.endswith(f"\n  hint: {hint}")


def _models():
    """Every model class a spec kind holds, at any depth (each once)."""
    from archgen.model import KINDS
    from archgen.model.core_schemas import nested_models
    seen, todo = [], list(KINDS.values())
    while todo:
        cls = todo.pop()
        if cls not in seen:
            seen.append(cls)
            todo += [m for f in cls.model_fields.values() for m in nested_models(f.annotation)]
    return seen


def _fields():
    """Every (model, field) of the spec kinds whose annotation holds `Fraction`, at any depth."""
    import inspect
    import typing

    from archgen.model.field_types import as_fraction

    def holds(tp) -> bool:
        meta = getattr(tp, "__metadata__", ())
        return any(inspect.unwrap(getattr(m, "func", len)) is as_fraction for m in meta) or any(holds(a) for a in typing.get_args(tp))

    return sorted((cls.__name__, name) for cls in _models() for name, f in cls.model_fields.items()
                  if holds(typing.Annotated[(f.annotation, *f.metadata)] if f.metadata else f.annotation))


def test_every_bounded_share_is_a_fraction():
    """The fields newuser49 named, and every float field bounded to [0, 1], take a percentage (one rule)."""
    import annotated_types

    fractions = set(_fields())
    assert {("Cooling", "liquid_fraction"), ("FailureRate", "afr"), ("Feeds", "derating")} <= fractions
    for cls in _models():
        for name, f in cls.model_fields.items():
            upper = [m.le for m in f.metadata if isinstance(m, annotated_types.Le)]
            if upper == [1] and "float" in str(f.annotation):
                assert (cls.__name__, name) in fractions


@pytest.mark.parametrize(("written", "read"), [
    ("85 %", 0.85), ("85%", 0.85), ("85 percent", 0.85), ("850 permille", 0.85), (0.85, 0.85), ("0.85", 0.85),
    ("0 %", 0.0), ("100 %", 1.0),
])
def test_a_fraction_takes_a_number_or_a_percentage(written, read):
    from archgen.model.base import Cooling
    from archgen.model.reliability import FailureRate

    assert Cooling(type="hybrid", liquid_fraction=written).liquid_fraction == pytest.approx(read)
    rate = FailureRate(afr=written, basis="assumed", source="test") if read else None
    assert rate is None or rate.afr == pytest.approx(read)


@pytest.mark.parametrize(("written", "message"), [
    ("85 kW", "expected a fraction such as 0.85 or a percentage such as '85 %', got '85 kW'"),
    ("lots", "expected a fraction such as 0.85 or a percentage such as '85 %', got 'lots'"),
    ("150 %", "expected a share from 0 % to 100 %, got '150 %'"),   # in the unit written (inputs35), not 1.0
    ("-5 %", "expected a share from 0 % to 100 %, got '-5 %'"),
    ("1500 permille", "expected a share from 0 ‰ to 1000 ‰, got '1500 permille'"),
    ("1.5", "expected a number of at most 1.0, got 1.5"),
])
def test_a_fraction_out_of_range_or_of_a_dimension_is_refused_as_written(written, message):
    from archgen.validate import ValidateError, validate

    docs = load_text(f"kind: System\nid: t\nsource: s\nmechanical: {{height: 1 U, weight: 9 kg}}\npower: {{max: 1 kW}}\n"
                     f"cooling: {{type: hybrid, liquid_fraction: {written}}}\n", "x.yaml")
    with pytest.raises(ValidateError) as err:
        validate(docs)
    assert str(err.value).startswith(f"x.yaml:6:42: error: cooling.liquid_fraction: {message}")


def test_an_afr_below_zero_gets_no_hint_about_fit():
    """newuser49: afr '-1 %' was told that a part failing more than once a year is written with 'fit'."""
    from pydantic import ValidationError

    from archgen.model.reliability import FailureRate

    with pytest.raises(ValidationError) as err:
        FailureRate(afr=-0.01, basis="assumed", source="test")
    assert "between 0 and 100 %, got -1 %" in str(err.value) and "fit" not in str(err.value).split("got -1 %")[1]


@pytest.mark.parametrize(("height", "units"), [("2 U", 2), ("3.5 in", 2), ("88.9 mm", 2), ("1 RU", 1)])
def test_a_whole_number_of_rack_units_is_read(height, units):
    """1 U = 1.75 in = 44.45 mm (EIA-310), so 3.5 in and 88.9 mm are 2 U; a conversion's rounding is no half U."""
    from archgen.model.base import Mechanical

    assert Mechanical(height=height, weight="9 kg").height.m_as("U") == pytest.approx(units)


@pytest.mark.parametrize(("height", "got"), [("8.5 U", "'8.5 U'"), ("100 mm", "'100 mm' (2.25 U)"),
                                             ("0.5 U", "'0.5 U'")])
def test_a_fraction_of_a_rack_unit_is_refused(height, got):
    """EIA-310 has no half U; 8.5 U was read, and the rack layout rounded it to 8 (`build.racks`)."""
    from pydantic import ValidationError

    from archgen.model.base import Mechanical
    from archgen.model.power import PduMechanical
    from archgen.model.rack import FormFactor

    expected = rf"expected a whole number of rack units such as '2 U', got {re.escape(got)}"
    with pytest.raises(ValidationError, match=expected):
        Mechanical(height=height, weight="9 kg")
    with pytest.raises(ValidationError, match=expected):
        PduMechanical(height=height, weight="9 kg")   # a 0U PDU's height, whole too
    with pytest.raises(ValidationError, match=expected):
        FormFactor(standard="eia-19", height=height, width="600 mm", depth="1 m", max_payload="1 t", weight="1 kg")


def test_a_fractions_json_schema_keeps_its_bounds_and_takes_a_percentage():
    """The JSON Schema (editors, partners) states the bounds as minimum/maximum and allows '85 %'."""
    from archgen.schema import schemas

    cooling = schemas()["System"]["$defs"]["Cooling"]["properties"]["liquid_fraction"]
    assert cooling["anyOf"][0] == {"type": "number", "minimum": 0, "maximum": 1}
    assert cooling["anyOf"][1]["type"] == "string"
    efficiency = schemas()["Accelerator"]["$defs"]["Efficiency"]["properties"]["gemm"]["additionalProperties"]
    assert efficiency["anyOf"][0] == {"type": "number", "exclusiveMinimum": 0, "maximum": 1}


@pytest.mark.parametrize("target", ["150 %", 0])
def test_a_goodput_target_outside_its_range_says_so(target):
    from pydantic import ValidationError

    from archgen.model.reliability import Checkpointing

    with pytest.raises(ValidationError, match="goodput is a fraction of wall time, above 0 and at most 1"):
        Checkpointing(goodput_target=target)
