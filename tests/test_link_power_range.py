"""A transceiver whose sources leave its power open carries the range (`Link.power_range`), like a shelf's efficiency.

NVIDIA's own pages give the twin-port 800G SR8 (MMA4Z00-NS class) two figures: 15 W ("Twin-port multimode OSFP
transceivers remain at 15 Watts for all configurations", docs.nvidia.com/networking/display/800gmma4z00nst/overview)
and 17 W (the LinkX 100G-PAM4 product-line overview; the twin-port OSFP cage's fins "support 17-Watt transceivers").
The range was in the part's notes only; the power budget adds the high end, and PWR012 now states that figure and
the range beside the count it multiplies.
"""

from __future__ import annotations

import re

import pytest

from archgen.errors import SpecError
from archgen.load import load_paths
from archgen.model import KINDS, Link
from tests.conftest import SPECS

LINKS = {d.id: KINDS[d.kind].model_validate(d.data) for d in load_paths([SPECS / "catalog" / "links"])}


def test_the_sr8_carries_nvidias_two_figures_and_the_budget_adds_the_high_end() -> None:
    sr8 = LINKS["mmf-800g-sr8"]
    assert isinstance(sr8, Link) and sr8.power_range is not None
    low, high = (p.m_as("W") for p in sr8.power_range)
    assert (low, high) == (15, 17)
    assert sr8.power_per_end.m_as("W") == high


def test_a_power_outside_its_range_is_refused() -> None:
    data = {**{k: v for k, v in LINKS["mmf-800g-sr8"].model_dump(mode="json").items() if v is not None},
            "power_range": ["15 W", "16 W"]}
    with pytest.raises((SpecError, ValueError), match=r"around power_per_end 17 W, got \[15 W, 16 W\]"):
        Link.model_validate(data)


def test_pwr012_states_the_figure_used_and_the_range(shipped) -> None:
    """The GB200 SU's storage leaves hold SR8 modules outside any node's maximum: their 17 W is what IT power adds
    (the session's run of the shipped specs, `tests/conftest.py::shipped`)."""
    (said,) = [f.message for f in shipped.findings
               if f.id == "PWR012" and f.object == "cluster/gb200-nvl72-su"]
    found = re.search(r"mmf-800g-sr8 power_per_end \((\d+) transceivers[^;]*; 17 W per end used, within 15 W to 17 W: "
                      r"([\d.]+) kW less at 15 W\)", said)
    assert found, said
    assert float(found[2]) == pytest.approx(int(found[1]) * (17 - 15) / 1000, abs=0.05)   # 2 W per module added
