"""The power shelf's unconfirmed efficiency reaches IT power as a range (buyer trial, issue 22, item 4).

Since the cluster's IT power is counted at the rack feeds, the GB200 SU's 1,146.3 kW rests on the ORv3 33 kW
shelf's 97 % efficiency (its shelves' loss, 32.6 kW), which no datasheet confirms, yet PWR012 named the trays'
and switches' unconfirmed draws and not the shelf's efficiency. A vendor talk on the shelf's 5.5 kW PSU (read from
a summary; the catalog cites it) puts it at 96.5 % or more at high load and 97.7 % at peak: the catalog states that
as `efficiency_range`, and PWR012 names the efficiency and gives the cluster's IT power at both ends.
"""

from __future__ import annotations

import pytest

from archgen.errors import SpecError
from archgen.pipeline import run
from tests.conftest import SPECS

CLUSTER = "cluster/gb200-nvl72-su"


def test_pwr012_names_the_shelf_efficiency_and_its_it_power_range(shipped):
    [message] = [f.message for f in shipped.findings if f.id == "PWR012" and f.object == CLUSTER]
    assert "orv3-power-shelf-33kw efficiency (64 placed; 0.97, within 0.965 to 0.977)" in message
    # by hand: busbar draw B = loss / (1/0.97 - 1); IT power moves by B x (1/eff - 1/0.97) at each end
    m = shipped.metrics[CLUSTER]
    busbar = m["shelf_loss"].m_as("kW") / (1 / 0.97 - 1)
    it = m["it_power"].m_as("kW")
    low, high = it + busbar * (1 / 0.977 - 1 / 0.97), it + busbar * (1 / 0.965 - 1 / 0.97)
    # SN5600 holds its optics; (1138.5, 1146.3, 1151.9) before the OOB leaves sized per rack (16, not 6: 20 more uplinks, 40 more 100G SR4 modules x 3.5 W = +0.14 kW)
    # (1138.6, 1146.4, 1152.0) before the leaf-spine runs past the DAC's 2 m longest length sold took 132 SR8 x 17 W,
    # (1140.9, 1148.6, 1154.2) until they took 66 LACC at 3 m, 3 W each (newuser80)
    assert (round(low, 1), round(it, 1), round(high, 1)) == (1138.8, 1146.6, 1152.2)
    assert message.endswith(f"; over the efficiency range of orv3-power-shelf-33kw, IT power is {low:,.1f} kW to "
                            f"{high:,.1f} kW ({it:,.1f} kW at the stated efficiency)")


def test_a_cluster_without_shelves_gives_no_range(shipped):
    [message] = [f.message for f in shipped.findings if f.id == "PWR012" and f.object == "cluster/dgx-b200-superpod"]
    assert "efficiency" not in message


def test_a_range_that_does_not_hold_the_efficiency_is_refused(tmp_path):
    text = (SPECS / "catalog" / "power" / "orv3-power-shelf-33kw.yaml").read_text(encoding="utf-8")
    (tmp_path / "shelf.yaml").write_text(text.replace("id: orv3-power-shelf-33kw", "id: shelf-x").replace(
        "[0.965, 0.977]", "[0.98, 0.99]"), encoding="utf-8")
    with pytest.raises(SpecError, match=r"efficiency_range: expected a low and a high efficiency around efficiency "
                                        r"0.97, each within \(0, 1\], got \[0.98, 0.99\]"):
        run([tmp_path])
