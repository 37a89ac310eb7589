"""The control-plane section gives the OOB fabric's ports per rack with the IPv4 subnet that holds them.

Shipped GB200 SU: a GB200 NVL72 rack's OOB ports are 18 compute-tray BMCs + 9 NVLink switch trays x 3 (BMC, ComE1,
ComE2; nvlink5-switch-tray's source) + 2 SN2201 + 8 power shelves = 55 (docs/clusters.md); with the network and
broadcast addresses (RFC 950) and a gateway, 58 addresses: 2^6 = 64, a /26 (a /27's 32 is short). The row names the
NVLink tray's 3 management ports, not "one of each switch" as before.
"""

from __future__ import annotations

from tests.conftest import REPO

GOLDEN = REPO / "tests" / "render" / "golden" / "gb200-nvl72-su" / "gb200-nvl72-su.md"


def test_gb200_rack_ports_take_a_slash_26() -> None:
    text = GOLDEN.read_text(encoding="utf-8")
    assert "gb200-nvl72 55 (a /26)" in text
    assert 2 ** (32 - 26) - 3 >= 55 > 2 ** (32 - 27) - 3
    assert "3 on each nvlink5-switch-tray" in text
    assert "one management port of each switch" not in text
