"""A sweep's fabric axes on a cluster spec: the fabric they change, why a cluster cannot take one, its copy at a level.

A fabric axis (`model.sweep_axes.FABRIC_AXES`) changes a key of the cluster's compute fabric, the fabric the
performance model's scale-out path reads (role `compute`, else `converged`: `analyse.network`). Each level is a
design of its own, which `commands.sweep_fabric` builds, analyses and checks as the cluster with that key written so.
"""

from archgen.model.cluster import Cluster
from archgen.model.fabrics import FatTree


def compute_fabric(cluster: Cluster) -> int | None:
    """The index of the fabric the cluster's scale-out path runs on (`compute`, else `converged`); None: none."""
    carriers = [i for i, f in enumerate(cluster.fabrics) if f.role in ("compute", "converged")]
    return min(carriers, key=lambda i: cluster.fabrics[i].role != "compute", default=None)


def refused(cluster: Cluster, axis: str) -> str:
    """Why `cluster` cannot take fabric axis `axis`, in words; "" where it can.

    `leaf_oversubscription` sets `leaf.oversubscription`, which splits a fat tree's leaf ports into down and up
    (`analyse.tiers.split`): it needs a fat tree of more than one tier whose leaf ports are not fixed by `leaf.up`
    or `leaf.uplinks` (NET019: those fix the split, and a ratio beside them is read by nothing).
    """
    i = compute_fabric(cluster)
    if i is None:
        return (f"cluster '{cluster.id}' has no compute fabric (a fabric of role compute or converged), so no leaf "
                "carries its scale-out traffic")
    fabric = cluster.fabrics[i]
    here = f"cluster '{cluster.id}' fabric '{fabric.id}'"
    if not isinstance(fabric, FatTree):
        return f"{here} is a {fabric.topology} fabric; the axis splits a fat tree's leaf ports"
    if fabric.tiers == 1:
        return f"{here} is one tier of switches, with no uplinks to split the leaf ports with"
    fixed = [f"leaf.{k}" for k in ("up", "uplinks") if getattr(fabric.leaf, k) is not None]
    if fixed:
        return (f"{here} fixes its leaf split by {' and '.join(fixed)}, which a ratio would not change (NET019); "
                "model each split as a cluster of its own on the cluster axis")
    return ""


def at_level(cluster: Cluster, axis: str, level: float) -> Cluster:
    """`cluster` with its compute fabric's key of `axis` at `level` (`refused` says where none applies).

    The compute fabric's `expect:` counts go: they pin a published design's switches and cables, not the copy's.
    """
    i = compute_fabric(cluster)
    assert i is not None and axis == "leaf_oversubscription", "refused() is asked first"
    fabric = cluster.fabrics[i]
    assert isinstance(fabric, FatTree)
    fabrics = list(cluster.fabrics)
    fabrics[i] = fabric.model_copy(update={"leaf": fabric.leaf.model_copy(update={"oversubscription": level})})
    expect = cluster.expect.model_copy(update={"fabrics": {k: v for k, v in cluster.expect.fabrics.items()
                                                           if k != fabric.id}})
    return cluster.model_copy(update={"fabrics": fabrics, "expect": expect})
