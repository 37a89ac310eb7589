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
    notes = {f.message.split(" ")[0]: f for f in shipped.findings if f.id == "NET025"}
    assert set(notes) == {"links.spine_core", "core.rack"}   # the core's rack too (leftovers2 item 1)
    for note in notes.values():
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


# leftovers2: the keys of a tier a fabric does not build, beside its links (items 1 and 2).

from tests.data.clusters.small import files  # noqa: E402 (the small fat tree of tests/analyse/test_tier_counts.py)


def _small(spec_tree, tiers: object, lines: str):
    """The small cluster (4 leaves of QM9700 at 1:1) with `lines` added to its fabric, and its run."""
    tree = files(tiers=tiers)
    text = tree["clusters/c.yaml"]
    own = f"  {lines.split(':')[0].strip()}: {{rack: net}}\n"   # the fixture's line of that tier, where it has one
    tree["clusters/c.yaml"] = text.replace(own, lines) if own in text else text.replace("  links:\n",
                                                                                      lines + "  links:\n")
    return run([spec_tree(tree)])


@pytest.mark.parametrize(("tiers", "lines", "path", "message"), [
    (2, "  core: {switch: qm9700, down: {ports: 1-64}, rack: net}\n", "core.switch",
     "core.switch, core.rack, core.down given, but a 2-tier fabric has no core tier: leave them out, or set tiers: 3"),
    (1, "  spine: {rack: net}\n", "spine.rack",
     "spine.rack given, but a 1-tier fabric has no spine tier: leave spine.rack out, or set tiers: 2 (or auto)"),
    ("auto", "  core: {up: {ports: 33-64}}\n", "core.up",
     "core.up given, but the cores are the top tier at every size and have no uplinks: leave core.up out"),
])
def test_keys_of_a_tier_no_size_builds_are_refused_at_the_key(spec_tree, tiers, lines, path, message) -> None:
    """`core.switch`, `core.down` and `core.rack` on a 2-tier fabric (and `spine.rack` on a 1-tier one) were
    accepted and read by nothing: only a count and links were refused. A core's uplinks are read at no size."""
    with pytest.raises(SpecError) as err:
        _small(spec_tree, tiers, lines)
    [problem] = err.value.problems
    assert problem.path == f"fabrics.0.{path}" and problem.message.startswith(message)


def test_an_auto_fabric_notes_each_key_of_a_tier_it_builds_at_a_larger_size(spec_tree) -> None:
    """With `tiers: auto` the small fabric is 2 tiers (4 leaves per plane): the core's switch, ports and rack were
    silently unused; NET025 notes each at its key with the size that uses it, as it does the core links."""
    result = _small(spec_tree, "auto", "  core: {switch: qm9700, down: {ports: 1-64}, rack: net}\n")
    notes = {f.message.split(" ")[0]: f for f in result.findings if f.id == "NET025"}
    assert set(notes) == {"links.spine_core", "core.switch", "core.down", "core.rack"}
    assert all(n.severity == "info" and "4 leaves per plane" in n.message and "used from 65 leaves per plane"
               in n.message for n in notes.values())
    assert notes["core.down"].location.line == notes["core.switch"].location.line   # at the key, on its line
    assert not [f for f in result.errors if f.id.startswith("NET")]   # noted, not refused (the rack's PWR002 is
                                                                        # the fixture's 36 switches)


def test_one_switch_rails_note_the_spine_keys_they_use_when_wider(spec_tree) -> None:
    """Each rail of RAIL_ONLY is one QM9700 (32 domains per rail): the rails' spine switch, ports and rack, and the
    leaves' oversubscription, are read only once a rail needs two tiers; they were silently unused."""
    text = RAIL_ONLY + "  leaf: {oversubscription: '1:1'}\n  spine: {switch: qm9700, down: {ports: 1-64}, rack: net}\n"
    result = run([spec_tree({"clusters/d.yaml": text})])
    notes = {f.message.split(" ")[0]: f.message for f in result.findings if f.id == "NET025"}
    assert set(notes) == {"spine.switch", "spine.down", "spine.rack", "leaf.oversubscription"}
    assert all("each rail of this rail-only fabric is one switch at its size" in m and
               "it is used from 65 domains per rail" in m for m in notes.values())


def test_a_rail_only_fabric_reports_every_key_error_in_one_run(spec_tree) -> None:
    """`links.spine_core` (refused in `links`) stopped the fabric before its tier keys were looked at, so
    `leaf.up` and `spine.count` showed only on the next run. They are field errors now, reported together."""
    text = RAIL_ONLY + "    spine_core: [mmf-800g-sr8]\n  leaf: {up: {ports: 33-64}, count: 4}\n  spine: {count: 2}\n"
    problems = _refused(spec_tree, text)
    assert sorted(p.path for p in problems) == ["fabrics.0.leaf.up", "fabrics.0.links.spine_core",
                                                "fabrics.0.spine.count"]
    [leaf] = [p for p in problems if p.path.endswith("leaf.up")]
    assert leaf.message.startswith("leaf.up, leaf.count given, but a rail-only fabric does not read them")


def test_a_fat_tree_reports_its_tier_and_link_errors_in_one_run(spec_tree) -> None:
    """The same for a fixed `tiers`: links to, and keys of, tiers it does not build come in one run."""
    tree = files(tiers=1)
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace(
        "  links:\n", "  spine: {count: 2}\n  core: {rack: net}\n  links:\n    spine_core: [mmf-800g-sr8]\n").replace(
        "  rail_optimized: true\n", "  rail_optimized: false\n  rails: 4\n")
    with pytest.raises(SpecError) as err:
        run([spec_tree(tree)])
    assert sorted(p.path for p in err.value.problems) == ["fabrics.0.core.rack", "fabrics.0.links.spine_core",
                                                          "fabrics.0.rails", "fabrics.0.spine.count"]
