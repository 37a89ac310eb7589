"""newuser80: a twin-port module's connector serving two 200G NIC ends is one 1:2 splitter cable, ordered as one.

NVIDIA's 800G twin-port SR8 and DR8 modules have "two, 4-channel MPO-12/APC optical connectors with two 4-channel
fiber cables" (MMA4Z00-NS-T and MMS4X00-NS-T overviews, https://docs.nvidia.com/networking/display/800gmma4z00nst/overview,
https://docs.nvidia.com/networking/display/800gmms4x00nst/overview); a 400G SR4 end runs at 200G on "1:2 splitter 50-meter
crossover fiber cables (MFP7E20)", four 200G adapters from one twin-port (MMA4Z00-NS400-T Connectivity Scenarios,
https://docs.nvidia.com/networking/display/MMA4Z00NS400T/Connectivity+Scenarios), and the twin-port's two fibres "must be
the same type - straight or splitter". Input (a cabling engineer's trial): the GB200 SU's storage-inband fabric, 144
trays x 2 BlueField-3 ports at 200G on 3 SN5600 leaves, took 72 twin-port SR8 at the leaves (4 links each) and the BOM
ordered 288 straight MPO-12/APC patch cords, one per link: four cords to a module with two connectors.
"""

from __future__ import annotations

from collections import Counter

SU = "cluster/gb200-nvl72-su"


def _tier(analysis, fabric: str, tier: str):
    return next(t for t in analysis.cabling.tiers if (t.fabric, t.tier) == (fabric, tier))


def test_storage_links_at_200g_take_splitters(shipped) -> None:
    """288 links, 72 leaf modules x 2 connectors = 144 cables, each a 1:2 splitter; modules and power unchanged."""
    t = _tier(shipped.clusters[SU], "storage-inband", "access")
    assert t.links == 288
    assert t.modules == {"mmf-400g-sr4": 288, "mmf-800g-sr8": 72}   # 4 links a twin-port at 200G, as before
    assert t.physical == 72 * 2 == 144
    assert set(t.cable_links.values()) == {2}


def test_bom_orders_splitter_cables_on_their_own_lines(shipped) -> None:
    """The BOM's fibre lines: 144 splitter cables named 1:2, beside the straight cords of the 400G links."""
    fibres = [line for line in shipped.clusters[SU].cabling.bom if line.kind == "Fibre"]
    split = [line for line in fibres if "-split-1x2-" in line.part]
    assert sum(line.quantity for line in split) == 144
    assert all(line.name.startswith("Multimode fibre 1:2 splitter cable, MPO-12/APC to 2 x MPO-12/APC, 8 fibres, "
                                    "polarity Type-B, ") for line in split)
    straight = [line for line in fibres if "-split-" not in line.part and "-apc-type-b-" in line.part]
    assert sum(line.quantity for line in straight) == 576   # compute access at 400G (leaf-spine: copper)


def test_port_map_row_is_the_splitter_with_both_legs(shipped) -> None:
    """Each storage row carries 2 links, names both NIC ports and the splitter line; the rows count the BOM's."""
    from archgen.analyse.portmap import port_map
    rows = [r for r in port_map(shipped.clusters[SU]).rows if (r.fabric, r.tier) == ("storage-inband", "access")]
    assert len(rows) == 144 and {r.links for r in rows} == {2}
    assert rows[0].a.port == "storage-1, storage-2" and rows[0].cable.startswith(
        "fibre-multimode-mpo-12-apc-type-b-split-1x2-")
    bom = {line.part: line.quantity for line in shipped.clusters[SU].cabling.bom if "-split-" in line.part}
    assert dict(Counter(r.cable for r in rows)) == bom


def test_links_at_400g_stay_straight(shipped) -> None:
    """One link a connector (compute access at 400G, NIC SR4 to leaf SR8): straight cords, one per link."""
    t = _tier(shipped.clusters[SU], "compute", "access")
    assert t.physical == t.links == 576 and not t.cable_links
