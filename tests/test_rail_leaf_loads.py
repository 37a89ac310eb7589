"""A rail-optimized plane's bisection is cut over its leaves as the cabling wires them (newuser91).

Every unit instance holding nodes gets a full group's rail leaves, so a short last group's leaves hold fewer ports
than the full groups' (`analyse.leaf_loads`). The bisection shared all the ports evenly over the used leaves, which
moved endpoints onto the short group's leaves and overstated the least cut wherever pods then looked fuller than
wired: 16,128 GPUs on Tomahawk 5 (31 SUs of 64 nodes and one of 32) read 1,625.6 Tb/s, where the wired leaves, 248 of
64 and 8 of 32, cut at 1,587.2; a small plane read 6,400 Gb/s where it carries 3,200.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from archgen.analyse.leaf_loads import SEARCH_LIMIT, _steps, filled, searched
from archgen.analyse.placement import access_ports
from archgen.pipeline import run
from tests.data.clusters.small import files
from tests.test_unequal_pods import _balanced_least

TH5 = Path(__file__).parent / "data" / "fabrics" / "th5-16k-rail.yaml"


def _with_half_su(sus: int, racks: int, switch: str, over: str) -> dict[str, str]:
    """The small cluster (`sus` units of `racks` four-DGX racks) and a last unit of one rack, its own rail group."""
    tree = files(sus=sus, racks=racks, switch=switch, tiers=3, rail=True, over=over)
    text = tree["clusters/c.yaml"].replace(
        "layout:\n", "- id: half\n  racks: [{rack: c4, count: 1}, {rack: net, count: 1}]\nlayout:\n").replace(
        f"- {{unit: su, count: {sus}}}\n", f"- {{unit: su, count: {sus}}}\n- {{unit: half, count: 1}}\n").replace(
        "  rail_optimized: true\n", "  rail_optimized: true\n  group: su\n")
    return {**tree, "clusters/c.yaml": text}


def _wired(cluster, fa) -> list[int]:
    """Node ports on each leaf of plane 0 as the cabling places them (`analyse.placement.access_ports`)."""
    _, _, plane, leaf = access_ports(cluster.cluster, fa)
    counts = Counter(leaf[plane == 0].tolist())
    return [counts.get(i, 0) for i in range(fa.tier_at("leaf").switches)]


@pytest.mark.parametrize(("sus", "racks", "switch", "over"), [
    (1, 2, "sw8", "3:1"),      # 8 domains over leaves of 6 down ports: each rail on two leaves, 6 and 2
    (2, 2, "sw8", "3:1"),
    (2, 1, "qm9700", "1:1"),   # a group's domains within a leaf: rails r and r + L share one
])
def test_leaf_loads_are_the_cabling_s(spec_tree, sus, racks, switch, over) -> None:
    result = run([spec_tree(_with_half_su(sus, racks, switch, over))])
    c = result.clusters["cluster/c"]
    fa = c.fabrics[0]
    assert fa.leaf_endpoints() == _wired(c, fa)
    assert sum(fa.leaf_endpoints()) == fa.links["access"]


def test_a_short_last_group_by_hand(spec_tree) -> None:
    """One SU of 8 DGX and a half SU of 4 on 8-port switches at 3:1 (6 down, 2 up): a rail's 8 domains take two leaves,
    6 and 2 ports, the half SU's 4 and 0; pods of 6 leaves hold 24, 24, 20, 12, 12 and 8 GPUs. Two full pods apart from
    the cores split the 96 GPUs 48:48 and cut their 2 spines x 2 core links x 400G each: 3,200 Gb/s. Shared evenly (3 a
    leaf, pods of 18) no pods hold 48, and 12 GPUs more cross on 4 leaves' 2 uplinks: 6,400, twice the wired figure."""
    fa = run([spec_tree(_with_half_su(1, 2, "sw8", "3:1"))]).clusters["cluster/c"].fabrics[0]
    leaf = fa.tier_at("leaf")
    assert (fa.pods, leaf.down, leaf.up, fa.spines_per_pod) == (6, 6, 2, 2)
    assert fa.leaf_endpoints() == [6, 2] * 8 + [4, 0] * 8
    assert fa.bisection.m_as("Gbit/s") == pytest.approx(2 * 2 * 2 * 400) == _balanced_least(fa.shape,
                                                                                             fa.leaf_endpoints())
    even = list(filled(fa.links["access"], leaf.switches, leaf.down, leaf.used_switches))
    assert _balanced_least(fa.shape, even) == pytest.approx(6400)


def test_th5_16k_with_a_half_su_by_hand() -> None:
    """newuser91: 31 SUs of 512 GPUs and one of 256, rail leaves of 64 x 400G down and 32 x 800G up, spines of 48 down
    and 16 up (3:1): pods of 48 leaves (3,072 GPUs), the sixth of 16 leaves (768). Each pod's spines carry 32 x 16 x
    800G = 409.6 Tb/s to the cores; a full leaf moves 64 GPUs across for 25.6 Tb/s, 0.4 a GPU either way. Of 16,128
    GPUs, 8,064 a side: two full pods (6,144) apart from the cores, 819.2 Tb/s, and 1,920 GPUs on 30 full leaves,
    768 Tb/s: 1,587.2 Tb/s, 98.4 Gb/s a GPU. Shared evenly, 63 a leaf, the same cut moved 2,016 GPUs on 32 leaves for
    25.2 each: 1,625.6."""
    fa = run([TH5]).clusters["cluster/th5-16k"].fabrics[0]
    assert Counter(fa.leaf_endpoints()) == {64: 248, 32: 8}
    assert (fa.pods, fa.tier_at("spine").switches, fa.tier_at("core").switches) == (6, 192, 64)
    assert fa.bisection.m_as("Tbit/s") == pytest.approx(2 * 409.6 + 30 * 25.6) == pytest.approx(1587.2)
    assert fa.metrics["bisection_per_accelerator"].m_as("Gbit/s") == pytest.approx(1587.2e3 / 16128)


def test_a_rack_in_no_unit_before_the_units_does_not_shift_the_rail_groups(spec_tree) -> None:
    """newuser91: a compute rack placed before the SUs took group ordinal 0 in the cabling, so SU g's rails went to
    leaves (g + 1)·L + r: two SUs of 8 DGX on 2 leaves each and 4 loose DGX left leaves 0-1 empty, put 64 ports on leaf
    4 and cabled 32 to a leaf 5 the plane does not have. The groups take leaves 0-3, the loose rack leaf 4, as the
    leaves are placed (`placement._group_keys`) and counted."""
    tree = files(sus=2, racks=2, switch="qm9700", tiers=2, rail=True, over="1:1")
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("layout:\n", "layout:\n- {rack: c4, count: 1}\n")
    result = run([spec_tree(tree)])
    c = result.clusters["cluster/c"]
    fa = c.fabrics[0]
    assert (fa.tier_at("leaf").switches, fa.leaves_per_group, fa.groups) == (5, 2, 2)
    assert _wired(c, fa) == fa.leaf_endpoints() == [32] * 5
    _, _, _, leaf = access_ports(c.cluster, fa)
    assert leaf.max() == 4


def test_units_of_many_sizes_are_cut_as_wired(spec_tree) -> None:
    """Seven short units of 1-7 racks beside a full SU give leaves of 8 sizes, 8 of each, in one 2-tier pod. newuser91
    kept the even share here (18 a leaf: 32 leaves cut, 204.8 Tb/s), as the search then tried 9^8 choices; counted by
    (endpoints, leaves) on A (review53) the wired leaves are cut exactly: 576 of the 1,152 GPUs on 20 whole leaves (8 of
    32, 8 of 28, 4 of 24), 20 x 16 x 400G = 128 Tb/s, which the even share overstated by 60 %."""
    tree = files(sus=1, racks=8, switch="qm9700", tiers=2, rail=True, over="3:1")
    units = "".join(f"- id: u{k}\n  racks: [{{rack: c4, count: {k}}}, {{rack: net, count: 1}}]\n" for k in range(1, 8))
    layout = "".join(f"- {{unit: u{k}, count: 1}}\n" for k in range(1, 8))
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("layout:\n", units + "layout:\n").replace(
        "- {unit: su, count: 1}\n", "- {unit: su, count: 1}\n" + layout).replace(
        "  rail_optimized: true\n", "  rail_optimized: true\n  group: su\n")
    c = run([spec_tree(tree)]).clusters["cluster/c"]
    fa = c.fabrics[0]
    leaf = fa.tier_at("leaf")
    assert len(set(_wired(c, fa))) == 8 and fa.leaf_endpoints() == _wired(c, fa)
    assert (leaf.up, fa.bisection.m_as("Gbit/s")) == (16, pytest.approx(20 * 16 * 400))
    even = list(filled(fa.links["access"], leaf.switches, leaf.down, leaf.used_switches))
    assert _balanced_least(fa.shape, even) == pytest.approx(32 * 16 * 400)


def test_many_alike_pods_of_several_sizes_keep_the_even_share() -> None:
    """The search adds alike pods with leaves of several sizes one by one: 300 pods of 32 leaves of 64 and 16 of 32
    beside 40 full pods took 15 CPU-s (review53), over `SEARCH_LIMIT`, so such a plane keeps the even share; the 40
    full pods alone, or 8 such pods beside them, are under it."""
    full, mixed = [64] * 48, [64] * 32 + [32] * 16
    assert _steps(full * 40 + mixed * 300, 48) > SEARCH_LIMIT > _steps(full * 40 + mixed * 8, 48)
    assert _steps(full * 40, 48) < SEARCH_LIMIT
    wired = tuple(full * 40 + mixed * 300)
    even = filled(sum(wired), len(wired), 64, len(wired))
    loads, why = searched(wired, even, 48)
    assert loads == even != wired and "past its limit" in why     # the even share, saying why (NET034)
    assert searched(wired[:48 * 48], even[:48 * 48], 48) == (wired[:48 * 48], "")
    assert searched(even, even, 48) == (even, "")


def test_the_even_share_past_the_limit_says_so(spec_tree, monkeypatch) -> None:
    """The half-SU plane cut over the even share (as past `SEARCH_LIMIT`): 6,400 Gb/s, twice the wired least cut, so
    NET034 names the fabric and why, and a minimum of 50 Gb/s per accelerator met at 66.67 (3,200 Gb/s as wired
    is 33.33 over its 96 GPUs) is not proven; as wired, no NET034."""
    tree = _with_half_su(1, 2, "sw8", "3:1")
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace(
        "  group: su\n", "  group: su\n  min_bisection_per_accelerator: 50 Gbit/s\n")
    tree["requirements/bisection.yaml"] = (
        "kind: Requirements\nid: bisection\nname: Bisection\nrequirements:\n"
        "  - {id: REQ-BIS-1, statement: Bisection, subject: 'cluster/*/fabric/*', metric: bisection_per_accelerator,"
        " target: '>= 20 Gb/s'}\n")
    wired = run([spec_tree(tree)])
    assert wired.clusters["cluster/c"].fabrics[0].even_share == ""
    assert not [f for f in wired.findings if f.id in ("NET034", "REQ004")]
    assert [f.id for f in wired.findings if f.requirement == "REQ-BIS-1"] in ([], ["REQ001"])
    monkeypatch.setattr("archgen.analyse.leaf_loads.SEARCH_LIMIT", 0)
    result = run([spec_tree(tree)])
    fa = result.clusters["cluster/c"].fabrics[0]
    assert fa.bisection.m_as("Gbit/s") == pytest.approx(6400)
    [finding] = [f for f in result.findings if f.id == "NET034"]
    assert finding.severity == "info" and finding.object == fa.fabric.path
    assert "past its limit" in finding.message and "bisection 6.4 Tbit/s is cut" in finding.message
    assert "min_bisection_per_accelerator 50 Gb/s, met at 66.67 Gb/s per accelerator, is not proven" in finding.message
    assert not [f for f in result.findings if f.id == "NET006"]
    [risk] = [f for f in result.findings if f.requirement == "REQ-BIS-1"]   # met at 66.67, but at risk
    assert risk.id == "REQ004" and "shared evenly" in risk.message and "past its limit" in risk.message


def test_gap_reads_the_even_share_at_risk(spec_tree, monkeypatch, tmp_path) -> None:
    """`archgen gap` judges a bisection requirement as `check` does: met on the even share, at risk (REQ004)."""
    from archgen.commands.gap import gap
    monkeypatch.setattr("archgen.analyse.leaf_loads.SEARCH_LIMIT", 0)
    (tmp_path / "req").mkdir()
    (tmp_path / "req" / "buyer.yaml").write_text(
        "kind: Requirements\nid: buyer\nrequirements:\n  - {id: REQ-BIS-1, statement: Bisection, subject: "
        "'cluster/*/fabric/*', metric: bisection_per_accelerator, target: '>= 20 Gb/s'}\n", encoding="utf-8")
    row, = gap([spec_tree(_with_half_su(1, 2, "sw8", "3:1"))], [tmp_path / "req"]).rows
    assert row.status == "at risk" and "shared evenly" in row.note


@pytest.mark.parametrize("loose", ["", "- {rack: c4, count: 1}\n"])
def test_counts_only_is_cut_as_wired(spec_tree, monkeypatch, loose) -> None:
    """A cluster analysed from counts only (NET015) is wired as its layout places its units' racks (topo36): the
    half-SU plane's leaves as the expanded cluster's, so its least cut, 3,200 Gb/s, not the even share's 6,400 that
    NET034 flagged; with a rack of four DGX in no unit before the units too (its 32 ports on the free ports left)."""
    tree = _with_half_su(1, 2, "sw8", "3:1")
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("layout:\n", "layout:\n" + loose)
    expanded = run([spec_tree(tree)]).clusters["cluster/c"].fabrics[0]
    monkeypatch.setattr("archgen.build.clusters.MAX_RACKS", 1)
    result = run([spec_tree(tree)])
    c = result.clusters["cluster/c"]
    fa = c.fabrics[0]
    assert c.cluster.too_large and not c.cluster.instances
    assert fa.leaf_endpoints() == expanded.leaf_endpoints() and fa.even_share == ""
    assert fa.bisection == expanded.bisection
    assert fa.failure == expanded.failure
    assert fa.leaf_endpoints() == ([6] * 16 if loose else [6, 2] * 8) + [4, 0] * 8   # loose: on the SU's free ports
    assert fa.bisection.m_as("Gbit/s") == pytest.approx(3200)
    assert not [f for f in result.findings if f.id == "NET034"]


@pytest.mark.parametrize(("planes", "domain", "over"), [
    (1, "node", "3:1"),   # 4 leaves of 48 down, the groups' 32 each: the loose rack's 32 on their free ports
    (2, "node", "3:1"),
    (2, "rack", "1:1"),   # a rack domain of 4 DGX on 2 planes: a loose rack's trays 2-3 are on plane B
    (2, "rack", "3:1"),
])
def test_a_rack_in_no_unit_is_cabled_within_the_planes_leaves(spec_tree, planes, domain, over) -> None:
    """review54: a compute rack in no unit beside two SUs on a rail fabric at 3:1, whose leaves are sized by the ports
    (4 of 48 down for 160), not a leaf for it after the groups' (2 x 2). The cabling put its 32 ports on leaf 4, which
    the plane does not have: the portmap cabled 16 of them to f-leaf-04's ports 25-32, 'past the down ports', where
    its uplinks are, and no check said so. Its ports take the free ports of the groups' leaves, in order, as the
    bisection counts them (`leaf_loads`), which also counted a loose rack's ports on plane A as if every node of a
    rack domain were its first (96 endpoints on a plane of 80)."""
    tree = files(sus=2, racks=2, switch="qm9700", tiers=2, planes=planes, rail=True, over=over)
    text = tree["clusters/c.yaml"].replace("layout:\n", "layout:\n- {rack: c4, count: 1}\n")
    if domain == "rack":
        text = text.replace("scale_up: {domain: node, size: 8,", "scale_up: {domain: rack, size: 32,")
    tree["clusters/c.yaml"] = text
    c = run([spec_tree(tree)]).clusters["cluster/c"]
    fa = c.fabrics[0]
    leaf = fa.tier_at("leaf")
    _, _, plane, leaves = access_ports(c.cluster, fa)
    assert leaves.max() < leaf.switches
    per_leaf = Counter(zip(plane.tolist(), leaves.tolist(), strict=True))
    assert max(per_leaf.values()) <= leaf.down
    assert fa.leaf_endpoints() == _wired(c, fa)
    assert sum(fa.leaf_endpoints()) == fa.links["access"]
