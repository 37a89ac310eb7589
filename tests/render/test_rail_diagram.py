"""raildiag39: the rail wiring diagram draws a cable split at the leaf leg by leg, each leg at its own node and rack.

splitrack39's repro (tests/analyse/test_splitter_racks.py), its fabric made rail-optimised so the document draws it:
rack r (three GB200 trays and the QM9700 leaf) beside rack s (three trays), one port a node, NVIDIA's MCP7Y00 copper
splitter (two 400G legs on one twin-port 800G OSFP end at the leaf). The port map cuts it across nodes in floor
order: r's trays 1+2, r's tray 3 + s's tray 1, s's trays 2+3. Before, the diagram skipped the cable whose legs stand
in two racks (its node end has no one U) and drew each other cable as one made-up node ("r-01 tray-01 + tray-02"):
2 nodes of 6, 2 cables of 3.

leafdiag39: the leaf end likewise, a node's cage on one cable split over planes drawn to each plane's leaf (was one
made-up leaf, "compute-leaf-01 + compute-leaf-09").
"""

from __future__ import annotations

import pytest

from archgen.analyse.portmap import port_map
from archgen.render.wiring import figures
from tests.analyse.test_splitter_racks import CLUSTER, RACKS, TRAY
from tests.conftest import run_specs


@pytest.fixture(scope="module")
def axes(tmp_path_factory):
    rail = CLUSTER.replace("  tiers: 1\n", "  tiers: 1\n  rail_optimized: true\n")
    a = run_specs(tmp_path_factory.mktemp("rails"), {**RACKS, "clusters/c.yaml": rail}).clusters["cluster/c"]
    return figures(a, port_map(a))["rails-compute"]().axes[0]


def test_each_leg_is_drawn_at_its_own_node(axes) -> None:
    """Six nodes on the left, each in its own rack (was 'r-01 ...-tray-01 + ...-tray-02' and the same at s)."""
    labels = [t.get_text() for t in axes.texts]
    assert labels[:6] == [f"{rack} {TRAY}-0{k}" for rack in ("r-01", "s-01") for k in (1, 2, 3)]
    assert labels[6:] == ["compute-leaf-01", "compute-1"]   # the leaf, then the port legend
    assert axes.get_title().startswith("Fabric compute: node ports to leaves (6 nodes shown; a dot joins")


def test_a_split_cables_legs_join_at_one_dot(axes) -> None:
    """One dot per cable, three in all; each cable's two legs end at its dot, which one line joins to the leaf.

    The node labels stand at y 5 (r's tray 1) down to 0 (s's tray 3), the leaf at 5: the cable spanning both racks
    is r's tray 3 (y 3) and s's tray 1 (y 2), its dot half-way between them."""
    dots = [(line.get_xdata()[0], line.get_ydata()[0]) for line in axes.lines if line.get_marker() == "o"]
    assert dots == [(1.6, 4.5), (1.6, 2.5), (1.6, 0.5)]
    legs = sorted((line.get_ydata()[0], line.get_ydata()[1]) for line in axes.lines
                  if list(line.get_xdata()) == [0.95, 1.6])
    assert legs == [(0.0, 0.5), (1.0, 0.5), (2.0, 2.5), (3.0, 2.5), (4.0, 4.5), (5.0, 4.5)]
    to_leaf = [list(line.get_ydata()) for line in axes.lines if list(line.get_xdata()) == [1.6, 2.05]]
    assert to_leaf == [[4.5, 5.0], [2.5, 5.0], [0.5, 5.0]]


@pytest.fixture(scope="module")
def planes(tmp_path_factory):
    """NVIDIA's DGX B300 SU on Spectrum-X (tests/data/fabrics): each SuperNIC's 800G cage on one cable split 2 x 400G
    to its two planes' leaves (compute-leaf-01 to -08 plane A, -09 to -16 plane B; port r and r + 8 of a node)."""
    import shutil
    from pathlib import Path

    from archgen.pipeline import analyse_paths

    here = tmp_path_factory.mktemp("planes")
    shutil.copy(Path(__file__).parents[1] / "data" / "fabrics" / "dgx-b300-spectrum-x-su.yaml", here / "b300.yaml")
    a = analyse_paths([Path(__file__).parents[2] / "specs" / "catalog", here]).clusters["cluster/b300-spectrum-x-su"]
    pm = port_map(a)
    return pm, figures(a, pm)["rails-compute"]().axes[0]


def test_the_port_map_gives_each_leg_of_a_cage_split_over_planes(planes) -> None:
    """Both ends of the cable list its legs in the same order: node port compute-1 to plane A's leaf, compute-9 to
    plane B's; the port columns' text is as before."""
    first = planes[0].rows[0]
    assert (first.a.port, first.b.device, first.b.port) == (
        "compute-1, compute-9", "compute-leaf-01 + compute-leaf-09", "compute-leaf-01 1/1, compute-leaf-09 1/1")
    node = ("su01/b300-compute-01", "dgx-b300-ethernet-01")
    assert first.a.legs == ((*node, "compute-1", 7), (*node, "compute-9", 7))
    # each leaf's own U (portend40: the end's U was not provided, the leaves standing at two)
    assert first.b.legs == (("su01/b300-eth-01", "compute-leaf-01", "1/1", 3),
                            ("su01/b300-eth-01", "compute-leaf-09", "1/1", 19))
    assert first.b.u is None and first.b.leg_u == (3, 19)


def test_each_leg_of_a_cage_split_over_planes_reaches_its_own_leaf(planes) -> None:
    """16 leaves, each its own (main drew 8 made-up ones, 'compute-leaf-01 + compute-leaf-09'); each cable one line
    from its node to a dot, and from the dot one leg to leaf r and one to leaf r + 8, coloured by their node ports."""
    axes = planes[1]
    texts = {t.get_text(): t.get_position()[1] for t in axes.texts}
    leaves = sorted(t for t in texts if t.startswith("compute-leaf"))
    assert leaves == [f"compute-leaf-{k:02d}" for k in range(1, 17)]
    assert axes.get_title().endswith("(18 nodes shown; a dot joins the legs of a cable split to several leaves)")
    dots = [(line.get_xdata()[0], line.get_ydata()[0]) for line in axes.lines if line.get_marker() == "o"]
    assert len(dots) == 18 * 8   # 18 nodes shown, 8 SuperNIC cages each
    legs: dict[tuple[float, float], list[str]] = {}
    for line in axes.lines:
        xs, ys = list(line.get_xdata()), list(line.get_ydata())
        if xs == [1.3, 2.05]:   # a leg from its cable's dot to a leaf: the leaf whose label stands nearest its end
            legs.setdefault((1.3, ys[0]), []).append(min(leaves, key=lambda leaf: abs(texts[leaf] - ys[1])))
    assert set(legs) == set(dots)
    assert sorted(tuple(v) for v in legs.values()) == sorted(
        (f"compute-leaf-{r:02d}", f"compute-leaf-{r + 8:02d}") for r in range(1, 9) for _ in range(18))
