"""`archgen diff`'s "Power and cost" table carries the TCO's parts: capital, energy and space per year (newuser64).

A finance analyst's first question of two proposals, "what if electricity is 0.12 rather than 0.08 USD/kWh", moves
only the energy cost: +50 % on the shipped GB200 SU (the same facility energy at 1.5 times the price). The table a
reviewer reads first showed the TCO's +5.8 % and the cost per token, and the energy cost that caused them only among
the other metrics, below the bill of materials.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SPECS, run_cli
from tests.test_diff import copy_specs

HALL = (SPECS / "catalog" / "facilities" / "hall-liquid.yaml").read_text(encoding="utf-8")


def _tree(dest: Path, price: str) -> Path:
    root = copy_specs(dest)
    (root / "facilities").mkdir(exist_ok=True)
    assert "price: 0.0895 USD/kWh" in HALL
    (root / "facilities" / "hall-liquid.yaml").write_text(HALL.replace("price: 0.0895 USD/kWh", f"price: {price}"),
                                                            encoding="utf-8")
    return root


def test_a_changed_tariff_shows_the_energy_cost_in_power_and_cost(tmp_path):
    r = run_cli("diff", _tree(tmp_path / "base", "0.08 USD/kWh"), _tree(tmp_path / "head", "0.12 USD/kWh"))
    assert r.code == 0, r.err
    money = r.out.split("### Power and cost", 1)[1].split("\n### ", 1)[0]
    row = next(line for line in money.splitlines() if "`cluster/gb200-nvl72-su` | energy\\_cost\\_per\\_year" in line)
    assert "+50.0 %" in row, row   # 0.12 / 0.08 of the same energy
    tco = next(line for line in money.splitlines() if "`cluster/gb200-nvl72-su` | tco\\_per\\_year" in line)
    assert money.index(row) < money.index(tco), money   # the cause before the total
    # the capital and space parts did not move: a row only where a figure changed
    assert "capital\\_cost\\_per\\_year" not in money and "space\\_cost\\_per\\_year" not in money, money
