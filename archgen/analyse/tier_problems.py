"""Problems over a fat tree's tiers as a whole: keys on tiers not built, and switches short of ports.

`archgen.analyse.fabric` adds these after `archgen.analyse.tiers` has sized the tiers; `unbuilt_keys` (NET025) is
read by its check from the finished analysis, and is no problem of the size (the growth series leaves it out).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from archgen.analyse.nodes import count
from archgen.analyse.ports import Problem
from archgen.analyse.tiers import TierCount, two_tier_leaves
from archgen.analyse.upper_tiers import cores_inherit
from archgen.build import BoundFabric
from archgen.model.fabrics import TIER_KEYS
from archgen.model.tiers import TIER_NAMES

if TYPE_CHECKING:
    from archgen.analyse.fabric import FabricAnalysis

#: The link class up to each tier above the leaves (as `archgen.model.fabrics.LINK_TIERS`).
_LINK_UP_TO = {"spine": "leaf_spine", "core": "spine_core"}


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
                    count(t.max_used_per_switch), count(t.assigned))
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


def unbuilt_keys(fa: FabricAnalysis) -> list[Problem]:
    """Keys of a tier that `tiers: auto` (or a rail-only fabric) does not build at the design's size (NET025).

    Its links and its own keys (`switch`, `rack`, `down`, ...; a count is NET018 and a top tier's uplinks NET019).
    They are used at the sizes that build the tier (the growth series), so they are kept, and the note says from
    which size, one per key; with a fixed `tiers` they are refused at validation, and a rail-only fabric refuses
    `spine_core` and the tier keys its sizing never reads.
    """
    spec, here, leaf = fa.fabric.spec, fa.fabric.owner_path, fa.tier("leaf")
    keys: list[tuple[str, ...]]
    if leaf is None:
        return []
    if spec.topology == "rail-only":
        if fa.tiers_used > 1:
            return []
        domains = int(fa.figures["rail_only.domains_per_rail"].m) if "rail_only.domains_per_rail" in fa.figures else 0
        keys = [("links", "leaf_spine")] if spec.links.leaf_spine else []
        keys += [("spine", k) for k in RAIL_SPINE_KEYS if getattr(spec.spine, k) is not None]
        keys += [("leaf", "oversubscription")] * (spec.leaf.oversubscription is not None)
        keys += [("oversubscription",)] * ("oversubscription" in spec.model_fields_set)
        rail = (f"each rail of this rail-only fabric is one switch at its size ({domains} scale-up domains per rail, "
                f"{leaf.switch.id if leaf.switch else 'its switch'} holds {leaf.assigned})")
        return [Problem("NET025", here + key, f"{_named(key)} given, but {rail}; {_used(key)} from "
                        f"{leaf.assigned + 1} domains per rail, where a rail gets leaves and spines",
                        count(domains), count(leaf.assigned),
                        public=f"{_said(key)} given for growth, but {rail}; {_used(key)} from {leaf.assigned + 1} "
                               "domains per rail, where a rail gets leaves and spines") for key in keys]
    if spec.topology != "fat-tree" or spec.tiers != "auto":
        return []
    out, k_spine = [], two_tier_leaves(fa.fabric)
    tiers = f"{fa.tiers_used} tier{'s' if fa.tiers_used > 1 else ''}"
    for name in TIER_NAMES[fa.tiers_used:]:
        tier = getattr(spec, name)
        keys = [("links", _LINK_UP_TO[name])] if getattr(spec.links, _LINK_UP_TO[name]) else []
        keys += [(name, k) for k in TIER_KEYS if getattr(tier, k) is not None]   # the core's uplinks: refused
        for key in keys:
            if name == "spine":
                why = (f"one {leaf.switch.id if leaf.switch else 'switch'} per plane holds its {fa.links['access']} "
                       f"ports; {_used(key)} once a plane needs a second leaf")
                measured, limit = fa.links["access"], leaf.radix
            else:
                why = (f"{leaf.switches} lea{'f' if leaf.switches == 1 else 'ves'} per plane, and {k_spine}-port "
                       f"spines join up to {k_spine}; {_used(key)} from {k_spine + 1} leaves per plane, where a core "
                       "is built")
                measured, limit = leaf.switches, k_spine
            rest = f"{tiers} at its size: {why} (the cluster document's growth series shows the sizes)"
            out.append(Problem("NET025", here + key, f"{_named(key)} given, but tiers: auto builds this fabric with "
                               f"{rest}", count(measured), count(limit),
                               public=f"{_said(key)} given for growth, but the fabric is built with {rest}"))
    return out


#: The spine keys a rail-only fabric reads once a rail is wider than one switch (the others are refused).
RAIL_SPINE_KEYS = ("switch", "down", "rack")


def _named(key: tuple[str, ...]) -> str:
    return ".".join(key)


def _said(key: tuple[str, ...]) -> str:
    """A tier's key as a customer reads it: "the core tier's rack", "the spine-to-core links"."""
    if key[0] == "links":
        return f"the {key[1].replace('_', '-to-')} links"
    if len(key) == 1:
        return f"the fabric's {key[0]}"
    return f"the {key[0]} tier's {key[1].replace('_', ' ')}"


def _used(key: tuple[str, ...]) -> str:
    """How a note says from which size a key is used: links are plural."""
    return "these links are used" if key[0] == "links" else "it is used"
