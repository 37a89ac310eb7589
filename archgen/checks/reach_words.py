"""What CAB001 says of a run past its link media's reach (its ends, the fixes), and CAB004 of a switch in no rack.

Split from `checks/cabling.py`, which registers the check, as `checks.copper_pairs` is for CAB008 (with CAB004's
findings on runs to switches their racks cannot hold, `full_racks_past_reach`).
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.network import ClusterAnalysis, FabricAnalysis, count
from archgen.build.fabrics import LinkOption
from archgen.checks.registry import Violation
from archgen.model.field_words import said

__all__ = ["COPPER_LIMIT", "POD_FIX", "SWITCH_ENDS", "TRUNK_FIX", "TWISTED", "full_racks_past_reach", "loose_fix",
           "reach_words", "run_end", "why_loose", "why_not_laid_out"]


#: What to do about a multi-rack scale-up domain's trunk run past its cable's reach (analyse.scale_up_racks).
TRUNK_FIX = ("; a scale-up domain's racks are consecutive racks with accelerators in floor order: stand them side "
             "by side in one row (`floor.racks_per_row`, a unit's `new_row`), and where neighbouring racks are "
             "cabled straight across rather than over the trays say so (`floor.side_by_side: true`), or give a "
             "trunk_link of longer reach")
#: What to do about a pod's accelerator-to-switch run past its cable's reach (analyse.scale_up_pod).
POD_FIX = ("; a pod's compute racks cable every accelerator to its switch racks (`scale_up.switch_rack`): stand the "
           "switch racks in the compute racks' row, between them, or give a link of longer reach")
#: Twisted-pair media, whose channel ends at 100 m whatever the rate.
TWISTED = ("twisted-pair",)
#: What to do about a twisted-pair run past its channel: the standards' limit and the two usual fixes.
COPPER_LIMIT = ("; a twisted-pair Ethernet channel ends at 100 m (ANSI/TIA-568.2-D Category 6A channel; IEEE 802.3 "
                "Clause 40 1000BASE-T and Clause 55 10GBASE-T, 100 m over Cat6a): run these over fibre (an SFP "
                "uplink port) or put a management switch near them (a distributed OOB aggregation, one per row "
                "or per network rack)")


def reach_words(opt: LinkOption, said: bool = False) -> str:
    """'3 m reach', or '2 m longest length sold (reach 3 m, sold 0.5-2 m; ...)' where sold lengths stop short.

    `said`: as a customer reads it, without the catalog key the team corrects.
    """
    key = "" if said else "; `max_length` in its catalog entry"
    sold = f" longest length sold ({opt.reach_text}{key})" if opt.sold_text else " reach"
    return f"{opt.reach:~P}{sold}"


def run_end(c: ClusterAnalysis, rack: int, u: int) -> str:
    """'su01/gb300-nvl72-01 U16 (nvlink5-switch-tray)': a run end's rack instance, U and the part there."""
    if rack < 0:
        return "(no rack)"
    inst = c.cluster.instances[rack]
    part = next((item.part.id for item in inst.rack.items if item.u == u), None)
    return f"{inst.name} U{u}" + (f" ({part})" if part else "")


def why_loose(fa, tier: str, words: bool = False) -> str:
    """Why a tier's switches stand in no rack: no rack type named for it, or its racks are full (NET012).

    `words`: as a customer reads it, "no rack named for them" for the key the team states.
    """
    rack = fa.fabric.spec.rack_of(tier)
    if rack is None:
        return "no rack named for them" if words else f"no `{tier}.rack` given"
    return f"the '{rack}' racks hold no more: NET012"


def full_racks_past_reach(c, fa, t, where: tuple) -> Iterator[Violation]:
    """CAB004 where a tier's racks are too few (NET012): the runs to the switches they cannot hold past a reach."""
    for opt, n, bound in t.unplaced_over_reach:
        loose = ", ".join(f"{tier} {k} x {sw}" for fid, tier, sw, k in c.cabling.unplaced_switches
                          if fid == t.fabric and tier in SWITCH_ENDS[t.tier])
        rest = (f"{n} link(s) end at switches their racks cannot hold ({loose}; NET012), so their length is not "
                f"known; at the floor's longest run, {bound:.1f} m, they pass the {opt.reach:~P} reach of "
                f"{opt.label}: reach not checked (CAB001 checks it once the racks hold them)")
        yield Violation(fa.fabric.path, c.cluster.spec.id, where, f"{t.tier}: {rest}", count(n),
                        public=f"{said(t.tier)}: {rest}")


SWITCH_ENDS = {"access": ("leaf",), "leaf_spine": ("leaf", "spine"), "spine_core": ("spine", "core")}


def loose_fix(fa, t, tiers: list[str], words: bool = False) -> str:
    """CAB004's fix for runs to switches of `tiers` placed in no rack: name their rack, or media that reach.

    Only the tiers that name no rack (`why_loose`); a tier whose racks are full is NET012's. The media only where
    the assumed length passes a reach (`TierCabling.unplaced_over_reach`; newuser105: 1,024 OOB spine-core runs
    assumed 129.2 m on 100 m SR4, a warning with no fix). `words`: as a customer reads it, without the keys.
    """
    keys = [f"`{tier}.rack`" for tier in tiers if fa.fabric.spec.rack_of(tier) is None]
    if not keys:
        return ""
    reach = (f", or list a link option that reaches {t.assumed_length.m_as('m'):.1f} m"
             + ("" if words else f" (`links.{t.tier}`)")) if t.unplaced_over_reach else ""
    return ("; name a rack for them so that their runs are measured" if words else
            f"; name their rack ({', '.join(keys)}) so that their runs are measured") + reach


def why_not_laid_out(fa: FabricAnalysis) -> str:
    """Why a tier's runs are not laid out: a topology counted only, or a fabric its switches cannot build."""
    if fa.topology not in ("fat-tree", "rail-only"):
        return f"a {fa.topology} fabric's runs are not laid out"
    why = sorted({p.check for p in fa.problems if p.check in ("NET001", "NET003")})
    return f"the fabric cannot be built as specified ({', '.join(why)}), so its runs are not laid out"
