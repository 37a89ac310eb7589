"""`archgen diff`'s "Power and cost" table carries the hall's carbon and water and a job's energy (review23).

newuser48 added `carbon_per_year` and `water_per_year` (a hall's stated intensities x its energy) and a job's
`facility_energy_per_million_tokens` and `job_energy`; a pull request that changed them showed them only among the
other metrics, below the bill of materials, while the energy per year they are made from led the table.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SPECS, run_cli
from tests.test_diff import copy_specs

HALL = (SPECS / "catalog" / "facilities" / "hall-liquid.yaml").read_text(encoding="utf-8")
#: The test hall's intensities: inputs of the test, not sourced figures (as tests/analyse/test_sustainability.py).
STATED = "sustainability: {{carbon_intensity: {g} g/kWh, wue: 0.2 L/kWh, basis: assumed, source: test inputs}}\n"


def _tree(dest: Path, grams: int) -> Path:
    root = copy_specs(dest)
    (root / "facilities").mkdir(exist_ok=True)
    (root / "facilities" / "hall-liquid.yaml").write_text(HALL + STATED.format(g=grams), encoding="utf-8")
    return root


def test_a_changed_grid_intensity_leads_with_power_and_cost(tmp_path):
    r = run_cli("diff", _tree(tmp_path / "base", 384), _tree(tmp_path / "head", 400))
    assert r.code == 0, r.err
    assert "### Power and cost" in r.out, r.out
    money = r.out.split("### Power and cost", 1)[1].split("\n### ", 1)[0]
    # 400 / 384 of the same energy: +4.2 %
    assert "| `cluster/gb200-nvl72-su` | carbon\\_per\\_year |" in money and "+4.2 %" in money, money

