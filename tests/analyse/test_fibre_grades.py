"""newuser80: every fibre cord is ordered with its fibre grade, chosen by its length as the optics' vendor states it.

NVIDIA's structured cabling requirements give the grade by cable length: multimode MPO "OM3: L<=30m, OM4:
30m<L<=50m", single-mode MPO and LC "OS2" ("NVIDIA Interconnect Structured Cabling Requirements for InfiniBand
NDR/XDR and 400/800G ETH Solutions", MPO/LC Cable Requirements,
https://docs.nvidia.com/networking/display/intrcnctcabreqndr400eth/mpo/lc+cable+requirements); IEEE 802.3bm clause 95
gives 100GBASE-SR4 70 m on OM3 and 100 m on OM4. Input (a cabling engineer's trial): the BOM ordered "Multimode fibre
patch cord, MPO-12/APC, polarity Type-B, 30 m", which no supplier can quote without a grade, and the part's 50 m reach
holds on OM4 only.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from archgen.analyse.fibre_cords import _cord, fibre_cord
from archgen.model.network import Link
from tests.conftest import SPECS, shipped_edited

SU, B200 = "cluster/gb200-nvl72-su", "cluster/dgx-b200-superpod"


def _fibres(analysis) -> list:
    return [line for line in analysis.cabling.bom if line.kind == "Fibre"]


def test_short_multimode_cords_are_om3(shipped) -> None:
    """The GB200 SU's cords are 2.5 to 15 m: OM3 (NVIDIA: up to 30 m; 100GBASE-SR4: up to 70 m), named and in the id."""
    fibres = _fibres(shipped.clusters[SU])
    assert fibres and all(", OM3, " in line.name and "-om3-" in line.part for line in fibres)
    assert sum(line.quantity for line in fibres) == 576 + 144 + 32


def test_grade_follows_the_ordered_length(shipped) -> None:
    """NVIDIA's rule at its edges: a 30 m cord is OM3, a 50 m one OM4; past 50 m (CAB001's run) still the last grade."""
    opt = next(o for t in shipped.clusters[B200].cabling.tiers for o in t.options if o.a.id == "mmf-800g-sr8")
    assert fibre_cord(opt, 30.0).endswith("-om3-30m") and fibre_cord(opt, 50.0).endswith("-om4-50m")
    assert fibre_cord(opt, 70.0).endswith("-om4-70m")
    single = next(o for t in shipped.clusters[B200].cabling.tiers for o in t.options if o.a.id == "smf-800g-dr8")
    assert fibre_cord(single, 100.0).endswith("-os2-100m")


def test_runs_past_30_m_take_om4(tmp_path: Path) -> None:
    """The B200 SuperPOD with 10 m of slack a run (was 2 m): its runs past 30 m are ordered at 50 m on OM4 cords, the
    rest on OM3; every OM4 cord is longer than OM3's 30 m. (Its 100GBASE-SR4 cords stay OM3 to 70 m, IEEE's.)"""
    r = shipped_edited(tmp_path, "clusters/dgx-b200-superpod.yaml", "  slack: 2 m\n", "  slack: 10 m\n")
    fibres = [line for line in _fibres(r.clusters[B200]) if "-apc-type-b-" in line.part]   # NVIDIA's SR8 cords
    om4 = [line for line in fibres if ", OM4, " in line.name]
    assert om4 and all(float(line.part.rsplit("-", 1)[1].rstrip("m")) > 30 for line in om4)
    assert all(float(line.part.rsplit("-", 1)[1].rstrip("m")) <= 30 for line in fibres if ", OM3, " in line.name)


def test_unstated_grade_is_said() -> None:
    """A part that states no grade (the LPO DR8, no vendor page read) orders a cord 'fibre grade not stated'."""
    pid, name, _ = _cord("singlemode", "", "", 10.0)
    assert "fibre grade not stated" in name and pid == "fibre-singlemode-unknown-10m-nf"   # -nf: count not stated


def test_grades_are_listed_shortest_first() -> None:
    """Grades out of order are refused at the key: the first grade covering a cable is the one ordered."""
    data = yaml.safe_load((SPECS / "catalog" / "links" / "mmf-800g-sr8.yaml").read_text(encoding="utf-8"))
    data["fibre"] = [{"grade": "OM4", "reach": "50 m"}, {"grade": "OM3", "reach": "30 m"}]
    with pytest.raises(ValueError, match=r"30 m is not above the grade before it \(OM4, 50 m\)"):
        Link.model_validate(data)
    data["fibre"], data["media"] = [{"grade": "OM3", "reach": "30 m"}], "dac"
    with pytest.raises(ValueError, match="a dac part has no fibre"):
        Link.model_validate(data)
