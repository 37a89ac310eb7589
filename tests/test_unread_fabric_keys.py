"""Fabric keys that nothing reads are refused or reported, not silently ignored (the product rule: "when a key is not
honoured, refuse it").

Each case starts from a small hand-written spec that was accepted before, with the key read by nothing.
"""

from __future__ import annotations

import pytest

from archgen.errors import SpecError
from archgen.pipeline import run
from tests.test_fabric_examples import DRAGONFLY

#: 8 racks of 4 DGX H100 (8 rails of 32 domains) on a rail-only fabric of QM9700 rail switches.
RAIL_ONLY = DRAGONFLY.split("fabrics:")[0] + """fabrics:
- id: rails
  topology: rail-only
  role: compute
  speed: 400 Gb/s
  switch: qm9700
  links:
    access: [dac-800g-osfp, mmf-800g-sr8]
"""


def _refused(spec_tree, text: str) -> list:
    with pytest.raises(SpecError) as err:
        run([spec_tree({"clusters/d.yaml": text})])
    return err.value.problems


def test_rail_only_refuses_spine_core_links(spec_tree) -> None:
    """A rail is one switch or a leaf-spine tree: `links.spine_core` was accepted (RailOnly shared the fat tree's
    `Links`) and read by nothing. It is refused at the key, saying why."""
    text = RAIL_ONLY + "    spine_core: [mmf-800g-sr8]\n"
    [problem] = _refused(spec_tree, text)
    assert problem.path == "fabrics.0.links.spine_core"
    assert "rail-only fabric has no core tier" in problem.message and problem.location.line == text.count("\n")  # the last line


@pytest.mark.parametrize(("tier", "key", "value"), [
    ("leaf", "up", "{ports: 33-64}"), ("leaf", "uplinks", "8"), ("leaf", "uplink_speed", "800 Gb/s"),
    ("leaf", "count", "4"), ("spine", "count", "2"), ("spine", "oversubscription", "'2:1'"),
    ("spine", "up", "{ports: 33-64}"),
])
def test_rail_only_refuses_tier_keys_its_sizing_does_not_read(spec_tree, tier, key, value) -> None:
    """The rail-only sizing reads a tier's switch, its `down` ports and the leaf's oversubscription; counts are
    derived and a rail's spines are its top tier. The other tier keys were accepted and ignored."""
    [problem] = _refused(spec_tree, RAIL_ONLY + f"  {tier}: {{{key}: {value}}}\n")
    assert problem.path == f"fabrics.0.{tier}.{key}"
    assert "a rail-only fabric does not read it" in problem.message


def test_rail_only_keys_it_reads_still_pass(spec_tree) -> None:
    """`leaf_spine` links, tier switches, `down` ports and the leaf oversubscription are read: accepted."""
    text = RAIL_ONLY + "    leaf_spine: [mmf-800g-sr8]\n  leaf: {oversubscription: '1:1', down: {ports: 1-64}}\n"
    result = run([spec_tree({"clusters/d.yaml": text})])
    assert result.metrics["cluster/d/fabric/rails"]["tiers"].m == 1


def test_b200_core_links_are_noted_for_growth_and_used_by_the_growth_series(shipped) -> None:
    """The B200 SuperPOD's compute fabric is `tiers: auto` with `spine_core` links: 2 tiers at its 4 SUs (32 leaves
    on 64-port spines), so nothing read them and nothing said so. NET025 (info) says so at the key, and the growth
    series builds the core, and uses the links, from the first size past 64 leaves (8 x: 256 leaves)."""
    [note] = [f for f in shipped.findings if f.id == "NET025"]
    assert note.severity == "info" and note.object == "cluster/dgx-b200-superpod/fabric/compute"
    assert note.location.file.endswith("dgx-b200-superpod.yaml") and "used from 65 leaves per plane" in note.message
    series = shipped.scaling["cluster/dgx-b200-superpod"]
    point = {p.factor: p for p in series.points}
    assert (point[1].tiers["compute"], point[8].tiers["compute"]) == (2, 3)
    assert "core" not in point[1].switches["compute"] and point[8].switches["compute"]["core"] > 0


#: 8 DGX H100 whose BMC ports (1 GbE) join one SN2201 out-of-band switch: 48 x 1GbE RJ45 and 4 x 100GbE QSFP28.
OOB = DRAGONFLY.split("fabrics:")[0].replace("count: 8}]", "count: 2}]") + """fabrics:
- id: oob
  topology: fat-tree
  role: management
  speed: 1 Gb/s
  switch: sn2201
  tiers: TIERS
  links:
    access: [cat6a-1g]
LINKS"""


@pytest.mark.parametrize(("tiers", "links", "expected"), [
    (1, "", {"leaf": (52, 44)}),                             # 8 BMC ports; before: radix 48, 40 free
    (2, "    leaf_spine: [cat6a-1g]\n",                       # RJ45 uplinks split 24:24 at 1:1 on one leaf
     {"leaf": (52, 20), "spine": (52, 28)}),                 # before: 48 and 16, 48 and 24
])
def test_every_port_group_of_the_switch_is_counted(spec_tree, tiers, links, expected) -> None:
    """An SN2201's four QSFP28 ports (netbox device-type library, PR 3560: swp49-52) were left out of the radix and
    the free ports wherever no `uplinks`/`up` took them: a tier counted only the groups its roles use. Every port
    of the switch is counted now, a group no role uses once per port at its native rate, and free."""
    text = OOB.replace("TIERS", str(tiers)).replace("LINKS", links)
    m = run([spec_tree({"clusters/d.yaml": text})]).metrics["cluster/d/fabric/oob"]
    for tier, (radix, free) in expected.items():
        assert (m[f"{tier}.switches"].m, m[f"{tier}.radix"].m, m[f"{tier}.ports_free"].m) == (1, radix, free), tier
        assert m[f"{tier}.ports_used"].m + m[f"{tier}.ports_free"].m == radix
