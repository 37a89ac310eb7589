"""newuser62: the cabling section states the figures its ordered lengths rest on.

Before, it said only "floor geometry: rack and row pitch, tray drops, slack": an installer reading portmap.csv's
ordered lengths could not tell how much service loop each held, nor that the in-rack allowance and the bins were
archgen's defaults, not the design's. The run rule is `analyse.cabling.tray_run`: 2 x tray_drop + |Δx| + |Δy| +
slack between racks, |ΔU| x 44.45 mm + in_rack inside one (docs/clusters.md); the GB200 SU's floor states
tray_drop 1.5 m, slack 2 m, rack pitch 600 mm, row pitch 3.6 m (specs/clusters/gb200-nvl72-su.yaml) and no in_rack
or length_bins.
"""

from __future__ import annotations

from archgen.render.blocks import Para
from archgen.render.cabling import cabling
from tests.conftest import shipped_edited

SU = "cluster/gb200-nvl72-su"


def _text(a) -> str:
    return " ".join(b.text for b in cabling(a).blocks if isinstance(b, Para))


def test_cabling_section_states_its_geometry(shipped):
    text = _text(shipped.clusters[SU])
    assert "tray drop (1.5 m)" in text and "the slack (2 m)" in text
    assert "rack pitch 0.6 m" in text and "row pitch 3.6 m" in text
    assert "(44.45 mm a U) + 1 m, archgen's default, not stated" in text
    assert "bins 0.5, 1, 1.5, 2, 2.5, 3, 4, 5, 7, 10, 15, 20, 30, 50, " in text
    assert "(archgen's default bins, not stated)" in text


def test_stated_bins_and_allowance_read_as_stated(tmp_path):
    run = shipped_edited(tmp_path, "clusters/gb200-nvl72-su.yaml", "  slack: 2 m\n",
                         "  slack: 3 m\n  in_rack: 1.5 m\n  length_bins: [1 m, 2 m, 3 m, 5 m, 10 m, 20 m]\n")
    text = _text(run.clusters[SU])
    assert "the slack (3 m)" in text and "(44.45 mm a U) + 1.5 m. " in text
    assert "bins 1, 2, 3, 5, 10, 20 m:" in text and "not stated" not in text.split("Links are")[0].split("bins")[1]


def test_side_by_side_trunks_are_in_the_rule_where_the_floor_lays_them(tmp_path):
    """fin3: a floor with `side_by_side: true` under a two-rack domain lays the trunk cables between neighbours
    straight across, |ΔU| x 44.45 mm + rack pitch + in_rack where shorter (`analyse.cabling._lengths`); the rule
    said only the tray run. Without `side_by_side`, and on a one-rack domain (the SU above), it says nothing more."""
    from tests.render.test_floor_domains import _pod

    said = ("a scale-up trunk cable between neighbouring racks of one row goes straight across where that is shorter "
            "(floor.side_by_side): the height between its ends + the rack pitch + 1 m, archgen's default, not stated. ")
    assert said in _text(_pod(tmp_path / "side"))
    assert "side_by_side" not in _text(_pod(tmp_path / "tray", side=False))
