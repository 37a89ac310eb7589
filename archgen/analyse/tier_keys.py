"""The keys of a tier that a fabric builds only at a larger size (NET025), read from the finished analysis.

Its check reads them from each `FabricAnalysis`; they are no problem of the size (the growth series leaves them out),
so `archgen.analyse.fabric` does not add them. Split from `archgen.analyse.tier_problems`, which `fabric` imports:
there it closed an import cycle, `FabricAnalysis` annotating its argument (issue 19 part 6).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from archgen.analyse.nodes import count
from archgen.analyse.ports import Problem
from archgen.analyse.tiers import two_tier_leaves
from archgen.model.fabrics import TIER_KEYS
from archgen.model.tiers import TIER_NAMES

if TYPE_CHECKING:
    from archgen.analyse.fabric import FabricAnalysis

#: The link class up to each tier above the leaves (as `archgen.model.fabrics.LINK_TIERS`).
_LINK_UP_TO = {"spine": "leaf_spine", "core": "spine_core"}


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
