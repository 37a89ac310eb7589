"""Cluster diagrams: floor plan, fabric topology by tier, and the scaling chart.

The floor plan shows racks by row, coloured by type; the topology, tiers with counts; the scaling chart, switches,
transceivers and network power against accelerators as the design is doubled.

All scale to any cluster size: the floor plan is one image of rack-type indices (not one patch per rack) with at
most `MAX_LABELLED_ROWS` row labels, the topology draws one box per tier with its count, never one box per switch
or node, and the scaling chart plots the few sizes of `archgen.analyse.scaling.Scaling`.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch, Patch, Rectangle
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

from archgen.render import floor_domains, fmt, palette

#: Rack-type and port colours: the colour-blind-safe series of `archgen.render.palette`.
PALETTE = list(palette.SERIES)


def rack_colours(rack_ids: Any) -> dict[str, str]:
    """One colour per rack type, by the type's place among all the run's rack ids (sorted).

    Every cluster document and diagram of one render so gives a rack type the same colour.
    """
    return {rid: PALETTE[k % len(PALETTE)] for k, rid in enumerate(sorted(set(rack_ids)))}


#: Largest rack count drawn rack by rack; beyond it the plan is one image of rack types per row and position.
MAX_DRAWN_RACKS = 5000
#: Most rows labelled one by one, with each aisle and a one-type row's rack type (issue 25). Beyond it, at 9 inches
#: high at most, their labels would overprint one another: every k-th row is labelled (at most this many labels) and
#: the aisles are stated once, under the title.
MAX_LABELLED_ROWS = 40


def floor_plan(a: Any, colours: dict[str, str] | None = None) -> Figure:
    """The floor in metres: racks at their positions (rack pitch, row pitch) and footprint, coloured by rack type.

    Rows alternate their fronts, so the aisles between them alternate cold (fronts facing) and hot (backs facing),
    cold first; the outline is the area the racks and the aisles between them take, with its dimensions. Cable
    lengths come from the same positions (`analyse.cabling`), so a row of spine racks stands where the runs put it.
    A scale-up domain over several racks is outlined with its trunk cables per pair of racks (`floor_domains`).
    """
    inst = a.cluster.instances
    floor = a.cluster.spec.floor
    pitch, row_pitch = floor.rack_pitch.m_as("m"), floor.row_pitch.m_as("m")
    types = sorted({i.rack.spec.id for i in inst})
    colours = colours or rack_colours(types)
    rows = max(i.row for i in inst) + 1
    cols = max(i.col for i in inst) + 1
    kinds = {i.rack.spec.id: i.rack.spec for i in inst}   # each rack type's footprint read once, not once per rack
    width = max(s.form_factor.width.m_as("m") for s in kinds.values())
    depth = max(s.form_factor.depth.m_as("m") for s in kinds.values())
    length_m, span_m = (cols - 1) * pitch + width, (rows - 1) * row_pitch + depth
    fig = Figure(figsize=(8.0, min(2.2 + 0.55 * rows, 9.0)))
    ax = fig.subplots()
    if len(inst) <= MAX_DRAWN_RACKS:
        from matplotlib.collections import PatchCollection

        boxes = [Rectangle((i.col * pitch, i.row * row_pitch), i.rack.spec.form_factor.width.m_as("m"),
                           i.rack.spec.form_factor.depth.m_as("m")) for i in inst]
        ax.add_collection(PatchCollection(boxes, facecolors=[colours[i.rack.spec.id] for i in inst],
                                          edgecolors="#333333", linewidths=0.3))
    else:
        grid = np.full((rows, cols), np.nan)
        index = {t: k for k, t in enumerate(types)}
        for i in inst:
            grid[i.row, i.col] = index[i.rack.spec.id]
        ax.imshow(grid, cmap=ListedColormap([colours[t] for t in types]), vmin=-0.5, vmax=len(types) - 0.5,
                  extent=(0, cols * pitch, rows * row_pitch, 0), aspect="auto", interpolation="nearest")
    ax.add_patch(Rectangle((0, 0), length_m, span_m, fill=False, edgecolor="#555555", linewidth=0.8,
                           linestyle="--"))
    labelled = rows <= MAX_LABELLED_ROWS
    every = 1 if labelled else math.ceil(rows / MAX_LABELLED_ROWS)
    aisle = row_pitch - depth
    for r in range(rows - 1) if labelled else ():           # the aisle between row r and row r + 1
        mid = r * row_pitch + depth + aisle / 2
        kind = "cold aisle" if r % 2 == 0 else "hot aisle"
        ax.text(length_m / 2, mid, f"{kind}, {aisle:.2f} m", ha="center", va="center", fontsize=6,
                color="#1f5fa0" if kind == "cold aisle" else "#b03a2e")
    row_types: list[set[str]] = [set() for _ in range(rows)]   # one pass over the racks, not one per row
    for i in inst:
        row_types[i.row].add(i.rack.spec.id)
    for r in range(0, rows, every):
        here = sorted(row_types[r])
        ax.text(-0.1, r * row_pitch + depth / 2, f"row {r + 1}", ha="right", va="center", fontsize=5.5)
        if len(here) == 1 and labelled:
            ax.text(length_m + 0.15, r * row_pitch + depth / 2, here[0], ha="left", va="center", fontsize=5.5,
                    color="#555555")
    ax.set_xlim(-2.7, length_m + 0.4 + (2.4 if labelled else 0))
    ax.set_ylim(span_m + 0.5, -1.6)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("metres along the row")
    ax.set_ylabel("metres across the rows")
    ax.annotate("", xy=(length_m, -0.5), xytext=(0, -0.5), arrowprops={"arrowstyle": "<->", "linewidth": 0.6})
    along = f"{cols} racks at {pitch:.2f} m" if cols > 1 else "1 rack"
    ax.text(length_m / 2, -0.7, f"{length_m:.2f} m: {along}", ha="center", va="bottom", fontsize=6)
    ax.annotate("", xy=(-1.7, span_m), xytext=(-1.7, 0), arrowprops={"arrowstyle": "<->", "linewidth": 0.6})
    across = f"{rows} rows at {row_pitch:.2f} m" if rows > 1 else "1 row"
    ax.text(-2.0, span_m / 2, f"{span_m:.2f} m: {across}", ha="right", va="center", fontsize=6, rotation=90)
    # no ticks left of the floor's edge: the margin holds the rotated dimension, which a '-2' tick label crossed
    ax.set_xticks([t for t in ax.get_xticks() if 0 <= t <= length_m + 0.4])
    counts = Counter(i.rack.spec.id for i in inst)
    handles = [Patch(facecolor=colours[t], edgecolor="#333333", label=f"{t} ({counts[t]})") for t in types]
    handles += floor_domains.draw(ax, a, pitch, row_pitch)   # multi-rack scale-up domains and their trunks
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=7)
    ax.set_title(f"{a.cluster.spec.id}: {len(inst)} racks in {rows} row{'s' if rows > 1 else ''}, "
                 f"{length_m:.1f} m × {span_m:.1f} m"
                 + ("" if labelled else f"\none row in {every} labelled; aisles {aisle:.2f} m, cold after odd "
                                        "rows, hot after even rows"),
                 loc="left", fontsize=9)
    fig.subplots_adjust(left=0.08, right=0.7)
    return fig


def _box(ax: Any, x: float, y: float, text: str, colour: str) -> None:
    ax.add_patch(FancyBboxPatch((x - 0.42, y - 0.2), 0.84, 0.4, boxstyle="round,pad=0.02", facecolor=colour,
                                edgecolor="#333333", linewidth=0.6))
    ax.text(x, y, text, ha="center", va="center", fontsize=6.5)


def topology(a: Any) -> Figure:
    """One column per fabric: nodes at the bottom, then each tier, with switch counts and link counts between."""
    fabrics = a.fabrics
    fig = Figure(figsize=(max(7.0, 2.3 * len(fabrics)), 3.6))
    ax = fig.subplots()
    colours = {"leaf": "#8fb3e0", "spine": "#4a90d9", "core": "#2f6db5"}
    top = 0
    for x, fa in enumerate(fabrics):
        s = fa.fabric.spec
        # every port its leaves take: nodes', other endpoints' (switch management, `endpoints.extra`), reserved
        _box(ax, x, 0, f"{fa.endpoint_ports + fa.reserved_ports:,} ports\n({s.role})", "#d9f0b5")
        links = fa.links
        names = list(links)
        for level, t in enumerate(fa.tiers, 1):
            n = t.switches * fa.planes
            _box(ax, x, level, f"{t.name}: {n:,} ×\n{t.switch.id if t.switch else '—'}",
                 colours.get(t.name, "#c9d6e8"))
            ax.plot([x, x], [level - 0.8, level - 0.2], color="#555555", linewidth=1)
            if level - 1 < len(names):
                ax.text(x + 0.04, level - 0.5, f"{links[names[level - 1]] * fa.planes:,} links", fontsize=6,
                        va="center")
            top = max(top, level)
        ax.text(x, top + 0.55 if fa.tiers else 0.55, f"{s.id} ({fa.planes} plane(s))", ha="center", fontsize=7.5,
                weight="bold")
    ax.set_xlim(-0.6, len(fabrics) - 0.4)
    ax.set_ylim(-0.4, top + 0.8)
    ax.axis("off")
    ax.set_title(f"{a.cluster.spec.id}: fabrics by tier ({a.accelerators:,} accelerators)", loc="left", y=1.0)
    return fig


TIER_STYLES = {"leaf": ("#8fb3e0", "o"), "spine": ("#4a90d9", "s"), "core": ("#2f6db5", "D")}


def scaling_chart(series: Any) -> Figure:
    """Switches, transceivers and network power against accelerators, on log axes.

    Left: switches per tier and transceivers; right: network power in total and per accelerator. The design
    itself is ringed.
    """
    points = series.points
    acc = [p.accelerators for p in points]
    fig = Figure(figsize=(7.0, 3.4))
    left, right = fig.subplots(1, 2)
    tiers = [t for t in ("leaf", "spine", "core") if any(t in p.switches_by_tier() for p in points)]
    for t in tiers:
        colour, marker = TIER_STYLES[t]
        left.plot(acc, [p.switches_by_tier().get(t) or np.nan for p in points], marker=marker, markersize=3.5,
                  color=colour, linewidth=1.0, label=f"{t} switches")
    left.plot(acc, [p.switch_total for p in points], color="#333333", linewidth=1.0, marker=".", label="all switches")
    # a size with links on no media (CAB003) has no total of transceivers or network power: no point drawn
    left.plot(acc, [p.transceivers if p.transceivers and not p.no_media else np.nan for p in points],
              color=palette.ORANGE, linewidth=1.2, marker="^", markersize=3.5, label="transceivers")
    power = [np.nan if p.no_media else fmt.magnitude(p.network_power, "kW") for p in points]
    per_acc = [np.nan if p.no_media else fmt.magnitude(p.network_power_per_accelerator, "W") for p in points]
    right.plot(acc, power, color=palette.VERMILLION, marker="o", markersize=3.5, linewidth=1.2,
               label="network power (kW)")
    twin = right.twinx()
    twin.plot(acc, per_acc, color=palette.REDDISH_PURPLE, marker="s", markersize=3, linewidth=1.0,
              linestyle="--", label="per accelerator (W)")
    twin.set_ylabel("W per accelerator")
    twin.set_ylim(0, max([v for v in per_acc if not np.isnan(v)] + [1.0]) * 1.3)
    twin.spines["right"].set_visible(True)
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_xlabel("accelerators")
        ax.grid(which="major", color="#dddddd", linewidth=0.5)
        if len(acc) > 1:
            ax.set_xticks(acc, [fmt.number(a) for a in acc], fontsize=6, rotation=45)
        ax.minorticks_off()
    powered = not all(np.isnan(power))   # none at any size: links on no media (CAB003), an empty linear axis
    if not powered:
        right.text(0.5, 0.5, "not provided:\nlinks without link media", transform=right.transAxes, ha="center",
                   va="center", fontsize=7)
    for ax in (left, right) if powered else (left,):   # plain labels: log axes' mathtext is slow to draw
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt.number(v, 1 if v < 1 else 0)))
        ax.yaxis.set_minor_locator(NullLocator())
    left.set_ylabel("count")
    right.set_ylabel("kW")
    left.plot([acc[0]], [points[0].switch_total], marker="o", markersize=9, markerfacecolor="none",
              markeredgecolor="#333333", linestyle="")
    left.legend(fontsize=6, frameon=False, loc="upper left")
    handles = right.get_legend_handles_labels()[0] + twin.get_legend_handles_labels()[0]
    right.legend(handles=handles, fontsize=6, frameon=False, loc="upper left")
    left.set_title(f"{series.cluster}: network as the design doubles", loc="left")
    fig.tight_layout()
    return fig
