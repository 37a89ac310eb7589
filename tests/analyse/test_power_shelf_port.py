"""The 33 kW power shelf's management port: one, the PMC module's RJ-45, as Lenovo's GB300 NVL72 guide shows it.

Lenovo, GB300 NVL72 user guide, "Power shelf front view" (https://pubs.lenovo.com/gb300-nvl72/power_shelf_front_view):
six 5.5 kW PSUs, 33 kW, and one PMC (Power Management Controller) module "features a front-facing RJ-45 port that
supports PoE". No public page gives the GB200 shelves' (Delta, LiteOn) count, which NVIDIA's RMS hardware list
manages over Redfish/HTTPS: the field stays unconfirmed for the part (net30; newuser82's leftover 6).
"""

from __future__ import annotations

import yaml

from tests.conftest import SPECS


def test_the_shelf_states_one_port_cited_and_unconfirmed() -> None:
    part = yaml.safe_load((SPECS / "catalog" / "power" / "orv3-power-shelf-33kw.yaml").read_text(encoding="utf-8"))
    assert part["management_ports"] == 1
    assert part["capacity"] == "33 kW" and part["psus"] == {"count": 6, "capacity": "5.5 kW", "redundancy": "N"}
    assert any("pubs.lenovo.com/gb300-nvl72/power_shelf_front_view" in s for s in part["source"])
    assert "management_ports" in part["unconfirmed"]
