"""hall30: a rack's `air_inlet_max` at the altitude of the halls it stands in, not of its own facility.

Before, the GB200 NVL72 rack (ASHRAE A2, 35 °C allowable at or below 900 m) kept its own facility's figure
('hall-liquid', no altitude: 35 °C) while the layout put one in building b at 2,000 m, where A2 allows
35 - (2,000 - 900) / 300 = 31.3 °C (ASHRAE TC 9.9, 2021: 1 K per 300 m above 900 m; `model.facility.allowable_air`).
Fixture: one rack in each of two buildings (tests/analyse/test_own_hall_site.py).
"""

from __future__ import annotations

import pytest

from tests.analyse.test_own_hall_site import CLUSTER, HALL
from tests.conftest import run_specs


def _site(tmp_path, alt_a: str = "", alt_b: str = "altitude: 2000 m\n"):
    text = (HALL.format(id="building-a", pue=1.2, peak=1.3, extra="", deployed=alt_a)
            + HALL.format(id="building-b", pue=1.2, peak=1.3, extra="", deployed=alt_b)
            + HALL.format(id="campus", pue=1.6, peak=1.9, extra="", deployed="") + CLUSTER)
    return run_specs(tmp_path, {"specs.yaml": text}).racks["rack/gb200-nvl72"]


def test_a_rack_in_two_halls_takes_the_worse_altitude_and_says_so(tmp_path) -> None:
    """Hall a at sea level (35 °C), hall b at 2,000 m (31.3 °C): the lower, with both places named."""
    a = _site(tmp_path)
    assert a.metrics["air_inlet_max"].m_as("degC") == pytest.approx(35 - 1100 / 300)
    assert a.inlet_note.startswith("the lowest of the places the layout puts it: cluster 'c' hall 'b' "
                                   "(facility 'building-b'), 2,000 m: 31.3 °C")


def test_a_rack_in_halls_at_one_altitude_takes_it(tmp_path) -> None:
    """Both buildings at 1,500 m: 35 - 600 / 300 = 33 °C (the rack's own facility states no altitude: 35 °C)."""
    a = _site(tmp_path, alt_a="altitude: 1500 m\n", alt_b="altitude: 1500 m\n")
    assert a.metrics["air_inlet_max"].m_as("degC") == pytest.approx(33.0)
    assert a.inlet_note.startswith("the same at every place")
