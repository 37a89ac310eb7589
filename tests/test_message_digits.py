"""Quantities in check messages read as a spec writes them, never with a float's noise (newuser49 open item 3).

CAT004 printed '(5.6000000000000005 kW)' for 8 x 700 W and '1000.0 W' for a TDP written '1e3 W'. Messages format a
quantity through `display.quantity`; every shipped example is run here, and every check case's findings, of every
check, are searched for the same noise in `tests/checks/test_cases.py`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from archgen.display import quantity
from archgen.units import Q_

#: A float's noise: nine or more decimals, as ``repr`` writes 0.1 + 0.2 or 8 x 0.7 (no message claims that many).
FLOAT_NOISE = re.compile(r"\d\.\d{9,}")
ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("value", "text"), [
    ((700 * 8) / 1000, "5.6"),           # 5.6000000000000005
    (0.1 + 0.2, "0.3"),                  # 0.30000000000000004
    (1e3, "1000"),                       # '1e3 W' is a float
    (1105.5, "1105.5"),                  # a datasheet's figure keeps its figures
    (2 / 3, "0.666667"),                 # six significant figures, Python's g default
    (1e22, "1e+22"),                     # as format_quantity writes it, readable back
])
def test_a_quantity_shows_six_significant_figures_as_a_spec_writes_it(value, text):
    assert quantity(Q_(value, "kW")) == f"{text} kW"
    assert not FLOAT_NOISE.search(quantity(Q_(value, "kW")))


def test_an_integer_quantity_is_shown_whole():
    assert quantity(Q_(1360, "kg")) == "1360 kg"
    assert quantity(Q_(35, "degC")) == "35 °C"


@pytest.mark.parametrize("path", [ROOT / "specs", *sorted((ROOT / "examples").iterdir())],
                         ids=lambda p: p.name)
def test_no_shipped_example_prints_a_floats_noise(path):
    from archgen.pipeline import run

    noisy = [f"{f.id}: {f.message}" for f in run([path]).findings if FLOAT_NOISE.search(f.message)]
    assert not noisy


def test_a_power_in_a_message_groups_its_thousands() -> None:
    """r39fix: PWR011, PWR002 and PWR017 wrote '2500.0 kW' where PWR022 and the shared utility wrote '2,500.0 kW';
    `display.kw` (and `kva` for a nameplate in volt-amperes) is now the one format, `number`'s, as documents give it."""
    from archgen.display import kva, kw

    assert kw(Q_(2.5, "MW")) == "2,500.0 kW" and kw(Q_(271.3, "kW")) == "271.3 kW"
    assert kva(Q_(1, "MVA")) == "1,000.0 kVA"


def test_no_case_message_writes_a_kilowatt_figure_without_its_separator() -> None:
    """Every check case's expected message and customer words: a figure at one decimal in kW or kVA has its thousands
    separator (a rating written as a spec writes it, whole, `display.quantity`, keeps none)."""
    bare = re.compile(r"(?<![\d,.])\d{4,}\.\d k(W|VA)\b")
    found = [f"{p.name}: {m.group(0)}" for p in sorted((ROOT / "tests" / "checks" / "cases").glob("*.yml"))
             for line in p.read_text(encoding="utf-8").splitlines()
             if line.lstrip().startswith(("message:", "public:")) for m in [bare.search(line)] if m]
    assert not found, found
