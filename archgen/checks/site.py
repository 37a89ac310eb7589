"""SITE: a cluster over several halls of a site (`floor.halls`): runs between halls, each hall's draw, its leaves.

The floor's halls place racks on the site plan (`model/site.py`), so a run between halls gets its length, its link
option and CAB001's reach check as any other run, and a hall that names its own facility has its racks judged
against it (PWR010, COOL009: `hall_load.by_hall`). What a campus planner reads that is not modelled, these checks say
with the figures the specs give rather than pass silently: the propagation delay of the longer runs, which no
collective latency in the estimate includes (SITE001); the draw of each hall that names no facility, which none
judges (SITE002); and leaves that serve node racks of another hall, which placement does not keep apart (SITE003).
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from archgen.analyse.cabling_result import Cabling
from archgen.analyse.network import count
from archgen.analyse.other_ports import rack_halls
from archgen.analyse.tier_cabling import TierRuns
from archgen.checks.registry import Context, Violation, check
from archgen.model.site import GROUP_INDEX, MULTIMODE_GROUP_INDEX, fibre_delay
from archgen.units import Q_


@check("SITE001", "site.runs_between_halls", severity="info")
def runs_between_halls(ctx: Context) -> Iterator[Violation]:
    """The runs between a site's halls: how many, the longest, and its fibre propagation delay, not in the estimate.

    On a floor of several halls (`floor.halls`) each tier whose runs join racks of two halls is named with their
    link count, the hall pairs, the longest run and its one-way delay at single-mode fibre's group index (1.4676 at
    1310 nm, Corning SMF-28 Ultra: 4.9 µs a kilometre), or multimode's (1.483 at 850 nm) where that run is
    multimode (`model.site.fibre_delay`; review46: a multimode run was taken at single-mode's). The estimate's
    collective latency is NCCL's per-step figure, which has no cable term, so that delay is not in any step time; a
    ring or tree step across halls pays it. Runs to a switch placed in no rack have no length of their own (CAB004)
    and are not counted here.

    Fix: nothing to change where the delay is acceptable; else keep a job's latency-bound groups (tensor, expert,
    pipeline neighbours) inside one hall, or place the spines and cores nearer the halls they join.
    """
    for c in ctx.clusters.values():
        halls = c.cluster.spec.floor.halls
        if len(halls) < 2 or c.cabling is None or not c.cluster.instances:
            continue
        hall = rack_halls(c.cluster)
        for tr in (*c.cabling.runs, *c.cabling.trunk_runs):
            placed = (tr.a_rack >= 0) & (tr.b_rack >= 0)
            ha, hb = hall[np.maximum(tr.a_rack, 0)], hall[np.maximum(tr.b_rack, 0)]
            cross = placed & (ha != hb)
            if not cross.any():
                continue
            pairs = sorted({tuple(sorted((halls[a].id, halls[b].id))) for a, b in zip(ha[cross], hb[cross],
                                                                                       strict=True)})
            far = int(np.flatnonzero(cross)[np.argmax(tr.length[cross])])
            longest, multimode = float(tr.length[far]), _media(c.cabling, tr, far) == "multimode"
            delay = fibre_delay(Q_(longest, "m"), multimode)
            index = f"multimode fibre's group index {MULTIMODE_GROUP_INDEX}" if multimode else \
                f"group index {GROUP_INDEX}"
            fa = next((f for f in c.fabrics if f.fabric.spec.id == tr.fabric), None)
            subject = c.cluster.path if fa is None else fa.fabric.path
            yield Violation(subject, c.cluster.spec.id, ("floor", "halls"),
                            f"{tr.tier}: {int(tr.weight[cross].sum()):,} link(s) run between halls "
                            f"({', '.join(f'{a}-{b}' for a, b in pairs)}), the longest {longest:.1f} m: a one-way "
                            f"fibre delay of {delay.m_as('us'):.2f} us ({index}), not in "
                            "the estimate's collective latency (NCCL's per-step figure has no cable term)",
                            Q_(round(delay.m_as("us"), 3), "us"), None)


def _media(cabling: Cabling, tr: TierRuns, run: int) -> str:
    """The media of the link option one run of `tr` takes ("" where its tier lists none)."""
    options = next((t.options for t in cabling.tiers if (t.fabric, t.tier) == (tr.fabric, tr.tier)), ())
    k = int(tr.option[run])
    return options[k].a.media if 0 <= k < len(options) else ""


@check("SITE002", "site.hall_power", severity="warning")
def hall_power(ctx: Context) -> Iterator[Violation]:
    """Each hall of a site that names no facility of its own has its racks' draw judged by none: said, with it.

    A building of a campus has its own substation, UPS, generators and cooling plant. A hall of `floor.halls` that
    names its `facility` has its racks' draw (`hall_power.<hall>`) held to that facility's critical IT power and
    cooling (PWR010, COOL009); on a floor of several halls holding racks, or where any hall names a facility (then
    the cluster's `facility` judges no hall, even one alone holding every rack), this warning names each hall that
    names none, with its racks' own draw (their equipment and in-rack cooling units, at maximum; the transceivers of
    switch ends outside systems, the switches in no rack and the storage are not split by hall), and says that its
    supply and cooling are not judged, the cluster's one `facility` judging the whole cluster where no hall names its
    own.

    Fix: name each building's facility in its hall (`floor.halls[].facility`), or size the hall's supply from these
    figures outside archgen and waive this finding with that reason.
    """
    for path, c in ctx.clusters.items():
        halls, m = c.cluster.spec.floor.halls, c.metrics
        used = [k for k, h in enumerate(halls) if f"hall_power.{h.id}" in m]
        own = c.cluster.hall_facilities
        bare = [k for k in used if k >= len(own) or own[k] is None]
        if not bare or len(used) < 2 and not any(own):   # one hall alone and none named: the cluster's facility
            continue
        fac = c.cluster.facility
        judged = ("another hall names its own, so the cluster's `facility` judges none of them (PWR010, COOL009)"
                  if any(own) else f"facility '{fac.id}' judges the whole cluster as one hall (PWR010, PWR011, "
                  "COOL009)" if fac is not None else "the cluster names no facility")
        each = ", ".join(f"{halls[k].id} {m[f'hall_power.{halls[k].id}'].to('kW').m:,.1f} kW" for k in bare)
        head = (f"{len(bare)} of the {len(used)} halls holding the cluster's racks name no facility of their own; "
                "their racks' own draw is" if len(used) > 1 else "the one hall holding the cluster's racks names no "
                "facility of its own; its racks' own draw is")
        yield Violation(path, c.cluster.spec.id, ("floor", "halls"),
                        f"{head} {each} (at maximum; optics outside systems, switches in no "
                        f"rack and storage not split by hall); {judged}: no such hall's own power or cooling is "
                        "judged", count(len(bare)), count(0))


@check("SITE003", "site.leaves_across_halls", severity="warning")
def leaves_across_halls(ctx: Context) -> Iterator[Violation]:
    """A leaf switch serves node racks of its own hall: leaves whose access links reach into another hall are named.

    Placement fills each fabric's leaves in rack order without regard to halls (`floor.halls`), so a leaf group can
    straddle two buildings: its access links (node to leaf, the shortest tier, sized for in-row runs) then cross the
    site, take the long-reach option or exceed every option's reach (CAB001), and a hall's nodes depend on a switch
    powered and cooled in another. For each fabric this warning names the leaves (the rack each stands in, its hall)
    with access links to node racks of another hall, and their count and longest run.

    Fix: size the units so that each hall holds whole leaf groups (a fabric's `group` unit per hall), or place each
    hall's leaves in a rack type of that hall; waive it where the cross-hall access links are intended.
    """
    for path, c in ctx.clusters.items():
        halls, cab = c.cluster.spec.floor.halls, c.cabling
        if len(halls) < 2 or cab is None or not c.cluster.instances:
            continue
        hall, names = rack_halls(c.cluster), [i.name for i in c.cluster.instances]
        for tr in cab.runs:
            if tr.b_switch is None:
                continue
            cross = (tr.a_rack >= 0) & (tr.b_rack >= 0)
            cross[cross] = hall[tr.a_rack[cross]] != hall[tr.b_rack[cross]]
            if not cross.any():
                continue
            leaves = sorted({(int(s), int(r)) for s, r in zip(tr.b_switch[cross], tr.b_rack[cross], strict=True)})
            shown = "; ".join(f"leaf {s} in {names[r]}, hall {halls[hall[r]].id}" for s, r in leaves[:4])
            more = f" and {len(leaves) - 4} more" if len(leaves) > 4 else ""
            fa = next((f for f in c.fabrics if f.fabric.spec.id == tr.fabric), None)
            at = ("layout",) if fa is None else fa.fabric.owner_path + ("leaf",)
            yield Violation(path if fa is None else fa.fabric.path, c.cluster.spec.id, at,
                            f"{tr.fabric} {tr.tier}: {len(leaves)} leaf switch(es) serve node racks of another hall "
                            f"({shown}{more}): {int(tr.weight[cross].sum()):,} access link(s) cross halls, the "
                            f"longest {float(tr.length[cross].max()):.1f} m", count(len(leaves)), count(0))
