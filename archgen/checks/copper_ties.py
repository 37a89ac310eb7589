"""CAB011's findings: two copper assemblies of a tier that nothing separates at a run's length.

Split from `checks/cabling.py`, which registers the check, as `checks.fibre_grades` is for CAB009. A run takes the
copper option sold nearest its length, then the one drawing less (`analyse.copper_choice`); where two reach it,
sold as near its length and drawing the same, the first listed is counted and the design is refused here: the
list's order is no reason to buy one part rather than the other.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.copper_choice import EPS, cable_power, copper_rivals
from archgen.checks.registry import Context, Violation
from archgen.model.fabrics import LINK_TIERS
from archgen.model.field_words import said
from archgen.units import Q_


def copper_ties(ctx: Context) -> Iterator[Violation]:
    """Per tier, each pair of copper options tied on a run's length and power: the runs, their lengths, both ids."""
    for c in ctx.clusters.values():
        if c.cabling is None:
            continue
        options = {(t.fabric, t.tier): t.options for t in c.cabling.tiers}
        for tr in c.cabling.runs:
            fa = next((f for f in c.fabrics if f.fabric.spec.id == tr.fabric), None)
            opts = options.get((tr.fabric, tr.tier), ())
            if fa is None or not opts:
                continue
            where = fa.fabric.tiers[LINK_TIERS[fa.topology][tr.tier]].links_path
            for i, j, runs in copper_rivals(tr.length, tr.option, opts):
                taken, other = opts[i], opts[j]
                watts = cable_power(taken)
                if abs(cable_power(other) - watts) > EPS:   # the one drawing less was taken: said in the section
                    continue
                low, high = float(tr.length[runs].min()), float(tr.length[runs].max())
                span = f"{low:.1f} m" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f}-{high:.1f} m"
                rest = (f"{int(tr.weight[runs].sum())} link(s) of {span} are counted on {taken.label}, the first "
                        f"listed, where {other.label} is sold as near their length and draws the same "
                        f"({watts:g} W a cable): nothing separates the two, so the part bought would hang on the "
                        "list's order; expected one of them for the tier")
                yield Violation(fa.fabric.path, c.cluster.spec.id, where, f"{tr.tier}: {rest}",
                                Q_(watts, "W"), None, public=f"{said(tr.tier)}: {rest}")
