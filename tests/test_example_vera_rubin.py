"""examples/vera-rubin: a Vera Rubin NVL72 SU entered from NVIDIA's announced figures (newuser63).

The README states `archgen check`'s summary and its warnings; they are held here, so that a change that moves a
finding on this example updates its README. The rack's input power is the derivation its tray states
(`vr-compute-tray` notes): 18 trays at 8.9 kW and 9 NVLink 6 trays at 4.8 kW on the busbar, over the 0.97 shelf
efficiency (orv3-power-shelf-33kw), plus the two SN2201 (98 W each) fed from outside the shelves.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import _from_repo

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "vera-rubin"


@pytest.fixture(scope="module")
def run():
    return _from_repo("examples/vera-rubin")


def test_the_readme_states_the_check_summary(run):
    live = [f for f in run.findings if not f.waived]
    count = Counter(f.severity for f in live)
    summary = (f"{count['error']} error(s), {count['warning']} warning(s), {count['info']} info, "
               f"{sum(bool(f.waived) for f in run.findings)} waived")
    assert summary == "0 error(s), 8 warning(s), 31 info, 5 waived"   # weight67: 4 rack weights lower bounds
    assert summary in (EXAMPLE / "README.md").read_text(encoding="utf-8")
    warnings = Counter(f.id for f in live if f.severity == "warning")
    assert warnings == {"CAT010": 3, "COST002": 1, "REL004": 1, "REL006": 1, "REQ004": 2}


def test_the_rack_input_power_is_the_trays_derivation(run):
    busbar = 18 * 8.9 + 9 * 4.8
    assert run.metrics["rack/vr-nvl72"]["input_power"].m_as("kW") == pytest.approx(busbar / 0.97 + 2 * 0.098,
                                                                                   abs=0.05)
