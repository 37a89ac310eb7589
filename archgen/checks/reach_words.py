"""What CAB001 (`checks.cabling.reach`) says of a run past its link media's reach: the run's ends and the fixes.

Split from `checks/cabling.py`, which registers the check, as `checks.copper_pairs` is for CAB008.
"""

from __future__ import annotations

from archgen.analyse.network import ClusterAnalysis
from archgen.build.fabrics import LinkOption

__all__ = ["COPPER_LIMIT", "TRUNK_FIX", "TWISTED", "reach_words", "run_end"]


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


def reach_words(opt: LinkOption) -> str:
    """'3 m reach', or '2 m longest length sold (reach 3 m, sold 0.5-2 m; ...)' where sold lengths stop short."""
    sold = f" longest length sold ({opt.reach_text}; `max_length` in its catalog entry)" if opt.sold_text else " reach"
    return f"{opt.reach:~P}{sold}"


def run_end(c: ClusterAnalysis, rack: int, u: int) -> str:
    """'su01/gb300-nvl72-01 U16 (nvlink5-switch-tray)': a run end's rack instance, U and the part there."""
    if rack < 0:
        return "(no rack)"
    inst = c.cluster.instances[rack]
    part = next((item.part.id for item in inst.rack.items if item.u == u), None)
    return f"{inst.name} U{u}" + (f" ({part})" if part else "")
