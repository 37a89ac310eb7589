"""Issue 24, part 3: the port-level cabling map (`archgen.analyse.portmap`) and rail-optimised wiring.

The map is one row per physical cable, so its rows per fabric tier are the BOM's cables (`TierCabling.physical`),
which NVIDIA's tables pin for the DGX SuperPOD B200 (1,020 node-and-UFM cables and 1,024 leaf-spine cables for
4 SUs, RA "Network Fabrics", Table 4; tests/test_clusters.py). Rail-optimised wiring puts "each GPU rail (IB
network interface) onto a different first level (LEAF) switch" (NVIDIA, InfiniBand Cluster Bring-up Procedure
v1.0, "Setting the InfiniBand Cluster Topology",
https://docs.nvidia.com/networking/display/ibclusterbringupprocedure/setting+the+infiniband+cluster+topology).
"""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from archgen.analyse import portmap
from archgen.analyse.port_numbers import ports_per_cage
from archgen.analyse.portmap import port_map
from tests.conftest import shipped_edited

SU, B200 = "cluster/gb200-nvl72-su", "cluster/dgx-b200-superpod"


@pytest.fixture(scope="module")
def maps(shipped):
    return {path: (a, port_map(a)) for path, a in shipped.clusters.items()}


def test_one_row_per_cable_of_the_bom(maps):
    for _path, (a, pm) in maps.items():
        assert pm.by_tier() == {(t.fabric, t.tier): t.physical for t in a.cabling.tiers if (t.fabric, t.tier) in
                                {(r.fabric, r.tier) for r in a.cabling.runs}}
        assert len({r.id for r in pm.rows}) == len(pm.rows)
    a, pm = maps[SU]
    # 576 compute node ports, 288 storage node ports at 200G on 144 1:2 splitter fibres (test_splitter_fibres), 481 OOB
    # access ports (test_management_leaves); 576 leaf-spine links: 444 in 222 twin-port DACs, the 132 whose runs pass
    # the DAC's longest length sold (2 m, test_sold_lengths) in 66 LACC at 3 m (test_copper_shortest_sold); 384
    # storage links in 96 DACs broken out 4 x 200G, 32 OOB uplinks (16 leaves x 2)
    assert len(pm.rows) == 576 + 144 + 222 + 66 + 96 + 481 + 32 == 1617
    assert {r.links for r in pm.rows if r.fabric == "compute" and r.tier == "leaf_spine"} == {2}   # a twin-port DAC or LACC a pair
    b200 = maps[B200][1].by_tier()
    assert b200[("compute", "access")] == 1020 and b200[("compute", "leaf_spine")] == 1024
    assert maps["cluster/tpu-v4-pod"][1].unwired == ("ici",)


def _numbers(port: str) -> list[str]:
    first, _, last = port.partition("-")
    if not last:
        return [first]
    if "/" in first and "/" not in last:      # lanes of one cage: 33/1-4
        cage, lane = first.split("/")
        return [f"{cage}/{k}" for k in range(int(lane), int(last) + 1)]
    if "/" in first:
        return [first, last]
    return [str(k) for k in range(int(first), int(last) + 1)]


def test_switch_ports_are_unique_and_within_the_radix(maps):
    for _path, (a, pm) in maps.items():
        radix = {(fa.fabric.spec.id, t.name): (t.radix, t.breakout * ports_per_cage(t)) for fa in a.fabrics
                 for t in fa.tiers}
        used: dict[tuple[str, str], set[str]] = defaultdict(set)
        for r in pm.rows:
            if not r.links:   # a link's second cord (a twin-port's two MPO-12 on one 800G link): the same ports
                continue
            for end in (r.a, r.b):
                tier = next((t for t in ("leaf", "spine", "core") if f"-{t}-" in end.device), None)
                if tier is None:
                    continue
                n, breakout = radix[(r.fabric, tier)]
                for p in _numbers(end.port):
                    assert "past" not in p
                    cage, _, lane = p.partition("/")
                    assert 1 <= int(cage) <= n and (not lane or 1 <= int(lane) <= breakout), (r.id, end)
                    assert p not in used[(end.rack, end.device)], (r.id, end)
                    used[(end.rack, end.device)].add(p)
    # the GB200 SU's QM9700 leaves: 32 node ports and 32 uplinks each, 64 ports over 32 twin-port cages, written
    # cage/port (newuser62: "Each OSFP port consists of 2 logical InfiniBand ports", NVIDIA QM97XX User Manual,
    # Interfaces; before, 1..64 did not say which cage a cable goes into)
    pm = maps[SU][1]
    leaf01 = [p for r in pm.rows for e in (r.a, r.b) if e.device == "compute-leaf-01" for p in _numbers(e.port)]
    assert sorted(leaf01, key=lambda p: [int(k) for k in p.split("/")]) == [
        f"{c}/{k}" for c in range(1, 33) for k in (1, 2)]
    # a twin-port DAC to a spine fills one cage at each end: leaf cage 17 (the first after the 16 down cages)
    first_up = next(r for r in pm.rows if r.fabric == "compute" and r.tier == "leaf_spine")
    assert (first_up.a.port, first_up.b.port) == ("17/1-2", "1/1-2")


def test_rail_optimised_ports_of_a_node_reach_different_leaves(maps):
    for path in (SU, B200):
        a, pm = maps[path]
        leaves = defaultdict(list)
        for r in pm.rows:
            if r.fabric == "compute" and r.tier == "access" and r.a.u is not None:
                leaves[(r.a.rack, r.a.device)].append(r.b.device)
        assert leaves and all(len(set(v)) == len(v) for v in leaves.values()), path
    # a GB200 tray's four compute ports: leaves 1-4 for tray 1, 5-8 for tray 2 (rails 4t..4t+3 mod 18)
    pm = maps[SU][1]
    tray = [r.b.device for r in pm.rows if r.a.device == "gb200-compute-tray-02" and r.fabric == "compute"
            and r.a.rack.endswith("nvl72-01")]
    assert tray == [f"compute-leaf-{k:02d}" for k in (5, 6, 7, 8)]


def test_ports_ending_at_no_node_say_so(maps):
    pm = maps[B200][1]
    ufm = [r for r in pm.rows if r.a.device == "UFM appliance"]
    assert len(ufm) == 4
    for r in ufm:   # not a leaf looped to itself: the A end is the appliance, not placed
        assert r.a.rack == "not placed" and r.a.u is None and r.b.device.startswith("compute-leaf-")
        assert "reserved for UFM appliance" in r.note and "past" not in r.b.port


def test_a_copper_assembly_joins_one_pair_of_switches(tmp_path):
    """newuser26: a copper assembly is one cable between two devices, so a pair of switches joined by fewer links
    than one assembly carries still takes a whole assembly, and the BOM counts one per pair as the port map does.

    The GB200 SU's storage / in-band SN5600 leaves with 6 uplinks (`uplinks: 6`) over 3 spines (`spine.count: 3`):
    2 leaves x 3 spines = 6 pairs of 6 / 3 = 2 links at 200G; a twin-port 800G DAC carries 4 x 200G, so 6 DACs, one
    per pair (⌈2 / 4⌉ each). Before, the BOM divided the tier's 12 links by 4 and ordered 3 DACs for 6 pairs, while
    the port map listed 6 (a 32-SU GB300 trial: 70 DACs in the BOM, 140 in the port map).
    """
    run = shipped_edited(tmp_path, "clusters/gb200-nvl72-su.yaml",
                         "    leaf: {rack: gb200-su-eth}\n    spine: {rack: gb200-su-eth}\n",
                         "    leaf: {rack: gb200-su-eth, uplinks: 6}\n    spine: {rack: gb200-su-eth, count: 3}\n")
    a = run.clusters[SU]
    tier = next(t for t in a.cabling.tiers if (t.fabric, t.tier) == ("storage-inband", "leaf_spine"))
    rows = [r for r in port_map(a).rows if (r.fabric, r.tier) == ("storage-inband", "leaf_spine")]
    assert tier.links == 2 * 6 == 12
    assert [(r.links, r.media) for r in rows] == [(2, "dac-800g-osfp")] * 6
    assert tier.cables == {"dac-800g-osfp": 6} and tier.modules == {"dac-800g-osfp": 6}


def test_length_bins_and_run_list_count_the_port_maps_cables(maps):
    """deliv2 (newuser31 finding 2): the length bins and cabling.csv count cables, as the BOM and the port map do.

    Before, they counted links: the SU's compute leaf-spine bins summed to 576 (its 288 twin-port DACs' links) and
    the storage leaf-spine bins to 384 (96 DACs broken out 4 x 200G), so a vendor ordering from them bought 960 DACs,
    not 384. Per tier: the bins' cables == the BOM's cables == the port map's rows, and so do cabling.csv's rows.
    """
    from archgen.render.cabling import run_list

    for _path, (a, pm) in maps.items():
        listed = pm.by_tier()
        csv: dict[tuple[str, str], int] = defaultdict(int)
        for row in run_list(a).rows:
            csv[(row[0], row[1])] += row[-1]
        for t in a.cabling.tiers:
            assert sum(t.cables_by_bin.values()) == t.physical, (_path, t.fabric, t.tier)
            if (t.fabric, t.tier) in listed:
                assert listed[(t.fabric, t.tier)] == t.physical
                title = {"access": "endpoint to leaf", "leaf_spine": "leaf to spine"}.get(t.tier, t.tier)
                assert csv[(t.fabric, title)] == t.physical, (_path, t.fabric, t.tier)
    tiers = {(t.fabric, t.tier): t for t in maps[SU][0].cabling.tiers}
    # 444 links in 222 twin-port DACs, the 132 past the DAC's 2 m longest length sold in 66 LACC at 3 m
    assert sum(tiers[("compute", "leaf_spine")].cables_by_bin.values()) == 444 // 2 + 132 // 2 == 288
    assert sum(tiers[("compute", "leaf_spine")].by_option_bin.values()) == 576     # the links they carry
    assert sum(tiers[("storage-inband", "leaf_spine")].cables_by_bin.values()) == 384 // 4 == 96


def test_compute_tray_bmc_ports_stand_at_their_trays(maps):
    """deliv2 (newuser31 finding 3): the SU's 144 compute-tray BMC ports were `endpoints.extra`, "not placed", each
    cable ordered at the floor's longest run (15 m, 144 runs). As `endpoints.node_management: 1` each stands at its
    tray (rack and U) and runs to the nearest OOB leaf with a free port, in its own rack first. The OOB leaves are
    sized per rack (`leaf.serves_racks: 1`, 55 ports, 2 SN2201 each), so every rack's 18 BMC ports stay in it; before,
    6 pooled leaves stood in racks 01-03 and 05-07 and racks 04 and 08 reached a neighbour's."""
    a, pm = maps[SU]
    bmc = [r for r in pm.rows if r.fabric == "oob" and r.a.device.startswith("gb200-compute-tray")]
    assert len(bmc) == 144 and {r.a.port for r in bmc} == {"mgmt"}
    assert all(r.a.rack != "not placed" and r.a.u is not None for r in bmc)
    per_rack = defaultdict(int)
    for r in bmc:
        per_rack[r.a.rack] += 1
    assert set(per_rack.values()) == {18}                   # 18 trays per NVL72 rack, each its own port
    own = {r.a.rack for r in bmc if r.a.rack == r.b.rack}
    assert len(own) == 8 and sum(r.a.rack == r.b.rack for r in bmc) == 8 * 18
    assert max(r.ordered for r in bmc) < 15.0                # none at the floor's longest run any more


def test_a_cables_part_is_worked_out_once_per_kind_not_per_cable(shipped, monkeypatch):
    """portmap38: a cable's part (`cable_part`: its fibre cord, the grade read through pint) and its option's links per
    cable depend only on the option, the cage and the length bin, so a tier asks once per distinct one. The
    131,072-GPU bench cluster's 393,216 cables take 14 parts; asking once per cable was half its port map's CPU time
    (`bench/bench_render.py` scale). That the answers are the same is the rows' own tests' (and test_render_speed's)."""
    asked: dict[str, Counter] = {"cable_part": Counter(), "links_per_cable": Counter()}
    for name, seen in asked.items():
        real = getattr(portmap, name)
        monkeypatch.setattr(portmap, name, lambda opt, *rest, _f=real, _s=seen: _s.update([(id(opt), *rest)]) or
                            _f(opt, *rest))
    pm = portmap.port_map(shipped.clusters[B200])
    tiers = len(pm.by_tier())   # one option object may serve several tiers: at most once in each
    assert asked["cable_part"] and max(asked["cable_part"].values()) <= tiers
    assert max(asked["links_per_cable"].values()) <= tiers
    assert sum(asked["cable_part"].values()) * 10 < len(pm.rows)   # was one call per cable
