"""CAB009's findings: fibre cords ordered longer than the reach of every fibre grade their part states.

Split from `checks/cabling.py`, which registers the check, as `checks.copper_pairs` is for CAB008. A cable takes its
part's first grade that reaches its ordered length (`analyse.fibre_cords`: NVIDIA's multimode optics, OM3 up to 30 m,
OM4 past 30 m to 50 m, "MPO/LC Cable Requirements",
https://docs.nvidia.com/networking/display/intrcnctcabreqndr400eth/mpo/lc+cable+requirements); past every grade it
takes the last, which does not carry the link over that length. The run past every grade is an error; a run within
the last grade ordered in a length bin past it (a cord of the bin's length, the rest coiled) is a warning, since an
installer may cut or stock a shorter cord. Runs past the option's reach are CAB001's, and runs to an end placed in
no rack have no length of their own (CAB004): neither is judged here.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from archgen.analyse.fibre_cords import fibre_grades
from archgen.checks.reach_words import run_end
from archgen.checks.registry import Context, Violation
from archgen.model.field_words import said
from archgen.model.network import COPPER_MEDIA
from archgen.units import Q_


def past_grades(ctx: Context) -> Iterator[Violation]:
    """Per tier and optical option: its runs past every grade (error), its cords whose bin only is (warning)."""
    for c in ctx.clusters.values():
        if c.cabling is None:
            continue
        tiers = {(t.fabric, t.tier): t for t in c.cabling.tiers}
        for tr in (*c.cabling.runs, *c.cabling.trunk_runs):
            t = tiers.get((tr.fabric, tr.tier))
            if t is None:
                continue
            fa = next((f for f in c.fabrics if f.fabric.spec.id == tr.fabric), None)
            subject = c.cluster.path if fa is None else fa.fabric.path
            placed = (tr.a_rack >= 0) & (tr.b_rack >= 0)
            for i, opt in enumerate(t.options):
                grades = fibre_grades(opt)
                if not grades or opt.a.media in COPPER_MEDIA:
                    continue
                top = grades[-1]
                reach = float(top.reach.m_as("m"))
                mine = placed & (tr.option == i) & (tr.length <= opt.reach.m_as("m") + 1e-9)   # past it: CAB001
                run_past = mine & (tr.length > reach + 1e-9)
                bin_past = mine & ~run_past & (tr.bin > reach + 1e-9)
                listed = ", ".join(f"{g.grade} {g.reach.m_as('m'):g} m" for g in grades)
                part = opt.a.id if opt.a.fibre else opt.b.id
                tier = tr.tier if fa is not None else "trunk"
                if run_past.any():
                    k = int(np.argmax(np.where(run_past, tr.length, -1.0)))
                    rest = (f"{_count(tr, run_past)} link(s) on {opt.label} up to {tr.length[k]:.1f} m (the longest "
                            f"from {_ends(c, tr, k)}, ordered at {tr.bin[k]:g} m) exceed {top.grade}'s {reach:g} m, "
                            f"the longest reach of the fibre grades {part} states ({listed}): the cord is ordered "
                            f"as {top.grade}, which does not carry the link that far; expected a fibre grade that "
                            f"reaches {tr.length[k]:.1f} m, or a part with more reach")
                    yield Violation(subject, c.cluster.spec.id, opt.path, f"{tier}: {rest}",
                                    Q_(float(tr.length[k]), "m"), top.reach.to("m"),
                                    public="" if said(tier) == tier else f"{said(tier)}: {rest}")
                if bin_past.any():
                    k = int(np.argmax(np.where(bin_past, tr.bin, -1.0)))
                    rest = (f"{_count(tr, bin_past)} link(s) on {opt.label}, runs up to "
                            f"{float(tr.length[bin_past].max()):.1f} m within {top.grade}'s {reach:g} m, are "
                            f"ordered as cords up to {tr.bin[k]:g} m long (their length bin; the longest from "
                            f"{_ends(c, tr, k)}, a {tr.length[k]:.1f} m run): past the {reach:g} m of {top.grade}, "
                            f"the longest-reach grade {part} states ({listed}); expected a length bin at or below "
                            f"{reach:g} m")
                    yield Violation(subject, c.cluster.spec.id, opt.path,
                                    f"{tier}: {rest} (`floor.length_bins`), or a grade or part with more reach",
                                    Q_(float(tr.bin[k]), "m"), top.reach.to("m"), severity="warning",
                                    public=f"{said(tier)}: {rest}, or a grade or part with more reach")


def _count(tr, mask: np.ndarray) -> int:
    """Links of the runs where `mask` holds."""
    return int(tr.weight[mask].sum())


def _ends(c, tr, k: int) -> str:
    """'A to B': the two ends of run `k` (rack instance, U and part)."""
    return f"{run_end(c, int(tr.a_rack[k]), int(tr.a_u[k]))} to {run_end(c, int(tr.b_rack[k]), int(tr.b_u[k]))}"

