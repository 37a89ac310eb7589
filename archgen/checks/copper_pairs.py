"""CAB008's finding: straight copper assemblies between switch tiers that a switch pair's links cannot fill.

`checks/cabling.py` registers the check; this module holds what it finds.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from archgen.analyse.cable_bins import PAIR_TIERS
from archgen.analyse.link_ends import SWITCH_ENDS, link_speed, links_per_cable
from archgen.analyse.network import count, withheld_tiers
from archgen.checks.registry import Context, Violation
from archgen.model.fabrics import LINK_TIERS
from archgen.model.field_words import said
from archgen.model.network import COPPER_MEDIA
from archgen.topology import tier_pairs

#: Pairs named in a finding; the rest are counted.
NAMED = 3


def split_copper(ctx: Context) -> Iterator[Violation]:
    """CAB008: switch pairs of a tier whose links on a straight copper assembly are not a whole number of them.

    An assembly of `per` links (its narrower end's module at the tier's line rate) joins one cage to one cage, so a
    pair of w links takes ⌈w / per⌉ assemblies, as the BOM and the port map count them. Where w is not a multiple
    of per, the last assembly's other lanes go unused; the port map numbers the pair's links port after port, so
    the next pair's links fall on the lanes of that same cage, which no straight cable reaches. A splitter part
    (`links_per_cable` > 1) ends in several far cages: each of its legs carries per / links_per_cable links, and
    a pair whose links fill whole legs is counted as it (no finding). Links into a tier whose wiring an infeasible
    topology withheld are not judged (`network.withheld_tiers`): their pairs spread links over switch counts that
    cannot be built (2 leaves fixed where 16 are needed, NET018, each cabled to 8 spines).
    """
    for c in ctx.clusters.values():
        if c.cabling is None:
            continue
        fabrics = {fa.fabric.spec.id: fa for fa in c.fabrics}
        options = {(t.fabric, t.tier): t.options for t in c.cabling.tiers}
        for tr in c.cabling.runs:
            fa = fabrics.get(tr.fabric)
            if fa is None or tr.tier not in PAIR_TIERS or not len(tr.weight) \
                    or set(SWITCH_ENDS[tr.tier]) & set(withheld_tiers(fa)):
                continue
            pairs = None
            if fa.topology == "fat-tree" and len(tr.weight) == len(tier_pairs(fa.shape, tr.tier)[0]) * fa.planes:
                lo, hi, _ = tier_pairs(fa.shape, tr.tier)
                low, up = (fa.tier_at(e).switches for e in SWITCH_ENDS[tr.tier])
                pairs = (np.concatenate([p * low + lo for p in range(fa.planes)]),
                         np.concatenate([p * up + hi for p in range(fa.planes)]))
            for i, opt in enumerate(options.get((tr.fabric, tr.tier), ())):
                if opt.a.media not in COPPER_MEDIA:
                    continue
                per = links_per_cable(opt, link_speed(fa, tr.tier))
                leg = max(per // max(opt.a.links_per_cable, opt.b.links_per_cable), 1)
                bad = np.flatnonzero((tr.option == i) & (tr.weight % leg != 0))
                if not len(bad):
                    continue
                lower, upper = SWITCH_ENDS[tr.tier]
                named = "" if pairs is None else ": " + ", ".join(
                    f"{tr.fabric}-{lower}-{pairs[0][j] + 1:02d} to {tr.fabric}-{upper}-{pairs[1][j] + 1:02d} "
                    f"({int(tr.weight[j])})" for j in bad[:NAMED]) + (f" and {len(bad) - NAMED} more"
                                                                     if len(bad) > NAMED else "")
                rest = (f"{len(bad)} of {int((tr.option == i).sum())} switch pairs on {opt.label} hold a number of "
                        f"links (in brackets) that is not a multiple of the {leg} one "
                        f"{'leg' if leg < per else 'assembly'} carries{named}; a straight assembly joins one cage to "
                        "one cage, so each such pair leaves lanes of its last assembly idle, and the port map puts the "
                        "next pair's links in that same cage, which no straight cable reaches")
                fix, words = _fix(fa, tr.tier, opt.label, leg, pairs is not None)
                yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.tiers[LINK_TIERS[fa.topology][tr.tier]]
                                .links_path, f"{tr.tier}: {rest}{fix}", count(len(bad)), count(0),
                                public=f"{said(tr.tier)}: {rest}{words}")


def _fix(fa, tier: str, label: str, leg: int, fat_tree: bool) -> tuple[str, str]:
    """CAB008's fix in its message, the team's and the customer's: optics first, or a spine count filling each pair.

    A run takes the first option in the tier's list that reaches it (docs/clusters.md, Media choice), so an optical
    option listed before the copper one carries every run it reaches. Between leaves and spines of a fat tree each
    leaf's uplinks spread evenly over the spines it reaches (`spine.count`, per pod at 3 tiers), so uplinks / leg
    spines give each pair `leg` links, where that is a whole number of at least 2 (newuser105: 32 spines a pod, 1 link
    a pair on a 2-link DAC, and the warning named no fix). Whether that many spines reach every leaf is NET003's.
    """
    key = f"links.{tier}"
    optics = f"; fix: list an optical option before {label} (`{key}`), so that the runs it reaches take it"
    said_optics = f"; list an optical option before {label}, so that the runs it reaches take it"
    up = fa.tier_at("leaf").up if fat_tree and tier == "leaf_spine" else 0
    spines = up // leg if up and up % leg == 0 else 0
    if spines < 2:
        return optics, said_optics
    each = f"{leg} of each leaf's {up} uplinks a spine"
    return (f"{optics}, or give each pair a multiple of {leg} links (`spine.count: {spines}`: {each})",
            f"{said_optics}, or give each pair a multiple of {leg} links ({spines} spines: {each})")
