"""The note of a training layout whose TP, CP or EP groups straddle the scale-up domains they could fit in.

Megatron-core numbers ranks tp fastest and a domain holds consecutive ranks, so a group whose span (its members'
stride times its size) does not divide the domain is cut by domain boundaries: its worst group keeps fewer members in
one domain and sends the rest of its traffic over the scale-out NICs (`comm.placement.members_per_domain`; docs/
perf-model.md, Groups that straddle domains). The model times that, but nothing in the estimate said it, so a
sensitivity study read the layout's cut as the part's: DeepSeek-V3 FP8 at ep 32 on 576 parts of 72-accelerator
domains (newuser58) read elasticities of -0.749 to scale-out bandwidth and 0 to scale-up, EP 75 % of a 2.43 s step,
where ep 8 (whose groups stay inside a domain) takes 0.88 s. The note names each group that straddles a domain it
could fit in, the members its worst group keeps there, and what keeps it inside.
"""

from __future__ import annotations

from archgen.perf.comm.placement import domain_share, members_per_domain
from archgen.perf.hw.hardware import Hardware
from archgen.perf.train.ep_exposure import dispatch_group
from archgen.perf.train.job import Job, Layout


def straddle_note(hw: Hardware, job: Job, lay: Layout, moe: bool) -> list[str]:
    """The note of `lay`'s groups that the domain boundaries cut although one domain could hold them (empty else)."""
    d = domain_share(hw)
    if d <= 1 or hw.torus:
        return []
    tp, cp, ep = int(lay.tp), int(lay.cp), int(lay.ep)
    etp = tp if lay.etp is None else int(lay.etp)
    groups = [("TP", tp, 1), ("CP", cp, tp)]
    if moe and ep > 1:
        n, _ = dispatch_group(hw, job, ep, etp)
        groups.append(("EP" if int(n) == ep else "expert TPxEP", int(n), etp if int(n) == ep else 1))
    cut = []
    for what, n, stride in groups:
        k = int(members_per_domain(hw, n, stride))
        if 1 < n and n * stride <= d and k < n:
            cut.append(f"the {what} groups of {n} (span {n * stride} ranks) keep {k} of their {n} members in one "
                       "domain at worst")
    if not cut:
        return []
    return [f"groups straddle the scale-up domains of {d} accelerators, {d} not being a multiple of their span in "
            f"Megatron-core's rank order: {'; '.join(cut)}, the rest of their traffic crossing the scale-out network "
            "(docs/perf-model.md, Groups that straddle domains); the step time and its elasticities to scale-up and "
            f"scale-out bandwidth are this layout's cut, and a size whose span divides {d} keeps each group inside "
            "one domain"]
