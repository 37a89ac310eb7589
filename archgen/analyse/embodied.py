"""A cluster's embodied carbon: its parts' product carbon footprints over its bill of materials (newuser75).

    embodied_carbon = sum over the BOM's lines of quantity × the part's `embodied_carbon.value`

a rack line counting its empty rack's figure. A line fitted in a system (`BomLine.within`) is left out: the system's
footprint covers what is fitted in it, as its price does; so are the accessories counted by rule with no catalog
part (rails, blanking panels, cords and patch cords), as from the capex (`Cost.accessories`). The total is scope 3
(the GHG Protocol's category 2, capital goods), beside, never in, the scope 2 `carbon_per_year`. It is not provided
where any line's part states no footprint, or where the footprints state different boundaries (cradle-to-gate
against cradle-to-grave: a grave boundary counts the use phase scope 2 already counts), or where they are all
cradle-to-grave (review38: the GHG Protocol's Scope 3 Standard, 2011, chapter 5, category 2, counts capital goods
cradle-to-gate, so a grave total would hold the use phase beside scope 2); the reason names the parts.
No catalog part states one: NVIDIA has published product carbon footprint summaries for HGX H100 and HGX B200
(NVIDIA Technical Blog, "NVIDIA HGX B200 Reduces Embodied Carbon Emissions Intensity", 2025), none for GB200 or
GB300 NVL72 that archgen could read, and an HGX baseboard's figure is not a whole system's.
"""

from __future__ import annotations

from typing import Any

from archgen.analyse.cost_load import stated_lines
from archgen.analyse.network import ClusterAnalysis
from archgen.units import Q
from archgen.validate import Specs


def _named(counts: dict[str, int]) -> str:
    """'a x2, b x4' for the first three parts, then how many more."""
    names = [f"{p} x{n:,}" for p, n in sorted(counts.items())]
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def embodied_figures(specs: Specs, a: ClusterAnalysis) -> tuple[dict[str, Q], dict[str, str]]:
    """The cluster's `embodied_carbon` where every BOM line's part states one of one boundary, else why not."""
    total = Q(0, "kg")
    missing: dict[str, int] = {}
    boundaries: dict[str, set[str]] = {}
    for line, part in stated_lines(specs, a):
        if line.within:   # fitted in a system: in the system's footprint
            continue
        doc: Any = part
        if line.kind == "Rack":
            rack = a.cluster.rack_types.get(line.part)
            doc = rack.spec if rack is not None else None
        if doc is None:   # an accessory counted by rule (rails, panels, cords): no part, left out as from the capex
            continue
        stated = getattr(doc, "embodied_carbon", None)
        if stated is None:
            missing[line.part] = missing.get(line.part, 0) + line.quantity
            continue
        total = total + stated.value * line.quantity
        boundaries.setdefault(stated.boundary, set()).add(line.part)
    if missing:
        return {}, {"embodied_carbon": f"no `embodied_carbon` (product carbon footprint) stated for {_named(missing)}"}
    if len(boundaries) > 1:
        said = "; ".join(f"{b}: {', '.join(sorted(p)[:3])}" for b, p in sorted(boundaries.items()))
        return {}, {"embodied_carbon": f"the parts' footprints state different boundaries ({said})"}
    if not boundaries:
        return {}, {"embodied_carbon": "the cluster's bill of materials is empty"}
    if "cradle-to-gate" not in boundaries:   # all cradle-to-grave: their use phase is scope 2's electricity
        grave = ", ".join(sorted(boundaries["cradle-to-grave"])[:3])
        return {}, {"embodied_carbon": f"the parts' footprints are cradle-to-grave ({grave}): their use phase is the "
                                       "electricity scope 2 counts, and capital goods are counted cradle-to-gate; "
                                       "state each footprint's cradle-to-gate figure"}
    return {"embodied_carbon": total.to("t")}, {}
