"""BOM of link parts: a copper cable assembly is ordered once per cable (its ends are built in); a transceiver is
ordered once per end. (A twin-port 800G OSFP DAC carries two 400G links: 576 leaf-spine links of the GB200 SU's
compute fabric need 288 cables, not 576 "ends".)
"""

from __future__ import annotations

import pytest

from archgen.analyse.cabling import COPPER


@pytest.fixture
def clusters(shipped):
    return shipped.clusters


@pytest.mark.parametrize("cluster", ["cluster/gb200-nvl72-su", "cluster/dgx-b200-superpod"])
def test_link_quantities(clusters, cluster):
    cab = clusters[cluster].cabling
    cables: dict[str, int] = {}
    ends: dict[str, int] = {}
    for t in cab.tiers:
        for opt in t.options:
            if opt.a.media in COPPER:
                cables[opt.a.id] = cables.get(opt.a.id, 0) + t.cables.get(opt.label, 0)
        for pid, n in t.modules.items():
            ends[pid] = ends.get(pid, 0) + n
    links = {line.part: line for line in cab.bom if line.kind == "Link"}
    for pid, line in links.items():
        if line.note == "cable assemblies":
            assert line.quantity == cables[pid], pid
        else:
            assert line.quantity == ends[pid], pid


def test_gb200_su_compute_leaf_spine_dacs(clusters):
    tier = next(t for t in clusters["cluster/gb200-nvl72-su"].cabling.tiers
                if (t.fabric, t.tier) == ("compute", "leaf_spine"))
    assert tier.links == 576 and tier.cables["dac-800g-osfp"] == 288
    assert tier.modules == {"dac-800g-osfp": 288}


def test_rack_bom_counts_and_components(shipped):
    """GB200 NVL72: 18 compute trays of 4 GPUs, 4 ConnectX-7 and 2 BlueField-3 each; 9 switch trays; 8 shelves."""
    rack = shipped.racks["rack/gb200-nvl72"]
    lines = {(b.part, b.within): b for b in rack.bom}
    assert lines[("gb200-compute-tray", "")].quantity == 18
    assert lines[("gb200-compute-tray", "")].total_power.m_as("kW") == pytest.approx(18 * 5.4)
    assert lines[("nvlink5-switch-tray", "")].quantity == 9
    assert lines[("orv3-power-shelf-33kw", "")].quantity == 8
    assert lines[("orv3-power-shelf-33kw", "")].unit_power is None     # draws nothing of its own
    assert lines[("gb200", "gb200-compute-tray")].quantity == 72
    assert lines[("connectx-7", "gb200-compute-tray")].quantity == 72
    assert lines[("bluefield-3", "gb200-compute-tray")].quantity == 36
    assert lines[("gb200", "gb200-compute-tray")].total_power is None    # counted in the tray
