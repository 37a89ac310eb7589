"""newuser62: the fibre patch cord of each optical cable, as an installer orders, pulls and checks it.

NVIDIA's NDR/XDR and 400/800G Ethernet optics take MPO patch cords with an angle-polished (APC) end face, female,
polarity Type-B per TIA-568, and duplex LC cords with A-B polarity ("NVIDIA Interconnect Structured Cabling
Requirements for InfiniBand NDR/XDR and 400/800G ETH Solutions", "MPO/LC Cable Requirements",
https://docs.nvidia.com/networking/display/intrcnctcabreqndr400eth/mpo/lc+cable+requirements); the MMA4Z00-NS400-T
page: its "MPO-12/APC optical connector ... is not compatible with Ultra-flat Polished Connectors (UPC)"
(https://docs.nvidia.com/networking/display/MMA4Z00NS400T). Before, the 400G/800G multimode parts said "MPO-12" and
the BOM ordered "Multimode fibre patch cord, MPO-12, 10 m": a cord of either polish or polarity, half of which would
not mate or not link.
"""

from __future__ import annotations

import pytest

SU, B200 = "cluster/gb200-nvl72-su", "cluster/dgx-b200-superpod"


@pytest.fixture
def clusters(shipped):
    return shipped.clusters


def _fibres(clusters, cid):
    return {line.part: line for line in clusters[cid].cabling.bom if line.kind == "Fibre"}


def test_nvidia_mpo_cords_are_apc_type_b(clusters):
    """The GB200 SU's 576 compute and 288 storage node cables (mmf-400g-sr4 to mmf-800g-sr8, NVIDIA parts) are
    MPO-12/APC Type-B cords; its 32 OOB uplinks (16 leaves x 2, generic 100GBASE-SR4) are not."""
    fibres = _fibres(clusters, SU)
    nvidia = [line for p, line in fibres.items() if p.startswith("fibre-multimode-mpo-12-apc-type-b-")]
    # the 288 storage links at 200G on 144 1:2 splitter cables (tests/analyse/test_splitter_fibres.py); the leaf-spine
    # links past the DAC's 2 m take 3 m LACC, not SR8 (tests/analyse/test_copper_shortest_sold.py)
    assert sum(line.quantity for line in nvidia) == 576 + 144
    assert all(", MPO-12/APC, 8 fibres, polarity Type-B, " in line.name
               or ", MPO-12/APC to 2 x MPO-12/APC, 8 fibres, polarity Type-B, " in line.name for line in nvidia)
    assert sum(line.quantity for line in fibres.values()) == 576 + 144 + 32
    b200 = [line for p, line in _fibres(clusters, B200).items() if "-apc-type-b-" in p]
    assert b200 and all(line.name.startswith("Multimode fibre patch cord, MPO-12/APC, 8 fibres, polarity Type-B, ")
                        for line in b200)


def test_unstated_polarity_is_said(clusters):
    """A Link part that states no polarity (the generic 100GBASE-SR4 class part) orders a cord 'polarity not
    stated', never one that reads as complete."""
    rest = [line for p, line in _fibres(clusters, SU).items() if "-apc-" not in p]
    assert sum(line.quantity for line in rest) == 32
    assert all(", MPO-12, 8 fibres, polarity not stated, " in line.name for line in rest)


def test_port_map_names_the_cord_each_cable_pulls(clusters):
    """Each port map row names the BOM line it pulls (portmap.csv's 'Cable part'), so the rows counted per cord are
    the BOM's quantities: before, an optical row said only its modules ('mmf-400g-sr4 / mmf-800g-sr8') and its
    length, and the installer had to work out which of the BOM's cords it took. The GB200 SU: 864 node cables on
    Type-B cords, 32 OOB uplinks on generic MPO-12 cords, 384 DACs (288 compute + 96 storage leaf-spine) and 481
    Cat 6A cords, each counted as the BOM counts it."""
    from collections import Counter

    from archgen.analyse.portmap import port_map
    for cid in (SU, B200):
        a = clusters[cid]
        rows = port_map(a).rows
        assert all(r.cable != "—" for r in rows)
        per_part = Counter(r.cable for r in rows)
        bom = {line.part: line.quantity for line in a.cabling.bom}
        fibres = {p: q for p, q in bom.items() if p.startswith("fibre-")}
        assert {p: per_part[p] for p in fibres} == fibres, cid
    per_part = Counter(r.cable for r in port_map(clusters[SU]).rows)
    # 288 leaf-spine DACs less the 66 whose runs pass 2 m, the MCP4Y10's longest length sold (3 m LACC)
    assert per_part["dac-800g-osfp"] == 288 - 66 + 96 and per_part["cat6a-1g"] == 481 and per_part["acc-800g-osfp"] == 66
    bom = {line.part: line.quantity for line in clusters[SU].cabling.bom}
    assert (bom["dac-800g-osfp"], bom["cat6a-1g"]) == (288 - 66 + 96, 481)
    assert sum(n for p, n in per_part.items() if "-apc-type-b-" in p) == 576 + 144
