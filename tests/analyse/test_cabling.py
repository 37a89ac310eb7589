"""Cable lengths, media choice, length bins, module counts, the cable-run CSV and the BOM."""

from __future__ import annotations

import pytest

from archgen.pipeline import run
from archgen.render.cabling import run_list
from tests.data.clusters.small import files


@pytest.fixture
def small(spec_tree):
    """Two SUs of two DGX H100 racks and a network rack, in one row of 8 (racks 0-2 and 3-5)."""
    return run([spec_tree(files())]).clusters["cluster/c"]


def test_lengths_follow_the_tray_grid(small) -> None:
    """Between racks: 2 x 1.5 m drop + |dx| + 2 m slack; in the same rack: |dU| x 44.45 mm + 1 m."""
    access = next(t for t in small.cabling.runs if t.tier == "access")
    # SU 1: compute racks at x = 0 and 0.6 m, network rack at 1.2 m.
    assert sorted(set(access.length.round(3).tolist())) == [5.6, 6.2]
    spine = next(t for t in small.cabling.runs if t.tier == "leaf_spine")
    assert spine.length.min() >= 1.0


def test_media_choice_by_reach(small) -> None:
    """Runs of 5.6 and 6.2 m exceed DAC (3 m) and LACC (5 m): they take multimode, binned at 7 m."""
    tier = next(t for t in small.cabling.tiers if t.tier == "access")
    assert tier.by_option_bin == {("mmf-800g-sr8", 7.0): 128}
    assert tier.over_reach == ()


def test_twin_port_modules_serve_two_links(small) -> None:
    """128 access links on twin-port 800G modules: 64 modules at each end, 128 at 17 W = 2,176 W."""
    tier = next(t for t in small.cabling.tiers if t.tier == "access")
    assert tier.modules == {"mmf-800g-sr8": 128}
    assert tier.optics_power.m_as("W") == pytest.approx(128 * 17)


def test_cable_run_list_is_deduplicated_and_complete(small) -> None:
    """The run list of cabling.csv: rows unique per (A rack/U, Z rack/U, link, bin); their counts add up to every
    link."""
    rows = run_list(small).rows
    keys = [(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[9]) for r in rows]
    assert len(keys) == len(set(keys))
    assert sum(r[10] for r in rows) == sum(t.links for t in small.cabling.tiers)
    assert rows[0][2].startswith("su01/c4-")
    assert run_list(small).rows == rows


def test_bom_lists_parts_with_power(small) -> None:
    """Every part with quantity, unit power and total: 16 DGX H100 at 10.2 kW, QM9700s placed in racks."""
    rows = {line.part: line for line in small.cabling.bom}
    assert rows["dgx-h100"].quantity == 16 and rows["dgx-h100"].total_power.m_as("kW") == pytest.approx(163.2)
    assert rows["qm9700"].quantity == 72          # 36 slots in each of 2 network racks
    assert "mmf-800g-sr8" in rows


def test_per_cage_on_the_nic_part_serves_two_links_per_module(spec_tree) -> None:
    """Issue 21 item 5: a twin-port NIC part (`ports: {count: 2, per_cage: 2}`) fitted without `per_cage` on the
    system's slot. Its node-end modules serve two ports each, as a DGX slot's `per_cage: 2` does: 128 access links
    take 64 modules at the node end and 64 at the leaf's twin-port cages, 128 in all (before, 128 + 64 = 192)."""
    from tests.conftest import SPECS
    dgx = (SPECS / "catalog/systems/dgx-h100.yaml").read_text(encoding="utf-8")
    line = "{part: connectx-7, count: 8, role: compute, cage: OSFP, per_cage: 2}"
    assert line in dgx
    nic = ("kind: NIC\nid: twin-cx7\nname: twin-port ConnectX-7 (test part)\nsource: test fixture\n"
           "technology: vpi\n"
           "ports: {count: 2, speed: 400 Gbit/s, cage: OSFP, per_cage: 2, lanes: 4}\npower: 50 W\n")
    tree = files()
    tree["parts/twin.yaml"] = nic + "---\n" + dgx.replace("id: dgx-h100", "id: dgx-twin").replace(
        line, "{part: twin-cx7, count: 4, role: compute}")
    tree["racks/r.yaml"] = tree["racks/r.yaml"].replace("part: dgx-h100", "part: dgx-twin")
    tier = next(t for t in run([spec_tree(tree)]).clusters["cluster/c"].cabling.tiers if t.tier == "access")
    assert tier.links == 128 and tier.modules == {"mmf-800g-sr8": 64 + 64}
