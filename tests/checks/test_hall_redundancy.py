"""The hall's UPS modules and generator sets as stated: an unstated redundancy is not shown as a stated N (hall2)."""

from __future__ import annotations

from archgen.model.facility import Facility

BASE = {"id": "h", "floor_rating": "1200 kg/m**2", "air": {"supply": "24 degC"}}


def test_units_without_redundancy_read_not_stated() -> None:
    """`ups_units` without `ups:` is judged as N (PWR011 says so in an info finding); the table must not read 'N'."""
    from archgen.render.reference import _units
    hall = Facility.model_validate({**BASE, "feeds": {"ups_units": {"count": 4, "capacity": "500 kW"}}})
    assert _units(hall.feeds.ups, hall.feeds.ups_units, "modules") == \
        "not stated (judged as N; 4 x 500 kW modules)"
    assert _units("N", hall.feeds.ups_units, "modules") == "N (4 x 500 kW modules)"
