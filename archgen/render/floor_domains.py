"""The floor plan's multi-rack scale-up domains: each domain's racks outlined together, its trunk cables per rack pair.

A domain of `scale_up.racks: R` racks (GB200 NVL36x2: R = 2) is R consecutive racks with accelerators in floor
order (`analyse.scale_up_racks.domain_racks`); its racks are outlined in black, one outline per run of neighbouring
racks of one row, each labelled with the domain's number (D1, D2, ... in floor order). Each pair of its racks is
joined by one line carrying its trunk cable count (`analyse.trunk_pairs`): solid and straight where the cabling laid
the pair's cables straight across between neighbours of one row (`floor.side_by_side`), dashed where they go up to
the overhead tray, along it (across rows where the pair straddles two) and down. Lines are vermillion with a white
edge, so they stay visible on any rack colour, and the two paths differ by line style as well, never by colour alone
(`palette`).

The same figures give words to append to the figure's caption and to its text alternative (`domain_words`;
`alt_text.floor`). One-rack domains
draw and say nothing, so their floor plans are as before. Above `MAX_LABELLED` domains or pairs the labels would
overprint: the counts are stated once, in the legend and the caption.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from matplotlib import patheffects
from matplotlib.collections import LineCollection, PatchCollection
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from archgen.analyse.trunk_pairs import TrunkPair, domain_groups, trunk_pairs
from archgen.render import fmt, palette

DOMAIN_COLOUR = palette.BLACK
TRUNK_COLOUR = palette.VERMILLION
#: Most domains labelled, and most rack pairs given their cable count, one by one on the plan.
MAX_LABELLED = 40
#: Most domains drawn: beyond it (5,000 racks of two-rack domains) the plan is one image of rack types
#: (`cluster_diagrams.MAX_DRAWN_RACKS`) whose outlines would be thinner than a pixel; the caption says so.
MAX_DRAWN = 2500
#: Most domains the caption names rack by rack; beyond it, it gives their number and size.
MAX_NAMED = 8
#: Outline inset along the row (m), so the outlines of two neighbouring domains stay apart, and margin across it.
INSET_M, MARGIN_M = 0.05, 0.12
_HALO = [patheffects.withStroke(linewidth=2.6, foreground="white")]


def _cable_range(pairs: list[TrunkPair]) -> str:
    """'648' or '324-648': the cables a pair of racks holds."""
    low, high = min(p.cables for p in pairs), max(p.cables for p in pairs)
    return fmt.number(low) if low == high else f"{fmt.number(low)}-{fmt.number(high)}"


def _numbers(n: int) -> str:
    """'D1', 'D1 and D2', 'D1 to D5': the labels of `n` domains."""
    return "D1" if n == 1 else "D1 and D2" if n == 2 else f"D1 to D{n}"


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", name)


def draw(ax: Any, a: Any, pitch: float, row_pitch: float) -> list[Any]:
    """Outline each multi-rack domain and draw its trunk runs on the floor plan `ax`; the legend handles to add."""
    groups = domain_groups(a)
    if not groups.size or len(groups) > MAX_DRAWN:
        return []
    inst = a.cluster.instances
    pos = {}
    for k in {int(r) for r in groups.ravel()}:
        i = inst[k]
        ff = i.rack.spec.form_factor
        pos[k] = (i.col * pitch, i.row * row_pitch, ff.width.m_as("m"), ff.depth.m_as("m"), i.row, i.col)
    outlines = []
    labelled = len(groups) <= MAX_LABELLED
    for d, members in enumerate(groups, 1):
        segments: list[list[int]] = []
        for k in sorted((int(r) for r in members), key=lambda r: (pos[r][4], pos[r][5])):
            last = segments[-1][-1] if segments else None
            if last is not None and pos[last][4] == pos[k][4] and pos[k][5] == pos[last][5] + 1:
                segments[-1].append(k)
            else:
                segments.append([k])
        for seg in segments:
            x0, y0 = pos[seg[0]][0], pos[seg[0]][1]
            x1 = pos[seg[-1]][0] + pos[seg[-1]][2]
            depth = max(pos[k][3] for k in seg)
            outlines.append(Rectangle((x0 + INSET_M, y0 - MARGIN_M), x1 - x0 - 2 * INSET_M, depth + 2 * MARGIN_M))
        for part, seg in enumerate(segments if labelled else (), 1):   # the shared label on each of its runs
            x0, x1 = pos[seg[0]][0], pos[seg[-1]][0] + pos[seg[-1]][2]
            ax.text((x0 + x1) / 2, pos[seg[0]][1] + max(pos[k][3] for k in seg) + MARGIN_M + 0.05, f"D{d}",
                    ha="center", va="top", fontsize=5.5, color=DOMAIN_COLOUR, gid=f"floor-domain-D{d}-{part}")
    ax.add_collection(PatchCollection(outlines, facecolors="none", edgecolors=DOMAIN_COLOUR, linewidths=1.3,
                                      gid="floor-scale-up-domains"))
    pairs = trunk_pairs(a)
    handles: list[Any] = [Patch(facecolor="none", edgecolor=DOMAIN_COLOUR, linewidth=1.3,
                                label=f"scale-up domain of {groups.shape[1]} racks ("
                                      + (f"D1-D{len(groups)})" if labelled else f"{len(groups)})"))]
    if not pairs:
        return handles
    straight, tray = _routes(ax, a, pairs, pos)
    for dashed, name, chosen in ((False, "straight across", straight), (True, "via the tray", tray)):
        if chosen:
            handles.append(Line2D([], [], color=TRUNK_COLOUR, linestyle="--" if dashed else "-", linewidth=1.4,
                                  label=f"trunk cables {name} ({_cable_range(chosen)} a pair)"))
    return handles


def _routes(ax: Any, a: Any, pairs: tuple[TrunkPair, ...], pos: dict) -> tuple[list[TrunkPair], list[TrunkPair]]:
    """Draw each pair's trunk path(s) and, when few, its cable count; the pairs drawn straight and via the tray."""
    straight_lines, tray_lines = [], []
    straight, tray = [], []
    names = a.cabling.rack_names if a.cabling is not None else ()
    labelled = len(pairs) <= MAX_LABELLED
    nth: Counter[int] = Counter()   # pairs drawn from each A rack so far: their tray lines at staggered heights
    for p in pairs:
        xa, ya, wa, da, *_ = pos[p.a]
        xb, yb, wb, db, *_ = pos[p.b]
        ca, cb = (xa + wa / 2, ya + da / 2), (xb + wb / 2, yb + db / 2)
        if p.straight:
            straight.append(p)
            straight_lines.append([(ca[0], ca[1] + da * 0.15), (cb[0], cb[1] + db * 0.15)])
            at = ((ca[0] + cb[0]) / 2, ca[1] + da * 0.15)
        if p.straight < p.cables:
            tray.append(p)
            level = 0.35 - 0.1 * (nth[p.a] % 3)   # the tray line over the racks, a fraction of their depth
            nth[p.a] += 1
            ta, tb = ya + da * level, yb + db * level
            tray_lines.append([ca, (ca[0], ta), (cb[0], ta), (cb[0], tb), cb])
            at = ((ca[0] + cb[0]) / 2, ta) if ya == yb else (ca[0], ta)
        if labelled:
            text = fmt.number(p.cables)
            end = (f"{_safe(names[p.a])}-{_safe(names[p.b])}" if len(names) > max(p.a, p.b)
                   else f"{p.a + 1}-{p.b + 1}")
            ax.text(at[0], at[1], text, ha="center", va="bottom", fontsize=5, color=TRUNK_COLOUR,
                    path_effects=_HALO, gid=f"floor-trunk-{end}-{p.cables}-cables")
    for lines, style, gid in ((straight_lines, "solid", "floor-trunks-straight"),
                              (tray_lines, "dashed", "floor-trunks-via-tray")):
        if lines:
            ax.add_collection(LineCollection(lines, colors=TRUNK_COLOUR, linestyles=style, linewidths=1.4,
                                             path_effects=_HALO, gid=gid))
    return straight, tray


def domain_words(a: Any) -> str:
    """The text alternative of `draw`: '; ...' to append to the floor plan's caption, or '' (no multi-rack domain)."""
    groups = domain_groups(a)
    if not groups.size:
        return ""
    names = a.cabling.rack_names if a.cabling is not None else tuple(i.name for i in a.cluster.instances)
    pairs = trunk_pairs(a)
    n, r = groups.shape
    if n > MAX_DRAWN:
        return (f"; {n:,} scale-up domains of {r} racks, {fmt.number(pairs[0].cables) if pairs else 'no'} trunk "
                f"cables a pair of racks: not drawn at this size")
    text = (f"; {n} scale-up domain{'s' if n != 1 else ''} of {r} racks, each outlined in black"
            + (f" and labelled {_numbers(n)}" if n <= MAX_LABELLED else ""))
    if n <= MAX_NAMED:
        text += " (" + "; ".join(f"D{d}: " + ", ".join(names[int(k)] for k in members)
                                 for d, members in enumerate(groups, 1)) + ")"
    if not pairs:
        return text + "; no trunk cables laid"
    straight = [p for p in pairs if p.straight]
    tray = [p for p in pairs if p.straight < p.cables]
    ways = []
    if straight:
        ways.append(f"{len(straight)} pair{'s' if len(straight) != 1 else ''} straight across between neighbours "
                    f"(floor.side_by_side; solid line), {_cable_range(straight)} cables a pair")
    if tray:
        ways.append(f"{len(tray)} pair{'s' if len(tray) != 1 else ''} via the overhead tray (dashed line), "
                    f"{_cable_range(tray)} cables a pair")
    longest = max(p.longest for p in pairs)
    return (text + "; their trunk cables drawn in vermillion, one line per pair of racks"
            + (" with its cable count" if len(pairs) <= MAX_LABELLED else "") + ": " + "; ".join(ways)
            + f"; longest trunk run {longest:.2f} m")
