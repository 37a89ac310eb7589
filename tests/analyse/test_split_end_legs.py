"""portend40: a split cable lists its legs on both ends, each leg's rack, device, port and U, leaf-spine halves too.

On NVIDIA's B300 Spectrum-X SU (tests/data/fabrics), each SuperNIC cage's cable is split over two planes' leaves and
each leaf cage's over two spines. Before, only the access tier's cables carried their legs (rack, device, port, no
U), a leaf-spine cable's none, and the port map's end at two leaves (or spines) gave no U nor part: "—". Each leg's
U is the one the placement gave its switch: the same U the leaf's own uplink cables start from.
"""

from __future__ import annotations

import shutil

import pytest

from tests.analyse.test_split_uplinks import DATA, _analyse


@pytest.fixture(scope="module")
def b300(tmp_path_factory: pytest.TempPathFactory):
    from archgen.analyse.portmap import port_map

    path = tmp_path_factory.mktemp("split-end-legs")
    shutil.copy(DATA, path / "b300.yaml")
    a, _ = _analyse(path)
    return a, port_map(a)


def test_both_ends_of_every_split_cable_list_its_legs_in_one_order(b300) -> None:
    """All 1,024 cables are split (512 node-leaf, 512 leaf-spine), two legs each; the ends' rack and device words are
    their legs' racks and devices, each once; a leaf's cage lists each half's own port (33/1, 33/2 of '33/1-2')."""
    _, pm = b300
    split = [r for r in pm.rows if " + " in r.a.device + r.b.device]
    assert len(split) == len(pm.rows) == 1024 and all(len(r.a.legs) == len(r.b.legs) == r.links == 2 for r in split)
    for r in split:
        for end in (r.a, r.b):
            assert end.rack == " + ".join(dict.fromkeys(leg.rack for leg in end.legs))
            assert end.device == " + ".join(dict.fromkeys(leg.device for leg in end.legs))
            assert all(leg.u is not None for leg in end.legs)
    first = next(r for r in split if r.tier == "leaf_spine")
    assert first.a.port == "33/1-2" and [leg.port for leg in first.a.legs] == ["33/1", "33/2"]
    assert [f"{leg.device} {leg.port}" for leg in first.b.legs] == first.b.port.split(", ")
    access = split[0]
    assert [leg.port for leg in access.a.legs] == access.a.port.split(", ") == ["compute-1", "compute-9"]


def test_each_leafs_u_is_where_the_placement_put_it(b300) -> None:
    """A leaf leg's U is the U the leaf's own leaf-spine cables start from; a spine leg's, where its rack holds a
    spine (the SN5610 its elevation labels there), and every spine at one (rack, U) of its own."""
    from archgen.render.wiring import parts_by_u

    a, pm = b300
    leaf_at = {r.a.device: (r.a.rack, r.a.u) for r in pm.rows if r.tier == "leaf_spine"}
    assert len(leaf_at) == 16
    legs = [leg for r in pm.rows if r.tier == "access" for leg in r.b.legs]
    assert len(legs) == 1024 and all((leg.rack, leg.u) == leaf_at[leg.device] for leg in legs)
    spines = {(leg.device, leg.rack, leg.u) for r in pm.rows if r.tier == "leaf_spine" for leg in r.b.legs}
    assert len(spines) == len({(rack, u) for _, rack, u in spines}) == len({d for d, *_ in spines}) == 8
    parts = parts_by_u(a)
    assert {parts[(rack, u)] for _, rack, u in spines} == {"sn5610"}


def test_the_port_map_gives_a_split_ends_u_and_part_where_it_stood_not_provided(b300) -> None:
    """portmap.csv and the document's excerpt: the leaf end of a cage split over planes reads each leaf's U (leaf 01
    at U3, leaf 09 at U19 of the same rack) and the part there, where it read '—'."""
    from archgen.render import fmt
    from archgen.render.wiring import PORTMAP_COLUMNS, _end, parts_by_u, portmap_table

    a, pm = b300
    table = portmap_table(pm, a)
    cells = {c.title: fmt.cell(v, c.unit, c.digits) for c, v in zip(PORTMAP_COLUMNS, table.rows[0], strict=True)}
    assert (cells["A U"], cells["A part"]) == ("7", "dgx-b300-ethernet")   # one node: as before
    assert (cells["B rack"], cells["B U"], cells["B part"]) == ("su01/b300-eth-01", "3 + 19", "sn5610")
    assert _end(pm.rows[0].b, parts_by_u(a)) == ("su01/b300-eth-01 U3 + U19 (sn5610), compute-leaf-01 + "
                                                 "compute-leaf-09 port compute-leaf-01 1/1, compute-leaf-09 1/1")
    up = next(i for i, r in enumerate(pm.rows) if r.tier == "leaf_spine")
    spine = pm.rows[up].b
    assert fmt.cell(table.rows[up][9]) == " + ".join(str(u) for u in spine.leg_u) and len(spine.leg_u) == 2
