"""A multi-rack scale-up domain's trunk runs: the side-by-side path between neighbouring racks, and one run per pair
of switch trays (nu59fix, after newuser59's open items 5 and 6).

Fixture: the NVL36x2 pod of `tests.analyse.test_scale_up_racks` (its parts are test inputs). Expected lengths follow
the floor's inputs: the tray run is 2 x tray_drop + rack pitch + slack; the side-by-side run between neighbouring
racks is |Δheight| + rack pitch + in_rack (`analyse.cabling._lengths`, after Oracle's multirack tables: 3 feet within
a rack, 5 feet to an adjacent rack). U = 44.45 mm (EIA-310).
"""

from __future__ import annotations

import pytest

from archgen.analyse.portmap import port_map
from archgen.analyse.scale_up_racks import trunk_ends
from tests.analyse.test_scale_up_racks import _text
from tests.conftest import run_specs

U_M, PITCH_M, IN_RACK_M = 0.04445, 0.6, 1.0
#: newuser59's floor: tray_drop 1.5 m and slack 2 m make the tray run 2 x 1.5 + 0.6 + 2 = 5.6 m.
FLOOR = "floor: {racks_per_row: PER_ROW, rack_pitch: 600 mm, row_pitch: 3.6 m, tray_drop: 1.5 m, slack: 2 mSIDE}"


def _pod(tmp_path, *, side: bool, per_row: int = 10, shifted: int = 0):
    """Two NVL36 racks, one domain, a 4 m copper trunk (UALink's '< 4 m' copper reach, newuser59's note).

    `shifted`: the second rack's type stands its 9 switch trays that many U higher (U25 + shifted onwards).
    """
    text = _text(reach="4 m", per_row=per_row)
    head, _, rest = text.partition("floor: {")
    text = head + FLOOR.replace("PER_ROW", str(per_row)).replace("SIDE", ", side_by_side: true" if side else "") \
        + rest[rest.index("}") + 1:]
    if shifted:
        start = text.index("kind: Rack")
        end = text.index("---", start)
        other = text[start:end].replace("id: nvl36", "id: nvl36b").replace("{at: 25,", f"{{at: {25 + shifted},")
        text = text[:end] + "---\n" + other + text[end:]
        text = text.replace("layout: [{rack: nvl36, count: 2}]", "layout: [{rack: nvl36, count: 1}, "
                                                                 "{rack: nvl36b, count: 1}]")
    return run_specs(tmp_path, {"c.yaml": text})


def _trunk(r):
    a = r.clusters["cluster/pod"]
    (tier,) = [t for t in a.cabling.tiers if t.tier == "trunk"]
    return a, tier


def test_over_the_trays_adjacent_racks_exceed_a_4_m_copper_reach(tmp_path) -> None:
    """No side path stated: 2 x 1.5 + 0.6 + 2 = 5.6 m, past 4 m (CAB001), and the message names the key."""
    r = _pod(tmp_path, side=False)
    _, tier = _trunk(r)
    assert tier.max_length.m_as("m") == pytest.approx(2 * 1.5 + PITCH_M + 2)
    (msg,) = [f.message for f in r.findings if f.id == "CAB001"]
    assert "exceed the 4 m reach of test-trunk" in msg and "`floor.side_by_side: true`" in msg


def test_side_by_side_neighbours_take_the_direct_path(tmp_path) -> None:
    """side_by_side: true: trays at the same U, 0 + 0.6 + 1 = 1.6 m, within 4 m, ordered in the 2 m bin."""
    r = _pod(tmp_path, side=True)
    _, tier = _trunk(r)
    assert tier.max_length.m_as("m") == pytest.approx(PITCH_M + IN_RACK_M)
    assert not [f for f in r.findings if f.id == "CAB001"]
    assert tier.by_option_bin == {("test-trunk", 2.0): 648}


def test_racks_in_two_rows_keep_the_tray_run(tmp_path) -> None:
    """One rack a row: not neighbours in a row, so 2 x 1.5 + 3.6 + 2 = 8.6 m over the trays, side_by_side or not."""
    _, tier = _trunk(_pod(tmp_path, side=True, per_row=1))
    assert tier.max_length.m_as("m") == pytest.approx(2 * 1.5 + 3.6 + 2)


def test_each_run_is_measured_from_the_trays_the_port_map_names(tmp_path) -> None:
    """The second rack's trays stand 5 U higher: each run (tray k to tray k) is 5 x 44.45 mm + 0.6 + 1 m, and every
    port map row's two U are its run's, so its length is that formula of its own ends. Before, one run per pair of
    racks was measured from each rack's lowest tray while the rows named trays U25 to U33."""
    r = _pod(tmp_path, side=True, shifted=5)
    a, tier = _trunk(r)
    a_rack, a_u, b_rack, b_u, _, weight = trunk_ends(a.cluster, a.cluster.spec.scale_up)
    assert (sorted(a_u.tolist()), sorted(b_u.tolist())) == (list(range(25, 34)), list(range(30, 39)))
    assert weight.tolist() == [72] * 9 and tier.links == 648   # 648 links, one a cable, spread over 9 trays
    rows = [row for row in port_map(a).rows if row.tier == "trunk"]
    assert len(rows) == 648
    for row in rows:
        assert row.b.u - row.a.u == 5
        assert row.length == pytest.approx(abs(row.b.u - row.a.u) * U_M + PITCH_M + IN_RACK_M)
