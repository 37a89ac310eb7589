"""A sweep's fabric axes: each level's design built, analysed and checked, as `archgen check` would the cluster so.

A fabric axis (`model.sweep_axes.FABRIC_AXES`: `leaf_oversubscription`) does not scale a figure of the model: it
changes the design. Each cluster of the sweep is copied with its compute fabric's key at each level
(`model.sweep_fabric.at_level`), and the specs with the copy in the cluster's place run the pipeline again
(`pipeline.analysed`, then `pipeline.judged`), less what the copy cannot change (`validate.scoped`: other clusters
and their racks, halls and workloads; those joined to it by racks or a hall stay): the fabric is sized anew (leaf
uplinks, spines, cables, optics), so the copy's IT power, bill of materials and cost, its bisection and the
scale-out taper the collectives meet are those of the design at that level, and its error findings (a
`max_oversubscription`, a hall's SHALL on `leaf.oversubscription`, switches its racks do not hold) make its points
infeasible with them as the reason, as a cluster `check` fails does (`perf.explore.points.feasibility`). A few
tenths of a second of CPU a level and cluster on specs/, before any point runs (docs/sweeps.md, Fabric axes).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from archgen.analyse.network import ClusterAnalysis
from archgen.as_of import AsOf
from archgen.build import build
from archgen.checks import Finding
from archgen.model import Cluster
from archgen.model.sweep import Sweep
from archgen.model.sweep_axes import FABRIC_AXES, variant_id
from archgen.model.sweep_fabric import at_level
from archgen.pipeline import analysed, judged
from archgen.validate import Specs, scoped


@dataclass(frozen=True)
class Level:
    """One cluster at one combination of the fabric axes' levels: the specs it runs in and their analysis."""

    cluster: str                          # the cluster's id (its objects keep it: cluster/<id>/fabric/<fabric>)
    specs: Specs                          # the specs with the copy in the cluster's place
    clusters: dict[str, ClusterAnalysis]  # the analysed clusters of their scope (`validate.scoped`), by path
    failing: str                          # its error findings, in words (`failing_words`); "" where check passes


def levels(specs: Specs, sweep: Sweep, ids: Sequence[str], as_of: AsOf | None = None) -> dict[str, Level]:
    """Each cluster of `ids` at each combination of the sweep's fabric axes, by `variant_id`; {} without one.

    A cluster the axis cannot change (`model.sweep_fabric.refused`: no compute fabric, not a fat tree, one tier,
    leaf ports fixed) was refused at the axis's line before (`checks.sweep.mistakes`, SWP001).
    """
    given = [name for name in FABRIC_AXES if getattr(sweep.axes, name) is not None]
    if not given:
        return {}
    clusters = [c for cid in ids if isinstance(c := specs.get(cid), Cluster)]
    out = {}
    for cluster in clusters:
        scope = scoped(specs, cluster.id)     # what the copy can change, run without the rest (`validate.scoped`)
        for combo in itertools.product(*(getattr(sweep.axes, name) for name in given)):
            copy = cluster
            for name, level in zip(given, combo, strict=True):
                copy = at_level(copy, name, level)
            them = dataclasses.replace(scope, items={**scope.items, cluster.id: copy})
            run = analysed(them, build(them))
            errors = judged(*run, as_of=as_of).errors
            out[variant_id(cluster.id, zip(given, combo, strict=True))] = Level(
                cluster.id, dataclasses.replace(specs, items={**specs.items, cluster.id: copy}), run.clusters,
                failing_words(cluster.id, run.clusters, errors))
    return out


def failing_words(cid: str, clusters: dict, errors: Sequence[Finding]) -> str:
    """Cluster `cid`'s unwaived error findings in words: about it, its fabrics and the racks it places; "" for none.

    A workload's own (a PERF001 of the sweep's base job) are the points' to judge.
    """
    racks = {f"rack/{rid}" for rid in clusters[f"cluster/{cid}"].cluster.rack_counts}
    return ", ".join(sorted({f"{f.id} {f.requirement + ' ' if f.requirement else ''}on {f.object}" for f in errors
                             if f.object == f"cluster/{cid}" or f.object.startswith(f"cluster/{cid}/")
                             or f.object in racks}))
