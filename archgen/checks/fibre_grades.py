"""CAB009's and CAT012's findings: fibre cords ordered longer than the reach of every fibre grade their part states.

Split from `checks/cabling.py` and `checks/catalog.py`, which register the checks, as `checks.copper_pairs` is for
CAB008. A cable takes its part's first grade that reaches its ordered length (`analyse.fibre_cords`: NVIDIA's
multimode optics, OM3 up to 30 m, OM4 past 30 m to 50 m, "MPO/LC Cable Requirements",
https://docs.nvidia.com/networking/display/intrcnctcabreqndr400eth/mpo/lc+cable+requirements); past every grade it
takes the last, which does not carry the link over that length. A part whose runs may go past every grade it states
(its reach past its last grade's) is an error at the part (CAT012, `short_grades`); a run within the last grade
ordered in a length bin past it (a cord of the bin's length, the rest coiled) is a warning at the design (CAB009,
`past_grades`), since an installer may cut or stock a shorter cord. Runs past the option's reach are CAB001's, and
runs to an end placed in no rack have no length of their own (CAB004): neither is judged here.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from archgen.analyse.fibre_cords import fibre_grades
from archgen.checks.reach_words import run_end
from archgen.checks.registry import Context, Violation
from archgen.model.field_words import said
from archgen.model.network import COPPER_MEDIA, Link
from archgen.units import Q_


def short_grades(ctx: Context) -> Iterator[Violation]:
    """CAT012: an optical part that serves runs (`Link.longest`) past the reach of every fibre grade it states.

    Its cords past the last grade's reach would be ordered as that grade, which does not carry the link that far;
    the part's data contradicts itself wherever it is used, so it is judged at the part, not at each design's runs
    (cab29: CAB009's error case, which no shipped part can raise). No shipped part does: each states its reach as
    its last grade's (NVIDIA's multimode optics: OM4 50 m; single-mode: OS2 at the module's reach).
    """
    for part in ctx.design.specs.of(Link):
        if not part.fibre or part.media in COPPER_MEDIA:
            continue
        top = part.fibre[-1]
        if part.longest > top.reach * (1 + 1e-9):
            listed = ", ".join(f"{g.grade} {g.reach.m_as('m'):g} m" for g in part.fibre)
            yield Violation(f"part/{part.id}", part.id, ("fibre", len(part.fibre) - 1, "reach"),
                            f"reach {part.longest.m_as('m'):g} m is past {top.grade}'s {top.reach.m_as('m'):g} m, "
                            f"the longest reach of the fibre grades it states ({listed}): the cord of a run past "
                            f"{top.reach.m_as('m'):g} m would be ordered as {top.grade}, which does not carry the "
                            f"link that far; expected a grade that reaches {part.longest.m_as('m'):g} m, or a reach "
                            "within its grades'", part.longest.to("m"), top.reach.to("m"))


def past_grades(ctx: Context) -> Iterator[Violation]:
    """Per tier and optical option: its cords whose length bin is past every grade, the run within it (warning).

    Runs past every grade come from a part whose reach is past its grades': CAT012 names the part.
    """
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
                bin_past = mine & (tr.length <= reach + 1e-9) & (tr.bin > reach + 1e-9)   # past it: CAT012
                listed = ", ".join(f"{g.grade} {g.reach.m_as('m'):g} m" for g in grades)
                part = opt.a.id if opt.a.fibre else opt.b.id
                tier = tr.tier if fa is not None else "trunk"
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
                                    Q_(float(tr.bin[k]), "m"), top.reach.to("m"),
                                    public=f"{said(tier)}: {rest}, or a grade or part with more reach")


def _count(tr, mask: np.ndarray) -> int:
    """Links of the runs where `mask` holds."""
    return int(tr.weight[mask].sum())


def _ends(c, tr, k: int) -> str:
    """'A to B': the two ends of run `k` (rack instance, U and part)."""
    return f"{run_end(c, int(tr.a_rack[k]), int(tr.a_u[k]))} to {run_end(c, int(tr.b_rack[k]), int(tr.b_u[k]))}"

