"""Cable lengths, media choice, length bins, module counts, the cable-run CSV and the BOM."""

from __future__ import annotations

import csv
import io

import pytest

from archgen.analyse.bom import bom_csv
from archgen.analyse.cabling import cable_runs_csv
from archgen.pipeline import run
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


def test_cable_run_csv_is_deduplicated_and_complete(small) -> None:
    """Rows are unique per (A rack/U, B rack/U, group, media, bin); their counts add up to every link."""
    text = cable_runs_csv(small)
    rows = list(csv.DictReader(io.StringIO(text)))
    keys = [tuple(r[k] for k in ("fabric", "tier", "a_rack", "a_u", "b_rack", "b_u", "port_group", "media",
                                 "length_bin_m")) for r in rows]
    assert len(keys) == len(set(keys))
    assert sum(int(r["count"]) for r in rows) == sum(t.links for t in small.cabling.tiers)
    assert rows[0]["a_rack"].startswith("su01/c4-")
    assert cable_runs_csv(small) == text


def test_bom_lists_parts_with_power(small) -> None:
    """Every part with quantity, unit power and total: 16 DGX H100 at 10.2 kW, QM9700s placed in racks."""
    rows = {r["part"]: r for r in csv.DictReader(io.StringIO(bom_csv(small)))}
    assert rows["dgx-h100"]["quantity"] == "16" and float(rows["dgx-h100"]["total_power_kw"]) == pytest.approx(163.2)
    assert int(rows["qm9700"]["quantity"]) == 72          # 36 slots in each of 2 network racks
    assert "mmf-800g-sr8" in rows
