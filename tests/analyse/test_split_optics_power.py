"""A module run below its rate draws its datasheet's figure at that rate (`Link.power_at`), not its full power.

Found by a network architect's trial: a 400G single-port module on a 200G port lights 2 of its 4 lanes (a 1:2
splitter fibre from the switch's twin-port module) and draws less, which the catalog's notes said but nothing read:
NVIDIA MMS4X00-NS400 5 W max at 200G vs 9 W (https://docs.nvidia.com/networking/display/mms4x00ns400/overview);
MMA4Z00-NS400-T 6.5 W max (https://docs.nvidia.com/networking/display/MMA4Z00NS400T/Connectivity+Scenarios). The
shipped GB200 SU's storage/in-band fabric runs its BlueField-3s' 400G SR4 modules at 200G: 288 x 9 W were charged.
"""

from __future__ import annotations

import pytest

from archgen.analyse.link_ends import module_power
from archgen.pipeline import run
from archgen.units import Q_
from tests.conftest import REPO


@pytest.fixture(scope="module")
def result():
    return run([REPO / "specs"], select=("CAB",))


def test_power_at_the_rate_run() -> None:
    from archgen.pipeline import built
    specs, _ = built([REPO / "specs"])
    dr4, sr4, twin = (specs.get(i) for i in ("smf-400g-dr4", "mmf-400g-sr4", "smf-800g-dr8"))
    g200, g400 = Q_(200, "Gbit/s"), Q_(400, "Gbit/s")
    assert module_power(dr4, g200, 1) == Q_(5, "W") and module_power(dr4, g400, 1) == Q_(9, "W")
    assert module_power(sr4, g200, 1) == Q_(6.5, "W")
    assert module_power(twin, g200) == Q_(17, "W")     # twin-port: 4 x 200G at full rate, no `power_at`


def test_gb200_su_storage_access_optics(result) -> None:
    tier = next(t for t in result.clusters["cluster/gb200-nvl72-su"].cabling.tiers
                if (t.fabric, t.tier) == ("storage-inband", "access"))
    assert tier.reduced == {("mmf-400g-sr4", 6.5): 288}
    assert tier.optics_power.m_as("W") == pytest.approx(288 * 6.5 + 72 * 17)     # was 288 x 9 + 72 x 17 = 3,816
