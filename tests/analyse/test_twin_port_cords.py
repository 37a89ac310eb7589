"""A twin-port 2 x SR4 module on one 800G link takes both its MPO cords (newuser96).

The shipped MI355X cluster's leaf-spine links run native 800G on `mmf-800g-sr8`: "two MPO-12/APC optical connectors"
(NVIDIA MMA4Z00-NS overview), each cord 8 fibres (`fibres: 8`), 4 lanes each way. One 800G link of 8 lanes needs
16 fibres, both cords; the BOM ordered one MPO-12 per link, 128 cords short of the 256 its 128 optical links take.
"""

from __future__ import annotations

from collections import Counter

from archgen.analyse.link_ends import cords_per_link
from archgen.build import LinkOption
from archgen.units import Q_

FABRIC = "cluster/mi355x-th5/fabric/compute"


def test_an_800g_link_on_a_twin_port_takes_its_two_cords(shipped) -> None:
    m = shipped.metrics[FABRIC]
    # 128 leaf-spine links on 800G DACs in the network rack, 128 on 2 x SR4 modules: 128 + 2 x 128 cables
    assert (m["links.leaf_spine"].m, m["cables.leaf_spine"].m, m["transceivers.leaf_spine"].m) == (256, 384, 256)
    assert (m["links.access"].m, m["cables.access"].m) == (512, 512)   # 400G halves: one cord a link, as before


def test_the_port_map_lists_both_cords_and_the_bom_orders_them(shipped) -> None:
    from archgen.analyse.portmap import port_map

    a = shipped.clusters["cluster/mi355x-th5"]
    rows = [r for r in port_map(a).rows if r.tier == "leaf_spine"]
    tier = next(t for t in a.cabling.tiers if t.tier == "leaf_spine")
    assert len(rows) == tier.physical == 384 and sum(r.links for r in rows) == tier.links == 256
    second = [r for r in rows if r.links == 0]
    assert len(second) == 128 and second[0].note.startswith("cord 2 of 2 of the link on ")
    cords = Counter(r.cable for r in rows if r.cable.startswith("fibre-"))
    assert sum(cords.values()) == 256 == sum(n for (label, _, _), n in tier.cords_by_bin.items()
                                             if "mmf-800g-sr8" in label)


def test_a_twin_port_at_400g_or_in_a_single_port_cage_takes_one(shipped) -> None:
    """At 400G each of its two ports is a link on its own cord; in a single-port cage (a UFM appliance's port) one
    connector is dark: the B200 SuperPOD's 1,020 node and UFM cables stand (tests/test_cable_counts.py)."""
    sr8 = shipped.specs.get("mmf-800g-sr8")
    option = LinkOption(sr8, sr8, ("t",))
    assert (cords_per_link(option, Q_(800, "Gbit/s")), cords_per_link(option, Q_(400, "Gbit/s"))) == (2, 1)
    b200 = shipped.metrics["cluster/dgx-b200-superpod/fabric/compute"]
    assert (b200["links.access"].m, b200["cables.access"].m) == (1020, 1020)
