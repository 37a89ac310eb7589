"""A sweep point on a cluster that `archgen check` fails is not feasible, and off the front (newuser34).

Before: a POC planner swept the DGX B200 SuperPOD against a copy of it with a 2:1 compute fabric, whose own
requirement REQ-NET-001 (leaf.oversubscription <= 1, specs/clusters/dgx-b200-superpod.yaml) and the hall's
REQ-HALL-NET-001 (the same target, specs/requirements/ai-hall.yaml) `archgen check` reports as errors (REQ001).
Every point of the 2:1 copy was "feasible", and one stood on the Pareto front (lower power): a design the checks
reject, ranked as an option.
The document said only that the specs have failing checks. Now such a point is not feasible, its reason names the
cluster's error findings, and the front and best points leave it out, as a point missing a SHALL requirement.
"""

from __future__ import annotations

from tests.conftest import SPECS

SWEEP = """\
kind: Sweep
id: failing-cluster
workload: llama3-70b-pretrain-b200
axes:
  cluster: [dgx-b200-superpod, b200-2to1]
  accelerators: [256]
objectives:
  - {metric: tokens_per_second}
  - {metric: power}
"""


def _oversubscribed() -> str:
    text = (SPECS / "clusters" / "dgx-b200-superpod.yaml").read_text(encoding="utf-8")
    text = text.replace("id: dgx-b200-superpod", "id: b200-2to1", 1)
    text = text.replace("cluster/dgx-b200-superpod/fabric/compute", "cluster/b200-2to1/fabric/compute")
    text = text.replace('    oversubscription: "1:1"\n    max_oversubscription: "1:1"\n',
                        '    oversubscription: "2:1"\n', 1)
    text = text.replace("    min_bisection_per_accelerator: 200 Gb/s\n", "", 1)
    start, end = text.index("expect:"), text.index("requirements:\n")
    return text[:start] + text[end:]


def test_points_on_a_failing_cluster_are_not_feasible(tmp_path) -> None:
    from archgen.commands import sweep as sw

    (tmp_path / "b200-2to1.yaml").write_text(_oversubscribed(), encoding="utf-8")
    path = tmp_path / "sweep.yaml"
    path.write_text(SWEEP, encoding="utf-8")
    _, [result], errors = sw.evaluate_sweeps(path, [SPECS, tmp_path])
    mine = [f for f in errors if f.object.startswith("cluster/b200-2to1")]
    assert sorted((f.id, f.requirement) for f in mine) == [("REQ001", "REQ-HALL-NET-001"), ("REQ001", "REQ-NET-001")]
    own, copy = result.rows
    assert own.feasible and own.reason == ""
    assert copy.status == "ok" and not copy.feasible
    assert copy.metrics["power"] < own.metrics["power"]                # cheaper in power: it was on the front
    assert copy.reason == ("cluster 'b200-2to1' fails `archgen check`: REQ001 REQ-HALL-NET-001 on "
                           "cluster/b200-2to1/fabric/compute, REQ001 REQ-NET-001 on cluster/b200-2to1/fabric/compute")
    assert result.front == [0] and set(result.best.values()) == {0}
