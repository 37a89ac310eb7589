"""A liquid-cooled rack's filled weight: the coolant its loop holds is added to its weight and floor load (newuser67).

An ODM engineer sizing a floor reads the operating weight, coolant included; the rack document said "dry: the filled,
operating weight is not provided" because no field held the volume. Input: the COOL014 case rack (four MI355X
platforms, an assumed 180 kg enclosure, 600 mm x 1,200 mm) with `coolant_volume: 40 L` of PG25 or water. Densities
are the ones the coolant flow uses (`analyse.rack.COOLANTS`): PG25 1,015 kg/m³ (ASHRAE Handbook—Fundamentals 2021,
ch. 31, at 40 °C), water 995.6 kg/m³ (NIST, 30 °C). So 40 L of PG25 weighs 40.6 kg, of water 39.8 kg.
"""

from __future__ import annotations

import pytest

from archgen.render.rack_weight import coolant_rows, weight_basis
from tests.conftest import case_files, run_specs

LOOP = "cdu_redundancy: N+1, racks_per_cdu: 1,"


def _rack(tmp_path, extra: str = ""):
    files = case_files("COOL014", "pass_door_takes_the_air_heat")
    assert LOOP in files["racks/r.yaml"]
    files["racks/r.yaml"] = files["racks/r.yaml"].replace(LOOP, LOOP + extra)
    return run_specs(tmp_path, files).racks["rack/r"]


@pytest.mark.parametrize(("coolant", "kg"), [("pg25", 40 * 1.015), ("water", 40 * 0.9956)])
def test_the_coolant_adds_its_mass(tmp_path, coolant, kg):
    dry = _rack(tmp_path / "dry")
    wet = _rack(tmp_path / coolant, f" coolant_volume: 40 L, coolant: {coolant},")
    assert wet.space.coolant.m_as("kg") == pytest.approx(kg)
    assert (wet.space.weight - dry.space.weight).m_as("kg") == pytest.approx(kg)
    assert wet.space.payload == dry.space.payload               # the rated payload is judged on the equipment
    footprint = 0.6 * 1.2
    assert (wet.space.floor_load - dry.space.floor_load).m_as("kg/m**2") == pytest.approx(kg / footprint)
    assert wet.metrics["weight"] == wet.space.weight


def test_the_document_says_dry_or_filled(tmp_path):
    """Dry, the weight leaves the coolant out, a lower bound (weight67); filled, the document says it holds it."""
    dry = _rack(tmp_path / "dry")
    wet = _rack(tmp_path / "wet", " coolant_volume: 40 L,")
    text = weight_basis([("r", dry.space)])
    assert "a lower bound" in text and "the coolant in its trays, manifolds and hoses" in text
    text = weight_basis([("r", wet.space)])
    assert "r's weight is filled: it holds its coolant, 41 kg" in text and "the coolant in" not in text


def test_the_weight_table_shows_the_coolant(tmp_path):
    wet = _rack(tmp_path, " coolant_volume: 40 L,")
    assert coolant_rows(wet.rack.spec, wet.space) == [("Coolant (filled)", "41 kg (40 L of pg25)", "—", "—")]
    assert coolant_rows(_rack(tmp_path / "dry").rack.spec, _rack(tmp_path / "dry2").space) == []
