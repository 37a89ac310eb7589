"""sites31: COOL009's air side counts the heat of another cluster's parts in no rack, not split by hall, as PWR010 does.

review45 gave PWR010, COOL009's capacity and PWR011 the unsplit rest of a hall's cluster (`occupants.StageLoads.rest`): where
the racks fit a facility and the racks with that rest would not, a warning that the split decides. The air side
summed the other halls' racks' heat to air alone, its storage factor 0 doubling as the rest's, so it passed silently.
Fixture (tests/analyse/test_own_hall_site.py): cluster c's hall a (one GB200 NVL72 rack, 24.0 kW of heat to air)
stands in building a; c states a 20 kW checkpoint storage, a part in no rack (its heat's medium no spec states: taken
as air, as COOL009 takes a cluster's own); cluster d (one rack, 24.0 kW to air) names building a as its `facility`.
"""

from __future__ import annotations

import pytest

from tests.analyse.test_own_hall_figures import CLUSTER
from tests.analyse.test_own_hall_site import HALL, OTHER
from tests.analyse.test_shared_storage import STORAGE
from tests.conftest import run_specs


def _air(tmp_path, capacity: str) -> dict:
    storage = STORAGE.format(sid="c-pfs").replace("100 kW", "20 kW")
    text = (HALL.format(id="building-a", pue=1.2, peak=1.3, extra="",
                        deployed=f"cooling_capacity: 1000 kW\nair_cooling_capacity: {capacity}\n")
            + HALL.format(id="building-b", pue=1.2, peak=1.3, extra="", deployed="")
            + HALL.format(id="campus", pue=1.6, peak=1.9, extra="", deployed="")
            + CLUSTER.replace("facility: campus\n", f"facility: campus\n{storage}\n") + OTHER)
    r = run_specs(tmp_path, {"specs.yaml": text})
    return {f.object: f for f in r.findings if f.id == "COOL009" and f.severity != "info"}


def test_a_cluster_beside_a_hall_is_warned_where_the_halls_clusters_rest_decides(tmp_path) -> None:
    """d's 24.0 kW and c's hall a's 24.0 kW fit 50 kW; with c's 20 kW in no rack 68.0 kW would not. Before: a pass."""
    got = _air(tmp_path, "50 kW")
    f = got["cluster/d"]
    assert f.severity == "warning" and "the split decides" in f.message and "'c' hall 'a' 24.0 kW" in f.message
    assert "it would be 67.9 kW" in f.message and "parts in no rack" in f.message, f.message
    assert f.value.m_as("kW") == pytest.approx(47.9, abs=0.05)


def test_the_halls_own_air_side_is_warned_where_the_split_decides(tmp_path) -> None:
    """c's hall a: 24.0 kW, with all of its 20 kW 44.0 kW (within 50 kW alone), with d's racks 47.9 kW, with both
    67.9 kW: the split decides. Before: a pass (its own rest alone within, d's racks alone within)."""
    f = _air(tmp_path, "50 kW")["cluster/c"]
    assert (f.severity, f.key) == ("warning", "floor.halls[a].facility")
    assert "'d' 24.0 kW" in f.message and "it would be 67.9 kW" in f.message and "the split decides" in f.message


def test_with_room_for_the_rest_the_air_side_passes(tmp_path) -> None:
    """At 70 kW even all of c's rest in building a fits (67.9 kW): nothing to say."""
    assert _air(tmp_path, "70 kW") == {}
