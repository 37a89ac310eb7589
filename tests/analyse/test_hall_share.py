"""split30: a hall's share of a facility's UPS and generator sets, one function (`analyse.facility.hall_load`).

Before, the checks (`checks.power_figures._hall_share`) and the headrooms (`analyse.facility._hall_load`) each
computed it: the former None on the generator sets where the facility states no PUE, the latter x1. docs/facility.md:
"Without either PUE the generators are not judged", so a share that needs the PUE is not provided without one.
Fixture (tests/analyse/test_own_hall_site.py): cluster c's hall a draws 131.60 kW at its racks' feeds, in building a
(peak PUE 1.3, annual 1.2, the distribution lossless).
"""

from __future__ import annotations

import pytest

from archgen.analyse.facility import hall_load
from tests.analyse.test_own_hall_site import _site


def _c_and_building(tmp_path):
    r = _site(tmp_path)
    c = r.clusters["cluster/c"]
    return c, c.cluster.hall_facilities[0], c.metrics["hall_power.a"].m_as("kW")


def test_a_halls_share_is_its_draw_x_the_stages_factor(tmp_path) -> None:
    """UPS: 131.60 kW (no distribution efficiency stated); generator sets: x peak PUE 1.3 = 171.1 kW, else x the
    annual 1.2; the feeds and the plant: the draw itself."""
    c, fac, draw = _c_and_building(tmp_path)
    assert draw == pytest.approx(131.6, abs=0.05)
    assert hall_load("ups", c, 0, fac).m_as("kW") == pytest.approx(draw)
    assert hall_load("generators", c, 0, fac).m_as("kW") == pytest.approx(draw * 1.3)
    assert hall_load("", c, 0, fac).m_as("kW") == pytest.approx(draw)
    annual = fac.model_copy(update={"peak_pue": None})
    assert hall_load("generators", c, 0, annual).m_as("kW") == pytest.approx(draw * 1.2)


def test_a_halls_share_on_the_generators_is_not_provided_without_a_pue(tmp_path) -> None:
    """No `peak_pue` and no `cost:`: None (the headrooms took it x1, the checks None), the UPS share still given."""
    c, fac, draw = _c_and_building(tmp_path)
    bare = fac.model_copy(update={"peak_pue": None, "cost": None})
    assert hall_load("generators", c, 0, bare) is None
    assert hall_load("ups", c, 0, bare).m_as("kW") == pytest.approx(draw)
