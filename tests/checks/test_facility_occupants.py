"""One sum of a facility's occupants (power30): the run's clusters naming it and the halls of `floor.halls` naming it.

Before, two mechanisms summed them: `hall_figures.shared_hall` (clusters naming the facility, a shared checkpoint
storage once) and `own_halls.peers_over` (halls naming it), with a special case between them against a double
count (d3edde21: two clusters of one 700 kW hall warned on 742.6 kW where it carries 642.6 kW, their 100 kW storage
twice). So a cluster naming a building with another such cluster and another cluster's hall in it was told of one
or the other, never their sum, and a hall judged with two clusters sharing a storage counted it twice. Fixture
(tests/analyse/test_own_hall_site.py): cluster c's hall a stands in building a (one GB200 NVL72 rack, 131.6 kW);
clusters d and e name building a as their `facility` (one rack each, 135.7 kW with their optics and shelf loss).
"""

from __future__ import annotations

import pytest

from tests.analyse.test_own_hall_site import OTHER, _site
from tests.analyse.test_shared_storage import STORAGE

E = OTHER.replace("id: d\n", "id: e\n")


def _with_storage(text: str) -> str:
    """`text`'s cluster stating the 100 kW checkpoint storage 'site-pfs' (tests/analyse/test_shared_storage.py)."""
    return text.replace("facility: building-a\n", "facility: building-a\n" + STORAGE.format(sid="site-pfs") + "\n")


def _pwr010(tmp_path, capacity: str, more: str) -> dict:
    r = _site(tmp_path, deployed_a=f"critical_it_power: {capacity}\n", more=more)
    return {f.object: f for f in r.findings if f.id == "PWR010" and f.severity != "info"}, r.metrics


def test_two_clusters_of_one_hall_count_their_shared_storage_once(tmp_path) -> None:
    """The double count (d3edde21): two clusters of one 700 kW hall, each 2 x 271.3 kW of racks + its 100 kW storage,
    the storage one system: 642.6 kW, within; summed twice it was 742.6 kW, warned. At 600 kW both are warned on
    642.6 kW."""
    from tests.analyse.test_shared_storage import _specs
    from tests.conftest import run_specs

    run = run_specs(tmp_path, _specs("700 kW", "site-pfs", "site-pfs"))
    load = sum(run.metrics[p]["it_power"].m_as("kW") for p in ("cluster/c", "cluster/d")) - 100
    assert load == pytest.approx(642.6, abs=0.1)
    assert not [f for f in run.findings if f.id in ("PWR010", "COOL009") and f.severity != "info"]
    over = run_specs(tmp_path / "b", _specs("600 kW", "site-pfs", "site-pfs"))
    got = [f for f in over.findings if f.id == "PWR010"]
    assert [f.severity for f in got] == ["warning", "warning"]
    assert all(f.value.m_as("kW") == pytest.approx(load) for f in got)


def test_a_cluster_naming_a_building_counts_both_another_cluster_and_a_hall_in_it(tmp_path) -> None:
    """d, e and c's hall a in a 300 kW building: 2 x 135.66 + 131.60 = 402.9 kW, over it. Before, d summed e alone
    (271.4 kW, `shared_hall`) and, that within, c's hall alone (267.3 kW, `peers_over` with hall-less peers left
    out): it passed."""
    got, m = _pwr010(tmp_path, "300 kW", OTHER + E)
    total = m["cluster/d"]["it_power"].m_as("kW") + m["cluster/e"]["it_power"].m_as("kW") + \
        m["cluster/c"]["hall_power.a"].m_as("kW")
    assert sorted(got) == ["cluster/c", "cluster/d", "cluster/e"]
    assert got["cluster/d"].severity == "warning" and got["cluster/d"].value.m_as("kW") == pytest.approx(total)
    assert "'e' 135.7 kW" in got["cluster/d"].message and "'c' hall 'a' 131.6 kW" in got["cluster/d"].message
    assert got["cluster/c"].value.m_as("kW") == pytest.approx(total)


def test_a_hall_counts_a_storage_its_peers_share_once(tmp_path) -> None:
    """d and e state one 100 kW storage: c's hall a with them carries 131.60 + 2 x 235.66 - 100 = 502.9 kW. Before,
    `peers_over` summed the storage twice (602.9 kW) and warned at 550 kW."""
    got, m = _pwr010(tmp_path, "550 kW", _with_storage(OTHER) + _with_storage(E))
    assert "cluster/c" not in got
    got, m = _pwr010(tmp_path / "b", "500 kW", _with_storage(OTHER) + _with_storage(E))
    total = m["cluster/d"]["it_power"].m_as("kW") + m["cluster/e"]["it_power"].m_as("kW") - 100 + \
        m["cluster/c"]["hall_power.a"].m_as("kW")
    assert got["cluster/c"].value.m_as("kW") == pytest.approx(total)
    assert "checkpoint storage 'site-pfs', stated by 'd' and 'e', counted once at 100.0 kW" in got["cluster/c"].message


def test_the_ups_of_a_cluster_naming_a_building_holds_a_hall_in_it_too(tmp_path) -> None:
    """PWR011: building a's UPS, N+1 of 3 x 150 kW (300 kW usable), under d, e and c's hall a: 402.9 kW. Before, d's
    UPS summed e alone (271.4 kW) and passed."""
    r = _site(tmp_path, more=OTHER + E)
    got = [f for f in r.findings if f.id == "PWR011" and f.object == "cluster/d" and "UPS" in f.message
           and f.severity != "info"]
    assert [f.severity for f in got] == ["warning"] and "'c' hall 'a' 131.6 kW" in got[0].message


def test_the_air_side_of_a_cluster_naming_a_building_holds_a_halls_heat_to_air_too(tmp_path) -> None:
    """COOL009's air side: building a's 60 kW under d's and e's racks' heat to air and c's hall a's (24.0 kW each,
    tests/analyse/test_own_hall_figures.py). Before, d summed e alone (48.0 kW) and was not warned."""
    r = _site(tmp_path, deployed_a="cooling_capacity: 1000 kW\nair_cooling_capacity: 60 kW\n", more=OTHER + E)
    got = [f for f in r.findings if f.id == "COOL009" and f.object == "cluster/d" and f.severity != "info"]
    assert [f.severity for f in got] == ["warning"] and "'c' hall 'a' 24.0 kW" in got[0].message, got
    assert got[0].value.m_as("kW") == pytest.approx(72.0, abs=0.2)


def test_a_halls_ups_holds_the_other_occupants_of_its_facility(tmp_path) -> None:
    """PWR011 for a hall naming its own facility: c's hall a (131.6 kW of racks) within building a's 300 kW of usable
    UPS alone, with d and e naming the building 402.9 kW. Before, each hall's units were judged alone (hall29fix's
    open item 2a), so c passed."""
    r = _site(tmp_path, more=OTHER + E)
    got = [f for f in r.findings if f.id == "PWR011" and f.object == "cluster/c" and "UPS" in f.message
           and f.severity != "info"]
    assert [(f.severity, f.key) for f in got] == [("warning", "floor.halls[a].facility")]
    assert "'d' 135.7 kW, 'e' 135.7 kW" in got[0].message and got[0].value.m_as("kW") == pytest.approx(402.9, abs=0.1)


def test_a_halls_air_side_holds_the_other_occupants_of_its_facility(tmp_path) -> None:
    """COOL009's air side for hall a: its racks' 24.0 kW of heat to air within building a's 60 kW alone, 71.9 kW with
    d's and e's. Before, judged alone: passed."""
    r = _site(tmp_path, deployed_a="cooling_capacity: 1000 kW\nair_cooling_capacity: 60 kW\n", more=OTHER + E)
    got = [f for f in r.findings if f.id == "COOL009" and f.object == "cluster/c" and f.severity != "info"]
    assert [(f.severity, f.key) for f in got] == [("warning", "floor.halls[a].facility")], got
    assert "heat to air of hall 'a''s racks 24.0 kW" in got[0].message and "'d' 24.0 kW" in got[0].message
