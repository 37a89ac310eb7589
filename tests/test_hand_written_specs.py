"""Specs written by hand (newuser49's open list): empty values, merge keys, tabs, fractions, rack heights.

Each test fails on main before nu49fix; the messages as `archgen check` prints them are the goldens
`tests/errors/{empty_value,merge_key_twice,tab_indent}`.
"""

from __future__ import annotations

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
