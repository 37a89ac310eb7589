"""BOM of link parts: a copper cable assembly is ordered once per cable (its ends are built in); a transceiver is
ordered once per end. (A twin-port 800G OSFP DAC carries two 400G links: 576 leaf-spine links of the GB200 SU's
compute fabric need 288 cables, not 576 "ends".)
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from archgen.analyse.rack_accessories import cord_gaps
from archgen.model.network import COPPER_MEDIA


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
            if opt.a.media in COPPER_MEDIA:
                cables[opt.a.id] = cables.get(opt.a.id, 0) + t.cables.get(opt.label, 0)
        for pid, n in t.modules.items():
            ends[pid] = ends.get(pid, 0) + n
    for line in (line for line in cab.bom if line.kind == "Link"):
        assert line.quantity == (cables[line.part] if line.note == "cable assemblies" else ends[line.part]), line.part


def test_one_line_per_part(clusters):
    """Each part takes one line of a cluster's BOM (and so of its cost table), whatever powers its units draw.

    netfix3: the GB200 SU's mmf-400g-sr4 took two lines, 288 modules at 6.5 W (BlueField-3 ports run at 200G,
    its `power_at`) and 576 at 9 W; now one line of 864 at the part's 9 W, its split stated and summed.
    """
    for path, a in clusters.items():
        keys = [(line.part, line.kind) for line in a.cabling.bom]
        assert len(keys) == len(set(keys)), (path, sorted(k for k in keys if keys.count(k) > 1))
    (sr4,) = [line for line in clusters["cluster/gb200-nvl72-su"].cabling.bom if line.part == "mmf-400g-sr4"]
    assert (sr4.quantity, sr4.unit_power.m_as("W"), sr4.split_text) == (864, 9, "288 at 6.5 W, 576 at 9 W")
    assert sr4.in_parent == 864 and sr4.total_power.m == 0      # all at node ends, inside the trays' figure
    outside = replace(sr4, in_parent=0, split=tuple((n, 0, w) for n, _, w in sr4.split))
    assert outside.total_power.m_as("W") == pytest.approx(288 * 6.5 + 576 * 9)


def test_gb200_su_compute_leaf_spine_dacs(clusters):
    tier = next(t for t in clusters["cluster/gb200-nvl72-su"].cabling.tiers
                if (t.fabric, t.tier) == ("compute", "leaf_spine"))
    # 576 links, 2 per twin-port DAC; the 132 links whose runs are past 2 m (the MCP4Y10's longest length sold,
    # "0.5-2 m lengths", NVIDIA MCP4Y10-Nxxx specification) take the next option, the 3-5 m LACC, at 3 m, its shortest
    # length sold (tests/analyse/test_sold_lengths.py, test_copper_shortest_sold.py): 222 DACs for the other 444
    assert tier.links == 576 and tier.cables == {"dac-800g-osfp": 222, "acc-800g-osfp": 66}
    assert tier.modules == {"dac-800g-osfp": 222, "acc-800g-osfp": 66}   # twin-port: 2 links an assembly


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


def test_rack_lines_carry_their_unit_power(clusters):
    """Issue 11, item 7: the cluster BOM showed every rack at "0.000" kW. A rack line's unit power is the maximum draw
    of its placed parts: a B200 compute rack holds 4 DGX B200 at 14.3 kW (NVIDIA user guide) and one SN2201 at 98 W."""
    bom = {line.part: line for line in clusters["cluster/dgx-b200-superpod"].cabling.bom}
    rack = bom["dgx-b200-compute"]
    assert rack.kind == "Rack" and rack.unit_power.m_as("kW") == pytest.approx(4 * 14.3 + 0.098)
    assert rack.total_power.m_as("kW") == pytest.approx(31 * (4 * 14.3 + 0.098))


def test_rack_accessories_by_rule(shipped):
    """Issue 11, item 7: power cords, rails and blanking panels. The DGX H100 rack: 4 systems with six PSUs each and
    C20 inlets (user guide: 6 x 3.3 kW, C19/C20) take 24 C19-to-C20 cords; 5 rack-mounted items (4 DGX, 1 SN2201) take
    5 rail kits; 42 U less the 4 x 8 U of the DGX on the front (the SN2201 is half depth at the rear) leave 10 U
    to blank."""
    bom = {line.part: line for line in shipped.racks["rack/dgx-h100-4"].bom}
    assert bom["power-cord-c19-c20"].quantity == 24
    assert bom["rail-kit"].quantity == 5
    assert bom["blanking-panel-1u"].quantity == 42 - 4 * 8
    gb200 = {line.part for line in shipped.racks["rack/gb200-nvl72"].bom}
    assert "rail-kit" not in gb200 and not any(p.startswith("power-cord") for p in gb200)   # ORv3 busbar rack


def test_cords_of_parts_fed_from_outside_a_busbar_rack_are_named(shipped):
    """review47: the GB200 NVL72 rack has no PDU, so `cord_gaps` named nothing, but its two SN2201 are AC parts fed
    from outside the shelves (`power.external`): their cords are needed, are not counted (the catalog gives no PSUs),
    and the cluster document's Open items said nothing of them, where the SuperPOD's (its SN2201 on PDUs) says
    "Power cords of sn2201 are not counted". The busbar-fed trays and shelves still need no cord."""
    gb200 = next(r for r in shipped.design.racks if r.path == "rack/gb200-nvl72")
    assert cord_gaps(gb200) == ["Power cords of sn2201 are not counted: the catalog does not give its PSUs and "
                                "their inlets."]


def test_fibre_patch_cords_one_per_optical_link(clusters):
    """Issue 11, item 7: every optical link gets one patch cord in its length bin, with its connector where the
    Link part gives one (the MMA4Z00-NS class 2 x SR4 module: two MPO-12/APC links); copper assemblies get none.
    A cable whose connector serves two links (the storage fabric's 200G ends, newuser80) is one 1:2 splitter."""
    cab = clusters["cluster/gb200-nvl72-su"].cabling
    optical = sum(n / t.cable_links.get(label, 1) for t in cab.tiers for opt in t.options
                  if opt.a.media not in COPPER_MEDIA for (label, _), n in t.by_option_bin.items() if label == opt.label)
    fibres = [line for line in cab.bom if line.kind == "Fibre"]
    assert optical and sum(line.quantity for line in fibres) == optical == 1028 - 144 - 132
    assert all(line.unit_power is None and line.note.startswith(("one per optical link", "one per 2 optical links"))
               for line in fibres)
    sr8 = [line for line in clusters["cluster/dgx-b200-superpod"].cabling.bom if "-mpo-12-apc-" in line.part]
    assert sr8 and all(line.name.startswith("Multimode fibre patch cord, MPO-12/APC, 8 fibres, polarity Type-B, ")
                       for line in sr8)


def test_cdus_counted_per_group_of_racks(shipped, clusters):
    """Issue 21 item 7: the GB200 SU's 8 racks share one group of 2 in-row CDUs (N+1), `racks_per_cdu: 8`.

    The cluster BOM holds 2 CDUs (not 2 per rack, 16); the TPU v4 pod's 64 cube racks, 16 per group of 2, hold 8.
    """
    cdus = {c: {line.part: line.quantity for line in clusters[c].cabling.bom if line.kind == "CoolingUnit"}
            for c in ("cluster/gb200-nvl72-su", "cluster/tpu-v4-pod", "cluster/dgx-b200-superpod")}
    assert cdus == {"cluster/gb200-nvl72-su": {"in-row-cdu-1.3mw": 2}, "cluster/tpu-v4-pod": {"in-row-cdu-1.3mw": 8},
                    "cluster/dgx-b200-superpod": {}}
    from archgen.render.cluster import cluster_scope
    _, counts = cluster_scope(shipped, clusters["cluster/gb200-nvl72-su"], "r", "2026-01-01")
    assert counts["in-row-cdu-1.3mw"] == 2


def test_partial_cdu_group_sized_by_its_heat_and_redundancy(clusters):
    """A partial group takes the fewest CDUs whose capacity less the spares carries its liquid heat.

    One GB200 NVL72 rack rejects about 112 kW to liquid (its trays' maximum draw x liquid fraction), well under one
    1.3 MW CDU: at N+1 the partial group still needs 2 (one is the spare), at N it needs 1.
    """
    from archgen.analyse.cdu_units import cdu_units, liquid_heat

    rack = clusters["cluster/gb200-nvl72-su"].cluster.rack_types["gb200-nvl72"]
    assert 0 < liquid_heat(rack).m_as("kW") < 1300
    assert [cdu_units(rack, n) for n in (1, 8, 9, 16, 17)] == [2, 2, 4, 4, 6]
    path = rack.spec.cooling.liquid
    plain = replace(rack, spec=rack.spec.model_copy(update={"cooling": rack.spec.cooling.model_copy(
        update={"liquid": path.model_copy(update={"cdu_redundancy": "N"})})}))
    assert [cdu_units(plain, n) for n in (1, 8, 9)] == [1, 2, 3]
    heavy = replace(rack, cdu=rack.cdu.model_copy(update={"capacity": liquid_heat(rack) * 0.5}))
    assert cdu_units(heavy, 1) == 2     # N+1: one rack's heat needs both CDUs of the group (and COOL001 says so)
