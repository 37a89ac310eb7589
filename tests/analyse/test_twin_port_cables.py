"""A twin-port 2 x DR4 module between switches at 400G: one cable per MPO connector, the same count in every table.

newuser72's trial (b): ConnectX-8 ports split 2 x 400G over two XDR planes of Q3400, leaf-spine on
`smf-1.6t-2xdr4`. Each of the module's two MPO-12/APC connectors carries one 800G DR4 port, 2 x 400G links (NVIDIA
LinkX 200G-PAM4 list: twin-port "2x800G-to-2x800G switch-to-switch", "2x800G to two 400G or four 200G ConnectX-8
links" with "straight or 1:2 splitter fibres"; https://docs.nvidia.com/networking/display/800g200gpam4list). The
NIC end was counted per connector (one cable per 800G port, split at the far end) and the switch end per link, so
the same fabric's leaf-spine tier listed twice the cables its connectors take. The part now states `connectors: 2`
and the leaf-spine cables, their length bins and the port map's rows are one count: links / 2.
"""

from __future__ import annotations

import shutil

from archgen.analyse.portmap import port_map
from tests.conftest import REPO, run_specs

EXAMPLE = REPO / "examples" / "gb300-nvl72-su"


def test_leaf_spine_at_400g_counts_a_cable_per_connector(tmp_path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "ex")
    path = tmp_path / "ex" / "clusters" / "gb300-nvl72-su.yaml"
    text = path.read_text(encoding="utf-8")
    old = "    speed: 800 Gb/s\n    switch: q3400\n"
    assert old in text
    path.write_text(text.replace(old, "    speed: 400 Gb/s\n    planes: 2\n    nic_breakout: 2x400G\n"
                                      "    switch: q3400\n", 1), encoding="utf-8")
    run = run_specs(tmp_path, {}, folder="ex")
    a = run.clusters["cluster/gb300-nvl72-su"]
    tiers = {t.tier: t for t in a.cabling.tiers if t.fabric == "compute"}
    access, up = tiers["access"], tiers["leaf_spine"]
    assert access.links == 2 * 576 and sum(access.cables.values()) == 576   # one cable per NIC port's connector
    # at the switches: 4 x 400G per twin-port module, 2 per connector, so one cable per 2 links (before: per link)
    assert up.links % 2 == 0 and sum(up.cables.values()) == up.links // 2 == up.physical
    assert sum(up.cables_by_bin.values()) == up.links // 2
    assert port_map(a).by_tier()[("compute", "leaf_spine")] == up.links // 2
    assert up.transceivers == 2 * up.links // 4                          # modules unchanged: both ends, 4 links each
