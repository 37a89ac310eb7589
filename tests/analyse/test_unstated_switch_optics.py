"""Whether a switch's `power.max` holds its ports' modules, where no source says (optics3, net2's doubt).

The SN5600's 3 kW is given with 18 W per port (SN5000 manual, Data Interfaces), so it holds them. For the Q3400,
SN5610 and Arista 7060X6-64PE no source read says either way: `power_includes_optics` stays false (modules added
on top, the higher IT power), is listed unconfirmed, and PWR012 names it with the switch's other figures.
"""

from __future__ import annotations

import shutil

import pytest

from archgen.pipeline import run
from tests.conftest import REPO, SPECS

CLUSTER = "cluster/gb300-nvl72-su"


def test_pwr012_names_the_unstated_flag(example, shipped):
    for result, cluster, named in ((example, CLUSTER, ("q3400 power.max and power_includes_optics (12 placed)",
                                                       "sn5610 power.max and power_includes_optics (5 placed)")),
                                   (shipped, "cluster/mi355x-th5", (
                                       "arista-7060x6-64pe power.max and power.typical and power_includes_optics",))):
        [message] = [f.message for f in result.findings if f.id == "PWR012" and f.object == cluster]
        assert all(n in message for n in named), message
    [message] = [f.message for f in shipped.findings if f.id == "PWR012" and f.object == "cluster/gb200-nvl72-su"]
    assert "sn5600 power.max and power.typical (" in message     # its flag is sourced, not named


def test_what_rests_on_the_q3400_flag(example, tmp_path):
    # The GB300 SU example's compute fabric: its 864 twin-port smf-1.6t-2xdr4 transceivers all sit in Q3400 ports
    # (leaf down, leaf and spine ends of leaf-spine; the GB300 trays' ends are other parts), at the part's 25 W
    # per end (unconfirmed). Were the Q3400's 3.5 kW PSU bound to hold them, IT power would drop by
    # 864 x 25 W = 21.6 kW, 1,216.6 -> 1,195.0 kW, and the network rack type (6 of the 12 Q3400, 432 of the
    # modules) by 432 x 25 W = 10.8 kW. No source says so, so the shipped figures keep them.
    [line] = [ln for ln in example.clusters[CLUSTER].cabling.bom if ln.part == "smf-1.6t-2xdr4"]
    assert (line.quantity, line.in_parent) == (864, 0)
    shutil.copytree(REPO / "examples" / "gb300-nvl72-su", tmp_path / "gb3")
    for rel in ("clusters/gb300-nvl72-su.yaml", "racks/gb300-network.yaml"):
        path = tmp_path / "gb3" / rel
        path.write_text(path.read_text(encoding="utf-8").replace("q3400", "q3400-held"), encoding="utf-8")
    text = (SPECS / "catalog" / "switches" / "q3400.yaml").read_text(encoding="utf-8")
    (tmp_path / "gb3" / "q3400-held.yaml").write_text(
        text.replace("id: q3400\n", "id: q3400-held\n", 1) + "power_includes_optics: true\n", encoding="utf-8")
    held = run([tmp_path / "gb3"])
    before, after = example.clusters[CLUSTER].metrics, held.clusters[CLUSTER].metrics
    assert (before["it_power"] - after["it_power"]).m_as("W") == pytest.approx(864 * 25)
    # 1,216.6 kW before the OOB leaves were sized per rack: 16 SN2201, not 6, 40 more 100G SR4 modules x 3.5 W
    assert before["it_power"].m_as("kW") == pytest.approx(1216.6 + 40 * 0.0035, abs=0.05)
    rack = example.racks["rack/gb300-su-ib"].power.it_power - held.racks["rack/gb300-su-ib"].power.it_power
    assert rack.m_as("W") == pytest.approx(432 * 25)
