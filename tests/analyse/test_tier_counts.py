"""Fixed switch counts (`leaf.count`, `spine.count`, `core.count`): honoured, or rejected where they are given.

The cluster is tests/data/clusters/small.py: units of two racks of four DGX H100 (8 x 400G CX-7 ports each, so
64 node ports per unit) and one network rack, on 64-port QM9700s at 400 Gb/s, 1:1 (32 down, 32 up per leaf).
"""

from __future__ import annotations

import pytest

from archgen.errors import SpecError
from archgen.pipeline import run
from tests.data.clusters.small import files


def _tree(replace: dict[str, str], **kw) -> dict[str, str]:
    """The small cluster's files with the tier lines in `replace` rewritten (each must occur)."""
    tree = files(**kw)
    text = tree["clusters/c.yaml"]
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new)
    tree["clusters/c.yaml"] = text
    return tree


@pytest.mark.parametrize(("tiers", "line", "field", "message"), [
    (1, "leaf: {rack: net, count: 2}", "leaf.count", "2 leaves given, but a 1-tier fabric is one switch per plane"),
    (1, "spine: {count: 2}", "spine.count", "2 spines given, but a 1-tier fabric has no spine tier"),
    (2, "core: {count: 4}", "core.count", "4 cores given, but a 2-tier fabric has no core tier"),
    (2, "core: {rack: net, count: 4}", "core.count", "core.count, core.rack given, but a 2-tier fabric has no core "
     "tier: leave them out"),
])
def test_count_on_a_tier_the_fabric_does_not_build_is_rejected(spec_tree, tiers, line, field, message) -> None:
    """A count the fixed `tiers` would never use is a validation error located at the count's value (with the
    tier's other keys, read by nothing either, named in the same message)."""
    tier = line.split(":")[0]
    tree = _tree({"  leaf: {rack: net}\n": f"  {line}\n"} if tier == "leaf" else
                 {"  links:\n": f"  {line}\n  links:\n"}, tiers=tiers)
    with pytest.raises(SpecError) as err:
        run([spec_tree(tree)])
    [problem] = err.value.problems
    text = f"  {line}"                                    # the line as it stands in c.yaml, under `fabrics: - `
    where = (tree["clusters/c.yaml"].splitlines().index(text) + 1, text.rindex(" ") + 2)
    assert (problem.path, (problem.location.line, problem.location.column)) == (f"fabrics.0.{field}", where)
    assert problem.message.startswith(message)


def test_count_above_the_typo_guard_is_rejected(spec_tree) -> None:
    """100,000 switches per tier and plane is the most a count may say."""
    with pytest.raises(SpecError) as err:
        run([spec_tree(_tree({"leaf: {rack: net}": "leaf: {rack: net, count: 100001}"}))])
    [problem] = err.value.problems
    assert (problem.path, problem.value, problem.expected) == ("fabrics.0.leaf.count", 100001,
                                                                "a number of at most 100000")


def _fabric(result):
    return result.clusters["cluster/c"].fabrics[0]


def _findings(result, check: str) -> list:
    return [f for f in result.findings if f.id == check]


def test_leaf_count_above_the_derived_adds_spare_leaves(spec_tree) -> None:
    """Rail-optimized: 2 SUs of 8 DGX (8 rails), 32 down ports: ⌊32/8⌋ = 4 rails per leaf, 2 leaves per SU, 4 derived.

    leaf.count 6 places 2 spares with their uplinks cabled: 6 x 32 = 192 leaf-spine links, so ⌈192/64⌉ = 3 spines,
    rounded up to 4 (the smallest divisor of 32). Switches 6 + 4 = 10 at 1,176 W (QM9700) = 11.76 kW before optics.
    The spares carry no traffic: leaf oversubscription 128 / (4 x 32) = 1, one leaf is 1/4 of the bandwidth, the
    busiest leaf uses 32 + 32 = 64 ports.
    """
    derived = _fabric(run([spec_tree(files())]))
    result = run([spec_tree(_tree({"leaf: {rack: net}": "leaf: {rack: net, count: 6}"}))])
    fa, m = _fabric(result), _fabric(result).metrics
    assert (derived.tier("leaf").switches, derived.tier("spine").switches) == (4, 2)
    assert (m["leaf.switches"].m, m["leaf.spare_switches"].m, m["spine.switches"].m) == (6, 2, 4)
    assert (m["links.access"].m, m["links.leaf_spine"].m) == (128, 192)
    assert (m["network_power"] - m["optics_power"]).m_as("kW") == pytest.approx(10 * 1.176)
    assert m["leaf.oversubscription"].m == 1.0 and m["failure.leaf.bandwidth_lost"].m == 0.25
    assert m["leaf.max_ports_used_per_switch"].m == 64 and m["leaf.ports_used"].m == 128 + 192
    assert fa.bisection == derived.bisection
    assert not [f for f in result.errors if f.id.startswith(("NET", "CAB"))]


def test_spare_leaves_do_not_dilute_the_taper_the_performance_model_gets(spec_tree) -> None:
    """Plain 3:1 leaves (48 down, 16 up): 128 ports need ⌈128/48⌉ = 3 leaves, filled 48 + 48 + 32: taper 48/16.

    With leaf.count 5 the two spares add 32 uplinks that carry nothing; the taper stays the fullest leaf's 48/16,
    not 128/80 (nor 128/48 over the used leaves' uplinks, no leaf's ratio: review47).
    """
    result = run([spec_tree(_tree({"leaf: {rack: net}": "leaf: {rack: net, count: 5}"}, over="3:1", rail=False))])
    fa = _fabric(result)
    assert (fa.tier("leaf").switches, fa.tier("leaf").spare, fa.links["leaf_spine"]) == (5, 2, 80)
    assert fa.oversubscription["leaf"] == pytest.approx(48 / 16)
    assert result.clusters["cluster/c"].scale_out.oversubscription == pytest.approx(48 / 16)


def test_leaf_count_below_the_derived_is_an_error_at_the_count(spec_tree) -> None:
    """Plain leaves: 128 DGX ports on 32 down ports need ⌈128/32⌉ = 4 leaves; leaf.count 3 is NET018 at line 20.

    It is the only finding about the leaves' room: the 32 ports that do not fit are not also NET009 (reserved).
    """
    tree = _tree({"leaf: {rack: net}": "leaf: {rack: net, count: 3}"}, rail=False)
    result = run([spec_tree(tree)])
    [f] = _findings(result, "NET018")
    assert (f.location.line, f.location.column) == (20, 28) and f.severity == "error"
    assert (f.value.m, f.limit.m) == (3, 4)
    assert f.message == "3 leaves per plane are fewer than the 4 the endpoints need: 128 endpoint ports / 32 down " \
                        "ports, rounded up"
    assert not _findings(result, "NET009")
    assert _fabric(result).tier("leaf").switches == 3          # the figures are those of the design as written


def test_rail_leaf_count_below_the_derived_names_the_groups(spec_tree) -> None:
    """Rail-optimized, 2 SUs x 2 rail leaves = 4; leaf.count 3 says how the 4 come about."""
    result = run([spec_tree(_tree({"leaf: {rack: net}": "leaf: {rack: net, count: 3}"}))])
    [f] = _findings(result, "NET018")
    assert f.message.endswith("the 4 the endpoints need: 2 group(s) of 8 scale-up domains x 2 rail leaves for 8 rails")


def test_leaf_count_makes_tiers_auto_build_the_leaves_it_names(spec_tree) -> None:
    """One SU of one rack: 32 DGX ports fit one 64-port switch, so auto picks 1 tier; leaf.count 2 needs 2 tiers.

    At 2 tiers a leaf has 32 down ports: 1 leaf holds the 4 domains' 8 rails, the other is spare; its 2 x 32 = 64
    uplinks take ⌈64/64⌉ = 1 spine, raised to 2 (no single spine).
    """
    auto = _fabric(run([spec_tree(files(sus=1, racks=1, tiers='"auto"'))]))
    fixed = _fabric(run([spec_tree(_tree({"leaf: {rack: net}": "leaf: {rack: net, count: 2}"}, sus=1, racks=1,
                                         tiers='"auto"'))]))
    assert (auto.tiers_used, auto.tier("leaf").switches) == (1, 1)
    assert (fixed.tiers_used, fixed.tier("leaf").switches, fixed.tier("leaf").spare) == (2, 2, 1)
    assert fixed.tier("spine").switches == 2


def test_count_on_a_tier_auto_does_not_build_is_an_error_at_the_count(spec_tree) -> None:
    """tiers: auto sizes 128 ports on 2 tiers; a core.count would be ignored, so it is NET018 at line 22."""
    result = run([spec_tree(_tree({"core: {rack: net}": "core: {rack: net, count: 4}"}, tiers='"auto"'))])
    [f] = _findings(result, "NET018")
    assert f.location.line == 22 and _fabric(result).tiers_used == 2
    assert f.message.startswith("4 cores given, but tiers: auto builds this fabric with 2 tier(s), without a core tier")


def test_spare_leaves_beyond_the_spine_radix_are_unbuildable_not_placed(spec_tree) -> None:
    """The two network racks hold 2 x 36 QM9700: 4 rail leaves in their SUs' racks leave 68 slots for 96 spares.

    100 leaves on 64-port spines need 3 tiers (NET003), so the fabric is counted but not wired (issue 23 item 4):
    where its spare leaves would stand (NET012's placement warning) is moot and not reported on top.
    """
    result = run([spec_tree(_tree({"leaf: {rack: net}": "leaf: {rack: net, count: 100}"}))])
    [f] = _findings(result, "NET003")
    assert "100 leaves, 96 of them spare, > 64 spine ports" in f.message
    assert not [f for f in _findings(result, "NET012") if "need a slot" in f.message]


def test_spine_count_below_the_derived_is_an_error_at_the_count(spec_tree) -> None:
    """8 SUs x 2 rail leaves = 16 leaves of 32 uplinks: 512 uplinks need ⌈512/64⌉ = 8 spines (8 divides 32).

    spine.count 4 takes 4 x 64 = 256 of them: NET018 at spine.count (line 21), not NET003's "use 3 tiers" (2 tiers
    reach 64 x 32 = 2,048 ports, 512 are needed) nor NET001 for the same shortfall.
    """
    result = run([spec_tree(_tree({"spine: {rack: net}": "spine: {rack: net, count: 4}"}, sus=8))])
    [f] = _findings(result, "NET018")
    assert (f.location.line, f.value.m, f.limit.m) == (21, 4, 8)
    assert f.message == "4 spine(s) x 64 ports take 256 of the 512 leaf uplinks; at least 8 are needed"
    assert not _findings(result, "NET003") and not _findings(result, "NET001")


def test_a_fixed_fifth_leaf_makes_room_for_reserved_ports(spec_tree) -> None:
    """128 DGX ports fill the 4 derived leaves (4 x 32); 4 UFM ports more are NET009. leaf.count 5 holds all 132:
    no NET009, the fifth leaf takes reserved ports so it is in use, not spare (its 4 ports do not lower the leaf
    oversubscription: the four full leaves run at 32:32 = 1, not 132 / (5 x 32) = 0.825; review47), and no leaf
    needs more than its 64 ports."""
    ufm = {"  links:\n": "  reserved: [{name: UFM, ports: 4}]\n  links:\n"}
    derived = run([spec_tree(_tree(ufm))])
    assert [f.message for f in _findings(derived, "NET009")] == [
        "132 access ports per plane (128 endpoints + 4 reserved) exceed the 128 leaf down ports"]
    result = run([spec_tree(_tree({**ufm, "leaf: {rack: net}": "leaf: {rack: net, count: 5}"}))])
    m = _fabric(result).metrics
    assert not [f for f in result.errors if f.id.startswith("NET")]
    assert (m["leaf.switches"].m, m["links.access"].m, "leaf.spare_switches" in m) == (5, 132, False)
    assert m["leaf.oversubscription"].m == pytest.approx(32 / 32)
    assert m["leaf.max_ports_used_per_switch"].m <= 64
