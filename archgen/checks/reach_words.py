"""What CAB001 says of a run past its link media's reach (its ends, the fixes), and CAB004 of a switch in no rack.

Split from `checks/cabling.py`, which registers the check, as `checks.copper_pairs` is for CAB008.
"""

from __future__ import annotations

from archgen.analyse.network import ClusterAnalysis
from archgen.build.fabrics import LinkOption

__all__ = ["COPPER_LIMIT", "TRUNK_FIX", "TWISTED", "reach_words", "run_end", "why_loose"]


#: What to do about a multi-rack scale-up domain's trunk run past its cable's reach (analyse.scale_up_racks).
TRUNK_FIX = ("; a scale-up domain's racks are consecutive racks with accelerators in floor order: stand them side "
             "by side in one row (`floor.racks_per_row`, a unit's `new_row`), and where neighbouring racks are "
             "cabled straight across rather than over the trays say so (`floor.side_by_side: true`), or give a "
             "trunk_link of longer reach")
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
