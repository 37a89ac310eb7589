"""A sweep's `leaf_oversubscription` axis: each level is the design rebuilt, sized, powered and checked (fabsweep38).

Before, a sweep had no fabric axis: an architect weighing a 2:1 scale-out fabric against 1:1 copied the cluster file
once per ratio (tests/test_sweep_failing_cluster.py still does, for another rule). Now each level runs the pipeline
with the compute fabric's `leaf.oversubscription` at it (`commands.sweep_fabric`).

The design: tests/data/clusters/small.py's 16 DGX H100 (8 x 400G compute ports each, 128 ports) on a rail-optimized
2-tier fabric of 64 x 400G QM9700, 2 rail groups (SUs) of 8 nodes, the switches placed in no rack (so their draw is
the IT load's, not a rack's as stated). Hand-derived, as `analyse.tiers.split` and the rail packing size it:

* 1:1: each leaf 32 down and 32 up; a leaf holds 32 / 8 = 4 rails of a group's 8 nodes, 2 leaves a group, 4 in all;
  4 x 32 = 128 uplinks on 64-port spines: 2 spines, 128 leaf-spine links; bisection 128 x 400G / 2 = 25.6 Tb/s.
* 2:1: up ports ⌊64 / 3⌋ = 21, down 43 (43:21 = 2.05 as built); a leaf holds ⌊43 / 8⌋ = 5 rails, still 2 leaves a
  group, 4 in all; 4 x 21 = 84 uplinks, which need 2 spines' ports at least and the spine count divides each leaf's
  21 uplinks (NET002): 3 spines of 28 links; 84 leaf-spine links; bisection 84 x 400G / 2 = 16.8 Tb/s. The fullest
  leaf uses 5 x 8 = 40 down ports over 21 up: 1.905 as used, the taper the collectives meet above a rail group's
  8 nodes x 8 GPUs = 64 accelerators.
* IT power: one more QM9700 (1,176 W, specs/catalog/switches/qm9700.yaml) and 44 fewer leaf-spine links at 17 W a
  link (both ends' optics: 4,352 W over the 1:1 design's 256 links), +428 W.
"""

from __future__ import annotations

import pytest

from archgen.commands import sweep as sw
from archgen.commands import sweep_fabric
from archgen.errors import ValidateError
from archgen.model import Switch
from archgen.pipeline import run
from archgen.render.point_table import level_text
from tests.data.clusters.small import files

WORKLOAD = """kind: Workload
id: w
model: llama3-70b
cluster: c
accelerators: 128
training: {seq_len: 8192, global_batch: 256, precision: bf16}
"""

SWEEP = """kind: Sweep
id: taper
workload: w
axes:
  leaf_oversubscription: ["1:1", "2:1"]
objectives:
  - {metric: tokens_per_second}
  - {metric: power}
"""


def _tree(spec_tree, tmp_path, fabric_keys: str = ""):
    """The small cluster with its switches placed in no rack, the workload, and the sweep (its path)."""
    tree = files()
    text = tree["clusters/c.yaml"].replace("  leaf: {rack: net}\n  spine: {rack: net}\n", fabric_keys)
    tree["clusters/c.yaml"] = text.replace("{rack: c4, count: 2}, {rack: net, count: 1}", "{rack: c4, count: 2}")
    tree["racks/r.yaml"] = tree["racks/r.yaml"].split("---\nkind: Rack\nid: net")[0]
    tree["workloads/w.yaml"] = WORKLOAD
    specs = spec_tree(tree)
    (tmp_path / "sweep.yaml").write_text(SWEEP, encoding="utf-8")
    return specs, tmp_path / "sweep.yaml"


def test_each_level_is_the_fabric_sized_again(spec_tree, tmp_path) -> None:
    specs, path = _tree(spec_tree, tmp_path)
    analysed, [sweep] = sw.analyse(path, [specs])
    levels = sweep_fabric.levels(analysed.specs, sweep, ["c"])
    assert list(levels) == ["c (leaf 1:1)", "c (leaf 2:1)"]
    shapes = []
    for level in levels.values():
        fa = level.clusters["cluster/c"].fabrics[0]
        shapes.append(((fa.tier("leaf").switches, fa.tier("leaf").down, fa.tier("leaf").up),
                       fa.tier("spine").switches, fa.links["leaf_spine"], fa.bisection.m_as("Tbit/s")))
        assert not level.failing
    assert shapes == [((4, 32, 32), 2, 128, pytest.approx(25.6)), ((4, 43, 21), 3, 84, pytest.approx(16.8))]
    flat, tapered = (lv.clusters["cluster/c"] for lv in levels.values())
    assert flat.metrics["optics_power"].m_as("W") == pytest.approx(17 * 256)
    spine = analysed.specs.get("qm9700")
    assert isinstance(spine, Switch) and spine.power.max.m_as("W") == 1176
    rise = (tapered.metrics["it_power"] - flat.metrics["it_power"]).m_as("W")
    assert rise == pytest.approx(1176 - 44 * 17)                      # +428 W
    # the specs as written are untouched: the cluster states 1:1 and is analysed so once
    assert analysed.clusters["cluster/c"].fabrics[0].tier("spine").switches == 2


def test_each_point_runs_on_its_level(spec_tree, tmp_path) -> None:
    """The points' power is their design's, and the 2:1 design's taper slows the data-parallel collectives that
    cross the rail groups (its scale-out path: 1.905 above 64 accelerators)."""
    specs, path = _tree(spec_tree, tmp_path)
    _, [result], errors = sw.evaluate_sweeps(path, [specs])
    assert not errors
    flat, tapered = result.rows
    assert (flat.cluster, tapered.cluster) == ("c (leaf 1:1)", "c (leaf 2:1)")
    assert flat.feasible and tapered.feasible
    assert tapered.metrics["power"] - flat.metrics["power"] == pytest.approx(428)
    assert tapered.metrics["tokens_per_second"] < flat.metrics["tokens_per_second"]
    assert [level_text(r.values["leaf_oversubscription"], "leaf_oversubscription") for r in result.rows] == [
        "1:1", "2:1"]                                                  # down:up as written, not a factor x2
    hw = {key: (b.hardware.oversubscription, b.hardware.pod) for (key, _), b in result.problem.bases.items()}
    assert hw == {"c (leaf 1:1)": (1.0, 0), "c (leaf 2:1)": (pytest.approx(40 / 21), 64)}


def test_a_level_the_checks_fail_is_not_feasible_with_why(spec_tree, tmp_path) -> None:
    """The cluster's own `max_oversubscription: "1:1"` holds at every level: the 2:1 design fails NET006, so its
    point is off the front with that reason, as a cluster `archgen check` fails (never silently dropped)."""
    specs, path = _tree(spec_tree, tmp_path, '  max_oversubscription: "1:1"\n')
    _, [result], _ = sw.evaluate_sweeps(path, [specs])
    flat, tapered = result.rows
    assert flat.feasible and not tapered.feasible and tapered.status == "ok"
    assert tapered.reason == "cluster 'c (leaf 2:1)' fails `archgen check`: NET006 on cluster/c/fabric/f"
    assert result.front == [0]


def test_a_fabric_whose_leaf_split_is_fixed_is_refused(spec_tree, tmp_path) -> None:
    """`leaf.up` fixes the split, which a ratio would not change: the axis is refused at its line by the sweep and
    by `archgen check` (SWP001), not swept as if it moved anything."""
    specs, path = _tree(spec_tree, tmp_path, "  leaf: {up: {ports: 33-64}}\n")
    with pytest.raises(ValidateError) as err:
        sw.evaluate_sweeps(path, [specs])
    [problem] = err.value.problems
    assert (problem.location.line, problem.location.column) == (5, 3)             # the axis's key
    assert ("axis 'leaf_oversubscription' changes the compute fabric, and cluster 'c' fabric 'f' fixes its leaf "
            "split by leaf.up") in problem.message
    checked = run([specs, path])
    assert [f.id for f in checked.findings if f.id == "SWP001"] == ["SWP001"]


def test_a_ratio_given_twice_is_refused(spec_tree, tmp_path) -> None:
    """'1:1' and 1 are the same ratio (`model.tiers.parse_ratio`)."""
    specs, path = _tree(spec_tree, tmp_path)
    path.write_text(SWEEP.replace('["1:1", "2:1"]', '["1:1", 1]'), encoding="utf-8")
    with pytest.raises(ValidateError, match="axis 'leaf_oversubscription' lists a value twice"):
        sw.analyse(path, [specs])


def test_a_spine_ratio_sizes_the_spines_uplinks_and_cores(spec_tree, tmp_path) -> None:
    """`spine_oversubscription` on the same 128 ports built as 3 tiers (tiers: 3): 4 leaves of 32 down / 32 up, and
    spines of 64 ports at 1:1 take 32 down / 32 up: 4 spines, 128 spine-core links on 2 cores of 64. At 2:1 a spine
    splits 43 down / ⌊64 / 3⌋ = 21 up: still 4 spines (the 128 leaf links fill 32 of their 43 down ports, 1.52 as
    used), 4 x 21 = 84 spine-core links, 2 cores; 44 fewer links at 17 W, -748 W. The leaves all sit in one pod,
    so the bisection (128 x 400G / 2 = 25.6 Tb/s) and the taper the collectives meet stay: no flow leaves the pod."""
    specs, path = _tree(spec_tree, tmp_path)
    text = (specs / "clusters" / "c.yaml").read_text(encoding="utf-8").replace("tiers: 2", "tiers: 3")
    (specs / "clusters" / "c.yaml").write_text(text + "    spine_core: [dac-800g-osfp, acc-800g-osfp, "
                                               "mmf-800g-sr8, smf-800g-dr8]\n", encoding="utf-8")
    path.write_text(SWEEP.replace("leaf_oversubscription", "spine_oversubscription"), encoding="utf-8")
    analysed, [sweep] = sw.analyse(path, [specs])
    levels = sweep_fabric.levels(analysed.specs, sweep, ["c"])
    assert list(levels) == ["c (spine 1:1)", "c (spine 2:1)"]
    shapes = [((fa := lv.clusters["cluster/c"].fabrics[0]).tier("spine").switches, fa.tier("spine").down,
               fa.tier("spine").up, fa.tier("core").switches, fa.links["spine_core"], fa.bisection.m_as("Tbit/s"),
               fa.oversubscription["spine"]) for lv in levels.values()]
    assert shapes == [(4, 32, 32, 2, 128, pytest.approx(25.6), 1.0),
                      (4, 43, 21, 2, 84, pytest.approx(25.6), pytest.approx(32 / 21))]
    flat, tapered = (lv.clusters["cluster/c"].metrics["it_power"] for lv in levels.values())
    assert (tapered - flat).m_as("W") == pytest.approx(-44 * 17)
    assert not any(lv.failing for lv in levels.values())


def test_a_spine_ratio_on_two_tiers_is_refused(spec_tree, tmp_path) -> None:
    """On the 2-tier fabric the spines are the top tier: a spine ratio would be read by nothing (SWP001)."""
    specs, path = _tree(spec_tree, tmp_path)
    path.write_text(SWEEP.replace("leaf_oversubscription", "spine_oversubscription"), encoding="utf-8")
    with pytest.raises(ValidateError) as err:
        sw.evaluate_sweeps(path, [specs])
    [problem] = err.value.problems
    assert ("cluster 'c' fabric 'f' has 2 tier(s), so its spines are its top tier, with no uplinks to split their "
            "ports with (set tiers: 3 to build a tier above them)") in problem.message
