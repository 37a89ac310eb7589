"""Access ports at no node (`reserved`, `endpoints.extra`) on a multi-plane fabric are counted once, not per plane.

From the new-user trial of a multi-plane 800G Ethernet fabric (newuser54): each plane's leaves are sized for its
share of the ports at no node rounded up (⌈3 / 2⌉ = 2 reserved and ⌈1 / 2⌉ = 1 extra port a plane), and the
links, cables and modules of the access level were that share times the planes: 6 for the 4 ports stated, a link
and a cable to a port that does not exist. The sizing keeps the rounding (each plane must hold its larger share);
the counts take the ports as stated.
"""

from __future__ import annotations

from pathlib import Path

from archgen.analyse.network import fabric_metrics
from tests.data.clusters.build import b300_planes

FABRIC = "cluster/b300-other/fabric/compute"
DUAL = {"speed": "400 Gb/s", "nic_breakout": "2x400G", "tiers": 2, "planes": 2}


def test_reserved_and_extra_ports_are_linked_once_over_the_planes(tmp_path: Path):
    r = b300_planes(tmp_path, "b300-other", 1, **DUAL, endpoints="{nodes: true, extra: 1}",
                    reserved="[{name: UFM appliance, ports: 3}]")
    fa = r.metrics[FABRIC]
    # 32 nodes x 8 SuperNICs x 2 = 512 node ports, + 1 extra + 3 reserved = 516 (was 512 + 2 x (1 + 2) = 518)
    assert (fa["endpoint_ports"].m, fa["reserved_ports"].m) == (513, 3)
    # cables: one per SuperNIC's 800G port, its 2 links on one split cable (tests/analyse/test_split_cables.py), and
    # one for each of the 4 other ports: 256 + 4 (516 before nu54fix, a cable per link)
    assert (fa["links.access"].m, fa["cables.access"].m) == (516, 256 + 4)
    # the node ends: 256 SuperNIC DR4s for 512 links; the leaf ends: 256 DR8s for the node ports, each serving 2,
    # and the 4 other ports on 2 more (2 a plane's leaf); the 4 far ends of ports at no node: 4 modules
    assert fa["transceivers.access"].m == 256 + 256 + 2 + 4
    # each plane still holds its rounded-up share: 256 node + 3 other ports need a 5th leaf of 128 down ports
    assert fa["leaf.switches"].m == 2 * 5


def test_ports_at_no_node_go_round_the_planes_and_count_once_as_used(tmp_path: Path):
    """newuser54's open item 4 (nu54fix): `leaf.ports_used` counted each plane's rounded-up share, 2 + 1 a plane = 6
    down ports for the 4 stated, and the port map put all 4 on plane A's leaves. Now the k-th such port goes to plane
    k mod 2 (2 on each), and the leaves count the 4 linked ports as used."""
    from archgen.analyse.portmap import port_map
    from archgen.pipeline import analyse_paths

    b300_planes(tmp_path, "b300-other", 1, **DUAL, endpoints="{nodes: true, extra: 1}",
                reserved="[{name: UFM appliance, ports: 3}]")
    a = analyse_paths([tmp_path]).clusters["cluster/b300-other"]
    fa = next(f for f in a.fabrics if f.fabric.spec.id == "compute")
    m = fabric_metrics(fa)
    leaf = fa.tier_at("leaf")
    # node ports, the 4 other ports once, and each plane's uplinks as sized (320): 1,156, was 1,158 (512 + 6 + 640)
    assert m["leaf.ports_used"].m == 512 + 4 + leaf.up_used * 2 == 1156
    assert m["leaf.ports_used"].m + m["leaf.ports_free"].m == leaf.ports_total * 2
    others = [r for r in port_map(a).rows if r.tier == "access" and not r.a.device.startswith("hgx")]
    leaves = sorted(r.b.device for r in others)
    # plane A's leaves are compute-leaf-01..05, plane B's 06..10 (5 a plane)
    assert len(others) == 4 and sum(int(d.rsplit("-", 1)[1]) <= 5 for d in leaves) == 2, leaves
