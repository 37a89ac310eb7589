"""sites31: a whole peer's load on a facility's generator sets takes its own facility's generator PUE.

`checks.power_figures._share` took the judged facility's `peak_pue` as an argument and the peer's annual PUE, so the
choice of PUE could mix two facilities. A peer counted whole stands in the judged facility by naming it
(`analyse.hall_groups.places`), so the two were the same facility and no figure moved: the rule is asserted on the
function, as `analyse.facility.generator_pue` states it (`peak_pue`, else the annual PUE, else not provided).
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from archgen.checks.power_figures import _share
from archgen.units import Q_


def _peer(peak: float | None, annual: float | None, **metrics) -> SimpleNamespace:
    cost = None if annual is None else SimpleNamespace(energy=SimpleNamespace(pue=annual))
    fac = SimpleNamespace(peak_pue=peak, cost=cost, feeds=None)
    return SimpleNamespace(metrics={"it_power_racks": Q_(100, "kW"), **metrics}, cluster=SimpleNamespace(facility=fac))


@pytest.mark.parametrize(("peak", "annual", "want"), [(1.4, 1.2, 140.0), (None, 1.2, 120.0), (None, None, None)])
def test_the_floor_is_the_racks_x_the_peers_own_generator_pue(peak, annual, want) -> None:
    """No facility power: the racks' 100 kW x `peak_pue` 1.4, else x the annual 1.2, else not provided."""
    got = _share("generators", _peer(peak, annual))
    assert (None if got is None else got.m_as("kW")) == (None if want is None else pytest.approx(want))


def test_the_facility_power_read_is_the_one_of_that_pue() -> None:
    """A peer's facility stating `peak_pue`: its `facility_power_peak`; stating none: its `facility_power`."""
    both = {"facility_power": Q_(120, "kW"), "facility_power_peak": Q_(140, "kW")}
    assert _share("utility", _peer(1.4, 1.2, **both)).m_as("kW") == 140
    assert _share("generators", _peer(None, 1.2, **both)).m_as("kW") == 120
