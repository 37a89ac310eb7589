"""review45: the halls' facilities agree on a `cost:` figure equal in value, whatever its unit, date or basis.

hall30's `analyse.site_cost.cost_facility` takes the halls' one `cost:` block where all state the same figures, else
withholds the energy, energy cost, rent and TCO. It compared each field's text: 0.09 USD/kWh and 90 USD/MWh (one
price) differed, as did each building's `sunk` capital (never in the TCO: `model.cost.FacilityCost.sunk`), a price
dated 2024-07 beside 2024-08, and `basis: sourced` beside `assumed`: each withheld every cost figure. Now quantities
are compared by value; the agreed block is `assumed` where any hall's is, dated by the earliest electricity price
(the widest gap COST006 can judge) and the latest `as_of`, and holds every building's sunk capital.
Fixture: one GB200 NVL72 rack in each of two buildings at PUE 1.2 (tests/analyse/test_site_cost.py).
"""

from __future__ import annotations

import pytest

from tests.analyse.test_own_hall_site import CLUSTER, HALL
from tests.analyse.test_site_cost import GRID, HOURS_PER_YEAR
from tests.conftest import run_specs


def _site(tmp_path, b: dict[str, str]):
    """Building b's `cost:` text with `b`'s replacements."""
    text_b = HALL.format(id="building-b", pue=1.2, peak=1.3, extra="", deployed=GRID.format(g=100))
    for old, new in b.items():
        assert old in text_b
        text_b = text_b.replace(old, new)
    text = (HALL.format(id="building-a", pue=1.2, peak=1.3, extra="", deployed=GRID.format(g=100)) + text_b
            + HALL.format(id="campus", pue=1.6, peak=1.9, extra="", deployed=GRID.format(g=400)) + CLUSTER)
    r = run_specs(tmp_path, {"specs.yaml": text})
    return r, r.clusters["cluster/c"].metrics


def test_a_price_in_another_unit_is_the_same_price(tmp_path) -> None:
    """Building b's 90 USD/MWh and 24,000 USD/year a rack: building a's 0.09 USD/kWh and 2,000 USD/month."""
    r, m = _site(tmp_path, {"price: 0.09 USD/kWh": "price: 90 USD/MWh",
                            "space_per_rack: 2000 USD/month": "space_per_rack: 24000 USD/year"})
    mwh = m["power_average"].m_as("MW") * HOURS_PER_YEAR * 1.2
    assert m["energy_cost_per_year"].m_as("USD") == pytest.approx(mwh * 1000 * 0.09)
    assert "tco_per_year" in m, r.operations.withheld["cluster/c"].get("tco_per_year")


def test_dates_basis_and_sunk_capital_do_not_withhold_the_cost(tmp_path) -> None:
    """Building b's price dated 2024-08 (a's 2024-07), sourced (a's assumed), with its own sunk capital: the cost
    stands, assumed, dated 2024-07, both buildings' sunk capital kept."""
    from archgen.analyse.site_cost import cost_facility

    r, m = _site(tmp_path, {"date: 2024-07, pue: 1.2, basis: assumed": "date: 2024-08, pue: 1.2, basis: sourced",
                            "depreciation_years: 5,": "depreciation_years: 5, sunk: [{what: building b shell, "
                            "capex: 9000000 USD, date: 2021-06, basis: assumed, source: test}],"})
    assert "energy_cost_per_year" in m and "tco_per_year" in m, r.operations.withheld["cluster/c"]
    fac, why = cost_facility(r.clusters["cluster/c"])
    assert why == {} and fac.cost is not None
    assert (fac.cost.energy.basis, fac.cost.energy.date) == ("assumed", "2024-07")
    assert [s.what for s in fac.cost.sunk] == ["building b shell"]


def test_a_price_that_differs_in_value_still_withholds_the_cost(tmp_path) -> None:
    """91 USD/MWh beside 0.09 USD/kWh: not provided, both named in their own units."""
    r, m = _site(tmp_path, {"price: 0.09 USD/kWh": "price: 91 USD/MWh"})
    assert "energy_cost_per_year" not in m
    assert "energy.price building-a 0.09 USD/kWh, building-b 91 USD/MWh" in \
        r.operations.withheld["cluster/c"]["energy_cost_per_year"]
