"""A leaf cage's split cable lands its halves on two spines (spine38).

newuser96: with the B300 Spectrum-X fixture's split part (`smf-800g-split-2x400g`, `links_per_cable: 2`) on the
leaf-spine tier, archgen wired both 400G halves of a leaf cage to one spine cage (`compute-leaf-01 33/1-2 ->
compute-spine-01 1/1-2`), so the "split" cable joined one cage to one cage. A twin-port OSFP's halves may end in two
switches (NVIDIA MMA4Z00-NS400-T, Connectivity Scenarios 1: "to two switches at 400Gb/s"); the fixture's header
reads the RA's leaf-spine cable so. Now a leaf's links are dealt over its spines and cut in that order
(`archgen/analyse/split_legs.py`); links, ports, bisection and oversubscription do not move.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from archgen.analyse.split_legs import cut, dealt

DATA = Path(__file__).parents[1] / "data" / "fabrics" / "dgx-b300-spectrum-x-su.yaml"
CATALOG = Path(__file__).parents[2] / "specs" / "catalog"
CLUSTER = "cluster/b300-spectrum-x-su"


@pytest.mark.parametrize(("uppers", "legs"), [
    (4, [(0, 1), (2, 3)] * 4),                          # a multiple of 2: always the same two neighbours
    (3, [(0, 1), (2, 0), (1, 2)] * 2),                  # odd: every cable still on two
    (1, [(0, 0)] * 2),                                  # one spine: both halves on it
])
def test_links_are_dealt_over_the_upper_switches(uppers: int, legs: list[tuple[int, int]]):
    upper = np.arange(uppers)
    weight = np.full(uppers, 4)   # 4 links from the lower switch to each
    key = np.zeros(uppers, dtype=np.int64)
    runs = dealt(key, upper, weight)
    cable = cut(key[runs], np.full(len(runs), 2))
    got = [tuple(int(upper[runs[i]]) for i in np.flatnonzero(cable == c)) for c in range(int(cable.max()) + 1)]
    assert got == legs


def test_two_lower_switches_are_cut_apart():
    """A cable never joins two leaves: each key (lower switch and option) is dealt and cut on its own."""
    key, upper, weight = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), np.array([3, 3, 1, 1])
    runs = dealt(key, upper, weight)
    assert runs.tolist() == [0, 1, 0, 1, 0, 1, 2, 3]
    assert cut(key[runs], np.full(8, 4)).tolist() == [0, 0, 0, 0, 1, 1, 2, 2]


def _analyse(path: Path):
    from archgen.pipeline import analyse_paths, run

    return analyse_paths([CATALOG, path]).clusters[CLUSTER], run([CATALOG, path]).metrics[f"{CLUSTER}/fabric/compute"]


@pytest.fixture(scope="module")
def b300(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("split-uplinks")
    shutil.copy(DATA, path / "b300.yaml")
    return _analyse(path)


def test_a_leaf_cages_halves_land_on_two_spines(b300):
    from archgen.analyse.portmap import port_map

    a, _ = b300
    rows = [r for r in port_map(a).rows if r.tier == "leaf_spine"]
    assert len(rows) == 512 and {r.links for r in rows} == {2}
    pairs = Counter()
    far: list[tuple[str, str]] = []
    for r in rows:
        assert r.a.port.endswith("/1-2") and "," not in r.a.port   # both halves from one leaf cage
        ends = [tuple(e.split(" ")) for e in r.b.port.split(", ")]
        assert len({dev for dev, _ in ends}) == 2, r   # ... to two spines (4 a plane, 2 legs a cable)
        far += ends
        pairs.update((r.a.device, dev) for dev, _ in ends)
    assert rows[0].b.port == "compute-spine-01 1/1, compute-spine-02 1/1"   # was compute-spine-01 1/1-2
    assert rows[1].b.port == "compute-spine-03 1/1, compute-spine-04 1/1"
    assert len(far) == len(set(far)) == 1024   # every half meets a spine port of its own
    assert set(Counter(dev for dev, _ in far).values()) == {128}   # each spine's 128 x 400G ports, as before
    assert set(pairs.values()) == {16}   # every leaf still meets each spine of its plane with 16 links


def test_the_spines_move_no_count(b300, tmp_path: Path):
    """The same fabric on a straight 400G option (a twin-port DR8 cord a link) has the same links, ports, bisection
    and oversubscription: only which far port each half meets moved."""
    _, split = b300
    text = DATA.read_text(encoding="utf-8").replace("leaf_spine: [smf-800g-split-2x400g]", "leaf_spine: [smf-800g-dr8]")
    assert text != DATA.read_text(encoding="utf-8")
    (tmp_path / "b300.yaml").write_text(text.replace("leaf_spine: 512}", "leaf_spine: 1024}"), encoding="utf-8")
    _, straight = _analyse(tmp_path)
    keys = ("links.leaf_spine", "bisection_bandwidth", "bisection_per_accelerator", "leaf.oversubscription",
            "leaf.switches", "spine.switches", "leaf.ports_used", "spine.ports_used", "spine.max_ports_used_per_switch",
            "failure.spine.bisection_per_accelerator")
    assert {k: split[k] for k in keys} == {k: straight[k] for k in keys}
    assert (split["cables.leaf_spine"].m, straight["cables.leaf_spine"].m) == (512, 1024)


def test_a_split_cable_is_ordered_at_its_longest_leg_and_counted_on_its_first(b300):
    """The BOM orders each leaf-spine cable at its longer leg's bin, as the port map does (the 8 legs at 1.5 m whose
    other halves run 2 m are bought at 2 m), and the run list counts it on its first spine's row, 0 on the other."""
    from archgen.analyse.portmap import port_map
    from archgen.render.cabling import run_list

    a, _ = b300
    tier = next(t for t in a.cabling.tiers if t.tier == "leaf_spine")
    rows = [r for r in port_map(a).rows if r.tier == "leaf_spine"]
    assert dict(Counter(r.ordered for r in rows)) == {b: n for (_, b), n in tier.cables_by_bin.items()}
    assert tier.cables_by_bin == {("smf-800g-split-2x400g", 2.0): 128, ("smf-800g-split-2x400g", 7.0): 384}
    runs = next(r for r in a.cabling.runs if r.tier == "leaf_spine")
    assert (runs.bin >= runs.length - 1e-9).all()
    listed = [r for r in run_list(a).rows if r[1] == "leaf to spine"]
    assert sum(r[-1] for r in listed) == 512 and Counter(r[-1] for r in listed) == Counter({16: 32, 0: 32})
    # the counted rows are the first spine of each cable, as the port map lists it
    first = {r.b.port.split(" ")[0] for r in rows}
    assert first == {f"compute-spine-{i:02d}" for i in (1, 3, 5, 7)}


def test_a_nic_cage_split_is_counted_on_its_first_planes_row(b300):
    """cabling.csv: a SuperNIC cage's cable sits on its plane A leaf's row, 0 on plane B's (newuser96: 1, 0, 1, 0 in
    the rows' sort order, whichever leg that was)."""
    from archgen.analyse.portmap import port_map
    from archgen.render.cabling import run_list

    a, _ = b300
    pm = port_map(a).rows
    first = {r.b.device.split(" + ")[0] for r in pm if r.tier == "access"}
    assert first == {f"compute-leaf-{i:02d}" for i in range(1, 9)}   # plane A's leaves
    where = {(r.a.rack, r.a.u): r.a.device for r in pm if r.tier == "leaf_spine"}   # each leaf's rack and U
    listed = [r for r in run_list(a).rows if r[1] == "endpoint to leaf"]
    assert sum(r[-1] for r in listed) == 512
    assert {where[(r[4], r[5])] for r in listed if r[-1]} == first
    assert {where[(r[4], r[5])] for r in listed if not r[-1]} == {f"compute-leaf-{i:02d}" for i in range(9, 17)}


SHORT = """---
kind: Link
id: smf-800g-split-5m
name: 800G cable split 2 x 400G to two ports, 5 m reach (test part)
source: test part, the fixture's split cable at a reach some leaf-spine legs exceed
media: singlemode
rate: 800 Gbit/s
reach: 5 m
power_per_end: 17 W
lanes: 8
cages: [OSFP, OSFP-RHS]
links_per_cable: 2
"""


def test_split_cables_are_cut_from_the_runs_that_take_the_split_part(tmp_path: Path):
    """A tier listing a split part of 5 m reach and a straight one: the runs past 5 m (to the other rack) take the
    straight cords, and the split cables are dealt and cut from the others only, each still to two spines; the port
    map, the BOM and the run list count the same cables."""
    from archgen.analyse.portmap import port_map
    from archgen.render.cabling import run_list

    text = DATA.read_text(encoding="utf-8").replace("leaf_spine: [smf-800g-split-2x400g]",
                                                    "leaf_spine: [smf-800g-split-5m, smf-800g-dr8]")
    text = text.replace("leaf_spine: 512}", "leaf_spine: 896}")   # 128 split cables and 768 straight cords
    (tmp_path / "b300.yaml").write_text(text.replace("\n---\nkind: System", "\n" + SHORT + "---\nkind: System", 1),
                                        encoding="utf-8")
    a, metrics = _analyse(tmp_path)
    tier = next(t for t in a.cabling.tiers if t.tier == "leaf_spine")
    runs = next(r for r in a.cabling.runs if r.tier == "leaf_spine")
    split = runs.option == 0
    assert split.any() and (~split).any() and (runs.length[split] <= 5.0).all()
    rows = [r for r in port_map(a).rows if r.tier == "leaf_spine"]
    assert len(rows) == tier.physical == metrics["cables.leaf_spine"].m == 896
    halves = [r for r in rows if r.links == 2]
    assert all(len({e.split(" ")[0] for e in r.b.port.split(", ")}) == 2 for r in halves) and len(halves) == 128
    assert sum(r.links for r in rows) == 1024
    listed = [r for r in run_list(a).rows if r[1] == "leaf to spine"]
    assert sum(r[-1] for r in listed) == 896
