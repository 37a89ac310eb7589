"""A sweep's fabric axes on a cluster spec: the fabric they change, why a cluster cannot take one, its copy at a level.

A fabric axis (`model.sweep_axes.FABRIC_AXES`) changes a key of the cluster's compute fabric, the fabric the
performance model's scale-out path reads (role `compute`, else `converged`: `analyse.network`). Each level is a
design of its own, which `commands.sweep_fabric` builds, analyses and checks as the cluster with that key written so.
"""

from archgen.model.cluster import Cluster
from archgen.model.fabrics import FatTree
from archgen.model.tiers import TIER_NAMES
from archgen.open_item import Worded


def refused(cluster: Cluster, axis: str, tiers_used: int | None = None) -> str:
    """Why `cluster` cannot take fabric axis `axis`, in words (`Worded`: the customer's too); "" where it can.

    `<tier>_oversubscription` sets `<tier>.oversubscription`, which splits a fat tree's switch ports at that tier
    into down and up (`analyse.tiers.split`): it needs a fat tree with a tier above that one (the leaves: 2 tiers or
    more; the spines: 3, or `tiers: auto` where the design as stated builds 3, `tiers_used`) whose ports at that
    tier are not fixed by `up` or `uplinks` (NET019: those fix the split, and a ratio beside them is read by
    nothing).
    """
    i = cluster.compute_fabric_index()
    if i is None:
        return (f"cluster '{cluster.id}' has no compute fabric (a fabric of role compute or converged), so no fat "
                "tree carries its scale-out traffic")
    fabric, tier = cluster.fabrics[i], axis.removesuffix("_oversubscription")
    here = f"cluster '{cluster.id}' fabric '{fabric.id}'"
    if not isinstance(fabric, FatTree):
        return f"{here} is a {fabric.topology} fabric; the axis splits a fat tree's {tier} ports"
    level = TIER_NAMES.index(tier) + 1
    built = fabric.tiers if fabric.tiers != "auto" else tiers_used
    if built is not None and built <= level:
        how = f"builds {built} tier(s) at its size (tiers: auto)" if fabric.tiers == "auto" else \
            f"has {built} tier(s)"
        them = "leaves" if tier == "leaf" else f"{tier}s"
        top = f"{here} {how}, so its {them} are its top tier, with no uplinks to split their ports with"
        return Worded(top + (f" (set tiers: {level + 1} to build a tier above them)" if level < 3 else ""),
                      top.replace(" (tiers: auto)", ""))
    fixed = [k for k in ("up", "uplinks") if getattr(getattr(fabric, tier), k) is not None]
    if fixed:
        rest = ", which a ratio would not change (NET019); model each split as a cluster of its own"
        return Worded(f"{here} fixes its {tier} split by {' and '.join(f'{tier}.{k}' for k in fixed)}{rest} on "
                      "the cluster axis", f"{here} fixes its {tier} split by its {' and '.join(fixed)} ports{rest}")
    return ""


def at_level(cluster: Cluster, axis: str, level: float) -> Cluster:
    """`cluster` with its compute fabric's key of `axis` at `level` (`refused` says where none applies).

    The compute fabric's `expect:` counts go: they pin a published design's switches and cables, not the copy's.
    """
    i, tier = cluster.compute_fabric_index(), axis.removesuffix("_oversubscription")
    assert i is not None and tier in TIER_NAMES, "refused() is asked first"
    fabric = cluster.fabrics[i]
    assert isinstance(fabric, FatTree), "refused() is asked first"
    fabrics = list(cluster.fabrics)
    fabrics[i] = fabric.model_copy(update={tier: getattr(fabric, tier).model_copy(
        update={"oversubscription": level})})
    expect = cluster.expect.model_copy(update={"fabrics": {k: v for k, v in cluster.expect.fabrics.items()
                                                           if k != fabric.id}})
    return cluster.model_copy(update={"fabrics": fabrics, "expect": expect})
