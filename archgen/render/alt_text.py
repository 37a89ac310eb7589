"""Text alternatives of the diagrams: what each one shows, in words, from the figures it is drawn from.

A figure's caption names it ("Rack elevation of r, front and rear, coloured by part class"); its text alternative
says what a reader who cannot see it would otherwise miss: the parts and the units they take, the stages' loads and
capacities, the fabric's tiers and counts (WCAG 2.1 success criterion 1.1.1, non-text content; ISO 14289-1, PDF/UA-1,
7.3: a figure's alternate description). Each function reads the same analysis the diagram is drawn from
(`render.diagrams`, `render.cluster_diagrams`), so the words and the drawing agree; the documents carry it as the
PDF's ``/Alt``, the HTML SVG's ``<desc>`` (its accessible description, the caption staying its name) and Markdown's
image text (`blocks.Figure.alt`). The rack elevation's is `render.rack.elevation_alt`, beside `part_class`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from archgen.analyse.power_chain import Stage
from archgen.analyse.rack import RackAnalysis
from archgen.render import fmt


def _stage(title: str, stage: Stage, load: Any) -> str:
    """One panel of the power budget: the stage, its three capacities and the load drawn against them."""
    return (f"{title}: {stage.count} × {fmt.q(stage.unit_capacity, 'kW', 1)}, nameplate "
            f"{fmt.q(stage.unit_capacity * stage.count, 'kW', 1)}, usable ({stage.redundancy}) "
            f"{fmt.q(stage.usable, 'kW', 1)}, one unit lost {fmt.q(stage.after_one_loss, 'kW', 1)}, load "
            f"{fmt.q(load, 'kW', 1)}")


def power(a: RackAnalysis) -> str:
    """The power budget's panels in words (`diagrams.power_budget`)."""
    p = a.power
    panels = [_stage(fmt.sentence(st.kind), st, st.load) for st in p.stages]
    panels += [_stage(f"{fmt.sentence(g.kind)} after derating", g, g.load) for g in p.feed_groups]
    return f"Bar charts, one per stage of {a.rack.spec.id}'s power chain. " + "; ".join(panels) + "."


def cooling(a: RackAnalysis) -> str:
    """The heat split and the CDU group's bars in words (`diagrams.cooling_split`)."""
    c = a.cooling
    total = c.heat.m_as("kW") or 1.0
    parts = [("liquid", c.heat_liquid)]
    if c.rear_door is not None:
        parts.append(("rear door", c.rear_door.taken))
    parts.append(("air", c.heat_air))
    split = ", ".join(f"{label} {fmt.q(q, 'kW', 1)} ({fmt.pct(q.m_as('kW') / total)})" for label, q in parts)
    text = f"A bar of {a.rack.spec.id}'s {fmt.q(c.heat, 'kW', 1)} of heat split into {split}"
    if c.cdu is not None:
        path = a.rack.spec.cooling.liquid
        text += (f"; beside it the CDU group of {path.racks_per_cdu if path else 1} rack(s): group load "
                 f"{fmt.q(c.cdu_load, 'kW', 0)}, usable ({c.cdu.redundancy}) {fmt.q(c.cdu.usable, 'kW', 0)}, "
                 f"nameplate {fmt.q(c.cdu.unit_capacity * c.cdu.count, 'kW', 0)}")
    return text + "."


def topology(a: Any) -> str:
    """Each fabric's column of tiers in words, bottom up (`cluster_diagrams.topology`)."""
    columns = []
    for fa in a.fabrics:
        s = fa.fabric.spec
        names = list(fa.links)
        steps = [f"{fa.endpoint_ports + fa.reserved_ports:,} {s.role} ports"]
        for level, t in enumerate(fa.tiers):
            if level < len(names):
                steps.append(f"{fa.links[names[level]] * fa.planes:,} links")
            steps.append(f"{t.name}: {t.switches * fa.planes:,} × {t.switch.id if t.switch else 'no switch'}")
        columns.append(f"{s.id} ({fa.planes} plane(s), {len(fa.tiers)} tier(s)), bottom up: {', '.join(steps)}")
    return (f"{a.cluster.spec.id}'s fabrics by tier ({a.accelerators:,} accelerators), one column each. "
            + "; ".join(columns) + ".")


def floor(a: Any) -> str:
    """The floor plan's racks by row and type (`cluster_diagrams.floor_plan`)."""
    inst = a.cluster.instances
    rows = max(i.row for i in inst) + 1
    by_row: list[Counter[str]] = [Counter() for _ in range(rows)]
    for i in inst:
        by_row[i.row][i.rack.spec.id] += 1
    runs: list[tuple[int, int, str]] = []          # rows with the same racks told once: (first, last, racks)
    for r, c in enumerate(by_row):
        mix = ", ".join(f"{n} × {rid}" for rid, n in sorted(c.items())) or "no rack"
        if runs and runs[-1][2] == mix and runs[-1][1] == r - 1:
            runs[-1] = (runs[-1][0], r, mix)
        else:
            runs.append((r, r, mix))
    described = [f"row {lo + 1}: {mix}" if lo == hi else f"rows {lo + 1}-{hi + 1}, each: {mix}" for lo, hi, mix in runs]
    return (f"Plan of {a.cluster.spec.id}'s floor: {len(inst)} racks in {rows} row(s), each rack a box coloured by "
            f"its type. " + "; ".join(described) + ".")
