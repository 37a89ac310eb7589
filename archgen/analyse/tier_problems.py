"""Problems over a fat tree's tiers as a whole: counts and uplinks on tiers not built, and switches short of ports.

`archgen.analyse.fabric` adds these after `archgen.analyse.tiers` has sized the tiers. The keys of a tier not built
(NET025), which its check reads from the finished analysis, are in `archgen.analyse.tier_keys`.
"""

from __future__ import annotations

from archgen.analyse.nodes import count
from archgen.analyse.ports import Problem
from archgen.analyse.tiers import TierCount
from archgen.analyse.upper_tiers import cores_inherit
from archgen.build import BoundFabric
from archgen.model.tiers import TIER_NAMES


def top_tier_ports(fabric: BoundFabric, tiers_used: int) -> list[Problem]:
    """`up`, `uplinks`, `uplink_speed` or `oversubscription` on the top tier that `tiers: auto` builds.

    Nothing above it takes them, so they would be ignored (with a fixed `tiers` they fail validation).
    """
    name = TIER_NAMES[tiers_used - 1]
    spec = getattr(fabric.spec, name)
    given = [k for k in ("up", "uplinks", "uplink_speed", "oversubscription") if getattr(spec, k) is not None]
    return [Problem("NET019", fabric.owner_path + (name, k), f"{name}.{k} given, but tiers: auto builds this fabric "
                    f"with {tiers_used} tier(s), so the {name}s are the top tier and have no uplinks: leave "
                    f"{name}.{k} out, or set tiers: {tiers_used + 1} to build a tier above them") for k in given]


def unbuilt_counts(fabric: BoundFabric, tiers_used: int) -> list[Problem]:
    """Counts on tiers that `tiers: auto` does not build (with a fixed `tiers` they fail validation)."""
    spec = fabric.spec
    said = "{} {}s given, but the fabric is built with {} tier(s), without a {} tier"
    return [Problem("NET018", fabric.owner_path + (name, "count"),
                    f"{getattr(spec, name).count} {name}s given, but tiers: auto builds this fabric with {tiers_used} "
                    f"tier(s), without a {name} tier: set tiers: {i + 1} to build it, or leave {name}.count out",
                    count(getattr(spec, name).count), None,
                    public=said.format(getattr(spec, name).count, name, tiers_used, name))
            for i, name in enumerate(TIER_NAMES) if i >= tiers_used and getattr(spec, name).count is not None]


def radix_problems(fabric: BoundFabric, tiers: tuple[TierCount, ...], counted: set[tuple]) -> list[Problem]:
    """Tiers whose busiest switch needs more ports than it has, but those whose count problem (in `counted`) says so.

    A core tier that names no `switch` under spines that name their own takes the fabric's (the leaves'), and the
    finding says so and what to name: the 3 tiers NET003 asks for otherwise build cores of a leaf switch (an SN2201
    under 8 ports needed at 100 Gb/s, newuser55's 16-SU out-of-band fabric).
    """
    here = fabric.owner_path
    return [Problem("NET001", fabric.switch_path(t.name),
                    f"{t.name} switches need {t.max_used_per_switch} ports, {t.switch.id} has {t.assigned} at "
                    f"{t.speed:~P}" + (f" in the tier's `down`/`up` ports (of {t.radix})" if t.unassigned else "")
                    + inherited_switch(fabric, t.name, f"{t.max_used_per_switch} ports at {t.speed:~P}"),
                    count(t.max_used_per_switch), count(t.assigned), tier=t.name)
            for t in tiers if t.switch is not None and t.switches and here + (t.name, "count") not in counted
            and t.max_used_per_switch > t.assigned]


def inherited_switch(fabric: BoundFabric, name: str, need: str) -> str:
    """'; the cores are the fabric's `switch` (sn2201), as ...' where the cores name none but the spines name another.

    A tree of one switch throughout says nothing more: its cores are the switch the user chose for every tier.
    """
    spec = fabric.spec
    if name != "core" or spec.topology != "fat-tree" or not cores_inherit(spec):
        return ""
    return (f"; the cores are the fabric's `switch` ({spec.switch}), not the spines' {spec.spine.switch}, as "
            f"`core.switch` names none: name a switch with {need} (`core: {{switch: ...}}`)")
