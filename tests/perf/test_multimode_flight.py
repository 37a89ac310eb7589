"""A multimode trunk's flight time at multimode fibre's group index, not single-mode's (ualink30).

The second switch hop between racks adds the trunk's flight over its longest run (`racks_note.stated_hop`). Fibre
was taken at single-mode's group index at 1310 nm, 1.4676 (`model.site.GROUP_INDEX`), whatever the trunk's media;
an 850 nm multimode (OM3/OM4) trunk's light travels at the multimode fibre's effective group index, 1.483 at 850 nm
(Optokon OM4 50/125 fibre data sheet, "Effective group index of refraction at 850 nm: 1.483"; 1.478 at 1300 nm),
about 1 % slower: over 30 m, 30 x 1.483 / c = 148.40 ns where 146.86 ns was taken.
"""

from __future__ import annotations

import pytest

from archgen.model.network import Link
from archgen.perf.workload.racks_note import stated_hop
from archgen.units import Q_

C = 299_792_458.0


def _link(media: str) -> Link:
    return Link.model_validate({"id": f"t-{media}", "name": "test trunk", "vendor": "test", "source": ["test input"],
                                "media": media, "rate": "800 Gbit/s", "reach": "50 m", "power_per_end": "15 W",
                                "lanes": 8, "latency_per_end": "0 ns"})


def test_a_multimode_trunk_flies_at_the_multimode_group_index() -> None:
    hop, words = stated_hop(Q_(250, "ns"), "sw", _link("multimode"), Q_(30, "m"))
    assert hop == pytest.approx(250e-9 + 30 * 1.483 / C, rel=1e-9)   # 250 + 148.40 ns
    assert "148 ns of flight over the longest trunk run, 30 m of multimode" in words


def test_a_single_mode_trunk_keeps_the_single_mode_index() -> None:
    hop, _ = stated_hop(Q_(250, "ns"), "sw", _link("singlemode"), Q_(30, "m"))
    assert hop == pytest.approx(250e-9 + 30 * 1.4676 / C, rel=1e-9)   # 250 + 146.86 ns
