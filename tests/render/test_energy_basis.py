"""The facility table's energy per year names the inputs it rests on (newuser48).

On main the row read "376,372 MWh at utilisation 1" for a 16,128-GPU GB300 cluster in the shipped hall-liquid: the
hall states no utilisation (the default 1, every hour used), its PUE 1.2 is `basis: assumed`, and no GB300 part
states a typical draw, so the average load is the maximum. An auditor reads that as a measured annual figure; it is
an upper bound on three assumptions, and the row now says which.
"""

from __future__ import annotations

import yaml

from archgen.model import Facility
from archgen.render.datacentre import _capacity
from archgen.units import Q_
from tests.conftest import SPECS

HOURS_PER_YEAR = 8766   # 365.25 d x 24 h, the year `analyse.cost` prices


def _hall(basis: str = "assumed", **cost: object) -> Facility:
    doc = yaml.safe_load((SPECS / "catalog" / "facilities" / "hall-liquid.yaml").read_text(encoding="utf-8"))
    doc["cost"].update(cost)
    doc["cost"]["energy"]["basis"] = basis
    return Facility.model_validate(doc)


def _facility_power(hall: Facility) -> str:
    m = {"facility_power": Q_(35779.5 * 1.2, "kW")}
    return dict(_capacity(hall, m))["Facility power (IT power × PUE)"]


def _row(hall: Facility, average_kw: float, peak_kw: float) -> str:
    c = hall.cost
    assert c is not None
    load = Q_(average_kw * c.utilisation + average_kw * (1 - c.utilisation), "kW")   # idle hours at average draw
    energy = (load * Q_(HOURS_PER_YEAR, "h") * c.energy.pue).to("MWh")
    m = {"power_average": Q_(average_kw, "kW"), "it_power": Q_(peak_kw, "kW"), "facility_energy_per_year": energy,
         "facility_power": Q_(peak_kw * c.energy.pue, "kW")}
    return dict(_capacity(hall, m))["Facility energy per year (IT energy × PUE)"]


def test_unstated_utilisation_assumed_pue_and_maximum_draw_are_named():
    # 35,779.5 kW x 8,766 h x 1.2 = 376,372 MWh (the GB300 cluster of the trial)
    row = _row(_hall(), 35779.5, 35779.5)
    assert row.startswith("376,372 MWh at utilisation 1 (not stated: every hour taken as used)")
    assert "PUE 1.2 (assumed)" in row
    assert "at the maximum draw" in row and row.endswith("an upper bound")
    assert _facility_power(_hall()) == ("42,935.4 kW at PUE 1.2 (assumed), at the maximum draw held steady (its "
                                        "swing: the load swing row, not provided)")   # 35,779.5 kW x 1.2


def test_an_average_load_equal_to_the_peak_within_rounding_is_the_maximum_draw():
    # the trial's cluster: power_average 35,779,480.1770352 W, it_power 35,779,480.177035205 W (summed in another
    # order); the row said nothing of the maximum draw
    row = _row(_hall(), 35779.4801770352, 35779.480177035205)
    assert "at the maximum draw" in row and row.endswith("an upper bound")


def test_stated_inputs_at_typical_draw_read_plainly():
    hall = _hall("sourced", utilisation=1.0)
    # 900 kW typical of 1,000 kW maximum: 900 x 8,766 x 1.2 = 9,467 MWh, no bound to claim
    row = _row(hall, 900.0, 1000.0)
    assert row == "9,467 MWh at utilisation 1, PUE 1.2"


def test_carbon_and_water_rows_name_their_intensity_or_why_not_provided():
    # 376,372 MWh x 384 g/kWh = 144,527 t; 376,372 MWh / 1.2 x 0.2 L/kWh = 62,729 m³
    doc = yaml.safe_load((SPECS / "catalog" / "facilities" / "hall-liquid.yaml").read_text(encoding="utf-8"))
    doc["sustainability"] = {"carbon_intensity": "384 g/kWh", "wue": "0.2 L/kWh", "basis": "assumed",
                             "source": "test inputs"}
    energy = Q_(376372, "MWh")
    m = {"facility_energy_per_year": energy, "carbon_per_year": (energy * Q_(384, "g/kWh")).to("t"),
         "water_per_year": (energy / 1.2 * Q_(0.2, "L/kWh")).to("m**3")}
    rows = dict(_capacity(Facility.model_validate(doc), m))
    assert rows["Carbon per year (scope 2, location-based: facility energy × grid intensity)"] == (
        "144,527 t CO2e at 384 g/kWh (assumed), on the energy above")
    # no market-based factor stated: not provided, never the location-based figure in its place (newuser75)
    assert rows["Carbon per year (scope 2, market-based: facility energy × contracts' intensity)"] == (
        "not provided: no `sustainability.market_carbon_intensity`")
    assert rows["Site water per year (IT energy × WUE)"] == "62,729 m³ at 0.2 L/kWh (assumed), on the energy above"
    assert dict(_capacity(_hall(), m))["Site water per year (IT energy × WUE)"] == (
        "not provided: no `sustainability.wue`")
