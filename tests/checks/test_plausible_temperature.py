"""COOL008: absolute temperatures outside 0-80 degC are flagged with the bound and its reason (issue 11 follow-up)."""

from __future__ import annotations

from archgen.pipeline import run


def test_thirty_kelvin_supply_is_flagged_with_its_celsius_value_and_reason(spec_tree):
    # The input that showed it: 'supply: 30 K' passes validation (above absolute zero) and reads as -243.15 degC.
    root = spec_tree({"facility.yaml": "kind: Facility\nid: hall\nfloor_rating: 1200 kg/m**2\n"
                                       "air: {supply: 25 degC}\nwater: {supply: 30 K}\n"})
    found = [f for f in run([root]).findings if f.id == "COOL008"]
    assert len(found) == 1
    f = found[0]
    assert (f.severity, f.object, f.location.line) == ("warning", "facility/hall", 5)
    assert abs(f.value.to("degC").magnitude - (30 - 273.15)) < 1e-9      # 30 K = -243.15 degC
    assert f.limit.to("degC").magnitude == 0
    assert "-243.1 °C" in f.message and "water freezes at 0 °C" in f.message


def test_bounds_hold_every_ashrae_class_range():
    # Every allowable air range (A1-A4: 5-45 degC) and liquid class maximum (W17-W45) lies inside 0-80 degC, so a
    # design that meets a class never trips COOL008.
    from archgen.checks.supply_temperatures import TEMPERATURE_BOUNDS
    from archgen.model.facility import AIR_CLASS_RANGE, LIQUID_CLASS_MAX
    low, high = (b.to("degC").magnitude for b, _ in TEMPERATURE_BOUNDS)
    assert all(low <= lo and hi <= high for lo, hi in AIR_CLASS_RANGE.values())
    assert all(low <= t <= high for t in LIQUID_CLASS_MAX.values())
