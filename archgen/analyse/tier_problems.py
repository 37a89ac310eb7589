"""Problems over a fat tree's tiers as a whole: keys on tiers not built, and switches short of ports.

`archgen.analyse.fabric` adds these after `archgen.analyse.tiers` has sized the tiers.
"""

from __future__ import annotations

from archgen.analyse.nodes import count
from archgen.analyse.ports import Problem
from archgen.analyse.tiers import TIERS, TierCount
from archgen.build import BoundFabric


def top_tier_ports(fabric: BoundFabric, tiers_used: int) -> list[Problem]:
    """`up`, `uplinks`, `uplink_speed` or `oversubscription` on the top tier that `tiers: auto` builds.

    Nothing above it takes them, so they would be ignored (with a fixed `tiers` they fail validation).
    """
    name = TIERS[tiers_used - 1]
    spec = getattr(fabric.spec, name)
    given = [k for k in ("up", "uplinks", "uplink_speed", "oversubscription") if getattr(spec, k) is not None]
    return [Problem("NET019", fabric.owner_path + (name, k), f"{name}.{k} given, but tiers: auto builds this fabric "
                    f"with {tiers_used} tier(s), so the {name}s are the top tier and have no uplinks: leave "
                    f"{name}.{k} out, or set tiers: {tiers_used + 1} to build a tier above them") for k in given]


def unbuilt_counts(fabric: BoundFabric, tiers_used: int) -> list[Problem]:
    """Counts on tiers that `tiers: auto` does not build (with a fixed `tiers` they fail validation)."""
    spec = fabric.spec
    return [Problem("NET018", fabric.owner_path + (name, "count"),
                    f"{getattr(spec, name).count} {name}s given, but tiers: auto builds this fabric with {tiers_used} "
                    f"tier(s), without a {name} tier: set tiers: {i + 1} to build it, or leave {name}.count out",
                    count(getattr(spec, name).count), None)
            for i, name in enumerate(TIERS) if i >= tiers_used and getattr(spec, name).count is not None]


def radix_problems(here: tuple, tiers: tuple[TierCount, ...], counted: set[tuple]) -> list[Problem]:
    """Tiers whose busiest switch needs more ports than it has, but those whose count problem (in `counted`) says so."""
    return [Problem("NET001", here + (t.name,) if t.name != "leaf" else here + ("switch",),
                    f"{t.name} switches need {t.max_used_per_switch} ports, {t.switch.id} has {t.assigned} at "
                    f"{t.speed:~P}" + (f" in the tier's `down`/`up` ports (of {t.radix})" if t.unassigned else ""),
                    count(t.max_used_per_switch), count(t.assigned))
            for t in tiers if t.switch is not None and t.switches and here + (t.name, "count") not in counted
            and t.max_used_per_switch > t.assigned]
