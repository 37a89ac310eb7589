"""Cooling capacity at the site's conditions, the ASHRAE air classes at altitude, and air density at altitude.

Published values: the U.S. Standard Atmosphere, 1976 (NOAA/NASA/USAF, table I) gives 89.876 kPa at 1000 m,
79.501 kPa at 2000 m and 70.121 kPa at 3000 m against 101.325 kPa at sea level; ASHRAE TC 9.9 (Thermal Guidelines,
notes to the table of air classes) lowers the allowable maximum 1 K per 300 m (A1, A2), 175 m (A3) or 125 m (A4)
above 900 m.
"""

from __future__ import annotations

import pytest

from archgen.model.cooling import Conditions, Rating, rated_capacity
from archgen.model.facility import Facility, allowable_air, pressure_ratio
from archgen.units import Q_


@pytest.mark.parametrize(("metres", "kpa"), [(1000, 89.876), (2000, 79.501), (3000, 70.121)])
def test_pressure_ratio_matches_the_standard_atmosphere(metres: int, kpa: float) -> None:
    assert pressure_ratio(Q_(metres, "m")) == pytest.approx(kpa / 101.325, rel=2e-3)
    assert pressure_ratio(None) == 1.0


@pytest.mark.parametrize(("cls", "metres", "top"), [("A1", 900, 32), ("A1", 1800, 29), ("A2", 1800, 32),
                                                      ("A3", 1250, 38), ("A4", 1400, 41), ("A2", 0, 35)])
def test_air_class_maximum_falls_above_900_m(cls: str, metres: int, top: float) -> None:
    _, high, why = allowable_air(cls, Q_(metres, "m"))
    assert high.m_as("degC") == pytest.approx(top)
    assert bool(why) == (metres > 900)


def _unit(water: float | None = None, ambient: float | None = None, altitude: float | None = None) -> dict:
    return {"water": None if water is None else Q_(water, "degC"),
            "ambient": None if ambient is None else Q_(ambient, "degC"),
            "altitude": None if altitude is None else Q_(altitude, "m")}


def test_rated_capacity_counts_the_covering_row_and_never_interpolates() -> None:
    nominal = Q_(100, "kW")
    rated = Conditions(water="25 degC")
    rows = [Rating(water="35 degC", capacity="60 kW"), Rating(water="45 degC", capacity="30 kW")]
    assert rated_capacity(nominal, None, [], _unit(water=40)).capacity == nominal  # nothing stated: nothing compared
    assert rated_capacity(nominal, rated, rows, _unit(water=25)).capacity == nominal
    at_30 = rated_capacity(nominal, rated, rows, _unit(water=30))
    assert at_30.capacity == Q_(60, "kW") and at_30.rating == rows[0]  # the 35 °C row, not 80 kW interpolated
    assert rated_capacity(nominal, rated, rows, _unit(water=40)).capacity == Q_(30, "kW")
    beyond = rated_capacity(nominal, rated, rows, _unit(water=50))
    assert beyond.capacity is None and beyond.unmet[0][0] == "water"


def test_a_condition_the_site_does_not_state_is_not_compared() -> None:
    rated = Conditions(ambient="35 degC", altitude="0 m")
    assert rated_capacity(Q_(1, "MW"), rated, [], _unit(ambient=30)).capacity == Q_(1, "MW")
    assert rated_capacity(Q_(1, "MW"), rated, [], _unit(ambient=30, altitude=1)).capacity is None


def test_a_row_s_unstated_conditions_are_the_nominal_ones() -> None:
    """A table of capacity by ambient at sea level does not cover a site at 1600 m: its rows inherit the 0 m."""
    rated = Conditions(ambient="35 degC", altitude="0 m")
    rows = [Rating(ambient="40 degC", capacity="0.9 MW")]
    assert rated_capacity(Q_(1, "MW"), rated, rows, _unit(ambient=38)).capacity == Q_(0.9, "MW")
    assert rated_capacity(Q_(1, "MW"), rated, rows, _unit(ambient=38, altitude=1600)).capacity is None
    with pytest.raises(ValueError, match="states the conditions it is at"):
        Rating(capacity="0.9 MW")


def test_the_plant_is_rated_against_outdoor_air_not_water() -> None:
    base = {"id": "h", "floor_rating": "1200 kg/m**2", "air": {"supply": "24 degC"}, "cooling_capacity": "1 MW"}
    with pytest.raises(ValueError, match="outdoor"):
        Facility.model_validate({**base, "cooling_rated_at": {"water": "30 degC"}})
    with pytest.raises(ValueError, match="needs `cooling_rated_at`"):
        Facility.model_validate({**base, "cooling_derating": [{"ambient": "40 degC", "capacity": "0.9 MW"}]})
    hall = Facility.model_validate({**base, "outdoor_design": "38 degC", "cooling_rated_at": {"ambient": "35 degC"},
                                    "cooling_derating": [{"ambient": "40 degC", "capacity": "0.9 MW"}]})
    assert hall.cooling_at_site() == Q_(0.9, "MW")


def test_the_data_centre_section_shows_units_and_derated_cooling() -> None:
    """The hall table states the UPS modules beside the redundancy and the cooling the site can count on."""
    from archgen.render.datacentre import _capacity, _units
    hall = Facility.model_validate({
        "id": "h", "floor_rating": "1200 kg/m**2", "air": {"supply": "24 degC"}, "cooling_capacity": "1 MW",
        "outdoor_design": "38 degC", "cooling_rated_at": {"ambient": "35 degC"},
        "cooling_derating": [{"ambient": "40 degC", "capacity": "0.9 MW"}],
        "feeds": {"ups": "N+1", "ups_units": {"count": 3, "capacity": "150 kW"}}})
    assert _units(hall.feeds.ups, hall.feeds.ups_units, "modules") == "N+1 (3 x 150 kW modules)"
    cooling = dict(_capacity(hall, {"cooling_headroom": Q_(100, "kW")}))["Cooling capacity"]
    assert cooling.startswith("900 kW at the site's conditions (1,000 kW as rated)")


def test_a_rack_document_carries_its_hall_s_findings(tmp_path) -> None:
    """COOL011 on the hall belongs to the document of a rack installed in it (its status may not read 'all pass')."""
    from archgen.pipeline import run
    from archgen.render.target import rack_scope
    from tests.conftest import write_tree
    write_tree(tmp_path / "specs", {"hall.yaml": (
        "kind: Facility\nid: hot-hall\nfloor_rating: 2500 kg/m**2\nwater: {supply: 30 degC}\nair: {supply: 25 degC}\n"
        "cooling_capacity: 1.5 MW\noutdoor_design: 38 degC\ncooling_rated_at: {ambient: 35 degC}\n"), "rack.yaml": (
        "kind: Rack\nid: r\nfacility: hot-hall\n"
        "form_factor: {standard: eia-19, height: 42 U, width: 600 mm, depth: 1200 mm, max_payload: 1360 kg, "
        "weight: 170 kg}\nslots:\n- {at: 3, part: dgx-h100, count: 2}\n- {at: 1, part: pdu-415v-60a-3ph, count: 2}\n"
        "power:\n  feeds: {count: 2, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}\n"
        "  pdus: {redundancy: N+N}\ncooling:\n  air: {class: A2, delta_t: 20 K}\n")})
    result = run([tmp_path / "specs"])
    scope, _ = rack_scope(result, result.racks["rack/r"], "test", None)
    # and COOL021, an info: the hall states no air side per rack, so the rack's heat to air is not judged (nu67fix)
    assert [f.id for f in scope.findings() if f.id.startswith("COOL")] == ["COOL011", "COOL021"]


def test_generator_sets_count_the_row_covering_the_site_and_ups_modules_refuse_conditions() -> None:
    """Generator sets are rated against outdoor air and altitude, as the hall's plant is (newuser35).

    Row: the Atlas Copco QAS 500 manual's derating table, p. 96 (90 % at 2000 m and 40 °C;
    https://www.easymanua.ls/atlas-copco/qas-500-volvo-s2a-app/manual?p=96), applied to a 2,000 kW set.
    """
    from archgen.render.datacentre import _units
    base = {"id": "h", "floor_rating": "1200 kg/m**2", "air": {"supply": "24 degC"}, "altitude": "2000 m",
            "outdoor_design": "40 degC"}
    sets = {"count": 2, "capacity": "2000 kW", "rated_at": {"ambient": "40 degC", "altitude": "1000 m"}}
    rows = [{"ambient": "40 degC", "altitude": "2000 m", "capacity": "1800 kW"}]
    hall = Facility.model_validate({**base, "feeds": {"generators": "N+1", "generator_units": {**sets,
                                                                                              "derating": rows}}})
    assert hall.feeds.generator_units.at_site(None, hall.outdoor()).capacity == Q_(1800, "kW")
    assert _units("N+1", hall.feeds.generator_units, "sets", hall) == \
        "N+1 (2 x 2,000 kW sets; 1,800 kW each at the site's conditions)"
    bare = Facility.model_validate({**base, "feeds": {"generator_units": sets}})
    assert bare.feeds.generator_units.at_site(None, bare.outdoor()).capacity is None
    with pytest.raises(ValueError, match="outdoor `ambient` and `altitude`"):
        Facility.model_validate({**base, "feeds": {"generator_units": {**sets, "rated_at": {"water": "30 degC"}}}})
    with pytest.raises(ValueError, match="UPS modules are counted at their stated rating"):
        Facility.model_validate({**base, "feeds": {"ups_units": {**sets, "rated_at": {"altitude": "1000 m"}}}})
