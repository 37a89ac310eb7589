"""A NIC port split over planes leaves on one cable: `connectors` on a module end (nu54fix).

NVIDIA's DGX SuperPOD B300 on Spectrum-X (Table 3, "Larger DGX SuperPOD component counts", cited in
tests/data/fabrics/dgx-b300-spectrum-x-su.yaml) counts 512 node-leaf cables for 512 GPUs, each GPU's ConnectX-8 800G
port split 2 x 400G over two planes: one cable per 800G port, 1,024 logical links. The ConnectX-8's single-port 800G
DR4 module has one MPO-12/APC (`smf-800g-dr4-rhs`, `connectors: 1`), so the links it serves share that cable, split
at the far end. On main every logical link was a cable (newuser54's open list: 131,072 at 65,536 GPUs, not 65,536).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.data.clusters.build import b300_planes

FABRIC = "cluster/{}/fabric/compute"


@pytest.mark.parametrize(("planes", "speed", "split"), [(2, "400 Gb/s", "2x400G"), (4, "200 Gb/s", "4x200G")])
def test_a_supernic_port_split_over_planes_is_one_cable(tmp_path: Path, planes: int, speed: str, split: str):
    r = b300_planes(tmp_path, "b300-split", 1, speed=speed, nic_breakout=split, tiers=2, planes=planes)
    fa = r.metrics[FABRIC.format("b300-split")]
    ports = 32 * 8   # 32 HGX B300 x 8 ConnectX-8, one 800G cage each
    assert fa["links.access"].m == ports * planes
    assert fa["cables.access"].m == ports   # one cable per 800G port (NVIDIA's count), not one per link
    # optics per physical port: one DR4 per SuperNIC cage; at the leaf a DR8 serves 800G of links (2 x 400G or 4 x 200G)
    assert fa["transceivers.access"].m == ports + ports


def test_the_port_map_lists_one_cable_from_a_supernic_to_both_planes(tmp_path: Path):
    """The port map cuts the same 256 cables, each from one SuperNIC cage to its two planes' leaves (a node's fabric
    ports run plane-major: ports 1 and 9 of 16 are the first SuperNIC's halves); on main it listed one row a link."""
    from archgen.analyse.portmap import port_map
    from archgen.pipeline import analyse_paths

    b300_planes(tmp_path, "b300-split", 1, speed="400 Gb/s", nic_breakout="2x400G", tiers=2, planes=2)
    a = analyse_paths([tmp_path]).clusters["cluster/b300-split"]
    rows = [r for r in port_map(a).rows if r.tier == "access"]
    assert len(rows) == 256 == a.cabling.tiers[0].physical
    first = rows[0]
    assert (first.a.device, first.a.port, first.links) == ("hgx-b300-8gpu-01", "compute-1, compute-9", 2)
    assert first.b.device == "compute-leaf-01 + compute-leaf-05"   # plane A's leaf and plane B's


def test_the_estimate_says_it_sums_the_planes(tmp_path: Path):
    """newuser54's open item 6: every collective ran on 800 Gb/s summed over two planes without a word. NCCL merges
    the ports of one NIC into one device of their summed speed and splits each send over them (NCCL_IB_MERGE_NICS,
    NVIDIA/nccl src/transport/net_ib/init.cc:225, p2p.cc:116): the estimate keeps the sum and says it assumes so."""
    from archgen.pipeline import run

    (tmp_path / "wl.yaml").write_text("kind: Workload\nid: ar\ncluster: b300-split\n"
                                      "collective: {op: all_reduce, size: 8 GiB}\n", encoding="utf-8")
    r = b300_planes(tmp_path, "b300-split", 1, speed="400 Gb/s", nic_breakout="2x400G", tiers=2, planes=2)
    assert r.clusters["cluster/b300-split"].scale_out.planes == 2   # one NIC port over 2 planes
    notes = run([tmp_path]).workloads["workload/ar"].estimate.notes
    # 8 SuperNICs x 2 x 400 Gb/s / 8 GPUs = 800 Gb/s per GPU, 400 on one plane
    assert [n for n in notes if "planes" in n] == [
        "scale-out bandwidth 800 Gb/s per accelerator sums 2 planes, each NIC port split over them: every collective "
        "and p2p flow is assumed to use them all, as NCCL does with the ports of one NIC it merges (NCCL_IB_MERGE_NICS, on by "
        "default: one device of their summed speed, each send split over them; NVIDIA/nccl "
        "src/transport/net_ib/init.cc, p2p.cc); that the NIC's plane functions merge so is not confirmed, and a "
        "flow held to one plane would see 400 Gb/s"]


def test_the_port_map_lists_a_split_cable_part_once(tmp_path: Path):
    """A cable part split 2 x 400G to two planes (`links_per_cable: 2`, NVIDIA's B300 Spectrum-X table: 512 node-leaf
    cables for one SU) is one port-map row from the SuperNIC cage to both planes' leaves, as the BOM counts it
    (newuser96: a row a link, 1,024 node-leaf "cables" beside the BOM's and the JSON's 512)."""
    import shutil

    from archgen.analyse.portmap import port_map
    from archgen.pipeline import analyse_paths

    data = Path(__file__).parents[1] / "data" / "fabrics" / "dgx-b300-spectrum-x-su.yaml"
    shutil.copy(data, tmp_path / "b300.yaml")
    catalog = Path(__file__).parents[2] / "specs" / "catalog"
    a = analyse_paths([catalog, tmp_path]).clusters["cluster/b300-spectrum-x-su"]
    rows = port_map(a).rows
    for tier in a.cabling.tiers:
        mine = [r for r in rows if r.tier == tier.tier]
        assert (len(mine), sum(r.links for r in mine)) == (tier.physical, 2 * tier.physical) == (512, 1024)
    first = next(r for r in rows if r.tier == "access")
    assert (first.a.device, first.a.port, first.links) == ("dgx-b300-ethernet-01", "compute-1, compute-9", 2)
    assert first.b.device == "compute-leaf-01 + compute-leaf-09"   # plane A's leaf and plane B's


def test_a_split_cable_is_ordered_at_its_longest_leg(tmp_path: Path):
    """A split cable's two legs run to two planes' leaves in two racks, at two lengths: it is one part bought at the
    longer leg's bin, in the bill of materials as in the port map (newuser96: each leg took its own bin, half a
    cable in each, so the BOM bought 544 splitters at 7 m and 32 at 15 m where the port map orders 528 and 48: 16
    cables a bin short of their longer leg)."""
    import shutil
    from collections import Counter

    from archgen.analyse.portmap import port_map
    from archgen.pipeline import analyse_paths

    shutil.copy(Path(__file__).parents[1] / "data" / "fabrics" / "dgx-b300-spectrum-x-su.yaml", tmp_path / "b.yaml")
    a = analyse_paths([Path(__file__).parents[2] / "specs" / "catalog", tmp_path]).clusters[
        "cluster/b300-spectrum-x-su"]
    access = next(t for t in a.cabling.tiers if t.tier == "access")
    rows = [r for r in port_map(a).rows if r.tier == "access"]
    assert dict(Counter(r.ordered for r in rows)) == {b: n for (_, b), n in access.cables_by_bin.items()}
    assert access.cables_by_bin[("smf-800g-split-2x400g", 15.0)] == 48   # was 32
    runs = next(r for r in a.cabling.runs if r.tier == "access")
    assert (runs.bin >= runs.length - 1e-9).all()   # every leg within what is ordered


def test_the_run_list_counts_a_split_cable_once(tmp_path: Path):
    """cabling.csv rows sum to the BOM's cables where a split cable's legs end on two leaves (two rows): before
    (newuser96) each leg's row rounded its half cable up, 1,024 node-leaf cables for the SU's 512."""
    import shutil
    from collections import Counter

    from archgen.pipeline import analyse_paths
    from archgen.render.cabling import run_list

    shutil.copy(Path(__file__).parents[1] / "data" / "fabrics" / "dgx-b300-spectrum-x-su.yaml", tmp_path / "b.yaml")
    a = analyse_paths([Path(__file__).parents[2] / "specs" / "catalog", tmp_path]).clusters[
        "cluster/b300-spectrum-x-su"]
    rows = run_list(a).rows
    cables, links = Counter(), Counter()
    for row in rows:
        cables[row[1]] += row[-1]
        links[row[1]] += row[-2]
    assert (cables["endpoint to leaf"], links["endpoint to leaf"]) == (512, 1024)
    assert cables["leaf to spine"] == 512
    assert {row[-1] for row in rows if row[1] == "endpoint to leaf"} == {0, 1}   # a leg's row holds its cable or not
