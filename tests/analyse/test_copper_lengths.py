"""Copper cable assemblies are ordered per length, as the fibre patch cords are, and the port map names each end's part.

Input (an installer's trial): the GB200 NVL72 SU's bom.csv listed `dac-800g-osfp` 384 and `cat6a-1g` 481 with no
length split, while each fibre cord was a line per length bin; only the port map gave the copper's lengths. And the
elevations label parts (`qm9700` at U5) while the port map named only devices (`compute-leaf-01`), so an installer
matched them by counting U. Now each copper line is one BOM row per ordered length, counted as the port map's rows
of that cable part and ordered length, and each port map end names the part at its rack and U.
"""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest

from archgen.analyse.portmap import port_map
from archgen.model.network import COPPER_MEDIA
from archgen.render.blocks import Table
from archgen.render.cluster_bom import appendices
from archgen.render.wiring import portmap_table

SU = "cluster/gb200-nvl72-su"


@pytest.fixture(scope="module")
def su(shipped):
    a = shipped.clusters[SU]
    return a, port_map(a)


def test_copper_lines_split_by_length_as_the_port_map_orders_them(su, shipped):
    a, pm = su
    rows = Counter((r.cable, r.ordered) for r in pm.rows)
    copper = [line for line in a.cabling.bom if line.kind == "Link"
              and getattr(shipped.design.specs.get(line.part), "media", "") in COPPER_MEDIA]
    assert {line.part for line in copper} == {"dac-800g-osfp", "acc-800g-osfp", "cat6a-1g"}   # LACC: newuser80
    for line in copper:
        assert line.lengths and sum(n for _, n in line.lengths) == line.quantity
        assert dict(line.lengths) == {length: n for (part, length), n in rows.items() if part == line.part}


def test_bom_table_has_a_row_per_copper_length(su, shipped):
    a, _ = su
    bom = appendices(SimpleNamespace(run=shipped), a).sections[0]
    table = next(b for b in bom.blocks if isinstance(b, Table) and b.id == "bom")
    dac = [row for row in table.rows if row[0] == "dac-800g-osfp"]
    line = next(x for x in a.cabling.bom if x.part == "dac-800g-osfp")
    assert len(dac) == len(line.lengths) > 1
    assert [row[5] for row in dac] == [n for _, n in line.lengths]
    assert all(row[1].endswith(f", {length:g} m") for row, (length, _) in zip(dac, line.lengths, strict=True))


def test_port_map_names_the_part_at_each_end(su):
    a, pm = su
    table = portmap_table(pm, a)
    heads = [c.title for c in table.columns]
    row = dict(zip(heads, table.rows[0], strict=True))
    leaf_spine = dict(zip(heads, next(r for r in table.rows if r[2] == "leaf to spine"), strict=True))
    assert row["A part"] == "gb200-compute-tray" and row["B part"] == "qm9700"
    assert leaf_spine["A part"] == leaf_spine["B part"] == "qm9700"
    at = {(inst.name, item.u): item.part.id for inst in a.cluster.instances for item in inst.rack.items}
    for r in table.rows:
        rec = dict(zip(heads, r, strict=True))
        for e in "AB":
            assert rec[f"{e} part"] == at[(rec[f"{e} rack"], rec[f"{e} U"])]
