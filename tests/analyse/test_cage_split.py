"""An oversubscribed split of breakout ports takes whole cages up (newuser26 open 4).

SN5610 at 200G: 64 cages x 4 = 256 ports. At 2:1 the rule u = ⌊k/(1+o)⌋ gave ⌊256/3⌋ = 85 uplinks, a cage split
between down and up roles, and the spines had to divide 85 (85 spines at 21.9 % of their ports, NET021). In whole
cages: u = 4 x ⌊64/3⌋ = 84 (21 cages), d = 172, 172:84 = 2.05:1 (at least the ratio asked, as the floor gave).
"""

from __future__ import annotations

import shutil

from tests.conftest import REPO, run_specs


def test_two_to_one_on_four_way_breakout_takes_whole_cages_up(tmp_path):
    shutil.copytree(REPO / "examples" / "gb300-nvl72-su", tmp_path / "ex")
    path = tmp_path / "ex" / "clusters" / "gb300-nvl72-su.yaml"
    text = path.read_text(encoding="utf-8")
    assert "    leaf: {rack: gb300-su-eth}\n" in text
    path.write_text(text.replace("    leaf: {rack: gb300-su-eth}\n",
                                 "    leaf: {rack: gb300-su-eth, oversubscription: \"2:1\"}\n", 1), encoding="utf-8")
    run = run_specs(tmp_path, {}, folder="ex")
    [fa] = [f for f in run.clusters["cluster/gb300-nvl72-su"].fabrics if f.fabric.spec.id == "storage-inband"]
    leaf = fa.tier_at("leaf")
    cages, lanes = 64, 4                                  # sn5610: 64 x 800G OSFP, 4 x 200G each
    assert (leaf.breakout, leaf.radix) == (lanes, cages * lanes)
    assert (leaf.up, leaf.down) == (lanes * (cages // 3), cages * lanes - lanes * (cages // 3)) == (84, 172)
    assert leaf.up_split == lanes                         # each up cage carries 4 uplinks (CAB012 reads this)
