"""A sweep's fabric level runs only what it can change (`validate.scoped`), and finds what the whole tree finds.

Each level of a fabric axis ran `build`, the analyses and every check over the whole spec tree (issue 25): on specs/
two clusters at two levels estimated the ten workloads four times. Now the level's copy runs with the clusters,
racks and halls joined to it and the workloads on it (`commands.sweep_fabric.levels`). Here each shipped tree's
clusters that take the axis, and a tree of three clusters (two sharing racks and a hall that lists both as deployed,
the third in a hall on the same utility connection, then apart), are run both ways at each level: the cluster's findings of every severity (those about it, its fabrics
and the racks it places: `failing_words`' objects), the words that make a level infeasible, its metrics and its
hall's room are the same.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from archgen.analyse.hall_room import hall_rooms
from archgen.build import build
from archgen.commands.sweep_fabric import failing_words
from archgen.model import Cluster
from archgen.model.sweep_fabric import at_level, refused
from archgen.pipeline import analysed, built, judged
from archgen.validate import Specs, scoped
from tests.data.clusters.small import files

ROOT = Path(__file__).resolve().parents[1]
AXIS = "leaf_oversubscription"

HALL = """kind: Facility
id: hall
name: Test hall
floor_rating: 1200 kg/m**2
air: {supply: 24 degC}
voltage: 415 V
critical_it_power: 400 kW
peak_pue: 1.35
deployed: [c, c2]
feeds: {utility: N+1, utility_units: {count: 3, capacity: 400 kW}, shared_utility: {id: campus, capacity: 900 kW}}
"""


def _judged(specs: Specs, cid: str) -> tuple:
    """What a level decides of cluster `cid` in `specs`: its findings, failing words, metrics and hall room."""
    run = analysed(specs, build(specs))
    found = judged(*run)
    path = f"cluster/{cid}"
    racks = {f"rack/{r}" for r in run.clusters[path].cluster.rack_counts}
    mine = sorted((f.id, f.severity, f.object, f.requirement, f.message, f.waived) for f in found.findings
                  if f.object == path or f.object.startswith(path + "/") or f.object in racks)
    room = hall_rooms(run.clusters).get(path)
    return (mine, failing_words(cid, run.clusters, found.errors), sorted(map(str, run.clusters[path].metrics.items())),
            None if room is None else (room.limit, room.words))


def _same_both_ways(specs: Specs, levels: tuple[float, ...], ids: tuple[str, ...] = ()) -> dict[tuple[str, float], str]:
    """Each cluster that takes the axis (of `ids`, where given), at each level, run on the whole specs and on its
    scope: the same. The failing words of each (cluster, level).
    """
    out = {}
    for cluster in specs.of(Cluster):
        if refused(cluster, AXIS) or ids and cluster.id not in ids:
            continue
        scope = scoped(specs, cluster.id)
        assert len(scope.items) < len(specs.items)            # something left out, or the test proves nothing
        for level in levels:
            copy = at_level(cluster, AXIS, level)
            whole = _judged(dataclasses.replace(specs, items={**specs.items, cluster.id: copy}), cluster.id)
            assert _judged(dataclasses.replace(scope, items={**scope.items, cluster.id: copy}), cluster.id) == whole
            out[(cluster.id, level)] = whole[1]
    return out


@pytest.mark.parametrize(("tree", "taken"), [
    ("specs", ["dgx-b200-superpod", "gb200-nvl72-su"]),
    ("examples/vera-rubin", ["vr-nvl72-su"]),
    ("examples/gb300-nvl72-su", ["gb300-nvl72-su"]),
])
def test_each_shipped_cluster_finds_the_same_in_its_scope(tree, taken) -> None:
    specs, _ = built([ROOT / tree])
    assert [cid for cid, _ in _same_both_ways(specs, (2.0,))] == taken


def test_the_scope_of_a_shipped_cluster() -> None:
    """DGX B200 SuperPOD stands alone in `hall-air`; GB200 NVL72 SU shares `hall-liquid` with the MI355X and TPU
    clusters (the hall's headrooms count them), not their workloads, nor the sweep naming both platforms."""
    specs, _ = built([ROOT / "specs"])
    dgx, gb200 = scoped(specs, "dgx-b200-superpod"), scoped(specs, "gb200-nvl72-su")
    assert [c.id for c in dgx.of(Cluster)] == ["dgx-b200-superpod"]
    assert [c.id for c in gb200.of(Cluster)] == ["gb200-nvl72-su", "mi355x-th5", "tpu-v4-pod"]
    assert {w.cluster for w in gb200.of(type(specs.items["llama3-70b-pretrain-b200"]))} == {"gb200-nvl72-su"}
    assert "llama3-70b-train-platforms" not in gb200.items and "llama3-70b-serve-batch" in dgx.items
    assert "hall-air" not in gb200.items and "hall-liquid" not in dgx.items
    assert set(gb200.sources) == set(gb200.items)
    unknown = dataclasses.replace(specs, sources={i: s for i, s in specs.sources.items() if i != "mi355x-th5"})
    assert "mi355x-th5" in scoped(unknown, "dgx-b200-superpod").items     # its names unknown: kept


def test_clusters_joined_by_racks_a_hall_and_a_utility_connection(spec_tree) -> None:
    """c and c2 place the same racks and are deployed together in `hall` (its 400 kW shared: PWR010 judges their
    sum); c3 places racks of its own in `hall2`, which shares the utility connection `campus` with `hall` (PWR011
    sums the three clusters' facility power against its 900 kW: an id of the halls' own, no document). Without the
    connection c3 stands apart. c states `max_oversubscription: "1:1"`, so its 2:1 level fails. (The network
    rack's 36 spines are more than its feeds carry: PWR001-PWR004 on rack/net, alike both ways.)"""
    tree = files()
    c = tree["clusters/c.yaml"].replace("id: c\n", "id: c\nfacility: hall\n")
    tree["clusters/c.yaml"] = c.replace("  oversubscription:", '  max_oversubscription: "1:1"\n  oversubscription:')
    tree["clusters/c2.yaml"] = c.replace("id: c\n", "id: c2\n")
    tree["racks/x.yaml"] = tree["racks/r.yaml"].split("---\nkind: Switch")[0].replace("id: c4", "id: c4x").replace(
        "id: net", "id: netx")
    tree["clusters/c3.yaml"] = files()["clusters/c.yaml"].replace("id: c\n", "id: c3\nfacility: hall2\n").replace(
        "rack: c4,", "rack: c4x,").replace("rack: net", "rack: netx")
    tree["facilities/hall.yaml"] = HALL
    tree["facilities/hall2.yaml"] = HALL.replace("id: hall", "id: hall2").replace("[c, c2]", "[c3]")
    tree["workloads/w.yaml"] = "".join(f"""---
kind: Workload
id: w{c}
model: llama3-70b
cluster: {c}
accelerators: 128
training: {{seq_len: 8192, global_batch: 256, precision: bf16}}
""" for c in ("c", "c2", "c3"))
    specs, _ = built([spec_tree(tree)])
    assert [c.id for c in scoped(specs, "c3").of(Cluster)] == ["c", "c2", "c3"]
    assert sorted(i for i in scoped(specs, "c2").items if i.startswith("w")) == ["wc2"]
    fails = _same_both_ways(specs, (1.0, 2.0))
    assert list(fails) == [(c, level) for c in ("c", "c2", "c3") for level in (1.0, 2.0)]
    # the hall's sum fails at both levels (each cluster alone draws 250 kW of its 400 kW); 2:1 fails c's own limit
    assert all("PWR010 on cluster/c" in fails[("c", level)] for level in (1.0, 2.0))
    assert ["NET006" in fails[("c", level)] for level in (1.0, 2.0)] == [False, True]
    assert "PWR010" not in fails[("c3", 1.0)] and "PWR011 on cluster/c3" in fails[("c3", 1.0)]
    tree["facilities/hall2.yaml"] = tree["facilities/hall2.yaml"].replace(", shared_utility: {id: campus, "
                                                                          "capacity: 900 kW}", "")
    apart, _ = built([spec_tree(tree)])
    assert [c.id for c in scoped(apart, "c3").of(Cluster)] == ["c3"]
    assert [c.id for c in scoped(apart, "c").of(Cluster)] == ["c", "c2"]
    assert "PWR011" not in _same_both_ways(apart, (1.0,), ("c3",))[("c3", 1.0)]
