"""raildiag39: a run between racks is never shorter than the height between its ends plus the distance across.

splitrack39's repro (tests/analyse/test_splitter_racks.py, its 200G storage variant on splitter fibres) with the
SN5600 leaf moved from U10 to U40 of rack r: s's GB200 trays at U3-5 reach it over the trays of a floor with a
0.2 m tray drop, 600 mm pitch and no slack. Before, each of s's runs was 2 x 0.2 + 0.6 = 1.0 m whatever its U,
though the cable climbs 35 to 37 U (1.56 to 1.64 m) from tray to leaf; now the two drops are never less than that
height: 37 U x 44.45 mm + 0.6 m = 2.24465 m from U3, 36 U: 2.2002 m, 35 U: 2.15575 m. r's own trays (in-rack:
|ΔU| x 44.45 mm + 1 m) are as before: 37 U: 2.64465 m, 36 U: 2.6002 m, 35 U: 2.55575 m.
"""

from __future__ import annotations

import pytest

from archgen.analyse.portmap import port_map
from archgen.render.cabling import geometry
from tests.analyse.test_splitter_racks import FIBRE, RACKS, R, S
from tests.conftest import run_specs

U = 0.04445


@pytest.fixture(scope="module")
def analysis(tmp_path_factory):
    racks = {k: v.replace("{at: 10, part: qm9700", "{at: 40, part: sn5600") for k, v in RACKS.items()}
    assert "{at: 40, part: sn5600" in racks["racks/r.yaml"]
    run = run_specs(tmp_path_factory.mktemp("rise"), {**racks, "clusters/c.yaml": FIBRE})
    return run.clusters["cluster/c"]


def test_a_run_to_the_next_rack_climbs_the_height_between_its_ends(analysis) -> None:
    [tr] = [t for t in analysis.cabling.runs if (t.fabric, t.tier) == ("compute", "access")]
    names = analysis.cluster.instances
    got = sorted((names[int(r)].name, int(u), round(float(n), 5)) for r, u, n in zip(tr.a_rack, tr.a_u, tr.length,
                                                                                       strict=True))
    assert got == [(R, 3, round(37 * U + 1, 5)), (R, 4, round(36 * U + 1, 5)), (R, 5, round(35 * U + 1, 5)),
                   (S, 3, round(37 * U + 0.6, 5)), (S, 4, round(36 * U + 0.6, 5)),   # were 1.0 m each
                   (S, 5, round(35 * U + 0.6, 5))]


def test_the_port_map_and_bins_take_the_longer_runs(analysis) -> None:
    """A cable's length is its longer leg's: r's tray 1 (2.64465 m), r's tray 3 (2.55575 m, with s's tray 1) and
    s's tray 2 (2.2002 m), ordered in the next bin up, 3, 3 and 2.5 m (s's cable at 1 m before)."""
    rows = [r for r in port_map(analysis).rows if r.fabric == "compute"]
    assert [(r.a.racks, round(r.length, 5), r.ordered) for r in rows] == [
        ((R,), round(37 * U + 1, 5), 3.0), ((R, S), round(35 * U + 1, 5), 3.0), ((S,), round(36 * U + 0.6, 5), 2.5)]


def test_the_document_states_the_rule_where_it_can_bind(analysis) -> None:
    """The rule's words name the height where the two drops (0.4 m) are under the tallest rack's (42 U: 1.87 m), and
    not on a floor of 1.5 m drops (3 m), every shipped floor's, so their documents read as before."""
    floor, clause = analysis.cluster.spec.floor, "the run between racks takes that height instead"
    assert clause in geometry(floor, None, 42)
    assert clause not in geometry(floor.model_copy(update={"tray_drop": floor.tray_drop * 7.5}), None, 52)
