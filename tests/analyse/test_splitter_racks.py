"""splitrack39: a cable split at the leaf may have its node legs in two racks; each leg's rack is recorded.

At the access tier the port map cuts a cable split at the leaf (`link_ends.leaf_split`: a 1:2 copper splitter, a
leaf connector's 1:2 splitter fibre) by its leaf's ports, across nodes, in floor order (`portmap._tier_rows`), so
where a leaf takes an odd number of one rack's ports the next rack's first port shares that rack's last port's
assembly. Before, such a row's node end took only its first leg's rack (and U), and the two nodes, both
``gb200-compute-tray-01``-style names unique only in their own rack, could be written as one.

Hand count: rack r (three GB200 compute trays at U3-5 and a QM9700 leaf at U10) beside rack s (three trays), one
400G port a node (`ports_per_node: 1`), cabled by NVIDIA's MCP7Y00 splitter (`{a: dac-400g, b: dac-800g-osfp}`, one
twin-port 800G OSFP end at the leaf, two 400G legs: tests/test_splitters.py). 6 ports, 2 legs an assembly: 3
assemblies, r's trays 1+2, r's tray 3 + s's tray 1, s's trays 2+3. The floor's 0.2 m tray drops, 600 mm pitch and no
slack put s's runs at 2 x 0.2 + 0.6 = 1.0 m, within the 2 m the splitter is sold at (max_length).
"""

from __future__ import annotations

import pytest

from archgen.analyse.portmap import port_map
from archgen.render.cabling import run_list
from archgen.render.wiring import _end, parts_by_u, portmap_table
from tests.conftest import run_specs
from tests.data.clusters.build import rack
from tests.data.clusters.small import RACK_42U

TRAY = "gb200-compute-tray"
RACKS = {
    "racks/r.yaml": rack("r", [(3, TRAY, 3), (10, "qm9700", 1)], [(1, 2)], name="Three trays and their leaf",
                         **RACK_42U),
    "racks/s.yaml": rack("s", [(3, TRAY, 3)], [(1, 2)], name="Three trays", **RACK_42U),
}
CLUSTER = """\
kind: Cluster
id: c
units:
- id: su
  racks:
  - {rack: r, count: 1}
  - {rack: s, count: 1}
layout:
- {unit: su, count: 1}
floor: {racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3 m, tray_drop: 0.2 m, slack: 0 m}
scale_up: {domain: node, size: 4, bandwidth: 900 GB/s}
fabrics:
- id: compute
  topology: fat-tree
  role: compute
  speed: 400 Gb/s
  switch: qm9700
  tiers: 1
  ports_per_node: 1
  leaf: {rack: r}
  links:
    access: [{a: dac-400g, b: dac-800g-osfp}]
"""
R, S = "su01/r-01", "su01/s-01"


@pytest.fixture(scope="module")
def analysis(tmp_path_factory):
    run = run_specs(tmp_path_factory.mktemp("racks"), {**RACKS, "clusters/c.yaml": CLUSTER})
    return run.clusters["cluster/c"]


def test_each_leg_of_a_splitter_keeps_its_rack(analysis) -> None:
    """Three rows, the middle one at both racks, its two nodes named apart by rack; U not one number there."""
    rows = [r for r in port_map(analysis).rows if r.fabric == "compute"]
    assert [(r.a.racks, r.links) for r in rows] == [((R,), 2), ((R, S), 2), ((S,), 2)]   # was (R,), (R,), (S,)
    mid = rows[1]
    assert mid.a.rack == f"{R} + {S}" and mid.a.u is None
    assert mid.a.device == f"{TRAY}-03 + {TRAY}-01"     # was "gb200-compute-tray-03 + gb200-compute-tray-01" at R
    assert mid.a.port == f"{R} {TRAY}-03 compute-1, {S} {TRAY}-01 compute-1"
    # fidelity41: at two nodes of one rack no one U either (it read the first node's, 3 and 4), but each node's
    assert (rows[0].a.u, rows[2].a.u) == (None, None) and (rows[0].a.leg_u, rows[2].a.leg_u) == ((3, 4), (4, 5))
    assert all(r.b.racks == (R,) and r.b.device == "compute-leaf-01" for r in rows)
    # portend40: each leg's U, so the port map gives both (r's tray 3 at U5, s's tray 1 at U3), where it read "—"
    assert [leg[::3] for leg in mid.a.legs] == [(R, 5), (S, 3)] and mid.a.leg_u == (5, 3)
    table = portmap_table(port_map(analysis), analysis).rows
    assert [row[3:7] for row in table if row[1] == "compute"] == [
        (R, "3 + 4", TRAY, f"{TRAY}-01 + {TRAY}-02"), (f"{R} + {S}", "5 + 3", TRAY, f"{TRAY}-03 + {TRAY}-01"),
        (S, "4 + 5", TRAY, f"{TRAY}-02 + {TRAY}-03")]
    assert all(r.b.u == 10 for r in rows)                # one leaf: its U
    excerpt = _end(rows[0].a, parts_by_u(analysis))
    assert excerpt == f"{R} U3 + U4 ({TRAY}), {TRAY}-01 + {TRAY}-02 port {TRAY}-01 compute-1, {TRAY}-02 compute-1"


def test_two_racks_trays_of_one_name_are_two_nodes(tmp_path) -> None:
    """One tray a rack: the assembly's legs are both racks' tray-01, written twice, not once (was 'compute-1')."""
    racks = {"racks/r.yaml": RACKS["racks/r.yaml"].replace(f"{TRAY}, count: 3", f"{TRAY}, count: 1"),
             "racks/s.yaml": RACKS["racks/s.yaml"].replace(f"{TRAY}, count: 3", f"{TRAY}, count: 1")}
    a = run_specs(tmp_path, {**racks, "clusters/c.yaml": CLUSTER}).clusters["cluster/c"]
    [row] = [r for r in port_map(a).rows if r.fabric == "compute"]
    assert row.a.racks == (R, S) and row.a.device == f"{TRAY}-01 + {TRAY}-01"
    assert row.a.port == f"{R} {TRAY}-01 compute-1, {S} {TRAY}-01 compute-1"


def test_an_assembly_is_bought_once_at_its_longest_legs_bin(analysis) -> None:
    """r's in-rack runs 1.22-1.31 m (bin 1.5 m), s's 1.0 m (bin 1.0 m): the assembly joining the two racks is bought
    at 1.5 m, once. Each leg took its own bin before, so the tier's length bins held half an assembly in each: 2 + 2 = 4 for
    3 (the BOM line, its lengths not adding up to its 3, gave none), and the run list rounded each node's half up,
    6 for 3."""
    [tier] = [t for t in analysis.cabling.tiers if (t.fabric, t.tier) == ("compute", "access")]
    assert tier.cables == {"dac-400g/dac-800g-osfp": 3}
    assert tier.cables_by_bin == {("dac-400g/dac-800g-osfp", 1.5): 2, ("dac-400g/dac-800g-osfp", 1.0): 1}
    [line] = [ln for ln in analysis.cabling.bom if ln.kind == "Link"]
    assert (line.part, line.quantity, line.lengths) == ("dac-400g", 3, ((1.0, 1), (1.5, 2)))   # was no lengths
    rows = [r for r in port_map(analysis).rows if r.fabric == "compute"]
    assert [r.ordered for r in rows] == [1.5, 1.5, 1.0]     # the port map orders them so: both now agree
    runs = [row for row in run_list(analysis).rows if row[0] == "compute"]
    assert rows[1].length == runs[2][7] > runs[3][7] == pytest.approx(1.0)   # its longer leg's, r's tray 3
    assert sum(row[-1] for row in runs) == 3                  # was 6: one node's half an assembly read 1
    assert [row[-1] for row in runs] == [1, 0, 1, 0, 1, 0]    # counted on its first leg's row, in floor order
    assert [(row[2], row[3], row[9]) for row in runs][2:4] == [(R, 5, 1.5), (S, 3, 1.5)]   # s's leg at r's bin


#: The same racks on a 200G storage fabric of SN5600 leaves: each leaf twin-port SR8's connector serves two 400G SR4
#: NIC modules at 200G on a 1:2 splitter fibre (tests/analyse/test_splitter_fibres.py), one cable split at the leaf.
FIBRE = (CLUSTER.replace("role: compute", "role: storage").replace("400 Gb/s", "200 Gb/s")
         .replace("qm9700", "sn5600").replace("{a: dac-400g, b: dac-800g-osfp}", "{a: mmf-400g-sr4, b: mmf-800g-sr8}"))
SPLIT = "fibre-multimode-mpo-12-apc-type-b-split-1x2-om3-"


def test_a_splitter_fibre_from_a_leaf_connector_takes_two_nodes_legs(tmp_path) -> None:
    """One storage port a node: 6 links, 2 a connector, 3 splitter fibres of 8 strands (4 a leg), as the tier counts.

    Before, the map cut them node by node: 6 rows of one link, each a whole splitter; the BOM's fibre lines took half
    a splitter a leg in each bin (2 at 1 m + 2 at 1.5 m); the fibre table had 3 cables, 24 strands leaving each rack.
    Now the middle splitter's legs are r's tray 3 and s's tray 1: 4 strands cross from r's leaf to s (its leg in r
    stays), and all 8 of the last one."""
    racks = {k: v.replace("qm9700", "sn5600") for k, v in RACKS.items()}
    a = run_specs(tmp_path, {**racks, "clusters/c.yaml": FIBRE}).clusters["cluster/c"]
    [tier] = [t for t in a.cabling.tiers if (t.fabric, t.tier) == ("compute", "access")]
    assert (tier.links, tier.physical) == (6, 3)
    pm = port_map(a)
    rows = [r for r in pm.rows if r.fabric == "compute"]
    assert [(r.a.racks, r.links, r.cable) for r in rows] == [
        ((R,), 2, SPLIT + "1.5m"), ((R, S), 2, SPLIT + "1.5m"), ((S,), 2, SPLIT + "1m")]      # was 6 rows, 1 link
    fibres = {ln.part: ln.quantity for ln in a.cabling.bom if ln.kind == "Fibre"}
    assert fibres == {SPLIT + "1.5m": 2, SPLIT + "1m": 1}                                     # was 2 + 2
    assert pm.rack_fibres() == [(S, 2, 12, 0), (R, 2, 12, 0)]                                  # was 3, 24 each
