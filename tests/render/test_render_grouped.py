"""Issue 25: a design of many racks renders grouped, at the size of its rack types, not of its racks.

The shipped GB300 example scaled to 50 scalable units (550 racks, 11 to a row: 50 rows) without fabrics
(`tests/render/scaled.py`); `bench/bench_render.py racks` times it at 8,182 SUs (90,002 racks).
"""

from __future__ import annotations

import math

import pytest

from archgen.analyse.end_names import EndNames
from archgen.model import PDU, PowerShelf, Switch, System
from archgen.pipeline import run
from archgen.render import render_all
from archgen.render.cluster_diagrams import MAX_LABELLED_ROWS, floor_plan
from tests.render.scaled import CLUSTER, RACKS_PER_SU, scaled_example

SUS = 50


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    return run([scaled_example(tmp_path_factory.mktemp("big"), SUS)])


def test_a_floor_of_many_rows_labels_one_row_in_k_and_states_the_aisles_once(big):
    """50 rows at 9 inches high would print 50 row labels, 49 aisle labels and 50 rack-type labels over one
    another (at 90,002 racks, 8,182 rows: 24,545 labels, and one pass over every rack per row, most of an 82 CPU-s
    render under cProfile). Above
    MAX_LABELLED_ROWS rows one row in ceil(rows / 40) is labelled and the aisles are stated once, in the title:
    row pitch 3.6 m less the deepest rack (the network racks' 1200 mm, examples/gb300-nvl72-su/racks) = 2.40 m."""
    a = big.clusters[f"cluster/{CLUSTER}"]
    ax = floor_plan(a).axes[0]
    texts = [t.get_text() for t in ax.texts]
    every = math.ceil(SUS / MAX_LABELLED_ROWS)
    assert every == 2
    assert [t for t in texts if t.startswith("row ")] == [f"row {r + 1}" for r in range(0, SUS, every)]
    assert not [t for t in texts if "aisle" in t or t.startswith("gb300")]
    length, span = (RACKS_PER_SU - 1) * 0.6 + 0.6, (SUS - 1) * 3.6 + 1.2
    assert ax.get_title(loc="left") == (f"{CLUSTER}: {SUS * RACKS_PER_SU} racks in {SUS} rows, {length:.1f} m × "
                                        f"{span:.1f} m\none row in 2 labelled; aisles 2.40 m, cold after odd rows, "
                                        "hot after even rows")


def test_a_big_design_renders_one_row_and_one_elevation_per_rack_type(big, tmp_path):
    """The document lists rack types with their counts (8 compute, 2 IB and 1 Ethernet rack per SU), one elevation
    per type, and names no rack instance (`su2/...`)."""
    written = render_all(big, tmp_path, target=CLUSTER, formats=("md", "svg"), revision="test", progress=False)
    names = sorted(p.name for p in written if p.name.startswith("elevation-"))
    assert names == ["elevation-gb300-nvl72.svg", "elevation-gb300-su-eth.svg", "elevation-gb300-su-ib.svg"]
    md = (tmp_path / CLUSTER / f"{CLUSTER}.md").read_text(encoding="utf-8")
    for rack, per_su in (("gb300-nvl72", 8), ("gb300-su-eth", 1), ("gb300-su-ib", 2)):
        assert f"| {rack} | {per_su * SUS:,} |" in md
    assert f"| su | {SUS} | 8 × gb300-nvl72, 2 × gb300-su-ib, 1 × gb300-su-eth |" in md
    assert "su2/" not in md and f"su{SUS}/" not in md


def test_the_port_maps_names_per_rack_type_are_each_racks_own(example):
    """`end_names.EndNames` names a rack type's parts once; every rack reads what naming it rack by rack gives (the code
    it replaced, kept here), on the example with its fabrics."""
    a = example.clusters[f"cluster/{CLUSTER}"]
    names = EndNames(a)
    expected: dict[tuple[int, int], str] = {}
    for ri, inst in enumerate(a.cluster.instances):
        seen: dict[str, int] = {}
        for kinds in (System | Switch, PowerShelf | PDU):
            for item in sorted((i for i in inst.rack.items if isinstance(i.part, kinds)), key=lambda i: i.u):
                seen[item.part.id] = seen.get(item.part.id, 0) + 1
                expected.setdefault((ri, item.u), f"{item.part.id}-{seen[item.part.id]:02d}")
    assert expected
    for ri in range(len(a.cluster.instances)):
        for u in range(0, 60):
            assert names.get((ri, u), "none") == expected.get((ri, u), "none")
    assert names.get((-1, 1), "none") == "none"
