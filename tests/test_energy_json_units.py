"""The energy and sustainability metrics in `check --format json` are in the unit docs/metrics.md states (nu48fix).

newuser48 read `job_energy`, `facility_energy_per_million_tokens` and `facility_energy_per_year` in J in the JSON while
docs/metrics.md showed MWh and kWh, and no page said which. The rule is one for every metric (ARCHITECTURE.md: JSON
quantities are ``{"value", "unit"}`` in SI base or derived units, an IT power in W as much as an energy in J); the
page now gives each metric's JSON unit beside its display unit, and this test holds the JSON to the page. The hall's
intensities (384 g/kWh, 0.2 L/kWh) and the token budget are test inputs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from archgen.docs import metrics_page
from archgen.output.findings import to_json
from tests.conftest import SPECS, shipped_edited

DOC = Path(__file__).resolve().parents[1] / "docs" / "metrics.md"
HALL = (SPECS / "catalog" / "facilities" / "hall-liquid.yaml").read_text(encoding="utf-8")
STATED = "sustainability: {carbon_intensity: 384 g/kWh, wue: 0.2 L/kWh, basis: assumed, source: test inputs}\n"
ENERGY = {"cluster/gb200-nvl72-su": ("facility_energy_per_year", "carbon_per_year", "water_per_year", "it_power"),
          "workload/llama3-405b-pretrain-gb200": ("facility_energy_per_million_tokens", "job_energy", "job_it_energy"),
          "workload/llama3-70b-serve-gb200": ("facility_energy_per_million_tokens",)}


def _units(page: str) -> dict[str, tuple[str, str]]:
    """(display unit, JSON unit) by metric name, from the page's tables (the first row of a name)."""
    out: dict[str, tuple[str, str]] = {}
    for name, unit, json_unit in re.findall(r"^\| `([^`]+)` \| ([^|]+) \| ([^|]+) \|", page, re.M):
        out.setdefault(name, (unit.strip(), json_unit.strip()))
    return out


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    r = shipped_edited(tmp_path_factory.mktemp("ju"), "workloads/llama3-405b.yaml", "  precision: bf16\n",
                       "  precision: bf16\ncheckpoint: {tokens: 15.6e12}\n",
                       {"facilities/hall-liquid.yaml": HALL + STATED})
    return r, json.loads(to_json(r.findings, r.metrics))["metrics"]


def test_the_page_states_each_metrics_json_unit():
    units = _units(DOC.read_text(encoding="utf-8"))
    assert units["job_energy"] == ("MWh", "J")
    assert units["facility_energy_per_million_tokens"] == ("kWh", "J")
    assert units["facility_energy_per_year"] == ("MWh", "J")
    assert units["carbon_per_year"] == ("t", "kg")
    assert units["water_per_year"] == ("m**3", "m^3")
    assert units["it_power"] == ("kW", "W")
    assert DOC.read_text(encoding="utf-8") == metrics_page()   # generated, not edited


def test_every_energy_metric_in_the_json_is_in_the_unit_the_page_states(checked):
    r, metrics = checked
    units = _units(DOC.read_text(encoding="utf-8"))
    for subject, names in ENERGY.items():
        for name in names:
            value = r.metrics[subject][name]
            shown = metrics[subject][name]
            assert shown["unit"] == units[name][1], (subject, name)
            assert shown["value"] == pytest.approx(value.m_as(units[name][1].replace("^", "**")))
